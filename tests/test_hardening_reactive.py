"""Issue 12 regressions for paper 002: FlatFAT, the Reactive Aggregator and (reference only) its FIFO
optimization, in both implementations (``swagkit.reference`` and ``swagkit.optimized``; run the file once more
with ``SWAGKIT_PUREPYTHON=1`` for the fallback).

* sizes: a capacity or ``min_capacity`` too large for the machine raises ``OverflowError`` (the same exception in
  both implementations) before anything is allocated -- it used to make ``malloc``'s size wrap and crash the
  compiled FlatFAT; bad capacities raise ``ValueError``;
* counts: ``evict_many(1.5)`` (or a bool, a string, a negative count) is refused and changes nothing -- it used to
  leave the reference Reactive Aggregator refusing every later update;
* recovery: a ``combine`` that raises (an exception, or ``KeyboardInterrupt``) at any position of any operation --
  walks, batches, compactions, doublings, halvings, FlatFAT's bulk update -- leaves the structure exactly as before
  the operation (strong), and the operation then succeeds when retried; it used to brick both structures for good.
  The ⊗ call sequence and ``combine_count`` stay identical between the implementations;
* re-entrant use from inside ``combine`` is refused before any change (child processes: a crash fails a test);
* copies and pickles keep state, counts and the next handle, typed kinds included, and pickles are flat;
* bad input (leaf indices, handles, counts, typed values, malformed snapshots) is rejected before anything
  changes, and numpy scalars and arrays are accepted.

Monoids: ``string_concat`` (non-commutative, non-invertible) and ``argmax`` (selective, non-invertible).
"""

from __future__ import annotations

import copy
import os
import pickle
import random
import re
import subprocess
import sys
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pytest

import swagkit.optimized as opt
import swagkit.reference as ref
from swagkit.reference.flatfat import MAX_CAPACITY
from swagkit.reference.reactive import FifoReactiveAggregator
from swagkit.spec.errors import EmptyWindowError, ReentrantCallError
from swagkit.spec.library import argmax, max_i64, string_concat, sum_f64, sum_i64
from swagkit.spec.monoid import Monoid
from swagkit.spec.nonfifo import InvalidHandleError

HERE = os.path.dirname(os.path.abspath(__file__))
MODS = {"reference": ref, "optimized": opt}


def _child(code: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter (a crash of compiled code is then a failed test, not a dead run)."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=HERE,
        env={
            **os.environ,
            "PYTHONFAULTHANDLER": "1",
            "PYTHONPATH": HERE + os.pathsep + os.environ.get("PYTHONPATH", ""),
        },
    )


def _ok(done: subprocess.CompletedProcess[str], marker: str = "OK") -> None:
    assert done.returncode == 0 and marker in done.stdout, (
        f"exit {done.returncode}\n{done.stdout}\n{done.stderr[-4000:]}"
    )


class Boom(Exception):
    """The fault a misbehaving combine raises."""


class Faulty:
    """A combine that records its operands and raises ``exc()`` at its k-th call from ``arm(k)`` on."""

    def __init__(self, inner: Callable[[Any, Any], Any]) -> None:
        self.inner = inner
        self.log: list[tuple[Any, Any]] = []
        self.countdown = 0
        self.exc: Callable[[], BaseException] = lambda: Boom("transient")

    def arm(self, k: int, exc: Callable[[], BaseException]) -> None:
        self.countdown, self.exc = k, exc

    def __call__(self, a: Any, b: Any) -> Any:
        self.log.append((a, b))
        if self.countdown:
            self.countdown -= 1
            if self.countdown == 0:
                raise self.exc()
        return self.inner(a, b)


def faulty(monoid: Monoid[Any, Any, Any]) -> tuple[Monoid[Any, Any, Any], Faulty]:
    f = Faulty(monoid.combine)
    return replace(monoid, combine=f, fast_path=None), f


def next_handle(agg: Any) -> int:
    """The handle the next insertion gets (saved with copies and pickles in both implementations)."""
    return int(agg.__reduce__()[1][2]["next_handle"])


def observe_reactive(agg: Any) -> tuple[Any, ...]:
    return (len(agg), agg.capacity, agg.handles(), agg.snapshot(), next_handle(agg))


def observe_tree(agg: Any) -> tuple[Any, ...]:
    return (len(agg), agg.leaves(), agg.snapshot())


# ------------------------------------------------------------------------------------------------ scripts

Op = tuple[Any, ...]


