"""Issue 12's hardening of FiBA and FiBALoop (paper 003), in both implementations.

* **refuse**: a ``combine`` that raises (or a ``KeyboardInterrupt`` inside it) in any operation leaves a structure
  that raises :class:`BrokenAggregatorError` on every update and query, whose ``salvage()`` is exactly the entries
  before the operation (a failed value ⊗ -- ``old ⊗ new`` at an existing time, equal times in a bulk --, a failed
  query, a failed loop of inserts) or after it (a failed aggregate recomputation: the surgery is finished without
  ⊗; a failed loop of evictions), and that ``repair()`` rebuilds (staying broken if ⊗ raises again). Driven by the
  shared harness with a script that grows trees several levels deep for μ = 8, and operation by operation;
* bad input: ``slide`` with times and values of different lengths raises before anything changes; numpy arrays
  (``slide``, ``bulk_insert``) and numpy scalars (values of typed kinds, timestamps) work like Python numbers;
* re-entrant and concurrent use is refused before any change -- from inside a ⊗ of a split, a merge, a bulk
  operation or a range query, for every public method -- in a child process (a crash of compiled code fails the
  test instead of killing pytest);
* copies and pickles keep state and counts, pickles are flat for 10^5 entries, and ``_from_snapshot`` rejects
  malformed snapshots with ``ValueError``/``TypeError`` (in a child process for the compiled twin).

Run as a script (``python tests/test_hardening_fiba.py NAME IMPL``) it runs one of the child checks.
"""

from __future__ import annotations

import array
import copy
import dataclasses
import os
import pickle
import random
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hardening import Case, Op, run_faults, run_reentry

import swagkit.optimized as opt
import swagkit.reference as ref
from swagkit.spec.errors import BrokenAggregatorError, EmptyWindowError, ReentrantCallError
from swagkit.spec.library import argmax, max_f64, max_i64, string_concat, sum_f64, sum_i64, sum_monoid
from swagkit.spec.monoid import Monoid
from swagkit.spec.ooo import TimedWindow
from swagkit.spec.snapshots import FiBANodeState, FiBAState

IMPLS = ["reference", "optimized"]
MODULES = {"reference": ref, "optimized": opt}
HERE = os.path.dirname(os.path.abspath(__file__))


def make(impl: str, monoid: Any, mu: int = 4, loop: bool = False) -> Any:
    return getattr(MODULES[impl], "FiBALoop" if loop else "FiBA")(monoid, mu)


def _child(name: str, impl: str, timeout: float = 600) -> None:
    """Run ``CHECKS[name](impl)`` in a child process; a crash is a failed assertion with the child's output."""
    done = subprocess.run(
        [sys.executable, os.path.abspath(__file__), name, impl],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "PYTHONFAULTHANDLER": "1"},
    )
    assert done.returncode == 0, f"exit {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-4000:]}"
    assert "child ok" in done.stdout


def height(agg: Any) -> int:
    node, levels = agg.snapshot().root, 1
    while node.children:
        node, levels = node.children[0], levels + 1
    return levels


class Trap:
    """A counting ``combine`` that runs ``action`` inside its k-th call from ``arm(k, action)`` on."""

    def __init__(self, inner: Callable[[Any, Any], Any]) -> None:
        self.inner = inner
        self.calls = 0
        self.countdown = 0
        self.action: Callable[[], None] | None = None

    def arm(self, k: int, action: Callable[[], None]) -> None:
        self.countdown, self.action = k, action

    def __call__(self, a: Any, b: Any) -> Any:
        self.calls += 1
        if self.countdown:
            self.countdown -= 1
            if self.countdown == 0 and self.action is not None:
                action, self.action = self.action, None
                action()
        return self.inner(a, b)


def trapped(monoid: Monoid[Any, Any, Any]) -> tuple[Monoid[Any, Any, Any], Trap]:
    trap = Trap(monoid.combine)
    return dataclasses.replace(monoid, combine=trap, fast_path=None), trap


class Boom(Exception):
    pass


def _boom() -> None:
    raise Boom("transient")


# ------------------------------------------------------------------------------------------------ deep script


