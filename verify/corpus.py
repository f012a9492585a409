"""The conformance corpus: deterministic edge-case traces with their expected answers, as plain files.

``swagkit corpus export DIR`` writes one replay file (:mod:`swagkit.verify.replay`) per case, kind and
conformance monoid (:data:`swagkit.verify.process.CONFORMANCE`) as ``DIR/<kind>/<monoid>/<case>.jsonl``, and
``DIR/index.json`` listing them. Every file is a session of the line protocol (docs/protocol.md): a ``hello``
header naming the case and the set of ``ops`` it uses, ``new`` instance 1, then the operations with the
model's answers (``"expect"``) and refusals (``"error"``). A Java or Rust CI feeds each file to its driver
(``CMD < file``) and compares the replies with the expectations, without Python -- the way sqllogictest files
are used; a consumer skips a file whose ``ops`` it does not offer.

The answers come from the executable models (:mod:`swagkit.spec.adt`, :mod:`swagkit.spec.nonfifo`,
:mod:`swagkit.spec.ooo`) through :func:`swagkit.verify.replay.lines_for`. The cases aim at the shapes where SWAGs
break (000 §4-5 DABA/DABA Lite flips and shifts at the sublist boundaries; 002 §2.2 removal by handle; 003 §3-5
FiBA's bulk evict along the boundary path, bulk inserts whose keys sit in internal nodes or repeat inside one
bulk, trees several levels deep; the notes' errata): empty windows, single elements, fill-and-drain, see-saws
around the sizes where the sublists flip, static windows, long runs, bulk calls, range queries. Inputs are
deterministic (a multiplicative hash of the position, no random generator), so an export is the same bytes on
every run and every Python version. ``sum_f64`` inputs are multiples of 1/8, whose sums are exact in any
association, except in the ``extremes`` case.

``swagkit corpus run DIR --exec CMD | --impl MODULE:FACTORY`` replays every file through
:func:`swagkit.verify.replay.run` (the kind's checked wrapper, the model and the file's answers), skipping files
whose ops the implementation does not offer (``hello``'s capabilities, :func:`swagkit.verify.impl.detect`).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from swagkit.spec.errors import UnsupportedMonoidError

from . import replay
from .process import CONFORMANCE, conformance_monoids_registered

__all__ = [
    "VERSION",
    "INDEX",
    "KINDS",
    "CASES",
    "Case",
    "Trace",
    "Outcome",
    "traces",
    "export",
    "corpus_files",
    "run_files",
    "add_subparser",
]

#: the corpus format (the header's ``swagkit_corpus``); the files are replay files of :data:`replay.VERSION`
VERSION = 1
#: the index file of an exported corpus
INDEX = "index.json"
#: the kinds a corpus covers (``handles``: FIFO plus removal by handle, 002 §2.2; Python ``--impl`` only)
KINDS = ("fifo", "handles", "ooo")

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
    t.op("batch", [["insert", t.value()], ["evict"], ["remove", 5], ["insert", t.value()]])
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

#: the protocol's refusal codes for what the model refuses as bad input (replay files say ``bad_input`` for
#: every such refusal; the corpus values are always valid, so an ooo refusal has exactly one cause)
_OOO_REFUSALS = {"remove": "missing", "bulk_insert": "unordered"}


@dataclass(frozen=True)
class Trace:
    """One exported file: where it goes (``path`` under the corpus directory), its header and lines."""

    path: str
    kind: str
    monoid: str
    case: Case
    lines: list[dict[str, Any]]

    @property
    def ops(self) -> list[str]:
        return sorted({str(line["op"]) for line in self.lines})

    def text(self) -> str:
        header = {
            "op": "hello",
            "swagkit_replay": replay.VERSION,
            "swagkit_corpus": VERSION,
            "kind": self.kind,
            "monoid": self.monoid,
            "case": self.case.name,
            "covers": self.case.covers,
            "ops": self.ops,
            "operations": len(self.lines),
        }
        protocol_kind = "ooo" if self.kind == "ooo" else "fifo"
        new = {"op": "new", "id": replay.REPLAY_ID, "kind": protocol_kind, "monoid": self.monoid}
        body = [header, new] + [{"op": ln["op"], "id": replay.REPLAY_ID, **_rest(ln)} for ln in self.lines]
        return "".join(json.dumps(row, separators=(",", ":")) + "\n" for row in body)


def _rest(line: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in line.items() if k != "op"}


def traces(kinds: Sequence[str] | None = None, monoids: Sequence[str] | None = None) -> list[Trace]:
    """The corpus's traces (every kind and conformance monoid unless restricted), with the model's answers."""
    kinds = list(kinds or KINDS)
    monoids = list(monoids or CONFORMANCE)
    for k in kinds:
        if k not in KINDS:
            raise ValueError(f"unknown kind {k!r} (the corpus has {', '.join(KINDS)})")
    for m in monoids:
        if m not in CONFORMANCE:
            raise ValueError(f"{m!r} is not a conformance monoid ({', '.join(CONFORMANCE)})")
    out = []
    for case in CASES:
        if case.kind not in kinds:
            continue
        for m in monoids:
            t = _Trace(m)
            case.build(t)
            lines = replay.lines_for(case.kind, CONFORMANCE[m].monoid(), t.calls)
            if case.kind == "ooo":
                for ln in lines:
                    if ln.get("error") == "bad_input" and ln["op"] in _OOO_REFUSALS:
                        ln["error"] = _OOO_REFUSALS[ln["op"]]
            out.append(Trace(f"{case.kind}/{m}/{case.name}.jsonl", case.kind, m, case, lines))
    return out


def export(directory: str, kinds: Sequence[str] | None = None, monoids: Sequence[str] | None = None) -> dict[str, Any]:
    """Write the corpus under ``directory`` (created; files of the same names are replaced) and its index;
    the index (also written as ``directory/index.json``)."""
    files = []
    for tr in traces(kinds, monoids):
        text = tr.text()
        path = os.path.join(directory, *tr.path.split("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        files.append(
            {
                "path": tr.path,
                "kind": tr.kind,
                "monoid": tr.monoid,
                "case": tr.case.name,
                "covers": tr.case.covers,
                "ops": tr.ops,
                "operations": len(tr.lines),
                "bytes": len(text.encode()),
            }
        )
    index = {
        "swagkit_corpus": VERSION,
        "protocol": "docs/protocol.md (each file: hello, new id 1, operations with expect/error)",
        "files": files,
    }
    with open(os.path.join(directory, INDEX), "w", encoding="utf-8", newline="\n") as f:
        f.write(json.dumps(index, indent=1, ensure_ascii=False) + "\n")
    return index


# ------------------------------------------------------------------------------------------------------- run


def corpus_files(directory: str) -> list[str]:
    """The corpus files under ``directory``, relative: the index's when there is one, else every ``.jsonl``."""
    index = os.path.join(directory, INDEX)
    if os.path.exists(index):
        with open(index, encoding="utf-8") as f:
            return [str(entry["path"]) for entry in json.load(f)["files"]]
    found = []
    for root, _, names in os.walk(directory):
        found += [os.path.relpath(os.path.join(root, n), directory) for n in names if n.endswith(".jsonl")]
    return sorted(p.replace(os.sep, "/") for p in found)


