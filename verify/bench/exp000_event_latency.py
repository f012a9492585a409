"""Experiment 000's event-time latency (paper 000 §7.3, Fig. 12 right): an event-time window whose bursts of
timestamps age out together, so one round evicts a whole burst.

Timestamps advance by 1 per item, except that every ``4b``-th item starts a burst of ``b`` items sharing one
timestamp (:func:`~.exp000_windows.burst_times`); the window keeps the items younger than ``span`` time units. Per
round (timed, CPU nanoseconds of this thread, garbage collector off): ``evict_many(k)`` of the ``k`` expired items
(one call: the algorithm's cost, not Python's per-call cost, is what a burst should show), ``insert(v)``,
``query()``. As the paper does, rounds are timed only once the window has evicted its first item. Each algorithm
runs ``replays`` times on the same stream (alternating the algorithms), each round's least time is kept beside the
raw run (interference is random, a round's own cost is not), and the most ``⊗`` of one round is counted.

The paper's observation: with bulk evictions "DABA, DABA Lite, Two-Stacks, Two-Stacks Lite, and FlatFIT experience
similar maximum latency, unlike with the static experiments" -- a burst of ``b`` evictions costs every algorithm
at least ``b`` steps, and ``b`` is as large as a window. The claim lines report the largest round per algorithm,
and check the deterministic side: each worst-case O(1) algorithm's most ``⊗`` in a round stays within its card's
bound for ``k`` evictions, an insert and a query.
"""

from __future__ import annotations

import array
import collections
import gc
import time
from collections.abc import Sequence
from typing import Any

import swagkit.optimized as opt
from swagkit.spec.algorithms import CARDS

from .exp000_windows import burst_times
from .report import Check, Figure, Outcome, Row
from .timing import Progress, percentile

__all__ = ["event_time_rounds", "event_time_latency"]

ID = "000"
TAIL = (99.9, 99.999)


def event_time_rounds(
    agg: Any, values: Sequence[Any], times: Sequence[int], span: int, overhead: int
) -> tuple[array.array[float], int, int]:
    """One timed pass: CPU ns per round once the first item has left, the most ``⊗`` of one round and the most
    evictions of one round. Rounds before the first eviction are run, not timed."""
    clock = time.thread_time_ns
    evict_many, insert, query = agg.evict_many, agg.insert, agg.query
    stamps: collections.deque[int] = collections.deque()
    push, pop = stamps.append, stamps.popleft
    out: array.array[float] = array.array("d")
    append = out.append
    started = False
    worst = most = 0
    for t, v in zip(times, values):
        k = 0
        while stamps and stamps[0] <= t - span:
            pop()
            k += 1
        push(t)
        started = started or k > 0
        c = agg.combine_count
        t0 = clock()
        if k:
            evict_many(k)
        insert(v)
        query()
        ns = clock() - t0 - overhead
        if started:
            append(max(0, ns))
            worst = max(worst, agg.combine_count - c)
            most = max(most, k)
    return out, worst, most


def event_time_latency(
    inputs: dict[str, tuple[Any, Sequence[Any]]],
    algorithms: Sequence[str],
    span: int,
    burst: int,
    rounds: int,
    replays: int,
    overhead: int,
    progress: Progress,
    outcome: Outcome,
) -> None:
    """Time ``rounds`` rounds of the burst stream for each of ``algorithms`` over each input, ``replays`` times."""
    times = burst_times(rounds, burst, 4 * burst)
    budgets = {c.class_name: c.budget for c in CARDS if c.budget is not None}
    for mname, (monoid, values) in inputs.items():
        data = values[:rounds]
        runs: dict[str, list[array.array[float]]] = {a: [] for a in algorithms}
        worst: dict[str, int] = {}
        evicted = 0
        was_enabled = gc.isenabled()
        gc.disable()
        try:
            for r in range(replays):
                progress.step(ID, f"event-time latency {mname}, burst {burst}, span {span}: replay {r + 1}/{replays}")
                for a in algorithms:
                    timed, worst[a], evicted = event_time_rounds(getattr(opt, a)(monoid), data, times, span, overhead)
                    runs[a].append(timed)
        finally:
            if was_enabled:
                gc.enable()
        raw = {a: sorted(runs[a][0]) for a in algorithms}
        least = {a: sorted(map(min, *runs[a])) if replays > 1 else raw[a] for a in algorithms}
        fig = Figure(
            f"000_event_latency_{mname}",
            f"000 Fig. 12: latency per round, event-time window of {span}, bursts of {burst}, {mname} "
            "(p99.9, p99.999 marked)",
            "algorithm",
            "log10 CPU ns per round",
            kind="violin",
            logx=False,
            logy=False,
            samples={a: list(s) for a, s in raw.items()},
            marks=TAIL,
        )
        outcome.figures.append(fig)
        for data_name, samples in (("bursts", raw), (f"bursts_min_of_{replays}_replays", least)):
            for a, s in samples.items():
                for q in (50.0, 99.0, *TAIL, 100.0):
                    row = Row(fig.name, a, mname, data_name, "burst", burst, f"p{q:g}_ns", percentile(s, q), worst[a])
                    outcome.rows.append(row)
        largest = {a: least[a][-1] for a in algorithms}
        spread = max(largest.values()) / max(min(largest.values()), 1.0)
        outcome.checks.append(
            Check(
                f"000 §7.3: bursts of evictions give every algorithm a similar maximum latency ({mname}, "
                f"span {span}, burst {burst}, min of {replays} replays per round)",
                ", ".join(f"{a} {v / 1e3:.0f} µs" for a, v in largest.items())
                + f"; slowest / fastest {spread:.1f}× (up to {evicted} evictions in one round)",
                None,
            )
        )
        for a in algorithms:
            b = budgets.get(a)
            if b is None or max(b.bound(op, span) for op in ("evict", "insert", "query")) > 16:
                continue  # not worst-case O(1): the amortized algorithms' bound is a flip (FlatFIT's a query)
            bound = (
                sum(b.bound("evict", span - i) for i in range(evicted))
                + b.bound("insert", span)
                + b.bound("query", span)
            )
            outcome.checks.append(
                Check(
                    f"{a}: most ⊗ in one round ≤ the card's bound for {evicted} evictions, an insert and a query "
                    f"({b.source})",
                    f"{worst[a]} ≤ {bound:g}",
                    worst[a] <= bound,
                )
            )
