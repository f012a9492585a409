"""Experiment 004: paper 004's approximate structures -- space versus ε and disorder, update throughput, observed
error over its bound, and the q-digest against DataSketches' KLL at equal memory (paper 004 §6).

1. **Space and error versus ε and disorder**: for each ε and stream (``flow``: moderate disorder, ``looping``:
   severe; a full run adds the adversarial ``permutation``, ``bursts`` and ``two_heavy``), 20-bit time and value
   universes, the compiled structures are fed and compared with exact answers (:func:`measure`): the largest
   observed error divided by its guaranteed bound (≤ 1: the bound held) and the stored entries against the space
   bound -- q-digest ``4b/ε + 1`` ranges, window count ``α·(J + 1)``, window quantiles ``α·(J+1) + α·J·(8b/ε +
   1)``, value division summaries × ``(4b/β + 1)``.
2. **Update throughput**: one Python call per update (``insert``, and ``advance`` when the stream's clock moves),
   the four structures alternately on the same stream.
3. **q-digest vs KLL** (when the ``datasketches`` package is installed): KLL's ``k`` chosen so that its serialized
   size matches the q-digest's 16 bytes per range; the largest normalized rank error of each (KLL: worst over
   shuffles) and their per-call update rates, alternately.

benchmarks/measure_decay_bounds.py, bench_decay.py and bench_kll.py print the same measurements through this
module's functions.
"""

from __future__ import annotations

import bisect
import importlib
import itertools
import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import swagkit.optimized as opt
from swagkit.spec.checkers.value_division import estimate_value_division
from swagkit.spec.checkers.window_quantiles import estimate_decayed, estimate_window, rank_from
from swagkit.spec.decay import Decay, ExponentialDecay, PolynomialDecay
from swagkit.spec.decay.bounds import qdigest_size_bound, value_division_error, value_division_summary_bound
from swagkit.spec.decay.streams import Arrival, generate

from .report import Check, Figure, Outcome, Ratio, Row
from .timing import Progress, alternate

__all__ = [
    "ID",
    "TITLE",
    "BITS",
    "Sizes",
    "FULL",
    "QUICK",
    "TINY",
    "run",
    "Measured",
    "Truth",
    "measure",
    "feed",
    "max_rank_error",
    "kll_for_bytes",
    "qdigest_vs_kll",
]

ID = "004"
TITLE = "approximate structures: space vs ε and disorder, update throughput, error / bound, q-digest vs KLL (004 §6)"
BITS = 20


@dataclass(frozen=True)
class Sizes:
    """ε values and streams of the bound measurements (``items`` each), update throughput items and rounds, and
    the KLL comparison's items and shuffles."""

    eps: tuple[float, ...]
    kinds: tuple[str, ...]
    items: int
    update_items: int
    repeat: int
    kll_items: int
    kll_trials: int


FULL = Sizes(
    (0.1, 0.05, 0.01), ("flow", "looping", "permutation", "bursts", "two_heavy"), 100_000, 300_000, 5, 200_000, 5
)
QUICK = Sizes((0.1, 0.05), ("flow", "looping"), 20_000, 60_000, 3, 50_000, 3)
TINY = Sizes((0.1,), ("flow",), 2_000, 2_000, 2, 2_000, 2)


@dataclass(frozen=True)
class Measured:
    """One structure on one stream: the largest observed error over its bound (``error``; ``extra``: further
    ratios such as the quantile test's), stored entries and their bound, and the script's text columns."""

    structure: str
    error: float
    space: int
    space_bound: float
    error_text: str
    space_text: str
    extra: tuple[tuple[str, float], ...] = ()