class _Subject:
    """What the implementation under test offers, per (kind, monoid): its factory and ops, or why it cannot
    run that kind or monoid at all."""

    def __init__(self, impl: str | None, exec_cmd: str | None, timeout: float, guess_kind: bool) -> None:
        self.impl, self.exec_cmd, self.timeout = impl, exec_cmd, timeout
        self.guess_kind = guess_kind
        self._factories: dict[str, Any] = {}
        self._offers: dict[tuple[str, str], tuple[Any, frozenset[str]] | str] = {}

    def offer(self, kind: str, monoid: str) -> tuple[Any, frozenset[str]] | str:
        """``(factory, ops)`` for files of ``kind`` over ``monoid``, or the reason to skip them."""
        key = (kind, monoid)
        if key not in self._offers:
            self._offers[key] = self._offer(kind, monoid)
        return self._offers[key]

    def _factory(self, kind: str) -> Any:
        if kind not in self._factories:
            from . import impl as impl_mod

            if self.exec_cmd is not None:
                # one process per protocol kind for the whole run: every file is a new instance in it
                self._factories[kind] = impl_mod.exec_factory(self.exec_cmd, kind, self.timeout)
            else:
                self._factories[kind] = impl_mod.load(str(self.impl))
        return self._factories[kind]

    def _offer(self, kind: str, monoid: str) -> tuple[Any, frozenset[str]] | str:
        from . import impl as impl_mod

        if self.exec_cmd is not None:
            if kind == "handles":
                return "the protocol has no handle operations (handles files are for --impl)"
            try:
                factory = self._factory(kind)
            except UnsupportedMonoidError as exc:
                return str(exc)
            if not factory.offers(monoid):
                return f"the program does not offer the monoid {monoid}"
            return factory, frozenset(factory.operations)
        factory = self._factory(kind)
        try:
            obj = factory(CONFORMANCE[monoid].monoid())
        except UnsupportedMonoidError as exc:
            return f"the factory refuses {monoid}: {exc}"
        if self.guess_kind and kind != "ooo" and not impl_mod.detect(obj, "ooo").lacking:
            # the ooo operations are a superset of the FIFO names, but its insert takes a time
            return "an out-of-order aggregator (its insert takes a time; --kind fifo runs it as FIFO)"
        found = impl_mod.detect(obj, kind)
        if found.lacking:
            return f"not a {kind} aggregator: it lacks {', '.join(found.lacking)}"
        return factory, frozenset("size" if op == "__len__" else op for op in found.offered)

    def close(self) -> None:
        for factory in self._factories.values():
            close = getattr(factory, "close", None)
            if close is not None:
                close()