def deep_script(agg: Any, values: Any, seed: int = 0) -> list[Op]:
    """Big collision-heavy bulk inserts (about 650 distinct times: three levels for μ = 8, more for smaller μ),
    in-order appends, out-of-order and repeated inserts, removals (internal entries too), range queries near
    either end and across the root, bulk evictions shallow and deep (batch moves, non-sibling merges, new roots),
    then regrowth."""
    rng = random.Random(seed)
    ops: list[Op] = []
    live: set[int] = set()

    def bulk(k: int, lo: int, hi: int) -> None:
        pool = sorted(live)
        ts = sorted(rng.choice(pool) if pool and rng.random() < 0.25 else rng.randrange(lo, hi) for _ in range(k))
        ops.append(("bulk_insert", [(t, rng.choice(values)) for t in ts]))
        live.update(ts)
        ops.append(("query",))

    for _ in range(5):
        bulk(160, 0, 4000)
    for k in range(14):
        r = rng.random()
        if r < 0.35:
            t = 4000 + k
        elif r < 0.6:
            t = rng.randrange(0, 4000)
        elif r < 0.8:
            t = rng.choice(sorted(live))
            ops.append(("remove", t))
            live.discard(t)
            ops.append(("query",))
            continue
        else:
            ops.append(("evict",))
            live.discard(min(live))
            ops.append(("query",))
            continue
        ops.append(("insert", t, rng.choice(values)))
        live.add(t)
        ops.append(("query",))
    ops += [("range_query", 500, 2500), ("range_query", -5, 40), ("range_query", 3990, 4100), ("items",)]
    for frac in (0.01, 0.1, 0.6):
        cut = sorted(live)[int(len(live) * frac)]
        ops.append(("bulk_evict", cut))
        live = {t for t in live if t > cut}
        ops.append(("query",))
    bulk(60, 2500, 4200)
    ops.append(("items",))
    return ops


DEEP_CASES = [Case("fiba_mu8", impl) for impl in IMPLS] + [Case("fiba_loop", impl) for impl in IMPLS]


@pytest.mark.parametrize("impl", IMPLS)
def test_deep_script_reaches_three_levels_for_mu8(impl: str) -> None:
    agg = make(impl, string_concat(), 8)
    script = deep_script(agg, list("abcde"))
    grown = most = 0
    for op in script:
        getattr(agg, op[0])(*op[1:])
        grown, most = max(grown, height(agg)), max(most, len(agg))
    assert grown >= 3 and most > 500


@pytest.mark.parametrize("case", DEEP_CASES, ids=str)
def test_faults_on_deep_trees(case: Case) -> None:
    """The harness's fault injection (``combine`` raising once at sampled ⊗ positions of every operation) on
    trees several levels deep; the structure keeps the refuse guarantee and then answers like the model."""
    every = 61 if case.algorithm == "fiba_loop" else 7  # the loop baseline makes many more ⊗ calls
    assert run_faults(case, every=every, script=deep_script) > 100


@pytest.mark.parametrize("case", DEEP_CASES[:2], ids=str)
def test_keyboard_interrupt_on_deep_trees(case: Case) -> None:
    assert run_faults(case, exc=KeyboardInterrupt, every=89, script=deep_script) > 25


@pytest.mark.parametrize("impl", IMPLS)
def test_reentry_on_deep_trees(impl: str) -> None:
    _child("deep_reentry", impl)


def _deep_reentry(impl: str) -> None:
    assert run_reentry(Case("fiba_mu8", impl), every=401, script=deep_script) > 20


# ---------------------------------------------------------------------------------------- refuse, op by op


def _grown(impl: str, monoid: Monoid[Any, Any, Any], mu: int = 2, loop: bool = False) -> tuple[Any, TimedWindow]:
    """A tree several levels deep, and its model."""
    agg = make(impl, monoid, mu, loop)
    model: TimedWindow[Any, Any, Any] = TimedWindow(monoid)
    rng = random.Random(5)
    pairs = sorted((rng.randrange(0, 300), rng.choice("abcdefg")) for _ in range(120))
    for x in (agg, model):
        x.bulk_insert(pairs)
    return agg, model


BULK = [(t, "y") for t in (3, 3, 77, 150, 150, 151, 152, 500)]


def _value_combines(times_before: set[Any]) -> int:
    """How many ⊗ of ``bulk_insert(BULK)`` make entry values: equal times inside the bulk, then one per time
    already present; they all run before the tree changes."""
    distinct = sorted({t for t, _ in BULK})
    return len(BULK) - len(distinct) + sum(t in times_before for t in distinct)


