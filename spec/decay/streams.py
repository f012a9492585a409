"""Stream generators for paper 004: the paper's kinds of disorder and adversarial ones (notes §7.1, §10).

Each generator returns a list of :class:`Arrival` -- ``(value, timestamp, now, weight)`` in arrival order, where
``now`` is the clock when the tuple arrives (non-decreasing, ``>= timestamp``): drive a structure with
``advance(a.now)`` then ``insert`` (:func:`replay`). Everything is deterministic given ``seed``; timestamps lie
in ``[0, 2**time_bits)`` and values in ``[0, 2**value_bits)``.

Paper-like disorder (§5.1):

* ``flow`` -- NetFlow-like: timestamp = flow begin, arrival ordered by flow end (begin + a heavy-tailed
  duration): moderate, natural disorder; values heavy-tailed like octet counts;
* ``looping`` -- WorldCup-like: several days concatenated keeping only the time of day, so timestamps loop:
  severe disorder.

Adversarial:

* ``reversed`` (newest first), ``permutation`` (uniform random order), ``bursts`` (most weight on a handful of
  timestamps: uncapped leaves), ``very_late`` (in-order stream with tuples far older than any window),
  ``all_equal`` (one value: tests the quantile definition), ``two_heavy`` (two values with weight just above and
  just below ``φ·D``: tests heavy-hitter thresholds).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

__all__ = ["Arrival", "GENERATORS", "generate", "replay", "to_oracle"]


@dataclass(frozen=True)
class Arrival:
    """One tuple ``<value, timestamp>`` (with ``weight``) arriving when the clock reads ``now``."""

    value: int
    timestamp: int
    now: int
    weight: int = 1


def _weight(rng: random.Random, weighted: bool) -> int:
    return rng.choice((1, 1, 1, 2, 3, 7)) if weighted else 1


def _octets(rng: random.Random, value_bits: int) -> int:
    """Heavy-tailed value like a flow's octet count, clipped to the universe."""
    top = (1 << value_bits) - 1
    v = int(rng.lognormvariate(math.log(max(2.0, top**0.4)), 1.6))
    return min(max(v, 0), top)


def _clock(
    arrivals: list[tuple[int, int, int]], weighted: bool, rng: random.Random, start_now: int = 0
) -> list[Arrival]:
    """Attach the clock: ``now`` = the largest of ``start_now`` and all timestamps and arrival times so far."""
    out = []
    now = start_now
    for value, ts, arrive in arrivals:
        now = max(now, ts, arrive)
        out.append(Arrival(value, ts, now, _weight(rng, weighted)))
    return out


