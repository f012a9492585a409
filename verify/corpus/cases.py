"""The corpus's deterministic inputs and its cases: one builder per case, adding calls to a :class:`_Trace`.

Inputs come from a multiplicative hash of the position (:func:`value`) and :data:`EXTREMES`; the long runs draw
from a fixed LCG (:func:`_lcg`), so the calls are the same on every run and Python version. The builders aim at
the shapes where SWAGs break (000 §4-5 DABA/DABA Lite flips and shifts, 002 §2.2 removal by handle, 003 §3-5
FiBA's bulk operations and deep trees); their docstrings become each case's ``covers``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ..process import CONFORMANCE

Call = tuple[str, tuple[Any, ...]]

_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


# ---------------------------------------------------------------------------------------------------- inputs


def value(monoid: str, k: int) -> Any:
    """The ``k``-th input of a trace over ``monoid``: spread by Knuth's multiplicative hash, so neighbours
    differ (an operand-order bug shows) and the maximum moves around (a selective monoid's answer changes)."""
    h = (k * 2654435761 + 97) % 2**32
    if monoid == "string_concat":
        return "abcdefghijklmnopqrstuvwxyz"[h % 26]
    if monoid == "max_i64":
        return h % 2001 - 1000
    if monoid == "sum_i64":
        return h % 20001 - 10000
    if monoid == "affine_int":
        return (1 if h & 0x100 else -1, h % 19 - 9)
    if monoid == "sum_f64":
        return (h % 161 - 80) / 8  # dyadic: every association of the sum is exact
    raise ValueError(f"{monoid!r} is not a conformance monoid ({', '.join(CONFORMANCE)})")


#: inputs at the edges of each encoding: the identity as an input, int64 limits (sums wrap modulo 2**64),
#: JSON escapes and non-ASCII text, signed zeros, subnormal and non-dyadic floats (compared with the tolerance)
EXTREMES: dict[str, tuple[Any, ...]] = {
    "string_concat": ("", '"', "\\", "/", "é", "\n", "ab", "", "z"),
    "max_i64": (_INT64_MIN, -1, 0, _INT64_MAX, _INT64_MIN, 1, _INT64_MAX, -(2**62)),
    "sum_i64": (_INT64_MAX, 1, _INT64_MIN, -1, _INT64_MAX, _INT64_MAX, 0, _INT64_MIN),
    "affine_int": ((1, 0), (-1, 0), (-1, 9), (1, -9), (-1, -9), (-1, 9), (1, 0)),
    "sum_f64": (0.0, -0.0, 5e-324, 0.1, 0.2, -0.30000000000000004, 1e16, 2.5, -1.5),
}


class _Trace:
    """A list of calls under construction, drawing inputs in order (``value(monoid, 0)``, ``1``, ...)."""

    def __init__(self, monoid: str) -> None:
        self.monoid = monoid
        self.calls: list[Call] = []
        self.size = 0  # the window's size, kept by the FIFO helpers (the ooo cases ask the model via "size")
        self._next = 0

    def value(self) -> Any:
        v = value(self.monoid, self._next)
        self._next += 1
        return v

    def values(self, n: int) -> list[Any]:
        return [self.value() for _ in range(n)]

    def op(self, name: str, *args: Any) -> None:
        self.calls.append((name, args))

    def look(self) -> None:
        """``query`` and ``size``: the answers a consumer compares after a change."""
        self.op("query")
        self.op("size")

    # FIFO helpers, keeping ``size`` (an evict on an empty window is a refusal and changes nothing)
    def insert(self, n: int = 1, *, look: bool = False) -> None:
        for _ in range(n):
            self.op("insert", self.value())
            self.size += 1
            if look:
                self.look()

    def evict(self, n: int = 1, *, look: bool = False) -> None:
        for _ in range(n):
            self.op("evict")
            self.size = max(0, self.size - 1)
            if look:
                self.look()

    def insert_many(self, n: int) -> None:
        self.op("insert_many", self.values(n))
        self.size += n

    def evict_many(self, n: int) -> None:
        self.op("evict_many", n)
        if 0 <= n <= self.size:
            self.size -= n

    def drain(self) -> None:
        self.evict(self.size, look=True)
        self.op("evict")  # one more: the window is empty
        self.look()


def _lcg(seed: int) -> Iterator[int]:
    """A fixed pseudo-random stream (the ``random`` module's algorithms are not promised across versions)."""
    x = seed
    while True:
        x = (x * 6364136223846793005 + 1442695040888963407) % 2**64
        yield x >> 33


# ------------------------------------------------------------------------------------------------ FIFO cases


def _fifo_empty(t: _Trace) -> None:
    """query and size of an empty window; evict on it is refused (empty), also after the last value left."""
    t.look()
    t.evict()
    t.look()
    t.insert()
    t.evict()
    t.evict()
    t.look()


def _fifo_single(t: _Trace) -> None:
    """one element in and out, repeatedly; evict past the end."""
    for _ in range(3):
        t.insert(look=True)
        t.evict(look=True)
    t.evict(look=True)


def _fifo_fill_drain(t: _Trace) -> None:
    """fill to 40 (past the sublist flips at every power of two) and drain, twice."""
    t.insert(40, look=True)  # passes the sublist flips at 1, 2, 4, ..., 32 (000 §4: F reaches B)
    t.drain()
    t.insert(5, look=True)
    t.drain()


def _seesaw(m: int) -> Callable[[_Trace], None]:
    def build(t: _Trace) -> None:
        """grow to m, slide (a shift every step), oscillate ±2 around m, drain."""
        t.insert(m, look=True)
        for _ in range(2 * m + 3):  # a static window: a shift every step, a flip every m steps (000 §5)
            t.insert()
            t.evict(look=True)
        for _ in range(m + 2):  # oscillate just above m ...
            t.insert(2, look=True)
            t.evict(2, look=True)
        for _ in range(m + 2):  # ... and just below it
            t.evict(min(2, t.size), look=True)
            t.insert(2, look=True)
        t.drain()

    build.__doc__ = f"grow to {m}, slide (shifts, a flip about every {m} steps), oscillate ±2 around {m}, drain"
    return build


def _static(w: int) -> Callable[[_Trace], None]:
    def build(t: _Trace) -> None:
        """a static window of w: insert and evict per step."""
        t.insert(w, look=True)
        for _ in range(3 * w + 5):
            t.insert()
            t.evict()
            t.op("query")
        t.op("size")

    build.__doc__ = f"a static window of {w}: one insert and one evict per step, a query after each"
    return build


def _fifo_long_run(t: _Trace) -> None:
    """1,000 random inserts/evicts (window 0..~65), a query after each."""
    rand = _lcg(14)
    for step in range(1000):
        target = (step // 50) % 4 * 20 + 5  # a window whose size wanders between about 0 and 65
        grow = t.size == 0 or next(rand) % 100 < (70 if t.size < target else 30)
        t.insert() if grow else t.evict()
        t.op("query")
        if step % 10 == 9:
            t.op("size")
    t.drain()


def _fifo_bulk(t: _Trace) -> None:
    """insert_many/evict_many of 0, 1, several, all, beyond the size (refused: empty)."""
    t.insert_many(0)
    t.evict_many(0)
    t.evict_many(1)  # beyond the size: refused as "empty", nothing changes
    t.look()
    for n in (1, 2, 5, 16):
        t.insert_many(n)
        t.look()
    t.evict_many(3)
    t.look()
    t.evict_many(t.size + 1)
    t.look()
    t.evict_many(1)
    t.look()
    t.evict_many(t.size)
    t.look()
    t.insert_many(7)
    t.evict_many(7)
    t.look()


def _fifo_bulk_mixed(t: _Trace) -> None:
    """bulks of sizes around powers of two, mixed with single operations."""
    for m in (1, 2, 3, 4, 7, 8, 9, 15, 16, 17, 31, 32, 33):
        t.insert_many(m)
        t.look()
        t.evict_many(m // 2 + 1)
        t.look()
        t.insert(look=True)
        t.evict(look=True)
    t.evict_many(t.size)
    t.look()


def _fifo_query_range(t: _Trace) -> None:
    """query_range(r) for r = 1, 2, n-1, n, n+1, 100 while filling and evicting."""

    def ranges() -> None:
        for r in sorted({1, 2, t.size - 1, t.size, t.size + 1, 100} - {-1, 0}):  # SlickDeque, FlatFIT: r ≥ 1
            t.op("query_range", r)

    ranges()
    for _ in range(20):
        t.insert()
        ranges()
    for _ in range(8):
        t.evict()
        ranges()
    t.drain()
    ranges()


def _fifo_extremes(t: _Trace) -> None:
    """edge inputs: the identity as an input, int64 limits, JSON escapes, subnormal floats."""
    extremes = EXTREMES[t.monoid]
    for v in extremes:
        t.op("insert", v)
        t.size += 1
        t.look()
    for _ in range(2):
        for v in extremes:
            t.op("insert", v)
            t.op("evict")
            t.look()
    t.drain()


# --------------------------------------------------------------------------------------------- handles cases


def _handles_basic(t: _Trace) -> None:
    """remove by handle: middle, oldest, youngest, dead, never issued; evict after removes."""
    for _ in range(6):
        t.op("insert_with_handle", t.value())
    t.look()
    for h in (2, 0, 5):  # middle, oldest, youngest
        t.op("remove", h)
        t.look()
    t.op("remove", 2)  # already removed: bad_input, nothing changes
    t.op("remove", 99)  # never issued
    t.op("handles")
    t.op("evict")  # the oldest live element (handle 1)
    t.look()
    t.op("insert", t.value())  # a plain insert takes a handle too (6)
    t.op("insert_with_handle", t.value())
    t.op("handles")
    t.op("remove", 6)
    t.look()
    for _ in range(4):
        t.op("evict")
        t.look()
    t.op("remove", 7)


def _handles_bulk(t: _Trace) -> None:
    """insert_many_with_handles, remove_many (repeated, dead: refused), batch."""
    t.op("insert_many_with_handles", t.values(6))
    t.look()
    t.op("remove_many", [1, 3])
    t.look()
    t.op("remove_many", [0, 0])  # repeated: refused, nothing changes
    t.op("remove_many", [4, 99])  # one dead: refused, nothing changes
    t.look()
    t.op("remove_many", [])
    t.op("batch", [("insert", t.value()), ("evict",), ("remove", 5), ("insert", t.value())])
    t.op("handles")
    t.look()
    t.op("insert_many", t.values(3))
    t.op("evict_many", 2)
    t.op("handles")
    t.look()
    t.op("remove_many", [9, 10, 11])
    t.look()


def _handles_long_run(t: _Trace) -> None:
    """600 random insert_with_handle/remove/evict, a query after each."""
    rand = _lcg(2)
    live: list[int] = []
    issued = 0
    for step in range(600):
        r = next(rand) % 100
        if not live or r < 45:
            t.op("insert_with_handle", t.value())
            live.append(issued)
            issued += 1
        elif r < 75:
            h = live.pop(next(rand) % len(live))
            t.op("remove", h)
        else:
            t.op("evict")
            live.pop(0)
        t.op("query")
        if step % 10 == 9:
            t.op("size")
    t.op("handles")


# -------------------------------------------------------------------------------------------------- ooo cases


def _ins(t: _Trace, *times: int) -> None:
    for time_ in times:
        t.op("insert", time_, t.value())


def _bulk(t: _Trace, times: Sequence[int]) -> None:
    t.op("bulk_insert", [(time_, t.value()) for time_ in times])


def _ends(t: _Trace) -> None:
    t.look()
    t.op("oldest")
    t.op("youngest")


def _ooo_empty(t: _Trace) -> None:
    """every query of an empty window; evict/oldest/youngest refused (empty), remove (missing)."""
    _ends(t)
    t.op("evict")
    t.op("bulk_evict", 5)
    t.op("remove", 3)
    t.op("range_query", 0, 10)
    t.op("bulk_insert", [])
    _ends(t)


def _ooo_single(t: _Trace) -> None:
    """one entry: its ends, range queries around it, remove, a repeated time."""
    _ins(t, 5)
    _ends(t)
    for lo, hi in ((5, 5), (0, 4), (6, 9), (0, 9)):
        t.op("range_query", lo, hi)
    t.op("remove", 5)
    _ends(t)
    _ins(t, 5, 5)  # the second is combined on the right of the first (003 §3.1)
    _ends(t)
    t.op("evict")
    _ends(t)
    t.op("evict")


def _ooo_in_order(t: _Trace) -> None:
    """64 in-order inserts, then 64 evicts."""
    for time_ in range(1, 65):
        _ins(t, time_)
        t.look()
    for _ in range(64):
        t.op("evict")
        _ends(t)


def _ooo_reverse(t: _Trace) -> None:
    """64 inserts in decreasing time, removes, a bulk evict of all."""
    for time_ in range(64, 0, -1):
        _ins(t, time_)
        _ends(t)
    for time_ in range(64, 0, -3):
        t.op("remove", time_)
        t.look()
    t.op("bulk_evict", 64)
    _ends(t)


def _ooo_duplicates(t: _Trace) -> None:
    """repeated times combine on the right (old ⊗ new); remove drops them all."""
    for time_ in (5, 5, 3, 5, 3, 7, 5, 7, 7, 1, 5):
        _ins(t, time_)
        t.look()
    t.op("range_query", 3, 5)
    t.op("remove", 5)  # the whole entry at 5, every combined value
    t.look()
    _ins(t, 5)
    t.look()
    t.op("bulk_evict", 3)
    t.look()
    for _ in range(4):
        t.op("evict")
        _ends(t)


def _ooo_older_than_all(t: _Trace) -> None:
    """inserts older than everything in the window, one after another."""
    for time_ in range(100, 132):
        _ins(t, time_)
    t.look()
    for time_ in range(99, 59, -1):  # every insert the oldest so far: the left finger's path
        _ins(t, time_)
        _ends(t)
    _ins(t, 0)
    _ends(t)
    for _ in range(5):
        t.op("evict")
        _ends(t)


def _ooo_remove_edges(t: _Trace) -> None:
    """remove the oldest, youngest, middle, an absent time (missing), all."""
    for k in range(50):
        _ins(t, (k * 17) % 50 * 2)  # even times 0..98, interleaved
    t.look()
    for time_ in (0, 98, 50, 51, 0, 2, 96):  # oldest, youngest, middle, absent, removed, new ends
        t.op("remove", time_)
        _ends(t)
    for k in range(50):
        time_ = (k * 31) % 50 * 2
        t.op("remove", time_)
        if k % 5 == 4:
            _ends(t)
    _ends(t)


def _ooo_bulk_evict_edges(t: _Trace) -> None:
    """bulk_evict before, at, between, after the times; on a 300-entry tree."""
    _bulk(t, range(10, 410, 10))
    t.look()
    for time_ in (5, 10, 25, 60, 60, 395, 400, 1000):  # before, at the first, between, at, again, ..., after
        t.op("bulk_evict", time_)
        _ends(t)
    for k in range(300):  # several B-tree levels, then cuts along the boundary path (003 §4)
        _ins(t, (k * 7) % 300)
    t.look()
    for time_ in (0, 1, 41, 42, 99, 150, 151, 298, 299):
        t.op("bulk_evict", time_)
        _ends(t)


def _ooo_bulk_repeated(t: _Trace) -> None:
    """bulk_insert with repeated times, also onto existing entries."""
    _bulk(t, (1, 1, 2, 2, 2))  # equal times inside one bulk fold earlier ⊗ later
    t.look()
    _bulk(t, (0, 1, 1, 3, 3))  # ... and onto existing entries
    t.look()
    _bulk(t, (4,) * 6)
    t.look()
    for time_ in range(4):
        t.op("range_query", time_, time_)
    t.op("remove", 1)
    t.look()
    t.op("bulk_evict", 2)
    _ends(t)


def _ooo_bulk_collide(t: _Trace) -> None:
    """bulks colliding with keys of a 300-entry tree (keys in internal nodes)."""
    for k in range(300):
        _ins(t, (k * 37) % 300 * 2)  # even times 0..598 in interleaved order: internal-node keys exist
    t.look()
    for start in (0, 1, 3):  # bulks hitting every 3rd existing key, with new odd keys between
        _bulk(t, sorted({*range(start * 2, 600, 6), *range(start * 2 + 1, 600, 14)}))
        t.look()
        t.op("range_query", 100, 300)
    _bulk(t, range(0, 600, 2))  # every existing key at once
    t.look()
    _bulk(t, range(700, 760))  # younger than everything
    _bulk(t, range(-60, 0))  # older than everything
    _ends(t)


def _ooo_unordered_bulk(t: _Trace) -> None:
    """bulk_insert out of time order is refused (unordered), changing nothing."""
    _ins(t, *range(0, 20, 2))
    t.look()
    _bulk(t, (5, 3))  # out of order: refused, nothing changes
    _bulk(t, (1, 3, 5, 7, 6))
    t.look()
    _bulk(t, (1, 3, 5))
    t.look()


def _ooo_deep_tree(t: _Trace) -> None:
    """401 out-of-order inserts (several B-tree levels), removes, bulk evicts."""
    for k in range(401):
        _ins(t, (k * 37) % 401)  # a permutation of 0..400: every insert out of order
        if k % 10 == 9:
            t.look()
    t.look()
    t.op("range_query", 17, 333)
    t.op("range_query", 0, 400)
    for time_ in range(0, 401, 3):
        t.op("remove", time_)
        if time_ % 30 == 0:
            t.look()
    for time_ in range(50, 450, 50):
        t.op("bulk_evict", time_)
        _ends(t)


def _ooo_range_queries(t: _Trace) -> None:
    """range_query at, between, beyond the times; from > to."""
    _ins(t, *range(0, 60, 3))
    pairs = [(-5, -1), (-5, 0), (0, 0), (1, 2), (2, 7), (3, 3), (10, 5), (0, 57), (-100, 100), (57, 57), (58, 90)]
    pairs += [(lo, lo + w) for lo in range(0, 60, 7) for w in (0, 1, 4, 13)]
    for lo, hi in pairs:
        t.op("range_query", lo, hi)
    for time_ in (0, 57, 30):
        t.op("remove", time_)
        t.op("range_query", time_ - 3, time_ + 3)
    t.look()


def _ooo_artifact_bulks(t: _Trace) -> None:
    """bulk evict, then a bulk of times i..i+m inclusive whose first time repeats the previous bulk's last (the
    benchmark of 003's artifact, notes §5.1)."""
    i = 0
    for m in (1, 4, 8, 64, 8, 4, 1):
        t.op("bulk_evict", i - 40)
        _bulk(t, range(i, i + m + 1))
        t.look()
        i += m
    _ends(t)


def _ooo_long_run(t: _Trace) -> None:
    """1,000 random inserts (out of order by up to 11), evicts, removes, bulks, range queries."""
    rand = _lcg(3)
    present: list[int] = []
    youngest = 0
    for step in range(1000):
        r = next(rand) % 100
        if not present or r < 50:
            youngest += 1
            time_ = youngest - next(rand) % 12  # out of order by up to 11
            _ins(t, time_)
            if time_ not in present:
                present.append(time_)
        elif r < 60:
            t.op("evict")
            present.remove(min(present))
        elif r < 70:
            time_ = present[next(rand) % len(present)]
            t.op("remove", time_)
            present.remove(time_)
        elif r < 75:
            cut = min(present) + next(rand) % 6
            t.op("bulk_evict", cut)
            present = [p for p in present if p > cut]
        elif r < 82:
            times = sorted(youngest - next(rand) % 8 for _ in range(1 + next(rand) % 5))
            _bulk(t, times)
            present = sorted({*present, *times})
        else:
            t.op("range_query", youngest - 10, youngest - 2)
        t.op("query")
        if step % 10 == 9:
            t.op("size")
            t.op("oldest")


# ----------------------------------------------------------------------------------------------------- cases


@dataclass(frozen=True)
class Case:
    """One corpus case: its ``name``, the ``kind`` it drives, what edge it ``covers``, and ``build`` adding its
    calls to a :class:`_Trace`."""

    name: str
    kind: str
    covers: str
    build: Callable[[_Trace], None]


def _case(kind: str, name: str, build: Callable[[_Trace], None]) -> Case:
    return Case(name, kind, " ".join((build.__doc__ or "").split()).rstrip("."), build)


def _cases() -> tuple[Case, ...]:
    fifo = [
        _case("fifo", "empty", _fifo_empty),
        _case("fifo", "single", _fifo_single),
        _case("fifo", "fill_drain", _fifo_fill_drain),
        *(_case("fifo", f"seesaw_{m}", _seesaw(m)) for m in (1, 2, 3, 4, 5, 8, 16, 32)),
        *(_case("fifo", f"static_{w}", _static(w)) for w in (1, 2, 3, 7, 10, 64)),
        _case("fifo", "long_run", _fifo_long_run),
        _case("fifo", "bulk", _fifo_bulk),
        _case("fifo", "bulk_mixed", _fifo_bulk_mixed),
        _case("fifo", "query_range", _fifo_query_range),
        _case("fifo", "extremes", _fifo_extremes),
    ]
    handles = [
        _case("handles", "handles_basic", _handles_basic),
        _case("handles", "handles_bulk", _handles_bulk),
        _case("handles", "handles_long_run", _handles_long_run),
    ]
    ooo = [
        _case("ooo", "empty", _ooo_empty),
        _case("ooo", "single", _ooo_single),
        _case("ooo", "in_order", _ooo_in_order),
        _case("ooo", "reverse_order", _ooo_reverse),
        _case("ooo", "duplicate_times", _ooo_duplicates),
        _case("ooo", "older_than_all", _ooo_older_than_all),
        _case("ooo", "remove_edges", _ooo_remove_edges),
        _case("ooo", "bulk_evict_edges", _ooo_bulk_evict_edges),
        _case("ooo", "bulk_insert_repeated", _ooo_bulk_repeated),
        _case("ooo", "bulk_collide", _ooo_bulk_collide),
        _case("ooo", "unordered_bulk", _ooo_unordered_bulk),
        _case("ooo", "deep_tree", _ooo_deep_tree),
        _case("ooo", "range_queries", _ooo_range_queries),
        _case("ooo", "artifact_bulks", _ooo_artifact_bulks),
        _case("ooo", "long_run", _ooo_long_run),
    ]
    return (*fifo, *handles, *ooo)


#: every case of the corpus, in export order
CASES: tuple[Case, ...] = _cases()
