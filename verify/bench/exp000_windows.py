"""Experiment 000's windows that are not static (paper 000 §7): fill-and-drain, and an event-time window with
bursts of evictions. Both through the per-call API (no array driver takes a changing window size), the in-order
algorithms alternated round by round, DABA Lite the baseline of the paired ratios, ``⊗`` per item counted on the
timed run itself (``combine_count``).

* **Fill and drain** (000 §7's "fill-drain" runs): the window grows from empty to n items (insert + query each)
  and shrinks back to empty (evict + query each), repeated; x = n. Every structure is exercised at every size
  between 0 and n, and Two-Stacks' flip happens at the start of each drain on the whole window.
* **Event-time bursts**: timestamps advance by 1 per item, except that every ``period``-th item starts a burst of
  ``b`` items sharing one timestamp; the window keeps the items younger than ``span`` time units, so once a burst
  ages out, one insert is followed by ``b`` evictions in one round; x = b. Recorded beside the rate: the most
  ``⊗`` of one round (insert, the evictions it triggers, query), deterministic.
"""

from __future__ import annotations

import collections
import functools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import swagkit.optimized as opt

from .report import Figure, Outcome, Ratio, Row
from .timing import Progress, alternate

ID = "000"  # the experiment these windows belong to (progress lines)
__all__ = ["fill_drain_rate", "burst_times", "event_time_rate", "Sweep", "fill_and_drain", "event_time_bursts"]