class Truth:
    """Exact answers over (value, timestamp, weight) triples, by sorting (fast enough for 10^5 - 10^6 items)."""

    def __init__(self, arrivals: Sequence[Arrival]) -> None:
        self.now = arrivals[-1].now
        self.items = sorted((a.timestamp, a.value, a.weight) for a in arrivals)
        self.ts = [t for t, _, _ in self.items]

    def window(self, w: int) -> tuple[list[int], list[float]]:
        """Sorted distinct values of the window and prefix weights."""
        cut = self.now - w
        start = bisect.bisect_right(self.ts, cut)
        return self._profile((v, wt) for _, v, wt in self.items[start:])

    def decayed(self, g: Decay) -> tuple[list[int], list[float]]:
        return self._profile((v, wt * g(self.now - t)) for t, v, wt in self.items)

    @staticmethod
    def _profile(pairs: Any) -> tuple[list[int], list[float]]:
        acc: dict[int, float] = {}
        for v, wt in pairs:
            acc[v] = acc.get(v, 0) + wt
        vals = sorted(acc)
        return vals, list(itertools.accumulate((acc[v] for v in vals), initial=0))


def rank_lt(vals: list[int], prefix: list[float], x: int) -> float:
    return prefix[bisect.bisect_left(vals, x)]


def worst_rank_error(
    vals: list[int], prefix: list[float], ranges: list[tuple[int, Any]], scale: float, *, two_sided: bool = False
) -> float:
    his, est_prefix = rank_from(ranges)
    pts = sorted({0, 1 << BITS} | {v + 1 for v in vals} | {h + 1 for h in his})
    worst = 0.0
    for x in pts:
        est = est_prefix[bisect.bisect_left(his, x)]
        err = rank_lt(vals, prefix, x) - est
        worst = max(worst, abs(err) if two_sided else err)
    return worst / scale if scale > 0 else 0.0


def quantile_deviation(
    vals: list[int], prefix: list[float], total: float, ranges: list[tuple[int, Any]], scale: float
) -> float:
    """Largest violation margin of the two-sided quantile test over a φ grid, divided by ``scale``."""
    from swagkit.spec.checkers.window_quantiles import quantile_from

    d = prefix[-1]
    worst = 0.0
    for phi in [i / 20 for i in range(21)]:
        q = quantile_from(total, list(ranges), phi)
        if q is None:
            continue
        lt = rank_lt(vals, prefix, q)
        le = prefix[bisect.bisect_right(vals, q)]
        worst = max(worst, (lt - phi * d) / scale, (phi * d - le) / scale)
    return max(worst, 0.0)


def sample_windows(now: int, cutoffs: Sequence[int], k: int = 10) -> list[int]:
    ws = {1, now + 1}
    for tau in cutoffs:
        if tau >= 0:
            ws.update((now - tau, now - tau + 1))
    ws.update(int(round(math.exp(math.log(now + 1) * i / k))) for i in range(1, k + 1))
    return sorted(w for w in ws if w >= 1)