def reactive_script(values: Sequence[Any]) -> list[Op]:
    """Every path of the Reactive Aggregator with min_capacity 4: doublings (single and inside a batch), a
    compaction (a full buffer with holes), wrap-around queries, removals by handle, batches with slots written
    twice, halvings (single and inside ``evict_many``/``remove_many``), and the batch API."""
    v = list(values)
    return [
        ("insert_many", v[:3]),  # handles 0..2
        ("insert", v[3]),  # 3: full at capacity 4
        ("insert_with_handle", v[4]),  # 4: doubles to 8
        ("query",),
        ("remove", 1),
        ("remove", 2),
        ("insert_many_with_handles", [v[5], v[0], v[1], v[2]]),  # 5..8: full with holes: compaction mid-batch
        ("insert", v[3]),  # 9: full again
        ("evict",),
        ("evict",),
        ("query",),
        ("insert_many", [v[i % len(v)] for i in range(6)]),  # 10..15, doubling first
        ("evict_many", 3),
        ("query",),
        ("remove_many", [12, 9]),
        ("batch", [("evict",), ("insert", v[4]), ("remove", 14), ("insert", v[5])]),
        ("query",),
        ("evict_many", 6),  # halving inside a batch
        ("query",),
        ("insert_many", [v[i % len(v)] for i in range(2, 11)]),  # doublings inside a batch
        ("remove_many", [20, 22, 24]),
        ("evict",),
        ("query",),
        ("batch", [("insert", v[1])] * 5 + [("evict",)] * 3),
        ("query",),
        ("evict_many", 5),  # halving inside a batch
        ("query",),
        ("insert_many", v[:5]),  # 32..36: capacity 8, full
        ("evict_many", 3),
        ("insert", v[5]),  # wraps around
        ("insert_with_handle", v[0]),
        ("query",),  # suffix(F) ⊕ prefix(B)
        ("remove", 35),
        ("query",),
        ("batch", [("evict",), ("insert", v[1]), ("insert", v[2])]),
        ("query",),
    ]


def compaction_script(values: Sequence[Any]) -> list[Op]:
    """A buffer that fills up with holes while ≤ 3/4 live: the next insertion compacts at the same capacity."""
    v = list(values)
    return [
        ("insert_many", v[:4]),  # 0..3 at capacity 4
        ("remove", 1),
        ("remove", 2),
        ("insert_many", v[4:6]),  # 4, 5: full with holes (span 4, size 2): compaction at capacity 4
        ("query",),
        ("remove", 4),
        ("insert", v[0]),
        ("query",),
        ("batch", [("remove", 0), ("insert", v[1]), ("insert", v[2])]),
        ("query",),
    ]


def tree_script(n: int, values: Sequence[Any], seed: int = 3) -> list[Op]:
    rng = random.Random(seed)
    ops: list[Op] = []
    for m in (1, 2, 3, 5, n, 2 * n):
        ops.append(("update", [(rng.randrange(n), rng.choice(values)) for _ in range(m)]))
        ops.append(("prefix", rng.randrange(n)))
        ops.append(("suffix", rng.randrange(n)))
        ops.append(("aggregate",))
    return ops


def apply(obj: Any, op: Op) -> Any:
    name, *args = op
    out = getattr(obj, name)(*args)
    return list(out) if name in ("leaves", "handles", "insert_many_with_handles", "batch") else out


MONOIDS: dict[str, tuple[Callable[[], Monoid[Any, Any, Any]], list[Any]]] = {
    "string_concat": (string_concat, ["a", "b", "c", "d", "e", "xy"]),
    "argmax": (argmax, [(3, "a"), (7, "b"), (7, "c"), (-1, "d"), (5, "e"), (0, "f")]),
}


def _build(kind: str, impl: str, monoid: Monoid[Any, Any, Any], values: Sequence[Any]) -> Any:
    if kind == "reactive":
        return MODS[impl].ReactiveAggregator(monoid, min_capacity=4)
    if kind == "fifo":
        return FifoReactiveAggregator(monoid, min_capacity=2)
    return MODS[impl].FlatFAT(monoid, [values[i % len(values)] for i in range(16)])


def _script(kind: str, name: str, values: Sequence[Any]) -> list[Op]:
    if kind == "reactive":
        return reactive_script(values) if name == "main" else compaction_script(values)
    if kind == "fifo":
        v = list(values)
        return (
            [("insert", x) for x in v * 2]
            + [("query",), ("evict",), ("query",)]
            + [("evict",)] * 9
            + [("query",), ("insert", v[0]), ("insert", v[1]), ("query",)]
        )
    return tree_script(16, values)


def _observe(kind: str) -> Callable[[Any], tuple[Any, ...]]:
    if kind == "tree":
        return observe_tree
    if kind == "fifo":
        return lambda a: (len(a), a.capacity, a.snapshot(), next_handle(a))
    return observe_reactive


def _clean_run(
    kind: str, impl: str, mname: str, script_name: str
) -> tuple[list[Any], list[int], list[tuple[Any, ...]], list[Any], Any]:
    """Answers, ⊗ calls per op, states after each op, the full ⊗ operand log, the final combine_count."""
    factory, values = MONOIDS[mname]
    monoid, f = faulty(factory())
    agg = _build(kind, impl, monoid, values)
    script = _script(kind, script_name, values)
    answers, calls, states = [], [], []
    for op in script:
        before = len(f.log)
        answers.append(apply(agg, op))
        calls.append(len(f.log) - before)
        states.append(_observe(kind)(agg))
    return answers, calls, states, list(f.log), agg.combine_count


CASES = (
    [("reactive", impl, "main") for impl in MODS]
    + [("reactive", impl, "compaction") for impl in MODS]
    + [("tree", impl, "main") for impl in MODS]
    + [("fifo", "reference", "main")]
)


# ---------------------------------------------------------------------------------------------------- sizes


