"""swagkit against the peers a user would pick instead (issue 16): a script, not a pytest test.

Every row is a ratio measured in this run: the row's contender and its baseline run alternately on the same
input, ``--repeats`` pairs, and the row reports the median of the paired
ratios (baseline time / contender time: above 1, swagkit is faster), with ``swagkit bench``'s timing helpers
(:mod:`swagkit.verify.bench.timing`); each time is the fastest of a few calls (about 30 ms of them). Ratios are
robust to the load of a shared machine; the absolute M items/s beside them (the contender's best time) are not.

1. **array drivers**, window 4096 over 2 M random floats (``--quick``: 2^19): against bottleneck's ``move_sum``
   (sum rows) and ``move_max``/``move_min`` (max/min rows). Targets (issue 16): ``window_sum`` (the
   subtract-on-evict sums, float error bound in ``swagkit.optimized._window_sum``) and the typed sum_i64 paths
   ≥ 0.8×; SlickDeque (Non-Inv) max/min ≥ 2×; every in-order array driver ≥ 1×. ``window_array(SlickDequeInv,
   sum_f64)`` is the exact reference ⊗ sequence (the path ``window_sum`` improves on). Peers: pandas ``rolling``
   and numpy ``sliding_window_view`` (O(n·w): run on a 32× shorter input, against the baseline on that input).
2. **per-call API**, window 4096 over 200 k Python floats (``--quick``: 50 k): insert/evict/query from a Python
   loop, swagkit's best typed class per operator against per-element Python peers: a plain-Python monotonic deque
   (max) or running sum (sum), PyPI ``rolling``, river. Ratio = peer time / swagkit time; target ≥ 3×. The
   "floor" rows run the same loop over three no-op C methods: no API of three calls per item can beat them.

Missing peers (bottleneck, pandas, rolling, river: the ``bench`` extra) are skipped with a note.

    python benchmarks/bench_peers.py            # 2 M floats, 7 repeats
    python benchmarks/bench_peers.py --quick    # 2^19 floats, 3 repeats
"""

from __future__ import annotations

import argparse
import collections
import importlib
import random
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

import swagkit.optimized as opt
from swagkit.spec.library import max_f64, min_f64, sum_f64, sum_i64
from swagkit.verify.bench import timing

WINDOW = 4096
IN_ORDER = ("TwoStacks", "TwoStacksLite", "DABA", "DABALite", "FlatFIT", "ReactiveAggregator")


def optional(name: str) -> Any:
    """The module ``name``, or None (with a note) when the peer is not installed."""
    try:
        return importlib.import_module(name)
    except ImportError:
        print(f"note: {name} is not installed (pip install swagkit[bench]); its rows are skipped")
        return None


def best_time(fn: Callable[[], Any], loops: int) -> float:
    """The fastest of ``loops`` calls: one sample, robust to a call interrupted by another process (2 cores are
    shared here)."""
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


def paired(base: Callable[[], Any], cont: Callable[[], Any], repeats: int) -> tuple[float, float]:
    """(median of the paired ratios base time / contender time, the contender's best time): the two run
    alternately by ``swagkit bench``'s :func:`~swagkit.verify.bench.timing.paired`, each sample the fastest of a
    few calls (:func:`best_time`)."""
    lb, lc = loops_for(base), loops_for(cont)
    _, best_rate, ratio = timing.paired(lambda: 1.0 / best_time(base, lb), lambda: 1.0 / best_time(cont, lc), repeats)
    return ratio, 1.0 / best_rate


@dataclass
class Row:
    section: str
    name: str
    baseline: str
    n: int
    ratio: float
    seconds: float
    target: float | None

    def line(self) -> str:
        rate = self.n / self.seconds / 1e6
        target = f"≥ {self.target:g}×" if self.target is not None else ""
        verdict = "" if self.target is None else ("met" if self.ratio >= self.target else "MISSED")
        return (
            f"{self.section:9s} {self.name:44s} {self.baseline:22s} {rate:9.1f} {self.ratio:8.2f}× "
            f"{target:>7s} {verdict}"
        )