def measure(kind: str, n: int, eps: float) -> list[Measured]:
    """Error over bound and space over bound of the four structures on ``generate(kind, n)`` at ε."""
    arrivals = generate(kind, n, time_bits=BITS, value_bits=BITS, seed=7)
    truth = Truth(arrivals)
    out: list[Measured] = []
    # q-digest over the whole stream
    d = opt.QDigest(BITS, eps)
    d.insert_many([a.value for a in arrivals])
    d.compress()
    vals, prefix = truth.window(truth.now + 1)
    ranges = [(hi, c) for _, hi, c in d.ranges()]
    err = worst_rank_error(vals, prefix, ranges, eps * n)
    bound = qdigest_size_bound(BITS, eps)
    out.append(
        Measured(
            "qdigest", err, d.node_count(), bound, f"{err:.3f}",
            f"{d.node_count():,} / {bound:,} ({d.node_count() / n:.3f}·N)",
        )
    )  # fmt: skip

    def replay(s: Any, values: bool = True) -> Any:
        for a in arrivals:
            if a.now != s.now:
                s.advance(a.now)
            if values:
                s.insert(a.value, a.timestamp)
            else:
                s.insert(a.timestamp)
        return s

    # window count
    c = replay(opt.SlidingWindowCount(BITS, eps), values=False)
    worst = 0.0
    for w in sample_windows(c.now, c.cutoffs(), 40):
        dw = float(n - bisect.bisect_right(truth.ts, c.now - w))
        if dw:
            worst = max(worst, abs(c.count(w) - dw) / (eps * dw))
    c.compress()  # the space bound is stated after SWCOMPRESS (between runs each level may hold α more)
    J = c.level_count()
    out.append(
        Measured(
            "window_count", worst, c.node_count(), c.alpha * (J + 1), f"{worst:.3f}",
            f"{c.node_count():,} / {c.alpha * (J + 1):,} (J={J}, α={c.alpha:,}; {c.node_count() / n:.2f}·N)",
        )
    )  # fmt: skip
    # window quantiles and decays
    s = replay(opt.SlidingWindowQuantiles(BITS, BITS, eps))
    snap = s.snapshot()
    worst_r = worst_q = 0.0
    for w in sample_windows(s.now, s.cutoffs(), 6):
        vals, prefix = truth.window(w)
        dw = prefix[-1]
        if not dw:
            continue
        _, dhat, ranges = estimate_window(snap, w)
        worst_r = max(worst_r, worst_rank_error(vals, prefix, ranges, eps * dw))
        worst_q = max(worst_q, quantile_deviation(vals, prefix, dhat, ranges, eps * dw))
    worst_g = 0.0
    for g in (PolynomialDecay(1.0), ExponentialDecay(1e-4)):
        vals, prefix = truth.decayed(g)
        total, ranges_g = estimate_decayed(snap, g)
        worst_g = max(worst_g, worst_rank_error(vals, prefix, ranges_g, eps * prefix[-1]))
    s.compress()
    J = s.level_count()
    bound = s.alpha * (J + 1) + s.alpha * J * (8 * BITS / eps + 1)
    out.append(
        Measured(
            "window_quantiles", worst_r, s.node_count(), bound,
            f"{worst_r:.3f} (quantile {worst_q:.3f}, decayed {worst_g:.3f})",
            f"{s.node_count():,} / {bound:,.0f} (J={J}, α={s.alpha:,}; {s.node_count() / n:.2f}·N)",
            (("quantile", worst_q), ("decayed", worst_g)),
        )
    )  # fmt: skip
    # value division
    g = PolynomialDecay(2.0)
    vd = replay(opt.ValueDivision(BITS, BITS, g, eps / 2, eps / 2))
    vd.maintain()
    vals, prefix = truth.decayed(g)
    total, ranges_v = estimate_value_division(vd.snapshot(), g)
    e = value_division_error(eps / 2, eps / 2)
    oldest = vd.now - min(lo for lo, _, _ in vd.intervals())
    m_bound = value_division_summary_bound(g, eps / 2, oldest)
    err = worst_rank_error(vals, prefix, ranges_v, e * prefix[-1], two_sided=True)
    bound = vd.summary_count() * qdigest_size_bound(BITS, eps / 2)
    out.append(
        Measured(
            "value_division", err, vd.node_count(), bound, f"{err:.3f}",
            f"{vd.node_count():,} / {bound:,} ({vd.node_count() / n:.2f}·N); summaries {vd.summary_count()} / "
            f"{m_bound}",
            (("summaries_over_bound", vd.summary_count() / m_bound),),
        )
    )  # fmt: skip
    return out


def max_rank_error(values: list[int], rank_of: Any) -> float:
    """``max_x |r̂(x) - r(x)| / N`` over every distinct value x (r = weight of items < x)."""
    srt = sorted(values)
    n = len(srt)
    worst = 0.0
    for x in sorted(set(srt)):
        true = bisect.bisect_left(srt, x)
        worst = max(worst, abs(rank_of(x) - true) / n)
    return worst


def kll_for_bytes(ds: Any, values: Any, target: int) -> tuple[int, Any]:
    """The KLL ``k`` whose serialized sketch of ``values`` is closest to ``target`` bytes."""
    best: tuple[float, int, Any] = (float("inf"), 8, None)
    lo, hi = 8, (1 << 16) - 1  # KLL takes k as a uint16
    while lo <= hi:
        k = (lo + hi) // 2
        s = ds.kll_ints_sketch(k)
        s.update(values)
        size = len(s.serialize())
        best = min(best, (abs(size - target), k, s), key=lambda b: b[0])
        if size < target:
            lo = k + 1
        else:
            hi = k - 1
    return best[1], best[2]