@pytest.mark.parametrize("impl", list(MODS))
def test_oversized_capacities_raise_overflow_error_before_allocating(impl: str) -> None:
    """``FlatFAT(string_concat(), [], capacity=2**60)`` used to segfault the compiled twin (malloc's size
    wrapped). Every capacity that reaches an allocator is checked first: the same exception in both twins."""
    done = _child(f"""
        import swagkit.{impl} as mod
        from swagkit.reference.flatfat import MAX_CAPACITY
        from swagkit.spec.library import string_concat, sum_f64
        from swagkit.spec.snapshots import FlatFATState, ReactiveState
        assert MAX_CAPACITY == 2 ** 58
        for cap in (2 ** 60, 2 ** 59, 2 ** 63, 2 ** 64, 2 ** 70, 2 * MAX_CAPACITY):
            for make in (lambda: mod.FlatFAT(string_concat(), [], capacity=cap),
                         lambda: mod.FlatFAT(sum_f64(), [1.0], capacity=cap),
                         lambda: mod.ReactiveAggregator(string_concat(), min_capacity=cap),
                         lambda: mod.ReactiveAggregator(sum_f64(), cap),
                         lambda: mod.FlatFAT._from_snapshot(string_concat(), FlatFATState(capacity=cap, nodes=())),
                         lambda: mod.ReactiveAggregator._from_snapshot(
                             string_concat(), ReactiveState(cap, (), (), 0, 0, 0, 2))):
                try:
                    make()
                except OverflowError as err:
                    assert "exceeds" in str(err), err
                else:
                    raise AssertionError(f"capacity {{cap}} accepted")
        # the largest power of two allowed is checked by the allocator itself: no memory, no crash
        for make in (lambda: mod.FlatFAT(string_concat(), [], capacity=MAX_CAPACITY),
                     lambda: mod.ReactiveAggregator(sum_f64(), MAX_CAPACITY)):
            try:
                make()
            except MemoryError:
                pass
            else:
                raise AssertionError("2**58 leaves allocated?")
        print("OK")
    """)
    _ok(done)


@pytest.mark.parametrize("impl", list(MODS))
def test_bad_capacities_raise_value_error(impl: str) -> None:
    mod = MODS[impl]
    for bad in (0, 3, 6, -4, 2.0, True, "4", None):
        if bad is not None:  # (None is FlatFAT's default: the smallest power of two that fits)
            with pytest.raises(ValueError):
                mod.FlatFAT(string_concat(), [], capacity=bad)
        with pytest.raises(ValueError):
            mod.ReactiveAggregator(string_concat(), min_capacity=bad)
    with pytest.raises(ValueError):
        mod.FlatFAT(string_concat(), list("abcde"), capacity=4)  # fewer leaves than values
    f = mod.FlatFAT(string_concat(), list("ab"), capacity=np.int64(8))  # numpy integers are ints
    assert f.capacity == 8 and f.aggregate() == "ab"
    ra = mod.ReactiveAggregator(string_concat(), min_capacity=np.int32(8))
    assert ra.capacity == 8 and ra.min_capacity == 8


