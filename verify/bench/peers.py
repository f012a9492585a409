"""Experiment ``peers``: swagkit against the libraries a user would pick instead (issue 16).

Every line is a ratio measured in one run: the contender and its baseline run alternately on the same input,
``repeat`` pairs, and the line reports the median of the paired ratios (baseline time / contender time: above 1,
swagkit is faster), each time the fastest of a few calls (about 30 ms of them; :func:`best_time`). Ratios are
robust to the load of a shared machine; the absolute items/s beside them (the contender's best time) are not.

1. **array drivers**, window 4096 over 2 M random floats: against bottleneck's ``move_sum`` (sum lines) and
   ``move_max``/``move_min`` (max/min lines). Targets (issue 16): ``window_sum`` (float answers within each
   frame's any-order error bound, ``swagkit.optimized._window_sum``) and the typed sum_i64 paths ≥ 0.8×; SlickDeque
   (Non-Inv) max/min ≥ 2×; every in-order array driver ≥ 1×. ``window_array(SlickDequeInv, sum_f64)`` is the
   exact reference ⊗ sequence (the path ``window_sum`` improves on). Peers: pandas ``rolling`` and numpy
   ``sliding_window_view`` (O(n·w): run on a 32× shorter input, against the baseline on that input).
2. **per-call API**, window 4096 over 200 k Python floats, swagkit's best typed class per operator from a Python
   loop against per-element Python peers: a plain-Python monotonic deque (max) or running sum (sum), PyPI
   ``rolling``, river. Ratio = peer time / swagkit time; target ≥ 3× for the one-call loop (``shift(v)``: evict,
   insert, query), shown beside the three-call loop (``evict(); insert(v); query()``). The "floor" lines run the
   loops over C built-ins that do nothing useful (one ``abs(v)`` per item; three no-op methods): no per-call API
   of one or three calls per item can beat them.
3. **accuracy of the float sums** (issue 24), same window, over as many floats with twenty ±1e17 spikes
   (:func:`.sum_accuracy.spiked_floats`): each contender's worst error as a share of its frame's any-order bound
   ``γ_{n−1}·Σ|x|``, computed exactly (:func:`.sum_accuracy.worst_share_of_bound`). Target: ``window_sum`` at
   most 1 (the check reads bound / worst error ≥ 1×); ``window_array(SlickDequeInv, sum_f64)``, subtract-on-evict
   kept within the bound by its drift control (:mod:`swagkit.spec.f64_track`), and bottleneck's ``move_sum``,
   plain subtract-on-evict, are shown beside it.

The progress lines give both sides' items/s beside each ratio. Missing peers (bottleneck, pandas, rolling, river:
the ``bench`` extra) are skipped with a note.
benchmarks/bench_peers.py prints the lines of sections 1 and 2 as a table.
"""

from __future__ import annotations

import collections
import functools
import importlib
import math
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import swagkit.optimized as opt
from swagkit.spec.library import max_f64, min_f64, sum_f64, sum_i64

from . import timing
from .report import Check, Outcome, Ratio, Row
from .sum_accuracy import spiked_floats, worst_share_of_bound

__all__ = [
    "ID",
    "TITLE",
    "Sizes",
    "FULL",
    "QUICK",
    "TINY",
    "run",
    "PeerLine",
    "array_lines",
    "per_call_lines",
    "accuracy_shares",
]

ID = "peers"
TITLE = "swagkit against bottleneck, pandas, numpy, rolling, river and a plain-Python deque (issue 16)"
IN_ORDER = ("TwoStacks", "TwoStacksLite", "DABA", "DABALite", "FlatFIT", "ReactiveAggregator")


@dataclass(frozen=True)
class Sizes:
    """Window, items of the array section, items of the per-call section, paired rounds."""

    window: int
    array_items: int
    call_items: int
    repeat: int


FULL = Sizes(4096, 2_000_000, 200_000, 7)
QUICK = Sizes(4096, 1 << 19, 50_000, 3)
TINY = Sizes(64, 1 << 12, 1 << 11, 2)