def qdigest_vs_kll(
    ds: Any, np: Any, values: list[int], eps: float, trials: int, shuffle: bool
) -> tuple[int, float, int, list[float], int]:
    """The q-digest (ε, 20 bits) of ``values`` and KLL sketches of the same memory (16 bytes per q-digest range):
    (q-digest bytes, its largest normalized rank error, KLL's k, KLL's error per trial -- each a new sketch over a
    shuffled copy when ``shuffle`` -- and KLL's serialized bytes)."""
    n = len(values)
    arr = np.asarray(values, dtype=np.int32)
    d = opt.QDigest(BITS, eps)
    d.insert_many(values)
    d.compress()
    qd_bytes = 16 * d.node_count()
    qd_err = max_rank_error(values, d.rank)
    k, _ = kll_for_bytes(ds, arr, qd_bytes)
    errs = []
    size = 0
    for t in range(trials):
        shuffled = arr.copy()
        if shuffle:
            np.random.default_rng(t).shuffle(shuffled)
        s = ds.kll_ints_sketch(k)
        s.update(shuffled)
        size = len(s.serialize())
        errs.append(max_rank_error(values, lambda x, s=s: s.get_rank(int(x), False) * n))
    return qd_bytes, qd_err, k, errs, size


def feed(factory: Callable[[], Any], arrivals: list[Arrival], values: bool = True) -> Callable[[], None]:
    """A run that feeds ``arrivals`` to a new ``factory()`` structure, one ``insert`` per arrival (``advance``
    when the clock moves); ``values=False`` for the window count, which takes timestamps only."""

    def run() -> None:
        s = factory()
        adv, ins = s.advance, s.insert
        now = 0
        if values:
            for a in arrivals:
                if a.now != now:
                    adv(a.now)
                    now = a.now
                ins(a.value, a.timestamp)
        else:
            for a in arrivals:
                if a.now != now:
                    adv(a.now)
                    now = a.now
                ins(a.timestamp)

    return run


def _rate(run: Callable[[], None], n: int) -> Callable[[], float]:
    def timed() -> float:
        t = time.perf_counter()
        run()
        return n / (time.perf_counter() - t)

    return timed


def run(sizes: Sizes, progress: Progress) -> Outcome:
    outcome = Outcome(ID, TITLE)
    _bounds(sizes, progress, outcome)
    _updates(sizes, progress, outcome)
    _kll(sizes, progress, outcome)
    return outcome


def _bounds(sizes: Sizes, progress: Progress, outcome: Outcome) -> None:
    space = Figure("004_space", "004: stored entries vs ε (per stream)", "ε", "stored entries", logx=False)
    error = Figure("004_error", "004: largest observed error / its bound vs ε", "ε", "error / bound", logx=False)
    worst: dict[str, float] = {}
    for eps in sizes.eps:
        for kind in sizes.kinds:
            progress.step(ID, f"space and error, ε = {eps}, stream {kind}, {sizes.items:,} items")
            for m in measure(kind, sizes.items, eps):
                for metric, value in (
                    ("entries", float(m.space)),
                    ("space_bound", m.space_bound),
                    ("error_over_bound", m.error),
                    *((f"{name}_over_bound", v) for name, v in m.extra),
                ):
                    outcome.rows.append(Row(space.name, m.structure, "", kind, "eps", eps, metric, value))
                label = f"{m.structure} {kind}"
                for fig, value in ((space, float(m.space)), (error, m.error)):
                    fig.series.setdefault(label, ([], []))
                    fig.series[label][0].append(eps)
                    fig.series[label][1].append(value)
                worst[m.structure] = max(worst.get(m.structure, 0.0), m.error, *(v for _, v in m.extra))
    for structure, value in worst.items():
        outcome.checks.append(
            Check(
                f"{structure}: largest observed error ≤ its bound (all ε, streams)",
                f"{value:.3f} of the bound",
                value <= 1,
            )
        )
    outcome.figures += [space, error]