def flow(n: int, *, time_bits: int, value_bits: int, seed: int = 0, weighted: bool = False) -> list[Arrival]:
    """NetFlow-like moderate disorder: begin times of a Poisson process, Pareto(1.2) durations, ordered by end."""
    rng = random.Random(seed)
    top = (1 << time_bits) - 1
    span = max(1, top // 2)
    rate = n / span
    flows = []
    begin = 0.0
    for _ in range(n):
        begin += rng.expovariate(rate)
        b = min(int(begin), top)
        duration = int((rng.paretovariate(1.2) - 1.0) * max(1.0, span / max(n, 1) * 8))
        flows.append((_octets(rng, value_bits), b, min(b + duration, top)))
    flows.sort(key=lambda f: (f[2], f[1]))
    return _clock(flows, weighted, rng)


def looping(
    n: int, *, time_bits: int, value_bits: int, seed: int = 0, days: int = 4, weighted: bool = False
) -> list[Arrival]:
    """WorldCup-like severe disorder: ``days`` in-order days, each mapped onto the same time-of-day range."""
    rng = random.Random(seed)
    day_len = max(2, (1 << time_bits) // 2)
    per_day = max(1, n // days)
    rows: list[tuple[int, int, int]] = []
    for d in range(days):
        count = per_day if d < days - 1 else n - per_day * (days - 1)
        ts = sorted(rng.randrange(day_len) for _ in range(count))
        rows.extend((_octets(rng, value_bits), t, t) for t in ts)
    return _clock(rows, weighted, rng)


def reversed_order(n: int, *, time_bits: int, value_bits: int, seed: int = 0, weighted: bool = False) -> list[Arrival]:
    """Newest first: every tuple is older than all before it (the clock starts at the newest timestamp)."""
    rng = random.Random(seed)
    top = (1 << time_bits) - 1
    ts = sorted((rng.randrange(top + 1) for _ in range(n)), reverse=True)
    return _clock([(rng.randrange(1 << value_bits), t, t) for t in ts], weighted, rng, start_now=ts[0] if ts else 0)


def permutation(n: int, *, time_bits: int, value_bits: int, seed: int = 0, weighted: bool = False) -> list[Arrival]:
    """A uniformly random arrival order of random timestamps (the clock starts at the largest)."""
    rng = random.Random(seed)
    top = (1 << time_bits) - 1
    ts = [rng.randrange(top + 1) for _ in range(n)]
    rows = [(rng.randrange(1 << value_bits), t, 0) for t in ts]
    return _clock(rows, weighted, rng, start_now=max(ts, default=0))


def bursts(n: int, *, time_bits: int, value_bits: int, seed: int = 0, weighted: bool = False) -> list[Arrival]:
    """Most tuples share a handful of timestamps (uncapped leaves, notes §3.9 (f)); arrival order random."""
    rng = random.Random(seed)
    top = (1 << time_bits) - 1
    hot = [rng.randrange(top + 1) for _ in range(3)]
    rows = []
    for _ in range(n):
        t = rng.choice(hot) if rng.random() < 0.85 else rng.randrange(top + 1)
        rows.append((rng.randrange(1 << value_bits), t, 0))
    rng.shuffle(rows)
    return _clock(rows, weighted, rng, start_now=max((r[1] for r in rows), default=0))


def very_late(n: int, *, time_bits: int, value_bits: int, seed: int = 0, weighted: bool = False) -> list[Arrival]:
    """An in-order stream in the upper half of time, with 10% of the tuples stamped in the oldest eighth."""
    rng = random.Random(seed)
    top = (1 << time_bits) - 1
    lo = top // 2
    rows = []
    t = lo
    for _ in range(n):
        t = min(top, t + rng.choice((0, 0, 1, 1, 2)))
        if rng.random() < 0.1:
            rows.append((rng.randrange(1 << value_bits), rng.randrange(max(1, top // 8)), t))
        else:
            rows.append((rng.randrange(1 << value_bits), t, t))
    return _clock(rows, weighted, rng)


def all_equal(n: int, *, time_bits: int, value_bits: int, seed: int = 0, weighted: bool = False) -> list[Arrival]:
    """Flow-like timestamps, every value the same (every φ-quantile is that value; the literal Definition 4
    has no answer, notes §1.3)."""
    v = (1 << value_bits) // 3
    return [
        Arrival(v, a.timestamp, a.now, a.weight)
        for a in flow(n, time_bits=time_bits, value_bits=value_bits, seed=seed, weighted=weighted)
    ]


def two_heavy(
    n: int,
    *,
    time_bits: int,
    value_bits: int,
    seed: int = 0,
    weighted: bool = False,
    phi: float = 0.2,
    delta: float = 0.02,
) -> list[Arrival]:
    """Two values with shares ``φ + δ`` and ``φ - δ`` of the tuples (heavy-hitter thresholds), the rest
    uniform; random timestamps and order."""
    rng = random.Random(seed)
    top = (1 << time_bits) - 1
    u = 1 << value_bits
    a_val, b_val = u // 4, (3 * u) // 4
    na, nb = round(n * (phi + delta)), round(n * (phi - delta))
    vals = [a_val] * na + [b_val] * nb
    others = [x for x in range(min(u, 64)) if x not in (a_val, b_val)] or [a_val, b_val]
    while len(vals) < n:
        vals.append(rng.choice(others) if len(others) < 64 else rng.randrange(u))
        if vals[-1] in (a_val, b_val) and len(others) > 2:
            vals.pop()
    rng.shuffle(vals)
    rows = [(x, rng.randrange(top + 1), 0) for x in vals[:n]]
    return _clock(rows, weighted, rng, start_now=max((r[1] for r in rows), default=0))


GENERATORS: dict[str, Callable[..., list[Arrival]]] = {
    "flow": flow,
    "looping": looping,
    "reversed": reversed_order,
    "permutation": permutation,
    "bursts": bursts,
    "very_late": very_late,
    "all_equal": all_equal,
    "two_heavy": two_heavy,
}


def generate(
    kind: str, n: int, *, time_bits: int, value_bits: int, seed: int = 0, weighted: bool = False
) -> list[Arrival]:
    """``GENERATORS[kind](n, ...)``."""
    return GENERATORS[kind](n, time_bits=time_bits, value_bits=value_bits, seed=seed, weighted=weighted)


def replay(structure: Any, arrivals: Iterable[Arrival], *, values: bool = True) -> None:
    """Drive ``structure`` (``advance`` + ``insert``); ``values=False`` for the count structure (timestamps only)."""
    for a in arrivals:
        if a.now != structure.now:
            structure.advance(a.now)
        if values:
            structure.insert(a.value, a.timestamp, a.weight)
        else:
            structure.insert(a.timestamp, a.weight)


def to_oracle(arrivals: Iterable[Arrival], *, time_bits: int, value_bits: int) -> Any:
    """An :class:`~swagkit.spec.decay.oracle.ExactStream` fed with ``arrivals``."""
    from .oracle import ExactStream

    s = ExactStream(value_bits=value_bits, time_bits=time_bits)
    replay(s, arrivals)
    return s