#: (operation, calls on the structure, how many of its first ⊗ leave the entries before it -- a fault at a later
#: one leaves the entries after it)
SINGLE_OPS: list[tuple[str, Callable[[Any], Any], Callable[[set[Any]], float]]] = [
    ("insert new time (splits)", lambda a: a.insert(150.5, "x"), lambda ts: 0),
    ("insert existing time", lambda a: a.insert(a.items()[40][0], "x"), lambda ts: 1),  # old ⊗ new
    ("insert in order", lambda a: a.insert(1000, "x"), lambda ts: 0),
    ("evict", lambda a: a.evict(), lambda ts: 0),
    ("remove", lambda a: a.remove(a.items()[33][0]), lambda ts: 0),
    ("bulk_evict", lambda a: a.bulk_evict(a.items()[70][0]), lambda ts: 0),
    ("bulk_insert", lambda a: a.bulk_insert(BULK), _value_combines),
    ("query", lambda a: a.query(), lambda ts: float("inf")),
    ("range_query", lambda a: a.range_query(20, 250), lambda ts: float("inf")),
]

REFUSING: dict[str, Callable[[Any], Any]] = {
    "insert": lambda a: a.insert(5, "z"),
    "evict": lambda a: a.evict(),
    "remove": lambda a: a.remove(0),
    "bulk_evict": lambda a: a.bulk_evict(10),
    "bulk_insert": lambda a: a.bulk_insert([(1, "z")]),
    "query": lambda a: a.query(),
    "range_query": lambda a: a.range_query(0, 100),
    "oldest": lambda a: a.oldest(),
    "youngest": lambda a: a.youngest(),
    "items": lambda a: a.items(),
    "times": lambda a: a.times(),
    "snapshot": lambda a: a.snapshot(),
    "slide": lambda a: a.slide([1], ["z"], 3),
    "copy": copy.copy,
    "deepcopy": copy.deepcopy,
    "pickle": pickle.dumps,
}