def _updates(sizes: Sizes, progress: Progress, outcome: Outcome) -> None:
    eps, n = sizes.eps[0], sizes.update_items
    for kind in sizes.kinds[:2]:
        progress.step(ID, f"update throughput, stream {kind}, ε = {eps}, {n:,} updates")
        arrivals = generate(kind, n, time_bits=BITS, value_bits=BITS, seed=2)
        values = [a.value for a in arrivals]

        def qdigest(values: list[int] = values) -> None:
            d = opt.QDigest(BITS, eps)
            ins = d.insert
            for v in values:
                ins(v)

        contenders = {
            "qdigest": _rate(qdigest, n),
            "window_count": _rate(feed(lambda: opt.SlidingWindowCount(BITS, eps), arrivals, values=False), n),
            "window_quantiles": _rate(feed(lambda: opt.SlidingWindowQuantiles(BITS, BITS, eps), arrivals), n),
            "value_division": _rate(
                feed(lambda: opt.ValueDivision(BITS, BITS, PolynomialDecay(2.0), eps / 2, eps / 2), arrivals), n
            ),
        }
        rates = alternate(contenders, "qdigest", sizes.repeat)
        for who, r in rates.items():
            outcome.rows.append(Row("004_updates", who, "", kind, "eps", eps, "updates_per_s", r.best))
            if who != "qdigest":
                outcome.ratios.append(
                    Ratio(f"updates/s, stream {kind}, ε = {eps}", who, "qdigest", r.ratio, sizes.repeat)
                )
        target = rates["window_quantiles"].best
        outcome.checks.append(
            Check(
                f"window quantiles updates/s (issue 5's target: 100,000; stream {kind}; absolute, machine-dependent)",
                f"{target:,.0f}",
                None,
            )
        )


def _kll(sizes: Sizes, progress: Progress, outcome: Outcome) -> None:
    try:
        ds = importlib.import_module("datasketches")
        np = importlib.import_module("numpy")
    except ImportError:
        outcome.notes.append(
            "q-digest vs KLL skipped: the datasketches package is not installed (pip install datasketches)"
        )
        return
    n = sizes.kll_items
    rng = random.Random(1)
    values = [rng.randrange(1 << BITS) for _ in range(n)]
    for eps in sizes.eps:
        progress.step(ID, f"q-digest vs KLL at equal memory, ε = {eps}, {n:,} items")
        qd_bytes, qd_err, k, errs, _ = qdigest_vs_kll(ds, np, values, eps, sizes.kll_trials, shuffle=True)
        for who, err in (("qdigest", qd_err), (f"KLL k={k}", max(errs))):
            outcome.rows.append(Row("004_kll", who, "", "uniform", "eps", eps, "max_rank_error", err))
        outcome.rows.append(Row("004_kll", "qdigest", "", "uniform", "eps", eps, "bytes", qd_bytes))
        outcome.checks.append(
            Check(
                f"rank error at equal memory ({qd_bytes:,} B), ε = {eps}: q-digest (guarantee ≤ ε) vs KLL k = {k} "
                f"(worst of {sizes.kll_trials} shuffles)",
                f"{qd_err:.4f} vs {max(errs):.4f}",
                None,
            )
        )

        def qd_updates(eps: float = eps) -> float:
            ins = opt.QDigest(BITS, eps).insert
            t = time.perf_counter()
            for v in values:
                ins(v)
            return n / (time.perf_counter() - t)

        def kll_updates(k: int = k) -> float:
            upd = ds.kll_ints_sketch(k).update
            t = time.perf_counter()
            for v in values:
                upd(v)
            return n / (time.perf_counter() - t)

        r = alternate({"KLL": kll_updates, "qdigest": qd_updates}, "KLL", sizes.repeat)
        outcome.ratios.append(
            Ratio(
                f"per-call updates/s, ε = {eps}, equal memory",
                "qdigest",
                f"KLL k={k}",
                r["qdigest"].ratio,
                sizes.repeat,
            )
        )