def array_rows(n: int, repeats: int) -> Iterable[Row]:
    """Section 1: the array drivers against bottleneck (and the array peers)."""
    bn = optional("bottleneck")
    if bn is None:
        return
    rng = np.random.default_rng(16)
    xf = rng.standard_normal(n)
    xi = rng.integers(-(10**6), 10**6, n)

    def base_sum(x: Any = xf) -> Callable[[], Any]:
        return lambda: bn.move_sum(x, WINDOW, min_count=1)

    sums: list[tuple[str, Callable[[], Any], float | None]] = [
        ("window_sum sum_f64 (bounded error)", lambda: opt.window_sum(sum_f64(), xf, WINDOW), 0.8),
        ("window_sum sum_i64 (exact)", lambda: opt.window_sum(sum_i64(), xi, WINDOW), 0.8),
        ("window_array SlickDequeInv sum_i64", lambda: opt.window_array(opt.SlickDequeInv, sum_i64(), xi, WINDOW), 0.8),
        (
            "window_array SubtractOnEvict sum_i64",
            lambda: opt.window_array(opt.SubtractOnEvict, sum_i64(), xi, WINDOW),
            0.8,
        ),
        (
            "window_array SlickDequeInv sum_f64 (⊗ seq)",
            lambda: opt.window_array(opt.SlickDequeInv, sum_f64(), xf, WINDOW),
            None,
        ),
    ]
    for cls_name in IN_ORDER:
        cls = getattr(opt, cls_name)
        sums.append(
            (f"window_array {cls_name} sum_f64", lambda cls=cls: opt.window_array(cls, sum_f64(), xf, WINDOW), 1.0)
        )
    for name, fn, target in sums:
        ratio, secs = paired(base_sum(), fn, repeats)
        yield Row("sum", name, "bottleneck move_sum", n, ratio, secs, target)

    extremes: list[tuple[str, Any, Callable[[], Any], Callable[[], Any], float | None]] = [
        ("window_array SlickDequeNonInv max_f64", bn.move_max, opt.SlickDequeNonInv, max_f64, 2.0),
        ("window_array SlickDequeNonInv min_f64", bn.move_min, opt.SlickDequeNonInv, min_f64, 2.0),
    ]
    extremes += [(f"window_array {c} max_f64", bn.move_max, getattr(opt, c), max_f64, 1.0) for c in IN_ORDER]
    for name, peer, cls, monoid, target in extremes:
        ratio, secs = paired(
            lambda peer=peer: peer(xf, WINDOW, min_count=1),
            lambda cls=cls, monoid=monoid: opt.window_array(cls, monoid(), xf, WINDOW),
            repeats,
        )
        yield Row(monoid.__name__[:3], name, f"bottleneck {peer.__name__}", n, ratio, secs, target)

    pd = optional("pandas")
    if pd is not None:
        series = pd.Series(xf)
        for op, peer in (("sum", bn.move_sum), ("max", bn.move_max)):
            ratio, secs = paired(
                lambda peer=peer: peer(xf, WINDOW, min_count=1),
                lambda op=op: getattr(series.rolling(WINDOW, min_periods=1), op)().to_numpy(),
                repeats,
            )
            yield Row(op, f"peer: pandas rolling().{op}()", f"bottleneck {peer.__name__}", n, ratio, secs, None)
    short = xf[: max(n // 32, WINDOW)]
    view = np.lib.stride_tricks.sliding_window_view
    for op, peer in (("sum", bn.move_sum), ("max", bn.move_max)):
        ratio, secs = paired(
            lambda peer=peer: peer(short, WINDOW),
            lambda op=op: getattr(view(short, WINDOW), op)(axis=1),
            max(3, repeats // 2),
        )
        yield Row(
            op,
            f"peer: numpy sliding_window_view .{op} (n/32)",
            f"bottleneck {peer.__name__}",
            len(short) - WINDOW + 1,
            ratio,
            secs,
            None,
        )


# ---------------------------------------------------------------------------------------------------------------
# per-call peers (plain Python, one element at a time)


def swag_loop(agg: Any, data: list[Any]) -> None:
    """The per-call API as a user writes it: bound methods, a local size counter."""
    insert, evict, query = agg.insert, agg.evict, agg.query
    size = 0
    for v in data:
        if size == WINDOW:
            evict()
        else:
            size += 1
        insert(v)
        query()


class NoOpCalls:
    """Three C methods that do nothing useful (``set.discard``, ``list.clear``, ``float.__abs__``): with
    :func:`swag_loop`, the cost of the calls themselves, which no per-call API can go below."""

    def __init__(self) -> None:
        self.insert, self.evict, self.query = set().discard, [].clear, (1.5).__abs__


def monotonic_deque_max(data: list[float]) -> None:
    """The textbook sliding-window maximum: a deque of (index, value) with decreasing values."""
    dq: collections.deque[tuple[int, float]] = collections.deque()
    for i, v in enumerate(data):
        while dq and dq[-1][1] <= v:
            dq.pop()
        dq.append((i, v))
        if dq[0][0] <= i - WINDOW:
            dq.popleft()
        _ = dq[0][1]


def running_sum(data: list[float]) -> None:
    """The textbook sliding-window sum: a deque of the window and a running total (subtract on evict)."""
    dq: collections.deque[float] = collections.deque()
    total = 0.0
    for v in data:
        if len(dq) == WINDOW:
            total -= dq.popleft()
        dq.append(v)
        total += v
        _ = total


def per_call_rows(n: int, repeats: int) -> Iterable[Row]:
    """Section 2: swagkit's per-call API against per-element Python peers (ratio = peer / swagkit time)."""
    data = [random.Random(16).random() for _ in range(n)]
    rolling = optional("rolling")
    river_stats = optional("river.stats")
    river_utils = optional("river.utils")
    for op, cls, monoid in (
        ("max", opt.SlickDequeNonInv, max_f64),
        ("max", opt.DABALite, max_f64),
        ("sum", opt.SlickDequeInv, sum_f64),
        ("sum", opt.DABALite, sum_f64),
    ):
        peers: list[tuple[str, Callable[[], Any]]] = [
            (
                "plain monotonic deque" if op == "max" else "plain running sum",
                (lambda: monotonic_deque_max(data)) if op == "max" else (lambda: running_sum(data)),
            )
        ]
        if rolling is not None:
            kind = rolling.Max if op == "max" else rolling.Sum
            peers.append(("rolling", lambda kind=kind: collections.deque(kind(data, WINDOW), maxlen=0)))
        if river_stats is not None and river_utils is not None:

            def river_run(op: str = op) -> None:
                stat = (
                    river_stats.RollingMax(WINDOW)
                    if op == "max"
                    else river_utils.Rolling(river_stats.Sum, window_size=WINDOW)
                )
                for v in data:
                    stat.update(v)
                    stat.get()

            peers.append(("river", river_run))
        for peer_name, peer in peers:
            # the peer is the baseline: the ratio is peer time / swagkit time (above 1: swagkit faster)
            ratio, secs = paired(peer, lambda cls=cls, monoid=monoid: swag_loop(cls(monoid()), data), repeats)
            yield Row("per-call", f"{cls.__name__} {monoid.__name__} loop", f"{peer_name} ({op})", n, ratio, secs, 3.0)
            if cls is opt.DABALite and peer_name.startswith("plain"):
                # the ceiling of any API of three calls per item: the same loop over three no-op C methods
                ratio, secs = paired(peer, lambda: swag_loop(NoOpCalls(), data), repeats)
                yield Row("per-call", "floor: 3 no-op C method calls", f"{peer_name} ({op})", n, ratio, secs, None)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="2^19 floats, 50 k per-call items, 3 repeats")
    ap.add_argument("--repeats", type=int, default=None)
    ap.add_argument("--only", choices=("array", "per-call"), default=None)
    args = ap.parse_args(argv)
    repeats = args.repeats or (3 if args.quick else 7)
    n_array, n_call = (1 << 19, 50_000) if args.quick else (2_000_000, 200_000)
    print(f"swagkit.optimized compiled: {opt.COMPILED}; window {WINDOW}; median of {repeats} paired ratios")
    print(f"{'section':9s} {'contender':44s} {'baseline':22s} {'M items/s':>9s} {'ratio':>9s} {'target':>7s}")
    rows: list[Row] = []
    if args.only in (None, "array"):
        for row in array_rows(n_array, repeats):
            print(row.line(), flush=True)
            rows.append(row)
    if args.only in (None, "per-call"):
        for row in per_call_rows(n_call, repeats):
            print(row.line(), flush=True)
            rows.append(row)
    missed = [r for r in rows if r.target is not None and r.ratio < r.target]
    print(
        f"\n{len(rows) - len(missed)} of {len(rows)} rows with a target met; missed: "
        + (", ".join(f"{r.name} vs {r.baseline} ({r.ratio:.2f}× < {r.target:g}×)" for r in missed) or "none")
    )


if __name__ == "__main__":
    main()