def fill_drain_rate(cls: Any, monoid: Any, values: Sequence[Any], n: int, counts: list[float]) -> float:
    """Items/s of fill-and-drain cycles of ``n`` over ``values`` (each value inserted once and evicted once, a
    query after every operation); appends the ``⊗`` per item of the run to ``counts``."""
    agg = cls(monoid)
    insert, evict, query = agg.insert, agg.evict, agg.query
    cycles = max(1, len(values) // n)
    t = time.perf_counter()
    for c in range(cycles):
        for v in values[c * n : (c + 1) * n]:
            insert(v)
            query()
        for _ in range(n):
            evict()
            query()
    dt = time.perf_counter() - t
    counts.append(agg.combine_count / (cycles * n))
    return cycles * n / dt


def burst_times(n: int, burst: int, period: int) -> list[int]:
    """``n`` non-decreasing timestamps: +1 per item, except that every ``period``-th item starts ``burst`` items
    at one timestamp."""
    out: list[int] = []
    t = 0
    while len(out) < n:
        t += 1
        k = burst if len(out) % period == 0 else 1
        out += [t] * min(k, n - len(out))
    return out


def event_time_rate(
    cls: Any, monoid: Any, values: Sequence[Any], times: Sequence[int], span: int, counts: list[tuple[float, int]]
) -> float:
    """Items/s of an event-time window of ``span`` time units over (``times``, ``values``): per item, evict every
    item at least ``span`` older, insert, query. Appends (⊗ per item, most ⊗ of one round) to ``counts``."""
    agg = cls(monoid)
    insert, evict, query = agg.insert, agg.evict, agg.query
    stamps: collections.deque[int] = collections.deque()
    push, pop = stamps.append, stamps.popleft
    worst = 0
    t0 = time.perf_counter()
    for t, v in zip(times, values):
        c = agg.combine_count
        while stamps and stamps[0] <= t - span:
            pop()
            evict()
        push(t)
        insert(v)
        query()
        worst = max(worst, agg.combine_count - c)
    dt = time.perf_counter() - t0
    counts.append((agg.combine_count / len(values), worst))
    return len(values) / dt


@dataclass(frozen=True)
class Sweep:
    """What both experiments share: the contenders, the baseline of the paired ratios, rounds, and where the
    results go."""

    algorithms: Sequence[str]
    baseline: str
    repeat: int
    progress: Progress
    outcome: Outcome

    def accepting(self, monoid: Any) -> list[str]:
        """The algorithms that take ``monoid`` (the others refuse it by their card's requirements: not timed)."""
        out = []
        for a in self.algorithms:
            try:
                getattr(opt, a)(monoid)
            except Exception:  # e.g. invertible, selective
                continue
            out.append(a)
        return out

    def point(
        self,
        fig: Figure,
        monoid: Any,
        where: tuple[str, str, str, int],
        measure: Callable[..., float],
        last: str | None,
    ) -> dict[str, Any]:
        """Time ``measure(cls, monoid, counts=…)`` for every accepting algorithm, alternated, at one x of ``fig``
        (``where``: operator, data, x name, x); rows of items/s and ratio with the ⊗ per item each run appended
        first to its ``counts`` (a number, or a tuple whose first element it is); with ``last`` (the label of the
        sweep's last x) the ratio-table lines too. Returns the first count of each algorithm."""
        mname, data, x_name, x = where
        algos = self.accepting(monoid)
        counts: dict[str, list[Any]] = {a: [] for a in algos}
        contenders = {a: functools.partial(measure, getattr(opt, a), monoid, counts=counts[a]) for a in algos}
        rates = alternate(contenders, self.baseline, self.repeat)
        first = {a: counts[a][0] for a in algos}
        for a, r in rates.items():
            per_item = first[a][0] if isinstance(first[a], tuple) else first[a]
            for metric, value in (("items_per_s", r.best), ("ratio", r.ratio)):
                self.outcome.rows.append(Row(fig.name, a, mname, data, x_name, x, metric, value, per_item))
            fig.series.setdefault(a, ([], []))
            fig.series[a][0].append(x)
            fig.series[a][1].append(r.ratio)
            if last is not None and a != self.baseline:
                what = f"{last}, {x_name} = {x}"
                self.outcome.ratios.append(Ratio(what, a, self.baseline, r.ratio, self.repeat))
        return first


def fill_and_drain(
    inputs: dict[str, tuple[Any, Sequence[Any]]], log2_sizes: Sequence[int], items: int, sweep: Sweep
) -> None:
    for mname, (monoid, values) in inputs.items():
        title = f"000 §7: fill and drain to n, {mname}"
        fig = _figure(f"000_fill_drain_{mname}", title, "n (largest window of a cycle)", sweep)
        for i, k in enumerate(log2_sizes):
            n = 1 << k
            data = values[: max(items, n)]
            sweep.progress.step(
                sweep.outcome.experiment, f"fill-and-drain {mname} n = 2^{k} ({i + 1}/{len(log2_sizes)})"
            )

            measure = functools.partial(fill_drain_rate, values=data, n=n)
            sweep.point(
                fig,
                monoid,
                (mname, "fill_drain", "n", n),
                measure,
                f"fill-and-drain {mname}" if k == log2_sizes[-1] else None,
            )


def event_time_bursts(
    inputs: dict[str, tuple[Any, Sequence[Any]]], bursts: Sequence[int], span: int, items: int, sweep: Sweep
) -> None:
    for mname, (monoid, values) in inputs.items():
        title = f"000: event-time window of {span} time units, bursts, {mname}"
        fig = _figure(
            f"000_event_time_{mname}", title, "burst size b (items at one timestamp, one per 4b items)", sweep
        )
        for b in bursts:
            times = burst_times(items, b, 4 * b)  # a burst every 4b items: a quarter of the stream, whatever b
            data = values[:items]
            sweep.progress.step(ID, f"event-time bursts {mname} b = {b}, span {span}")

            measure = functools.partial(event_time_rate, values=data, times=times, span=span)
            last = f"event-time bursts {mname}, span {span}" if b == bursts[-1] else None
            first = sweep.point(fig, monoid, (mname, "bursts", "burst", b), measure, last)
            for a, (_, worst) in first.items():
                sweep.outcome.rows.append(Row(fig.name, a, mname, "bursts", "burst", b, "max_combines_round", worst))


def _figure(name: str, title: str, xlabel: str, sweep: Sweep) -> Figure:
    """A ratio-to-baseline figure, already among the outcome's figures (its points come as they are measured)."""
    ylabel = f"ratio to {sweep.baseline} (median of paired ratios)"
    fig = Figure(name, f"{title}: throughput / {sweep.baseline}", xlabel, ylabel, logy=False)
    sweep.outcome.figures.append(fig)
    return fig