@dataclass(frozen=True)
class Outcome:
    """One file's result: ``status`` PASS, FAIL or SKIP, and why (``detail``)."""

    path: str
    status: str
    detail: str
    operations: int = 0


def run_files(
    directory: str,
    *,
    impl: str | None = None,
    exec_cmd: str | None = None,
    kinds: Sequence[str] | None = None,
    monoids: Sequence[str] | None = None,
    timeout: float = 10.0,
    on_outcome: Callable[[Outcome], None] | None = None,
) -> list[Outcome]:
    """Replay every corpus file under ``directory`` (of ``kinds``/``monoids``, default all) on the
    implementation; a file whose ops it does not offer is skipped."""
    if (impl is None) == (exec_cmd is None):
        raise ValueError("name the implementation: --impl MODULE:FACTORY or --exec CMD")
    if not os.path.isdir(directory):
        raise ValueError(f"{directory} is not a directory (export a corpus with: swagkit corpus export DIR)")
    subject = _Subject(impl, exec_cmd, timeout, guess_kind=not kinds)
    outcomes = []
    try:
        with conformance_monoids_registered():  # affine_int is a protocol monoid, not a library id
            for rel in corpus_files(directory):
                outcome = _run_file(directory, rel, subject, kinds, monoids)
                if outcome is None:
                    continue
                outcomes.append(outcome)
                if on_outcome is not None:
                    on_outcome(outcome)
    finally:
        subject.close()
    return outcomes


def _run_file(
    directory: str, rel: str, subject: _Subject, kinds: Sequence[str] | None, monoids: Sequence[str] | None
) -> Outcome | None:
    path = os.path.join(directory, *rel.split("/"))
    try:
        header, ops = replay.read(path)
    except (OSError, ValueError) as exc:
        return Outcome(rel, "FAIL", f"not a corpus file: {exc}")
    kind, monoid = str(header["kind"]), str(header["monoid"])
    if kinds and kind not in kinds or monoids and monoid not in monoids:
        return None
    offer = subject.offer(kind, monoid)
    if isinstance(offer, str):
        return Outcome(rel, "SKIP", offer, len(ops))
    factory, offered = offer
    lacking = sorted(set(header.get("ops") or {str(op["op"]) for op in ops}) - offered)
    if lacking:
        return Outcome(rel, "SKIP", f"needs {', '.join(lacking)} (not offered)", len(ops))
    said = io.StringIO()
    status = replay.run(path, factory, out=said)
    detail = said.getvalue().strip()
    return Outcome(rel, "PASS" if status == 0 else "FAIL", detail, len(ops))