def optional(name: str, notes: list[str]) -> Any:
    """The module ``name``, or None (with a note in ``notes``) when the peer is not installed."""
    try:
        return importlib.import_module(name)
    except ImportError:
        notes.append(f"{name} is not installed (pip install swagkit[bench]): its lines are skipped")
        return None


def best_time(fn: Callable[[], Any], loops: int) -> float:
    """The fastest of ``loops`` calls: one sample, robust to a call interrupted by another process."""
    best = float("inf")
    for _ in range(loops):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def loops_for(fn: Callable[[], Any], budget: float = 0.03) -> int:
    """How many calls of ``fn`` make one sample of about ``budget`` seconds (at least one); the call also warms
    ``fn`` up (output pages, lazy imports)."""
    t0 = time.perf_counter()
    fn()
    return max(1, min(50, int(budget / max(time.perf_counter() - t0, 1e-9))))


def paired_times(base: Callable[[], Any], cont: Callable[[], Any], repeats: int) -> tuple[float, float, float]:
    """(median of the paired ratios base time / contender time, the contender's best time, the baseline's best
    time): the two run alternately (:func:`.timing.paired`), each sample the fastest of a few calls
    (:func:`best_time`)."""
    lb, lc = loops_for(base), loops_for(cont)
    base_rate, best_rate, ratio = timing.paired(
        lambda: 1.0 / best_time(base, lb), lambda: 1.0 / best_time(cont, lc), repeats
    )
    return ratio, 1.0 / best_rate, 1.0 / base_rate


@dataclass(frozen=True)
class PeerLine:
    """One measured ratio: ``name`` against ``baseline`` over ``n`` items; ``target`` the issue's, if any;
    ``seconds`` and ``baseline_seconds`` the two sides' best times."""

    section: str
    name: str
    baseline: str
    n: int
    ratio: float
    seconds: float
    target: float | None
    baseline_seconds: float

    def text(self) -> str:
        rate = self.n / self.seconds / 1e6
        target = f"≥ {self.target:g}×" if self.target is not None else ""
        verdict = "" if self.target is None else ("met" if self.ratio >= self.target else "MISSED")
        return (
            f"{self.section:9s} {self.name:44s} {self.baseline:22s} {rate:9.1f} {self.ratio:8.2f}× "
            f"{target:>7s} {verdict}"
        )