def _contents_after(impl: str, call: Callable[[Any], Any], loop: bool = False) -> tuple[list[Any], list[Any], int]:
    """(entries before, entries after, ⊗ calls) of the operation on a fresh grown tree."""
    monoid, trap = trapped(string_concat())
    agg, _ = _grown(impl, monoid, loop=loop)
    before = agg.items()
    start = trap.calls
    call(agg)
    return before, agg.items(), trap.calls - start


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("exc", [Boom, KeyboardInterrupt], ids=["exception", "ctrl-c"])
@pytest.mark.parametrize("op", SINGLE_OPS, ids=[o[0] for o in SINGLE_OPS])
def test_failed_operation_refuses_and_salvages(
    op: tuple[str, Callable[[Any], Any], str], impl: str, exc: type[BaseException]
) -> None:
    name, call, leading = op
    before, after, calls = _contents_after(impl, call)
    keeps_before = leading({t for t, _ in before})
    assert calls >= 1
    positions = sorted(k for k in {1, 2, 3, calls // 2, calls} if 1 <= k <= calls)
    for k in positions:
        monoid, trap = trapped(string_concat())
        agg, _ = _grown(impl, monoid)

        def fail() -> None:
            raise exc("transient")

        trap.arm(k, fail)
        snap = agg.snapshot()
        with pytest.raises(exc):
            call(agg)
        if k <= keeps_before:
            # a value's or an answer's ⊗ runs before anything changes: exactly as before, and still usable
            assert agg.snapshot() == snap and agg.items() == before, f"{name}: fault at ⊗ {k}"
            agg._check()
            continue
        for _what, refused in REFUSING.items():
            with pytest.raises(BrokenAggregatorError):
                refused(agg)
        assert len(agg) >= 0 and "FiBA" in repr(agg)  # plain reads still answer
        held = agg.salvage()
        assert held == after, f"{name}: fault at ⊗ {k}"
        agg.repair()
        assert agg.items() == held
        agg._check()  # every invariant of 003 §3.2, aggregates recomputed from scratch
        model: TimedWindow[Any, Any, Any] = TimedWindow(string_concat())
        model.bulk_insert(held)
        assert agg.query() == model.query() and agg.range_query(50, 200) == model.range_query(50, 200)


@pytest.mark.parametrize("impl", IMPLS)
def test_value_combine_failure_keeps_the_tree_itself(impl: str) -> None:
    """``old ⊗ new`` at an existing time runs before anything changes: the tree (snapshot) is exactly as before,
    and the tree stays usable: the next insert at that time combines as if the failed one never happened."""
    monoid, trap = trapped(string_concat())
    agg, model = _grown(impl, monoid)
    t, old = agg.items()[17]
    snap = agg.snapshot()
    trap.arm(1, _boom)
    with pytest.raises(Boom):
        agg.insert(t, "q")
    assert agg.snapshot() == snap and agg.items() == snap_items(snap)
    agg.insert(t, "q")
    model.insert(t, "q")
    assert agg.items() == list(model.items()) and dict(agg.items())[t] == old + "q"
    assert agg.query() == model.query()
    agg._check()


def snap_items(snap: FiBAState) -> list[tuple[Any, Any]]:
    out: list[tuple[Any, Any]] = []

    def walk(n: FiBANodeState) -> None:
        for i in range(len(n.times) + 1):
            if n.children:
                walk(n.children[i])
            if i < len(n.times):
                out.append((n.times[i], n.values[i]))

    walk(snap.root)
    return out


@pytest.mark.parametrize("impl", IMPLS)
def test_repair_that_fails_stays_broken_and_keeps_the_entries(impl: str) -> None:
    monoid, trap = trapped(string_concat())
    agg, model = _grown(impl, monoid)
    trap.arm(1, _boom)
    with pytest.raises(Boom):
        agg.evict()
    model.evict()
    held = agg.salvage()
    assert held == list(model.items())
    trap.arm(5, _boom)
    with pytest.raises(Boom):
        agg.repair()
    with pytest.raises(BrokenAggregatorError):
        agg.query()
    assert agg.salvage() == held
    agg.repair()
    agg.repair()  # nothing to do on a healthy structure
    assert agg.items() == held and agg.query() == model.query()
    agg._check()


@pytest.mark.parametrize("impl", IMPLS)
def test_loop_bulk_insert_salvages_the_entries_before(impl: str) -> None:
    """FiBALoop's bulk insert is a loop of inserts but one operation: a failure at any of them (new times,
    existing times, repeated times in the bulk) salvages the entries before the whole bulk."""
    bulk = [(t, "y") for t in (3, 3, 77, 150, 150, 151, 152, 500, 501)]
    before, after, calls = _contents_after(impl, lambda a: a.bulk_insert(bulk), loop=True)
    for k in range(1, calls + 1, 3):
        monoid, trap = trapped(string_concat())
        agg, _ = _grown(impl, monoid, loop=True)
        assert agg.items() == before
        trap.arm(k, _boom)
        with pytest.raises(Boom):
            agg.bulk_insert(bulk)
        with pytest.raises(BrokenAggregatorError):
            agg.items()
        assert agg.salvage() == before, k
        agg.repair()
        agg.bulk_insert(bulk)
        assert agg.items() == after


@pytest.mark.parametrize("impl", IMPLS)
def test_loop_bulk_evict_salvages_the_entries_after(impl: str) -> None:
    probe, model = _grown(impl, string_concat(), loop=True)
    cut = probe.items()[60][0]
    before, after, calls = _contents_after(impl, lambda a: a.bulk_evict(cut), loop=True)
    model.bulk_evict(cut)
    assert after == list(model.items()) and calls > 40
    for k in (1, 7, 40, calls):
        monoid, trap = trapped(string_concat())
        agg, _ = _grown(impl, monoid, loop=True)
        trap.arm(k, _boom)
        with pytest.raises(Boom):
            agg.bulk_evict(cut)
        with pytest.raises(BrokenAggregatorError):
            agg.oldest()
        assert agg.salvage() == after
        agg.repair()
        assert agg.query() == model.query() and agg.items() == after


@pytest.mark.parametrize("impl", IMPLS)
def test_bad_input_and_empty_window_do_not_break(impl: str) -> None:
    """Refused input and an empty window raise their own errors before anything changes: no refusal after."""
    agg, model = _grown(impl, string_concat())
    snap = agg.snapshot()
    for call in (
        lambda: agg.insert(float("nan"), "x"),
        lambda: agg.insert("str", "x"),
        lambda: agg.bulk_insert([(5, "a"), (4, "b")]),
        lambda: agg.remove(10_000),
        lambda: agg.slide([1, 2], ["a"], 2),
        lambda: agg.slide([1], ["a"], 0),
        lambda: agg.bulk_insert([(1, "a"), (float("nan"), "b")]),
    ):
        with pytest.raises((TypeError, ValueError, KeyError)):
            call()
    assert agg.snapshot() == snap and agg.query() == model.query()
    empty = make(impl, string_concat())
    with pytest.raises(EmptyWindowError):
        empty.evict()
    empty.insert(1, "a")
    assert empty.query() == "a"


# ------------------------------------------------------------------------------------------- slide and numpy


@pytest.mark.parametrize("impl", IMPLS)
def test_slide_refuses_inputs_of_different_lengths(impl: str) -> None:
    for monoid, vals in ((sum_f64(), [1.0, 2.0, 3.0]), (sum_i64(), [1, 2, 3]), (string_concat(), list("abc"))):
        agg = make(impl, monoid)
        agg.bulk_insert([(t, vals[t % 3]) for t in range(40)])
        snap, counts = agg.snapshot(), (agg.combine_count, agg.touched_count)
        typed = monoid.name != "string_concat"
        as_array = (lambda v: array.array("d" if monoid.name == "sum_f64" else "q", v)) if typed else list
        as_numpy = np.array if typed else list
        inputs: list[tuple[Any, Any]] = [
            (list(range(100, 105)), vals),
            ((100, 101), vals),
            ((t for t in range(100, 110)), iter(vals)),
            (array.array("d", [100.0, 101.0, 102.0, 103.0]), as_array(vals)),
            (array.array("q", [100, 101]), as_array(vals)),
            (np.arange(100, 104, dtype=np.float64), as_numpy(vals)),
            (np.arange(100, 102, dtype=np.int64), as_numpy(vals)),
        ]
        for times, values in inputs:
            with pytest.raises(ValueError, match="times but"):
                agg.slide(times, values, 8)
            assert agg.snapshot() == snap and (agg.combine_count, agg.touched_count) == counts


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("factory", [sum_f64, max_f64, sum_i64, max_i64], ids=lambda f: f.__name__)
def test_slide_takes_numpy_arrays(impl: str, factory: Callable[[], Monoid[Any, Any, Any]]) -> None:
    rng = np.random.default_rng(3)
    n = 3000
    ints = factory in (sum_i64, max_i64)
    values = rng.integers(-1000, 1000, n) if ints else rng.integers(-1000, 1000, n).astype(np.float64) / 4
    for times in (np.arange(n, dtype=np.int64), np.arange(n, dtype=np.float64) / 2):
        want = ref.FiBA(factory(), 4).slide(
            [float(t) if times.dtype.kind == "f" else int(t) for t in times], values.tolist(), 50
        )
        agg = make(impl, factory(), 4)
        got = agg.slide(times, values, 50)
        assert list(got) == list(want)
        # the same answers, state and counts as plain Python input
        twin = make(impl, factory(), 4)
        twin.slide(times.tolist(), values.tolist(), 50)
        assert agg.snapshot() == twin.snapshot()
        assert (agg.combine_count, agg.touched_count) == (twin.combine_count, twin.touched_count)
        assert all(type(t) in (int, float) for t in agg.times())


@pytest.mark.parametrize("impl", IMPLS)
def test_numpy_scalars_as_values_and_times(impl: str) -> None:
    for factory, conv in ((sum_f64, np.float64), (sum_f64, np.float32), (sum_i64, np.int64), (max_i64, np.int32)):
        agg, plain = make(impl, factory(), 3), make(impl, factory(), 3)
        for k in range(60):
            t = (k * 37) % 101
            agg.insert(np.int64(t) if k % 2 else np.float64(t) if k % 3 else t, conv(k - 20))
            plain.insert(
                t if k % 2 else float(t) if k % 3 else t, int(k - 20) if factory is not sum_f64 else float(k - 20)
            )
        assert agg.snapshot() == plain.snapshot() and agg.query() == plain.query()
        assert [type(t) for t in agg.times()] == [type(t) for t in plain.times()]
        assert agg.range_query(np.int64(10), np.float64(80.0)) == plain.range_query(10, 80.0)
        agg.remove(np.int32(37))
        plain.remove(37)
        assert agg.bulk_evict(np.float32(20.0)) == plain.bulk_evict(20.0)
        assert agg.items() == plain.items()
        # bulk_insert from numpy arrays: zipped scalars and the rows of a 2-d array
        times = np.arange(200, 260, dtype=np.int64)
        vals = (np.arange(60) % 7).astype(np.float64 if factory is sum_f64 else np.int64)
        agg.bulk_insert(zip(times, vals))
        plain.bulk_insert(list(zip(times.tolist(), vals.tolist())))
        agg.bulk_insert(np.stack([times + 100, vals.astype(times.dtype)], axis=1))
        plain.bulk_insert([(int(t) + 100, int(v)) for t, v in zip(times, vals)])
        assert agg.snapshot() == plain.snapshot() and agg.query() == plain.query()
    with pytest.raises((TypeError, ValueError)):
        make(impl, sum_i64(), 3).insert(1, np.float64(0.5))
    assert make(impl, sum_i64(), np.int64(5)).min_arity == 5
    with pytest.raises(ValueError):
        make(impl, sum_i64(), True)


# ------------------------------------------------------------------------------------- re-entry and threads


REENTRIES: dict[str, Callable[[Any], Any]] = {
    "insert": lambda a: a.insert(7, "r"),
    "evict": lambda a: a.evict(),
    "remove": lambda a: a.remove(a.oldest()),
    "bulk_evict": lambda a: a.bulk_evict(30),
    "bulk_insert": lambda a: a.bulk_insert([(10, "r"), (400, "r")]),
    "query": lambda a: a.query(),
    "range_query": lambda a: a.range_query(10, 200),
    "oldest": lambda a: a.oldest(),
    "youngest": lambda a: a.youngest(),
    "items": lambda a: a.items(),
    "times": lambda a: a.times(),
    "slide": lambda a: a.slide([500], ["r"], 1000),
    "snapshot": lambda a: a.snapshot(),
    "salvage": lambda a: a.salvage(),
    "repair": lambda a: a.repair(),
    "_check": lambda a: a._check(),
    "copy": copy.copy,
    "deepcopy": copy.deepcopy,
    "pickle": pickle.dumps,
}

#: operations whose ⊗ run inside splits, merges, batch moves, the bulk levels, the pass down, range queries
OUTER: list[tuple[str, Callable[[Any], Any]]] = [
    ("insert (split cascade)", lambda a: a.insert(150.5, "x")),
    ("evict (merge cascade)", lambda a: [a.evict() for _ in range(9)]),
    ("remove internal", lambda a: a.remove(a.snapshot().root.times[0])),
    ("bulk_evict", lambda a: a.bulk_evict(a.items()[70][0])),
    ("bulk_insert", lambda a: a.bulk_insert([(t, "y") for t in range(120, 200, 3)])),
    ("range_query", lambda a: a.range_query(20, 250)),
    ("query", lambda a: a.query()),
    ("slide", lambda a: a.slide(range(300, 340), "abcdefgh" * 5, 100)),
]


def _every_reentry(impl: str) -> None:
    """From inside ⊗ calls of each outer operation, every public method raises ReentrantCallError (len and repr
    answer); swallowed, the outer operation completes exactly as without the re-entry."""
    for loop in (False, True):
        for name, outer in OUTER:
            clean, _ = _grown(impl, string_concat(), loop=loop)
            clean_out = outer(clean)
            want = clean.snapshot()
            monoid, trap = trapped(string_concat())
            agg, _ = _grown(impl, monoid, loop=loop)
            start = trap.calls
            outer(agg)
            calls = trap.calls - start
            for k in sorted(k for k in {1, calls // 3, calls // 2, calls} if k >= 1):
                agg, _ = _grown(impl, monoid, loop=loop)
                seen: dict[str, BaseException | None] = {}

                def reenter() -> None:
                    for what, call in REENTRIES.items():
                        try:
                            call(agg)
                        except ReentrantCallError as err:
                            seen[what] = err
                        else:
                            seen[what] = None
                    assert len(agg) >= 0 and repr(agg)

                trap.arm(k, reenter)
                got = outer(agg)
                refused = [w for w, e in seen.items() if e is None]
                assert seen and not refused, f"{name} at ⊗ {k}: accepted {refused}"
                assert agg.snapshot() == want and got == clean_out, f"{name} at ⊗ {k}"
    print("child ok")


@pytest.mark.parametrize("impl", IMPLS)
def test_every_method_refuses_reentry_inside_surgery(impl: str) -> None:
    _child("every_reentry", impl)


def _threads(impl: str) -> None:
    """A writer (out-of-order inserts, evictions, bulk operations) and a reader (queries, range queries) share a
    structure whose combine yields the GIL on every call: each call succeeds or raises ReentrantCallError, and
    the final state is the model's."""
    inner = string_concat()

    def slow(a: Any, b: Any) -> Any:
        time.sleep(0)
        return inner.combine(a, b)

    monoid = dataclasses.replace(inner, combine=slow, fast_path=None)
    agg = make(impl, monoid, 2)
    model: TimedWindow[Any, Any, Any] = TimedWindow(monoid)
    stop = threading.Event()
    errors: list[BaseException] = []
    stats = {"writes": 0, "reads": 0, "refused": 0}
    rng = random.Random(1)

    def writer() -> None:
        try:
            k = 0
            while not stop.is_set() and k < 3000:
                r = rng.random()
                op: tuple[Any, ...]
                if r < 0.5 or len(model) == 0:
                    op = ("insert", rng.randrange(0, 500), f"<{k}>")
                elif r < 0.7:
                    op = ("evict",)
                elif r < 0.8:
                    op = ("bulk_insert", [(t, f"[{k}]") for t in sorted(rng.sample(range(500), 5))])
                elif r < 0.9:
                    op = ("bulk_evict", rng.randrange(0, 100))
                else:
                    op = ("remove", model.items()[rng.randrange(len(model))][0])
                try:
                    getattr(agg, op[0])(*op[1:])
                except ReentrantCallError:
                    stats["refused"] += 1
                    time.sleep(0)
                    continue
                getattr(model, op[0])(*op[1:])
                stats["writes"] += 1
                k += 1
        except BaseException as err:
            errors.append(err)
        finally:
            stop.set()

    def reader() -> None:
        try:
            while not stop.is_set():
                try:
                    agg.query()
                    agg.range_query(100, 300)
                    len(agg)
                    stats["reads"] += 1
                except ReentrantCallError:
                    stats["refused"] += 1
                time.sleep(0.0005)
        except BaseException as err:
            errors.append(err)

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=writer), threading.Thread(target=reader)]
        for t in threads:
            t.start()
        time.sleep(2.0)
        stop.set()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
    assert not errors, repr(errors[0])
    assert agg.items() == list(model.items()) and agg.query() == model.query()
    agg._check()
    assert stats["writes"] > 20 and stats["reads"] > 0, stats
    print("child ok", stats)


@pytest.mark.parametrize("impl", IMPLS)
def test_two_threads_share_a_tree(impl: str) -> None:
    _child("threads", impl)


# ---------------------------------------------------------------------------------------------- copy, pickle


ROUND_TRIPS: dict[str, Callable[[Any], Any]] = {
    "pickle": lambda a: pickle.loads(pickle.dumps(a, protocol=pickle.HIGHEST_PROTOCOL)),
    "copy": copy.copy,
    "deepcopy": copy.deepcopy,
}


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("how", sorted(ROUND_TRIPS))
@pytest.mark.parametrize("loop", [False, True], ids=["fiba", "fiba_loop"])
def test_round_trips_keep_the_tree(impl: str, how: str, loop: bool) -> None:
    for monoid, values in (
        (string_concat(), list("abcde")),
        (argmax(), [(3, "a"), (7, "b"), (7, "c")]),
        (sum_f64(), [0.5, -2.0, 8.0]),
        (max_i64(), [3, -7, 12]),
    ):
        agg = make(impl, monoid, 3, loop)
        script = deep_script(agg, values, 2)[:14]
        for op in script:
            getattr(agg, op[0])(*op[1:])
        answer = agg.query()
        state = (agg.snapshot(), len(agg), agg.combine_count)
        twin = ROUND_TRIPS[how](agg)
        assert type(twin) is type(agg) and twin.min_arity == 3
        assert (twin.snapshot(), len(twin), twin.combine_count) == state and twin.query() == answer
        twin._check()
        twin.insert(10_000, values[0])
        twin.bulk_evict(twin.items()[50][0])
        assert (agg.snapshot(), len(agg)) == state[:2], "the copy shares state with the original"
        agg.insert(10_000, values[0])
        agg.bulk_evict(agg.items()[50][0])
        assert agg.snapshot() == twin.snapshot()
        if how == "copy":
            assert twin.monoid is agg.monoid


@pytest.mark.parametrize("impl", IMPLS)
def test_large_tree_pickles_flat(impl: str) -> None:
    """10^5 entries: the pickle recurses by the tree's height (a few frames per level), not by its size."""
    for monoid in (sum_i64(), sum_monoid()):
        agg = make(impl, monoid, 2)
        agg.bulk_insert([(t, t % 7) for t in range(100_000)])
        agg.evict()
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(400)
        try:
            data = pickle.dumps(agg)
            twin = pickle.loads(data)
            shallow = copy.copy(agg)
        finally:
            sys.setrecursionlimit(limit)
        assert height(agg) >= 8
        assert len(twin) == len(agg) == 99_999 and twin.query() == agg.query() == sum(t % 7 for t in range(1, 100_000))
        assert shallow.snapshot() == agg.snapshot()


def _mutate(node: FiBANodeState, nid: int, fn: Callable[[FiBANodeState], Any]) -> Any:
    if node.id == nid:
        return fn(node)
    if not node.children:
        return node
    return dataclasses.replace(node, children=tuple(_mutate(c, nid, fn) for c in node.children))


def _malformed(snap: FiBAState) -> dict[str, Any]:
    """Snapshots broken in one way each (μ = 2, float times; node 1 is internal, its first leaf is node 2)."""
    root = snap.root
    internal = root.children[0]
    while internal.children[0].children:
        internal = internal.children[0]
    leaf = internal.children[1]  # a leaf off the spines, under a left-spine node
    assert not leaf.children and len(leaf.times) >= 2
    last_leaf = snap.right_finger
    r = dataclasses.replace

    def at(nid: int, **changes: Any) -> FiBAState:
        return r(snap, root=_mutate(root, nid, lambda n: r(n, **changes)))

    return {
        "not a snapshot": {"root": root},
        "min_arity": r(snap, min_arity=3),
        "arity too small": at(leaf.id, times=(), values=()),
        "arity too large": at(leaf.id, times=tuple(leaf.times[0] + k / 100 for k in range(7)), values=("v",) * 7),
        "times unsorted in a node": at(leaf.id, times=leaf.times[::-1]),
        "times unsorted across nodes": at(leaf.id, times=(leaf.times[0], 1e9)),
        "NaN time": at(leaf.id, times=(float("nan"),) + leaf.times[1:]),
        "values vs times": at(leaf.id, values=leaf.values[1:]),
        "child count": at(internal.id, children=internal.children[:-1]),
        "leaf depth": r(snap, root=r(root, children=(leaf,) + root.children[1:])),
        "parent id": at(leaf.id, parent=0),
        "node id": at(leaf.id, id=99),
        "spine flags": at(leaf.id, left_spine=True),
        "count": at(internal.id, count=internal.count + 1),
        "count type": at(leaf.id, count=float(leaf.count)),
        "size": r(snap, size=snap.size + 1),
        "left finger": r(snap, left_finger=0),
        "right finger": r(snap, right_finger=last_leaf - 1),
        "finger out of range": r(snap, right_finger=10**9),
        "times not a tuple": at(leaf.id, times=list(leaf.times)),
        "child not a node": at(internal.id, children=("leaf",) + internal.children[1:]),
        "a node twice": at(internal.id, children=(leaf, leaf) + internal.children[2:]),
        "flag type": at(leaf.id, left_spine=1),
    }


def _malformed_snapshots(impl: str) -> None:
    cls = MODULES[impl].FiBA
    for monoid, value in ((string_concat(), "v"), (sum_f64(), 1.5)):
        agg = cls(monoid, 2)
        agg.bulk_insert([(float(t), value) for t in range(60)])
        snap = agg.snapshot()
        assert cls._from_snapshot(monoid, snap, min_arity=2).snapshot() == snap
        for what, bad in _malformed(snap).items():
            try:
                cls._from_snapshot(monoid, bad, min_arity=2)
            except (ValueError, TypeError):
                continue
            raise AssertionError(f"{impl}: a snapshot with a bad {what} was accepted")
        if monoid.name == "sum_f64":  # a value the typed kind refuses
            leaf = snap.root.children[0].children[0]
            bad = dataclasses.replace(
                snap, root=_mutate(snap.root, leaf.id, lambda n: dataclasses.replace(n, values=("x",) + n.values[1:]))
            )
            with pytest.raises(TypeError):
                cls._from_snapshot(monoid, bad, min_arity=2)
    print("child ok")


@pytest.mark.parametrize("impl", IMPLS)
def test_malformed_snapshots_raise(impl: str) -> None:
    if impl == "reference":
        _malformed_snapshots(impl)
    else:
        _child("malformed_snapshots", impl)


def test_both_twins_document_refuse() -> None:
    for module in (ref, opt):
        for name in ("FiBA", "FiBALoop"):
            cls = getattr(module, name)
            assert cls.exception_safety == "refuse"
            assert "refuse" in (cls.__doc__ or "").lower() or name == "FiBALoop"


def _deep_reentry_child(impl: str) -> None:
    _deep_reentry(impl)
    print("child ok")


CHECKS: dict[str, Callable[[str], None]] = {
    "deep_reentry": _deep_reentry_child,
    "every_reentry": _every_reentry,
    "threads": _threads,
    "malformed_snapshots": _malformed_snapshots,
}

if __name__ == "__main__":
    CHECKS[sys.argv[1]](sys.argv[2])


# tests/conftest.py: the compiled pass runs the optimized cases, the pure pass the reference ones (in the pure pass
# the optimized classes are the reference's own subclasses: running both there would run the same code twice)
SPLIT_IMPLEMENTATIONS = True