def test_reference_growth_is_checked_before_allocating() -> None:
    """Doubling past MAX_CAPACITY raises before the rebuild allocates (the compiled twin's ``st_room_cap`` makes
    the same check; neither can be reached without 2**57 live elements)."""
    from swagkit.reference.reactive import grown

    assert grown(MAX_CAPACITY // 2, "reactive") == MAX_CAPACITY
    with pytest.raises(OverflowError):
        grown(MAX_CAPACITY, "reactive")


# --------------------------------------------------------------------------------------------------- counts


def _fifo_structures() -> list[tuple[str, Callable[[], Any]]]:
    out: list[tuple[str, Callable[[], Any]]] = [
        (f"reactive-{impl}", lambda mod=mod: mod.ReactiveAggregator(string_concat())) for impl, mod in MODS.items()
    ]
    out.append(("reactive_fifo-reference", lambda: FifoReactiveAggregator(string_concat())))
    return out


@pytest.mark.parametrize("name,make", _fifo_structures(), ids=[n for n, _ in _fifo_structures()])
def test_bad_counts_are_refused_and_change_nothing(name: str, make: Callable[[], Any]) -> None:
    """``ReactiveAggregator.evict_many(1.5)`` used to brick the reference (``_broken`` set, then a TypeError)."""
    agg = make()
    agg.insert_many("abcd")
    before, count = agg.snapshot(), agg.combine_count
    for bad, exc in (
        (1.5, TypeError),
        (True, TypeError),
        ("2", TypeError),
        (None, TypeError),
        (np.float64(1.0), TypeError),
        (-1, ValueError),
        (5, EmptyWindowError),
    ):
        with pytest.raises(exc):
            agg.evict_many(bad)
        assert agg.snapshot() == before and agg.combine_count == count and agg.query() == "abcd"
        count = agg.combine_count
    agg.evict_many(np.int64(2))
    assert agg.query() == "cd"
    agg.insert("e")
    agg.evict()
    assert agg.query() == "de" and len(agg) == 2
    agg.evict_many(0)
    assert agg.query() == "de"


# ----------------------------------------------------------------------------------------- exception safety


@pytest.mark.parametrize("mname", list(MONOIDS))
@pytest.mark.parametrize("kind,impl,script_name", CASES, ids=["-".join(c) for c in CASES])
@pytest.mark.parametrize("exc", [lambda: Boom("transient"), KeyboardInterrupt], ids=["exception", "ctrl-c"])
def test_raising_combine_leaves_the_structure_exactly_as_before(
    kind: str, impl: str, script_name: str, mname: str, exc: Callable[[], BaseException]
) -> None:
    """At every ⊗ position of every operation (walks, batches, compactions, doublings, halvings, FlatFAT's bulk
    update): the failed operation changes nothing (exactly as before, ``exception_safety == "strong"``) but
    ``combine_count`` (the raising call is counted), and retried it gives the clean run's answer and state.
    FifoReactiveAggregator's ``insert_many``/``evict_many`` are loops: a prefix stays applied (its note says)."""
    factory, values = MONOIDS[mname]
    answers, calls, states, _, _ = _clean_run(kind, impl, mname, script_name)
    script = _script(kind, script_name, values)
    observe = _observe(kind)
    every = 1 if exc is not KeyboardInterrupt else 3
    runs = 0
    position = 0
    for i, c in enumerate(calls):
        for k in range(1, c + 1):
            position += 1
            if position % every:
                continue
            monoid, f = faulty(factory())
            agg = _build(kind, impl, monoid, values)
            for op in script[:i]:
                apply(agg, op)
            before = observe(agg)
            count = agg.combine_count
            assert type(agg).exception_safety == "strong"
            f.arm(k, exc)
            with pytest.raises((Boom, KeyboardInterrupt)):
                apply(agg, script[i])
            assert agg.combine_count == count + k, "every ⊗ call is counted, the raising one included"
            assert observe(agg) == before, f"op {i} {script[i]!r}, fault at ⊗ {k}: state changed"
            assert apply(agg, script[i]) == answers[i]
            assert observe(agg) == states[i]
            for j in range(i + 1, min(i + 3, len(script))):  # and it goes on like the clean run
                assert apply(agg, script[j]) == answers[j]
                assert observe(agg) == states[j]
            runs += 1
    assert runs == sum(calls) // every and runs > 5


@pytest.mark.parametrize("bulk", ["insert_many", "evict_many"])
def test_fifo_reactive_bulk_loops_keep_a_prefix(bulk: str) -> None:
    """FifoReactiveAggregator's bulk calls are loops of single operations: on a fault at the j-th, the first j
    stay applied, the note says how many, and the structure equals a clean one after those j."""
    factory, values = MONOIDS["string_concat"]
    for k in range(1, 40):
        monoid, f = faulty(factory())
        agg = FifoReactiveAggregator(monoid)
        agg.insert_many(values[:5] if bulk == "evict_many" else values[:1])
        f.arm(k, lambda: Boom("transient"))
        try:
            if bulk == "insert_many":
                agg.insert_many(values * 2)
            else:
                agg.evict_many(5)
        except Boom as err:
            notes = getattr(err, "__notes__", [])
            m = re.search(r"(inserted|evicted) (\d+) of", " ".join(notes))
            assert m, notes
            j = int(m.group(2))
        else:
            break
        twin = FifoReactiveAggregator(string_concat())
        twin.insert_many(values[:5] if bulk == "evict_many" else values[:1])
        if bulk == "insert_many":
            twin.insert_many((values * 2)[:j])
        else:
            twin.evict_many(j)
        assert agg.snapshot() == twin.snapshot() and agg.query() == twin.query()
    else:
        raise AssertionError("the bulk call never completed")


@pytest.mark.parametrize("mname", list(MONOIDS))
@pytest.mark.parametrize("kind,script_name", [("reactive", "main"), ("reactive", "compaction"), ("tree", "main")])
def test_combine_sequence_and_counts_are_identical_between_twins(kind: str, script_name: str, mname: str) -> None:
    """The hardening kept the paper's ⊗ sequence: same operands in the same order, same counts, same answers
    and states in both implementations."""
    a = _clean_run(kind, "reference", mname, script_name)
    b = _clean_run(kind, "optimized", mname, script_name)
    assert a[3] == b[3] and a[4] == b[4]
    assert a[0] == b[0] and a[1] == b[1] and a[2] == b[2]


@pytest.mark.parametrize("impl", list(MODS))
def test_batch_keeps_the_prefix_of_a_bad_event_but_undoes_a_raising_combine(impl: str) -> None:
    monoid, f = faulty(string_concat())
    ra = MODS[impl].ReactiveAggregator(monoid)
    ra.insert_many("abc")
    with pytest.raises(InvalidHandleError):  # documented: the events before a bad one stay applied
        ra.batch([("evict",), ("insert", "d"), ("remove", 0)])
    assert ra.query() == "bcd" and ra.handles() == [1, 2, 3]
    before = observe_reactive(ra)
    f.arm(1, lambda: Boom("transient"))  # the batch's single propagation fails: nothing of it stays
    with pytest.raises(Boom):
        ra.batch([("evict",), ("insert", "e"), ("remove", 2)])
    assert observe_reactive(ra) == before and ra.query() == "bcd"
    assert ra.batch([("evict",), ("insert", "e"), ("remove", 2)]) == [None, 4, None]
    assert ra.query() == "de" and ra.handles() == [3, 4]


# ---------------------------------------------------------------------------------------------- re-entrancy

REENTRY_CHILD = """
import sys
import hardening
from hardening import CASES_BY_ID, KINDS, run_reentry
import test_hardening_reactive as T

extra = {{
    "handles": {{
        "insert": lambda a, v: a.insert(v),
        "insert_many": lambda a, v: a.insert_many([v, v]),
        "insert_many_with_handles": lambda a, v: a.insert_many_with_handles([v]),
        "evict_many": lambda a, v: a.evict_many(1),
        "remove_many": lambda a, v: a.remove_many([0]),
        "batch": lambda a, v: a.batch([("insert", v)]),
        "copy": lambda a, v: __import__("copy").copy(a),
        "pickle": lambda a, v: __import__("pickle").dumps(a),
    }},
    "tree": {{
        "suffix": lambda a, v: a.suffix(1),
        "leaf": lambda a, v: a.leaf(0),
        "copy": lambda a, v: __import__("copy").copy(a),
        "deepcopy": lambda a, v: __import__("copy").deepcopy(a),
    }},
}}
case = CASES_BY_ID["{case}"]
KINDS[case.kind.name].reentries.update(extra[case.kind.name])
script = T.reentry_script if case.kind.name == "handles" else None
print(run_reentry(case, script=script), "runs")
print("OK")
"""


def reentry_script(agg: Any, values: Sequence[Any], seed: int) -> list[Op]:
    """The handles kind's operations the model knows, bulk calls included, through a doubling, a compaction, a
    wrap-around and a halving."""
    v = list(values)
    return [
        ("insert_many", v[:3]),
        ("insert_with_handle", v[3]),
        ("insert", v[4]),
        ("query",),
        ("remove", 1),
        ("remove", 2),
        ("insert_many_with_handles", v[:3]),
        ("query",),
        ("evict",),
        ("evict",),
        ("query",),
        ("evict_many", 3),
        ("query",),
        ("insert_with_handle", v[5]),
        ("query",),
    ]


@pytest.mark.parametrize("case", ["reactive-reference", "reactive-optimized", "flatfat-reference", "flatfat-optimized"])
def test_reentrant_calls_of_every_operation_are_refused(case: str) -> None:
    """From inside every ⊗ of every operation (bulk calls included), every guarded operation -- bulk calls,
    batches, copies and pickles too -- raises ReentrantCallError before any change; swallowed, the outer
    operation completes correctly; propagated, the structure is exactly as before."""
    _ok(_child(REENTRY_CHILD.format(case=case)))


@pytest.mark.parametrize("impl", list(MODS))
def test_reentry_from_remove_many_and_batch_is_refused(impl: str) -> None:
    """The batch operations the model lacks: a combine that calls back in gets ReentrantCallError, and the outer
    operation completes correctly (child process)."""
    done = _child(f"""
        import swagkit.{impl} as mod
        from dataclasses import replace
        from swagkit.spec.errors import ReentrantCallError
        from swagkit.spec.library import string_concat
        box = {{}}
        refused = []
        def comb(a, b):
            ra = box.get("ra")
            if ra is not None:
                for call in (lambda: ra.remove_many([3]), lambda: ra.batch([("evict",)]), lambda: ra.query(),
                             lambda: ra.insert("z"), lambda: ra.snapshot(), lambda: ra.handles()):
                    try:
                        call()
                    except ReentrantCallError:
                        refused.append(1)
                    else:
                        raise AssertionError("re-entrant call accepted")
            return a + b
        ra = mod.ReactiveAggregator(replace(string_concat(), combine=comb, fast_path=None), min_capacity=8)
        ra.insert_many("abcdef")
        box["ra"] = ra
        ra.remove_many([1, 4])
        assert ra.batch([("evict",), ("insert", "g"), ("remove", 3)]) == [None, 6, None]
        box.clear()
        assert ra.query() == "cfg" and ra.handles() == [2, 5, 6], (ra.query(), ra.handles())
        assert refused
        print("OK")
    """)
    _ok(done)


def test_fifo_reactive_refuses_reentry() -> None:
    box: dict[str, Any] = {}
    refused: list[int] = []

    def comb(a: str, b: str) -> str:
        agg = box.get("agg")
        if agg is not None:
            for call in (
                lambda: agg.insert("z"),
                agg.evict,
                agg.query,
                agg.snapshot,
                lambda: agg.evict_many(1),
                lambda: copy.copy(agg),
            ):
                with pytest.raises(ReentrantCallError):
                    call()
                refused.append(1)
        return a + b

    agg = FifoReactiveAggregator(replace(string_concat(), combine=comb))
    agg.insert_many("abc")
    box["agg"] = agg
    agg.insert("d")
    agg.evict()
    box.clear()
    assert agg.query() == "bcd" and refused


# ---------------------------------------------------------------------------------------------- copy/pickle

ROUND_TRIPS: dict[str, Callable[[Any], Any]] = {
    "pickle": lambda a: pickle.loads(pickle.dumps(a, protocol=pickle.HIGHEST_PROTOCOL)),
    "copy": copy.copy,
    "deepcopy": copy.deepcopy,
}


@pytest.mark.parametrize("how", list(ROUND_TRIPS))
@pytest.mark.parametrize("impl", list(MODS))
def test_round_trips_keep_the_next_handle_and_typed_state(impl: str, how: str) -> None:
    """A snapshot of an empty window does not show the next handle; copies and pickles keep it. Typed kinds
    (the compiled fast paths) round-trip too, FlatFAT included."""
    trip = ROUND_TRIPS[how]
    for monoid, vals in (
        (string_concat(), list("abcde")),
        (sum_f64(), [1.5, -2.0, 0.25, 8.0, 3.0]),
        (max_i64(), [3, -7, 12, 5, 1]),
    ):
        ra = MODS[impl].ReactiveAggregator(monoid)
        ra.insert_many(vals)
        ra.remove(2)
        ra.evict_many(4)
        assert len(ra) == 0
        twin = trip(ra)
        assert type(twin) is type(ra) and twin.snapshot() == ra.snapshot()
        assert twin.combine_count == ra.combine_count and next_handle(twin) == 5
        assert twin.insert_with_handle(vals[0]) == ra.insert_with_handle(vals[0]) == 5
        ra.insert_many(vals)
        ra.remove(7)
        twin = trip(ra)
        assert twin.snapshot() == ra.snapshot() and twin.handles() == ra.handles() == [5, 6, 8, 9, 10]
        assert twin.query() == ra.query() and twin.combine_count == ra.combine_count
        twin.remove(8)  # binary search over the restored handle numbers, holes included
        twin.insert(vals[1])
        assert ra.handles() == [5, 6, 8, 9, 10] and twin.handles() == [5, 6, 9, 10, 11]
        f = MODS[impl].FlatFAT(monoid, vals)
        f.update([(1, vals[4])])
        tf = trip(f)
        assert type(tf) is type(f) and tf.snapshot() == f.snapshot() and tf.combine_count == f.combine_count
        tf.update([(0, vals[2])])
        assert tf.leaves()[0] == vals[2] and f.leaves()[0] == vals[0]  # independent


@pytest.mark.parametrize("impl", list(MODS))
def test_copy_shares_values_and_deepcopy_copies_them(impl: str) -> None:
    lists = Monoid(identity=[], combine=lambda a, b: a + b, lift=lambda x: [x], name="lists")
    ra = MODS[impl].ReactiveAggregator(lists)
    ra.insert_many("ab")
    f = MODS[impl].FlatFAT(lists, [["a"], ["b"]])
    for agg, first in ((ra, lambda a: a.snapshot().nodes[a.capacity]), (f, lambda a: a.leaves()[0])):
        shallow, deep = copy.copy(agg), copy.deepcopy(agg)
        assert first(shallow) is first(agg)
        assert first(deep) == first(agg) and first(deep) is not first(agg)


@pytest.mark.parametrize("impl", list(MODS))
def test_large_structures_pickle_flat(impl: str) -> None:
    f = MODS[impl].FlatFAT(sum_i64(), list(range(1 << 17)))
    tf = pickle.loads(pickle.dumps(f))
    assert tf.aggregate() == f.aggregate() and tf.capacity == 1 << 17
    ra = MODS[impl].ReactiveAggregator(sum_i64())
    ra.insert_many(range(100_000))
    ra.remove_many(range(10, 50_000, 7))
    twin = pickle.loads(pickle.dumps(ra))
    assert twin.query() == ra.query() and twin.handles() == ra.handles()


def test_fifo_reactive_round_trips() -> None:
    agg = FifoReactiveAggregator(string_concat(), 2)
    agg.insert_many("abcdefg")
    agg.evict_many(3)
    for how, trip in ROUND_TRIPS.items():
        twin = trip(agg)
        assert twin.snapshot() == agg.snapshot() and twin.combine_count == agg.combine_count, how
        twin.insert("h")
        twin.evict()
        assert twin.query() == "efgh" and agg.query() == "defg"
    agg.evict_many(4)
    twin = copy.copy(agg)
    twin.insert("x")
    assert twin.snapshot().handles[twin.snapshot().F] == 7  # the next handle survived an empty window


@pytest.mark.parametrize("impl", list(MODS))
def test_malformed_snapshots_raise_instead_of_crashing(impl: str) -> None:
    """``_from_snapshot`` (what unpickling calls) validates the shape cheaply: ValueError/TypeError, never a
    crash of the compiled code (child process)."""
    done = _child(f"""
        import swagkit.{impl} as mod
        from swagkit.reference.reactive import FifoReactiveAggregator
        from swagkit.spec.library import string_concat, sum_f64
        from swagkit.spec.snapshots import FlatFATState, ReactiveState
        m = string_concat()
        good = mod.ReactiveAggregator(m, 4)
        good.insert_many("abc")
        good.remove(1)
        s = good.snapshot()
        assert mod.ReactiveAggregator._from_snapshot(m, s).snapshot() == s
        bad_reactive = [
            ReactiveState(3, s.nodes, s.handles, 0, 3, 2, 4),                          # capacity not a power of 2
            ReactiveState(4, s.nodes[:-1], s.handles, s.F, s.span, s.size, 4),        # nodes
            ReactiveState(4, s.nodes, s.handles[:-1], s.F, s.span, s.size, 4),        # handles
            ReactiveState(4, s.nodes, s.handles, 4, s.span, s.size, 4),               # F out of range
            ReactiveState(4, s.nodes, s.handles, -1, s.span, s.size, 4),
            ReactiveState(4, s.nodes, s.handles, s.F, 5, s.size, 4),                  # span > capacity
            ReactiveState(4, s.nodes, s.handles, s.F, s.span, 3, 4),                  # size ≠ live handles
            ReactiveState(4, s.nodes, (2, None, 0, None), 0, 3, 2, 4),                # handles decrease
            ReactiveState(4, s.nodes, (0, None, 0, None), 0, 3, 2, 4),                # repeated
            ReactiveState(4, s.nodes, ("0", None, 2, None), 0, 3, 2, 4),              # not an int
            ReactiveState(4, s.nodes, (-1, None, 2, None), 0, 3, 2, 4),               # negative
            ReactiveState(4, s.nodes, (0, None, 2, 5), 0, 3, 3, 4),                   # live outside the buffer
            ReactiveState(4, s.nodes, s.handles, s.F, s.span, s.size, 3),             # min_capacity
            ReactiveState(4, s.nodes, s.handles, 1.0, s.span, s.size, 4),             # F not an int
        ]
        for state in bad_reactive:
            try:
                mod.ReactiveAggregator._from_snapshot(m, state)
            except (ValueError, TypeError):
                pass
            else:
                raise AssertionError(f"accepted {{state}}")
        for nh in (1, -1, "9", 2.0):
            try:
                mod.ReactiveAggregator._from_snapshot(m, s, next_handle=nh)
            except (ValueError, TypeError):
                pass
            else:
                raise AssertionError(f"accepted next_handle {{nh}}")
        typed = mod.ReactiveAggregator(sum_f64(), 2)
        ts = typed.snapshot()
        try:
            mod.ReactiveAggregator._from_snapshot(sum_f64(), ReactiveState(2, ("x",) * 4, ts.handles, 0, 0, 0, 2))
        except TypeError:
            pass
        else:
            raise AssertionError("typed node 'x' accepted")
        f = mod.FlatFAT(m, list("abc"))
        fs = f.snapshot()
        assert mod.FlatFAT._from_snapshot(m, fs).snapshot() == fs
        for state in (FlatFATState(4, fs.nodes[:-1]), FlatFATState(3, fs.nodes), FlatFATState(0, ()),
                      FlatFATState("4", fs.nodes), FlatFATState(True, fs.nodes[:2])):
            try:
                mod.FlatFAT._from_snapshot(m, state)
            except (ValueError, TypeError):
                pass
            else:
                raise AssertionError(f"accepted {{state}}")
        try:
            mod.FlatFAT._from_snapshot(sum_f64(), FlatFATState(2, (0.0, 1.0, float("nan"), 1.0)))
        except ValueError:
            pass
        else:
            raise AssertionError("NaN accepted")
        print("OK")
    """)
    _ok(done)


# ------------------------------------------------------------------------------------------------ bad input


@pytest.mark.parametrize("impl", list(MODS))
def test_bad_leaf_indices_and_pairs_change_nothing(impl: str) -> None:
    f = MODS[impl].FlatFAT(string_concat(), list("abcd"))
    before, count = f.snapshot(), f.combine_count
    for bad in (-1, 4, 2**70, 1.0, "0", None, True, np.float64(1.0)):
        for call in (
            lambda: f.prefix(bad),
            lambda: f.suffix(bad),
            lambda: f.leaf(bad),
            lambda: f.update([(0, "x"), (bad, "y")]),
        ):
            with pytest.raises(IndexError):
                call()
    for pairs in ([(0, "x"), (1,)], [(0, "x"), 5], [(0, "x"), (1, "y", "z")]):
        with pytest.raises((TypeError, ValueError)):
            f.update(pairs)
    assert f.snapshot() == before and f.combine_count == count
    f.update([(np.int64(1), "X"), (np.uint8(3), "Y")])
    assert f.leaves() == ["a", "X", "c", "Y"] and f.prefix(np.int16(1)) == "aX" and f.suffix(np.int64(2)) == "cY"


@pytest.mark.parametrize("impl", list(MODS))
def test_typed_values_are_validated_first_and_numpy_is_accepted(impl: str) -> None:
    mod = MODS[impl]
    f = mod.FlatFAT(sum_f64(), np.array([1.0, 2.0, 3.0]))
    before = f.snapshot()
    for bad in ("x", None, float("nan"), 2**60, np.float64("nan")):
        with pytest.raises((TypeError, ValueError)):
            f.update([(0, 5.0), (1, bad)])
    assert f.snapshot() == before
    f.update([(0, np.float64(0.5)), (3, np.float32(0.25)), (1, np.int64(4))])
    assert f.leaves() == [0.5, 4.0, 3.0, 0.25] and f.aggregate() == 7.75
    with pytest.raises(TypeError):
        mod.FlatFAT(sum_i64(), [1, "2"])
    g = mod.FlatFAT(sum_i64(), np.arange(5, dtype=np.int64))
    assert g.aggregate() == 10 and g.capacity == 8
    ra = mod.ReactiveAggregator(max_i64())
    ra.insert_many(np.array([3, 9, 4], dtype=np.int64))
    before, count = ra.snapshot(), ra.combine_count
    for bad in ("x", 1.5, True, 2**63, np.float64(2.0)):
        for call in (
            lambda: ra.insert(bad),
            lambda: ra.insert_many([1, bad]),
            lambda: ra.insert_many_with_handles([bad]),
            lambda: ra.batch([("insert", bad)]),
        ):
            with pytest.raises((TypeError, ValueError, OverflowError)):
                call()
    assert ra.snapshot() == before and ra.combine_count == count
    assert ra.insert_with_handle(np.int64(12)) == 3 and ra.query() == 12
    ra.insert(np.int32(-1))
    assert ra.handles() == [0, 1, 2, 3, 4]


@pytest.mark.parametrize("impl", list(MODS))
def test_bad_handles_change_nothing_and_numpy_handles_work(impl: str) -> None:
    ra = MODS[impl].ReactiveAggregator(string_concat())
    ra.insert_many("abcde")
    ra.remove(1)
    before, count = ra.snapshot(), ra.combine_count
    for bad in (1, 5, -1, 2**70, -(2**70), 1.0, "0", None, True, np.float64(0.0), (0,)):
        with pytest.raises(InvalidHandleError):
            ra.remove(bad)
        with pytest.raises(InvalidHandleError):
            ra.remove_many([0, bad])
    for dup in ([0, 0], [0, np.int64(0)], [2, 3, 2]):
        with pytest.raises(InvalidHandleError):
            ra.remove_many(dup)
    assert ra.snapshot() == before and ra.combine_count == count and ra.query() == "acde"
    ra.remove(np.int64(3))
    ra.remove_many([np.uint16(0), 4])
    assert ra.query() == "c" and ra.handles() == [2]


@pytest.mark.parametrize("impl", list(MODS))
def test_a_raising_combine_in_new_leaves_no_structure_behind(impl: str) -> None:
    """FlatFAT's ``new`` (Algorithm 1) builds before the object exists: a raising combine propagates, nothing
    leaks or crashes (child process)."""
    done = _child(f"""
        import gc
        import swagkit.{impl} as mod
        from dataclasses import replace
        from swagkit.spec.library import string_concat
        calls = []
        def comb(a, b):
            calls.append(1)
            if len(calls) == 5:
                raise KeyboardInterrupt
            return a + b
        m = replace(string_concat(), combine=comb)
        for _ in range(3):
            calls.clear()
            try:
                mod.FlatFAT(m, list("abcdefgh"))
            except KeyboardInterrupt:
                pass
            else:
                raise AssertionError("no fault")
        gc.collect()
        calls.clear()
        f = mod.FlatFAT(replace(string_concat(), combine=lambda a, b: a + b), list("abcdefgh"))
        assert f.aggregate() == "abcdefgh" and f.combine_count == 7
        print("OK")
    """)
    _ok(done)


@pytest.mark.parametrize("impl", list(MODS))
def test_two_threads_share_a_flatfat(impl: str) -> None:
    """A writer updating and a reader querying one FlatFAT whose combine yields the GIL: every call succeeds or
    raises ReentrantCallError (nothing changed), the reader only sees aggregates of written states, and the
    final tree is the writer's (child process)."""
    done = _child(f"""
        import sys, threading, time
        import swagkit.{impl} as mod
        from dataclasses import replace
        from swagkit.spec.errors import ReentrantCallError
        from swagkit.spec.library import string_concat
        def slow(a, b):
            time.sleep(0)
            return a + b
        f = mod.FlatFAT(replace(string_concat(), combine=slow), ["."] * 8)
        leaves = ["."] * 8
        seen = {{"".join(leaves)}}
        answers, errors = [], []
        stop = threading.Event()
        stats = {{"writes": 0, "refused": 0}}
        def writer():
            try:
                k = 0
                while not stop.is_set() and k < 3000:
                    i, v = k % 8, chr(97 + k % 26)
                    try:
                        f.update([(i, v)])
                    except ReentrantCallError:
                        stats["refused"] += 1
                        continue
                    leaves[i] = v
                    seen.add("".join(leaves))
                    stats["writes"] += 1
                    k += 1
            except BaseException as err:
                errors.append(err)
            finally:
                stop.set()
        def reader():
            try:
                while not stop.is_set():
                    for call in (f.aggregate, lambda: f.prefix(7), f.snapshot):
                        try:
                            out = call()
                        except ReentrantCallError:
                            stats["refused"] += 1
                        else:
                            if isinstance(out, str):
                                answers.append(out)
            except BaseException as err:
                errors.append(err)
        sys.setswitchinterval(1e-6)
        threads = [threading.Thread(target=writer), threading.Thread(target=reader)]
        for t in threads:
            t.start()
        time.sleep(1.0)
        stop.set()
        for t in threads:
            t.join()
        assert not errors, errors
        assert f.leaves() == leaves and f.aggregate() == "".join(leaves)
        stray = [a for a in answers if a not in seen]
        assert not stray, stray[:3]
        assert stats["writes"] > 0
        print("OK", stats)
    """)
    _ok(done)