def array_lines(n: int, repeats: int, window: int, notes: list[str]) -> Iterator[PeerLine]:
    """Section 1: the array drivers against bottleneck (and the array peers)."""
    np = optional("numpy", notes)
    bn = optional("bottleneck", notes)
    if np is None or bn is None:
        return
    rng = np.random.default_rng(16)
    xf = rng.standard_normal(n)
    xi = rng.integers(-(10**6), 10**6, n)

    sums: list[tuple[str, Callable[[], Any], float | None]] = [
        ("window_sum sum_f64 (bounded error)", lambda: opt.window_sum(sum_f64(), xf, window), 0.8),
        ("window_sum sum_i64 (exact)", lambda: opt.window_sum(sum_i64(), xi, window), 0.8),
    ]
    for cls_name in ("SlickDequeInv", "SubtractOnEvict"):
        cls = getattr(opt, cls_name)
        sums.append(
            (f"window_array {cls_name} sum_i64", functools.partial(opt.window_array, cls, sum_i64(), xi, window), 0.8)
        )
    sums.append(
        (
            "window_array SlickDequeInv sum_f64 (⊗ seq)",
            lambda: opt.window_array(opt.SlickDequeInv, sum_f64(), xf, window),
            None,
        )
    )
    for cls_name in IN_ORDER:
        cls = getattr(opt, cls_name)
        sums.append(
            (f"window_array {cls_name} sum_f64", functools.partial(opt.window_array, cls, sum_f64(), xf, window), 1.0)
        )
    for name, fn, target in sums:
        ratio, secs, base_secs = paired_times(lambda: bn.move_sum(xf, window, min_count=1), fn, repeats)
        yield PeerLine("sum", name, "bottleneck move_sum", n, ratio, secs, target, base_secs)

    extremes: list[tuple[str, Any, Any, Callable[[], Any], float | None]] = [
        ("window_array SlickDequeNonInv max_f64", bn.move_max, opt.SlickDequeNonInv, max_f64, 2.0),
        ("window_array SlickDequeNonInv min_f64", bn.move_min, opt.SlickDequeNonInv, min_f64, 2.0),
    ]
    extremes += [(f"window_array {c} max_f64", bn.move_max, getattr(opt, c), max_f64, 1.0) for c in IN_ORDER]
    for name, peer, cls, monoid, target in extremes:
        ratio, secs, base_secs = paired_times(
            functools.partial(peer, xf, window, min_count=1),
            functools.partial(opt.window_array, cls, monoid(), xf, window),
            repeats,
        )
        yield PeerLine(monoid.__name__[:3], name, f"bottleneck {peer.__name__}", n, ratio, secs, target, base_secs)

    pd = optional("pandas", notes)
    if pd is not None:
        series = pd.Series(xf)
        for op, peer in (("sum", bn.move_sum), ("max", bn.move_max)):
            ratio, secs, base_secs = paired_times(
                functools.partial(peer, xf, window, min_count=1),
                functools.partial(_pandas_rolling, series, window, op),
                repeats,
            )
            yield PeerLine(
                op, f"peer: pandas rolling().{op}()", f"bottleneck {peer.__name__}", n, ratio, secs, None, base_secs
            )
    short = xf[: max(n // 32, window)]
    for op, peer in (("sum", bn.move_sum), ("max", bn.move_max)):
        ratio, secs, base_secs = paired_times(
            functools.partial(peer, short, window),
            functools.partial(_numpy_fold, short, window, op),
            max(2, repeats // 2),
        )
        name = f"peer: numpy sliding_window_view .{op} (n/32)"
        yield PeerLine(op, name, f"bottleneck {peer.__name__}", len(short) - window + 1, ratio, secs, None, base_secs)


def accuracy_shares(n: int, window: int, notes: list[str]) -> list[tuple[str, float]]:
    """Section 3: (contender, worst error / its frame's any-order bound) over ``n`` floats with twenty ±1e17
    spikes; ``window_sum`` first, then the subtract-on-evict sums shown for comparison (SlickDeque's with its drift
    control, bottleneck's plain one when installed). O(n) exact big-int arithmetic per contender (a few seconds
    for 2 M floats)."""
    values = spiked_floats(n)
    sums: list[tuple[str, Callable[[], Any]]] = [
        ("window_sum sum_f64", lambda: opt.window_sum(sum_f64(), values, window)),
        (
            "window_array SlickDequeInv sum_f64 (⊗ seq)",
            lambda: opt.window_array(opt.SlickDequeInv, sum_f64(), values, window),
        ),
    ]
    np, bn = optional("numpy", notes), optional("bottleneck", notes)
    if np is not None and bn is not None:
        sums.append(("bottleneck move_sum", lambda: bn.move_sum(np.array(values), window, min_count=1)))
    return [(name, worst_share_of_bound(values, list(fn()), window)) for name, fn in sums]


def _pandas_rolling(series: Any, window: int, op: str) -> Any:
    return getattr(series.rolling(window, min_periods=1), op)().to_numpy()


def _numpy_fold(x: Any, window: int, op: str) -> Any:
    """Every window folded from scratch, in C: O(n·w)."""
    np = importlib.import_module("numpy")
    return getattr(np.lib.stride_tricks.sliding_window_view(x, window), op)(axis=1)


# ---------------------------------------------------------------------------------------------------------------
# per-call peers (plain Python, one element at a time)


def swag_loop(agg: Any, data: list[Any], window: int) -> None:
    """The per-call API as a user writes it: bound methods, a local size counter."""
    insert, evict, query = agg.insert, agg.evict, agg.query
    size = 0
    for v in data:
        if size == window:
            evict()
        else:
            size += 1
        insert(v)
        query()


def shift_loop(agg: Any, data: list[Any], window: int) -> None:
    """The one-call API: fill the window, then one ``shift(v)`` (evict, insert, query) per item."""
    agg.insert_many(data[:window])
    shift = agg.shift
    for v in data[window:]:
        shift(v)


def _fresh_loop(cls: Any, monoid: Callable[[], Any], data: list[Any], window: int) -> None:
    swag_loop(cls(monoid()), data, window)


def _fresh_shift_loop(cls: Any, monoid: Callable[[], Any], data: list[Any], window: int) -> None:
    shift_loop(cls(monoid()), data, window)


def one_call_floor(data: list[Any], window: int) -> None:
    """One C call per item that takes the value and returns a new float (``abs``): what :func:`shift_loop` can
    not go below."""
    f = abs
    for v in data[window:]:
        f(v)


class NoOpCalls:
    """Three C methods that do nothing useful (``set.discard``, ``list.clear``, ``float.__abs__``): with
    :func:`swag_loop`, the cost of the calls themselves, which no per-call API can go below."""

    def __init__(self) -> None:
        self.insert, self.evict, self.query = set().discard, [].clear, (1.5).__abs__


def monotonic_deque_max(data: list[float], window: int) -> None:
    """The textbook sliding-window maximum: a deque of (index, value) with decreasing values."""
    dq: collections.deque[tuple[int, float]] = collections.deque()
    for i, v in enumerate(data):
        while dq and dq[-1][1] <= v:
            dq.pop()
        dq.append((i, v))
        if dq[0][0] <= i - window:
            dq.popleft()
        _ = dq[0][1]


def running_sum(data: list[float], window: int) -> None:
    """The textbook sliding-window sum: a deque of the window and a running total (subtract on evict)."""
    dq: collections.deque[float] = collections.deque()
    total = 0.0
    for v in data:
        if len(dq) == window:
            total -= dq.popleft()
        dq.append(v)
        total += v
        _ = total


def _python_peers(op: str, data: list[float], window: int, notes: list[str]) -> list[tuple[str, Callable[[], Any]]]:
    """The per-element Python peers of ``op`` ("max" or "sum") that are installed."""
    plain = monotonic_deque_max if op == "max" else running_sum
    peers: list[tuple[str, Callable[[], Any]]] = [
        ("plain monotonic deque" if op == "max" else "plain running sum", lambda: plain(data, window))
    ]
    rolling = optional("rolling", notes)
    if rolling is not None:
        kind = rolling.Max if op == "max" else rolling.Sum
        peers.append(("rolling", lambda: collections.deque(kind(data, window), maxlen=0)))
    river_stats, river_utils = optional("river.stats", notes), optional("river.utils", notes)
    if river_stats is not None and river_utils is not None:

        def river_run() -> None:
            stat = (
                river_stats.RollingMax(window)
                if op == "max"
                else river_utils.Rolling(river_stats.Sum, window_size=window)
            )
            for v in data:
                stat.update(v)
                stat.get()

        peers.append(("river", river_run))
    return peers


def per_call_lines(n: int, repeats: int, window: int, notes: list[str]) -> Iterator[PeerLine]:
    """Section 2: swagkit's per-call API against per-element Python peers (ratio = peer / swagkit time)."""
    data = [random.Random(16).random() for _ in range(n)]
    for op, cls, monoid in (
        ("max", opt.SlickDequeNonInv, max_f64),
        ("max", opt.DABALite, max_f64),
        ("sum", opt.SlickDequeInv, sum_f64),
        ("sum", opt.DABALite, sum_f64),
    ):
        for peer_name, peer in _python_peers(op, data, window, notes):
            # the peer is the baseline: the ratio is peer time / swagkit time (above 1: swagkit faster)
            base = f"{peer_name} ({op})"
            ratio, secs, base_secs = paired_times(
                peer, functools.partial(_fresh_shift_loop, cls, monoid, data, window), repeats
            )
            yield PeerLine(
                "per-call", f"{cls.__name__} {monoid.__name__} shift loop", base, n, ratio, secs, 3.0, base_secs
            )
            ratio, secs, base_secs = paired_times(
                peer, functools.partial(_fresh_loop, cls, monoid, data, window), repeats
            )
            yield PeerLine(
                "per-call", f"{cls.__name__} {monoid.__name__} 3-call loop", base, n, ratio, secs, None, base_secs
            )
            if cls is opt.DABALite and peer_name.startswith("plain"):
                # the ceilings of any per-call API: one C call per item (shift), three (evict, insert, query)
                ratio, secs, base_secs = paired_times(peer, functools.partial(one_call_floor, data, window), repeats)
                yield PeerLine("per-call", "floor: 1 C call returning a float", base, n, ratio, secs, None, base_secs)
                ratio, secs, base_secs = paired_times(peer, lambda: swag_loop(NoOpCalls(), data, window), repeats)
                yield PeerLine("per-call", "floor: 3 no-op C method calls", base, n, ratio, secs, None, base_secs)


def run(sizes: Sizes, progress: timing.Progress) -> Outcome:
    outcome = Outcome(ID, TITLE)
    notes: list[str] = []
    sections = (
        ("peers_array", array_lines(sizes.array_items, sizes.repeat, sizes.window, notes)),
        ("peers_per_call", per_call_lines(sizes.call_items, sizes.repeat, sizes.window, notes)),
    )
    for figure, lines in sections:
        for line in lines:
            rates = f"{line.n / line.seconds / 1e6:.1f} vs {line.n / line.baseline_seconds / 1e6:.1f} M items/s"
            progress.step(ID, f"{line.name} vs {line.baseline}: {line.ratio:.2f}× ({rates})")
            for metric, value in (("ratio", line.ratio), ("items_per_s", line.n / line.seconds)):
                outcome.rows.append(
                    Row(figure, line.name, line.section, line.baseline, "window", sizes.window, metric, value)
                )
            outcome.ratios.append(
                Ratio(f"{line.section}, window {sizes.window}", line.name, line.baseline, line.ratio, sizes.repeat)
            )
            if line.target is not None:
                outcome.checks.append(
                    Check(
                        f"{line.name} ≥ {line.target:g}× {line.baseline}",
                        f"{line.ratio:.2f}×",
                        line.ratio >= line.target,
                    )
                )
    _add_accuracy(outcome, sizes, notes, progress)
    outcome.notes += list(dict.fromkeys(notes))
    outcome.notes.append(
        "Ratios are baseline time / contender time (above 1: the contender is faster), medians of paired rounds; "
        "in the per-call section the peer is the baseline. No ⊗ counts here: the peers do not count."
    )
    return outcome


def _add_accuracy(outcome: Outcome, sizes: Sizes, notes: list[str], progress: timing.Progress) -> None:
    """Section 3 into ``outcome``: a row per contender, and the check that ``window_sum`` stays within the bound
    (its headroom, bound / worst error, rounded down so that the shown figure never passes a failing run)."""
    data = "20 ±1e17 spikes"
    for name, share in accuracy_shares(sizes.array_items, sizes.window, notes):
        progress.step(ID, f"{name}: worst error = {share:.3g} × the any-order bound ({data})")
        outcome.rows.append(
            Row("peers_accuracy", name, "sum", data, "window", sizes.window, "worst_error_share_of_bound", share)
        )
        if name.startswith(("window_sum", "window_array SlickDequeInv")):
            headroom = math.inf if share == 0 else math.floor(100.0 / share) / 100.0
            outcome.checks.append(
                Check(
                    f"{name} within the any-order bound, {data} (bound / worst error) ≥ 1×",
                    f"{headroom:g}×",
                    share <= 1.0,
                )
            )