# ------------------------------------------------------------------------------------------------------- CLI


def export_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``swagkit corpus export DIR``: write the corpus and print what was written."""
    start = time.perf_counter()
    try:
        index = export(args.dir, args.kind, args.monoid)
    except (OSError, ValueError) as exc:
        print(f"swagkit corpus export: {exc}", file=err)
        return 2
    files = index["files"]
    print(
        f"swagkit corpus export: {len(files)} files, {sum(f['operations'] for f in files):,} operations, "
        f"{sum(f['bytes'] for f in files):,} bytes in {args.dir} ({INDEX}) in {time.perf_counter() - start:.1f}s",
        file=out,
    )
    return 0


def run_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``swagkit corpus run DIR``: PASS/FAIL/SKIP per file and a summary; 1 on any failure, 3 when nothing ran."""
    start = time.perf_counter()

    def show(o: Outcome) -> None:
        first = o.detail.splitlines()[0] if o.detail and o.status != "PASS" else f"{o.operations} operations"
        print(f"{o.status:<4} {o.path}: {first}", file=out, flush=True)
        if o.status == "FAIL" and "\n" in o.detail:
            print("\n".join("     " + ln for ln in o.detail.splitlines()[1:]), file=out)

    try:
        outcomes = run_files(
            args.dir,
            impl=args.impl,
            exec_cmd=args.exec_cmd,
            kinds=args.kind,
            monoids=args.monoid,
            timeout=args.timeout,
            on_outcome=show,
        )
    except (OSError, ValueError, KeyError) as exc:
        print(f"swagkit corpus run: {exc}", file=err)
        return 2
    except AssertionError as exc:  # the program did not start (a usage error) or did not greet (a FAIL)
        print(f"swagkit corpus run: FAIL: {exc}", file=err)
        return 2 if isinstance(exc.__cause__, OSError) else 1
    counts = {s: sum(1 for o in outcomes if o.status == s) for s in ("PASS", "FAIL", "SKIP")}
    verdict = "FAILED" if counts["FAIL"] else "OK" if counts["PASS"] else "NOTHING RAN"
    print(
        f"\n{verdict}: {counts['PASS']} passed, {counts['FAIL']} failed, {counts['SKIP']} skipped of "
        f"{len(outcomes)} corpus files ({sum(o.operations for o in outcomes if o.status != 'SKIP'):,} operations "
        f"in the files run) in {time.perf_counter() - start:.1f}s",
        file=out,
    )
    return 1 if counts["FAIL"] else 0 if counts["PASS"] else 3


def add_subparser(sub: Any) -> None:
    """``swagkit corpus export|run`` on the ``swagkit`` parser's subcommands (``args.corpus_command`` runs it)."""
    corpus = sub.add_parser(
        "corpus",
        help="export the conformance corpus as plain files, or run it",
        description="The conformance corpus: edge-case traces with expected answers, one protocol session per file "
        "(docs/protocol.md, 'Conformance corpus'), runnable without Python as `CMD < file`.",
    )
    actions = corpus.add_subparsers(dest="corpus_action", metavar="ACTION", required=True)
    exp = actions.add_parser("export", help="write DIR/<kind>/<monoid>/<case>.jsonl and DIR/index.json")
    run_p = actions.add_parser("run", help="replay every corpus file on an implementation: PASS/FAIL per file")
    for p in (exp, run_p):
        p.add_argument("dir", metavar="DIR", help="the corpus directory")
        p.add_argument("--kind", action="extend", nargs="+", choices=KINDS, help="kinds (default: all)")
        p.add_argument("--monoid", action="extend", nargs="+", choices=list(CONFORMANCE), help="default: all")
    who = run_p.add_mutually_exclusive_group(required=True)
    who.add_argument("--impl", metavar="MODULE:FACTORY", help="a Python factory (importable from . or PYTHONPATH)")
    who.add_argument("--exec", dest="exec_cmd", metavar="CMD", help="a program speaking docs/protocol.md")
    run_p.add_argument("--timeout", type=float, default=10.0, metavar="S", help="--exec: seconds per reply")
    exp.set_defaults(corpus_command=export_command)
    run_p.set_defaults(corpus_command=run_command)
