"""The shapes of the long traces the scale run (:mod:`.scale`) drives implementations through.

A trace is a sequence of calls ``(name, args)`` -- the same shape as replay files' operations
(:mod:`swagkit.verify.replay`) -- generated lazily from a seeded :class:`random.Random`, so a trace of 10^6
operations costs no memory and is regenerated exactly on the driver when it must be shrunk. Each *pattern* is one
way windows move in real streams; every trace of a scale task picks a pattern and a window bound:

FIFO kind (000 §2.1; the window holds at most ``window`` items):

* ``static`` -- fill to the window, then slide: evict, insert, query (a fixed-size count window);
* ``fill_drain`` -- fill to the window and drain it to empty, again and again (every sublist boundary of
  Two-Stacks/DABA is crossed, and the empty window between);
* ``see_saw`` -- a random walk of the size between empty and the window, the drift flipping now and then;
* ``bursts`` -- bursts of inserts then bursts of evicts of random lengths (batched arrivals and expiries);
* ``bulk`` -- ``insert_many``/``evict_many`` of random sizes (when offered) interleaved with single operations.

Out-of-order kind (003 §2; times are ints, the window spans ``window`` time units):

* ``in_order`` -- times increase, the oldest leave (bulk_evict of the expired prefix): FiBA's fast path;
* ``ooo_near`` / ``ooo_far`` -- a time up to 4 / up to ``window`` units behind the clock (out-of-order
  distance d: 003 §5's O(log d) inserts);
* ``collisions`` -- times from a few slots only: most inserts land on a present time and combine into it;
* ``bulk`` -- sorted ``bulk_insert`` with repeated and present times, ``bulk_evict`` anywhere, ``remove``,
  ``range_query`` (003 §6).

Queries are frequent (a stream processor answers after every arrival), so most operations are compared.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from typing import Any

__all__ = ["FIFO_PATTERNS", "OOO_PATTERNS", "WINDOWS", "PATTERNS", "trace", "weight"]

Call = tuple[str, tuple[Any, ...]]

FIFO_PATTERNS = ("static", "fill_drain", "see_saw", "bursts", "bulk")
OOO_PATTERNS = ("in_order", "ooo_near", "ooo_far", "collisions", "bulk")
#: the pattern names of each protocol kind
PATTERNS = {"fifo": FIFO_PATTERNS, "ooo": OOO_PATTERNS}
#: window bounds a trace may pick (capped by the task's largest window): tiny ones hit every corner case of the
#: sublists, large ones the long-run shape
WINDOWS = (1, 2, 3, 5, 8, 16, 64, 256, 1024, 4096)


def trace(
    kind: str,
    pattern: str,
    rng: random.Random,
    values: Sequence[Any],
    length: int,
    window: int,
    offered: frozenset[str] = frozenset(),
    evicts: bool = True,
) -> Iterator[Call]:
    """Calls of ``pattern`` worth ``length`` operations (:func:`weight`) for ``kind`` (``fifo`` or ``ooo``)
    inserting ``values``, the window never above ``window``; ``offered``: the optional operations the
    implementation has (bulk calls are made only when offered). FIFO only: ``evicts`` -- False for a static
    window (no explicit evicts at all: a fixed-capacity window drops its oldest by itself)."""
    if kind == "fifo":
        steps = _fifo(pattern, rng, values, window, offered, evicts)
    elif kind == "ooo":
        steps = _ooo(pattern, rng, values, window, offered)
    else:
        raise ValueError(f"no trace patterns for the kind {kind!r} (known: {', '.join(PATTERNS)})")
    made = 0
    for call in steps:
        yield call
        made += weight(call)
        if made >= length:
            return


def weight(call: Call) -> int:
    """The operations a call counts as: a bulk call as many as the elements it inserts or evicts (so a trace's
    length, and the operations a scale run reports, measure work, not calls)."""
    name, args = call
    if name in ("insert_many", "bulk_insert"):
        return max(1, len(args[0]))
    if name == "evict_many":
        return max(1, int(args[0]))
    return 1


def _fifo(
    pattern: str, rng: random.Random, values: Sequence[Any], window: int, offered: frozenset[str], evicts: bool
) -> Iterator[Call]:
    """The endless FIFO calls of ``pattern`` (see the module docstring); ``size`` mirrors the window's size."""
    size = 0
    choice, rand = rng.choice, rng.random
    query: Call = ("query", ())
    if pattern not in FIFO_PATTERNS:
        raise ValueError(f"unknown FIFO pattern {pattern!r} (known: {', '.join(FIFO_PATTERNS)})")
    if not evicts:  # a static window: inserts (the oldest leaves by itself at capacity) and queries only
        while True:
            yield ("insert", (choice(values),))
            yield query
    if pattern == "static":
        while True:
            if size < window:
                size += 1
            else:  # slide: the oldest leaves before the newest comes (the window never holds window + 1)
                yield ("evict", ())
            yield ("insert", (choice(values),))
            yield query
    elif pattern == "fill_drain":
        bound = window
        while True:
            for _ in range(window):
                yield ("insert", (choice(values),))
                yield query
            for _ in range(window):
                yield ("evict", ())
                yield query
            window = rng.randint(max(1, bound // 2), bound)
    elif pattern == "see_saw":
        up = 0.7
        while True:
            if rand() < 0.01:
                up = 1.0 - up
            if size < window and (size == 0 or rand() < up):
                yield ("insert", (choice(values),))
                size += 1
            else:
                yield ("evict", ())
                size -= 1
            if rand() < 0.7:
                yield query
    elif pattern == "bursts":
        while True:
            for _ in range(rng.randint(0, window - size)):
                yield ("insert", (choice(values),))
                size += 1
                if rand() < 0.3:
                    yield query
            yield query
            for _ in range(rng.randint(0, size)):
                yield ("evict", ())
                size -= 1
                if rand() < 0.3:
                    yield query
            yield query
    else:  # bulk
        many_in, many_out = "insert_many" in offered, "evict_many" in offered
        while True:
            x = rand()
            if x < 0.35 and size < window:
                k = rng.randint(1, window - size)
                if many_in:
                    yield ("insert_many", ([choice(values) for _ in range(k)],))
                else:
                    for _ in range(k):
                        yield ("insert", (choice(values),))
                size += k
            elif x < 0.7 and size:
                k = rng.randint(1, size)
                if many_out:
                    yield ("evict_many", (k,))
                else:
                    for _ in range(k):
                        yield ("evict", ())
                size -= k
            elif x < 0.85 and size < window:
                yield ("insert", (choice(values),))
                size += 1
            elif size:
                yield ("evict", ())
                size -= 1
            yield query


def _ooo(
    pattern: str, rng: random.Random, values: Sequence[Any], window: int, offered: frozenset[str]
) -> Iterator[Call]:
    """The endless out-of-order calls of ``pattern`` (see the module docstring). ``present`` mirrors the
    window's distinct times (sorted), so evictions, removals and bulk inserts can aim at present times."""
    import bisect

    if pattern not in OOO_PATTERNS:
        raise ValueError(f"unknown out-of-order pattern {pattern!r} (known: {', '.join(OOO_PATTERNS)})")
    choice, rand = rng.choice, rng.random
    present: list[int] = []
    clock = 0
    query: Call = ("query", ())

    def add(t: int) -> None:
        i = bisect.bisect_left(present, t)
        if i == len(present) or present[i] != t:
            present.insert(i, t)

    def expire(t: int) -> Call:
        """bulk_evict(t): every time <= t leaves."""
        del present[: bisect.bisect_right(present, t)]
        return ("bulk_evict", (t,))

    distance = {"in_order": 0, "ooo_near": 4, "ooo_far": window, "collisions": 0, "bulk": window}[pattern]
    slots = max(2, window // 8)
    while True:
        if pattern == "collisions":  # the clock creeps: most times repeat one of the last few slots
            clock += rand() < 0.05
            t = clock - rng.randrange(slots)
        else:
            clock += 1
            t = clock - rng.randint(0, distance) if distance else clock
        x = rand()
        if pattern == "bulk" and x < 0.15 and "bulk_insert" in offered:
            times = sorted(
                rng.choice(present) if present and rand() < 0.3 else clock - rng.randint(0, window)
                for _ in range(rng.randint(1, 32))
            )
            for u in times:
                add(u)
            yield ("bulk_insert", ([(u, choice(values)) for u in times],))
        elif pattern == "bulk" and x < 0.2 and present:
            u = rng.choice(present)
            present.remove(u)
            yield ("remove", (u,))
        elif pattern == "bulk" and x < 0.25 and "range_query" in offered:
            a = clock - rng.randint(0, 2 * window)
            yield ("range_query", (a, a + rng.randint(0, window)))
        else:
            add(t)
            yield ("insert", (t, choice(values)))
        # the window spans ``window`` time units behind the clock; evict singly now and then, in bulk mostly
        if present and present[0] <= clock - window:
            if rand() < 0.2:
                present.pop(0)
                yield ("evict", ())
            else:
                yield expire(clock - window if rand() < 0.9 else present[0] + rng.randint(0, window))
        if rand() < 0.8:
            yield query
