"""The shared plan of several ACQs on one stream (paper 001 §2.3; notes §1.2–1.3).

An ACQ has a range ``r`` and a slide ``s`` (count-based, in tuples): at every ``T = k·s`` (``T ≥ s``, T tuples
seen) it reports the aggregate of tuples ``[max(0, T − r), T)``. The plan:

1. the **composite slide** ``C = lcm(all slides)``;
2. **edges** (offsets in ``[0, C)``): every window end ``k·s mod C`` *and* every window start ``(k·s − r) mod C``
   of every query. For one query this is exactly Pairs (ends at multiples of s, starts at offset ``f1 = s − r % s``
   inside a slide); for several it is their union, so every window is a whole number of partials;
3. **partials** are the segments between consecutive edges (``lengths``, cyclic over C).

The range of a query **in partials** need not be constant: with Q1 = (r 4, s 2) and Q2 = (r 3, s 3) the edges are
{0, 2, 3, 4} and Q1's window spans 2, 3, … partials at successive evaluations (notes §1.3, a case the paper never
discusses). The plan therefore records, for every partial boundary in the period, which queries are due and how
many partials each one's window spans *there* (``due``). Non-Inv answers any such count from its deque; Inv keeps
one running aggregate per distinct count (``range_counts``), which stays exact and costs 2 ⊗ per count per
partial. Plans are rejected (``PlanError``) only for invalid queries or a composite slide above ``max_composite``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .errors import SwagkitError

__all__ = ["ACQ", "SharedPlan", "PlanError", "build_shared_plan", "partials_in_window"]


class PlanError(SwagkitError, ValueError):
    """A set of ACQs that cannot be turned into a shared plan (invalid range/slide, composite slide too large)."""


@dataclass(frozen=True)
class ACQ:
    """An aggregate continuous query: ``range`` and ``slide`` in tuples (count-based)."""

    range: int
    slide: int


@dataclass(frozen=True)
class SharedPlan:
    """A shared plan. ``edges`` are sorted offsets in ``[0, composite)`` (``edges[0] == 0``); partial ``p`` covers
    ``[edges[p], edges[p+1])`` (``edges[m] := composite``) and has length ``lengths[p]``. ``due[p]`` lists
    ``(query index, range in partials)`` of the queries due when partial ``p`` completes, longest range first.
    ``w_size`` is the largest range in partials; ``range_counts`` every distinct count, longest first."""

    queries: tuple[ACQ, ...]
    composite: int
    edges: tuple[int, ...]
    lengths: tuple[int, ...]
    due: tuple[tuple[tuple[int, int], ...], ...]
    w_size: int
    range_counts: tuple[int, ...]

    @property
    def constant_ranges(self) -> bool:
        """Whether every query's window spans the same number of partials at every evaluation."""
        per_query: dict[int, set[int]] = {}
        for entries in self.due:
            for qi, cnt in entries:
                per_query.setdefault(qi, set()).add(cnt)
        return all(len(c) == 1 for c in per_query.values())

    def ranges_of(self, query: int) -> tuple[int, ...]:
        """The distinct window sizes (in partials) of query ``query`` over one composite period, sorted."""
        return tuple(sorted({cnt for entries in self.due for qi, cnt in entries if qi == query}))


def partials_in_window(edges: tuple[int, ...], composite: int, start: int, end: int) -> int:
    """Number of partials in ``[start, end)`` when partials start at ``edges + k·composite`` (all integers k)."""
    total = 0
    for e in edges:
        # k with start ≤ e + k·C < end
        lo = -((e - start) // composite)  # ceil((start - e) / C)
        hi = -((e - end) // composite) - 1  # ceil((end - e) / C) - 1
        total += max(0, hi - lo + 1)
    return total


def build_shared_plan(queries: list[ACQ] | tuple[ACQ, ...], max_composite: int = 1_000_000) -> SharedPlan:
    """Build the maximum-sharing plan of ``queries`` (see the module docstring)."""
    qs = tuple(queries)
    if not qs:
        raise PlanError("a shared plan needs at least one query")
    for q in qs:
        for name, v in (("range", q.range), ("slide", q.slide)):
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise PlanError(f"{q}: {name} must be an int ≥ 1 (count-based windows, in tuples)")
    composite = 1
    for q in qs:
        composite = math.lcm(composite, q.slide)
        if composite > max_composite:
            raise PlanError(f"composite slide lcm{tuple(q.slide for q in qs)} exceeds max_composite={max_composite}")
    edge_set: set[int] = set()
    for q in qs:
        for k in range(composite // q.slide):
            edge_set.add(k * q.slide)
            edge_set.add((k * q.slide - q.range) % composite)
    edges = tuple(sorted(edge_set))
    m = len(edges)
    lengths = tuple((edges[p + 1] if p + 1 < m else composite) - edges[p] for p in range(m))
    due: list[tuple[tuple[int, int], ...]] = []
    for p in range(m):
        end = edges[p + 1] if p + 1 < m else composite  # partial p completes at this offset (≡ mod C)
        entries = [
            (qi, partials_in_window(edges, composite, end - q.range, end))
            for qi, q in enumerate(qs)
            if end % q.slide == 0
        ]
        entries.sort(key=lambda e: (-e[1], e[0]))
        due.append(tuple(entries))
    counts = sorted({cnt for entries in due for _, cnt in entries}, reverse=True)
    return SharedPlan(qs, composite, edges, lengths, tuple(due), counts[0], tuple(counts))
