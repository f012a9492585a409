"""Reactive Aggregator (paper 002 §5): the Fig. 5 trace, wrap-around order with non-commutative monoids, the
authors' code's second-query-while-inverted bug (notes P27) as a regression test, the resize/compact policy,
non-FIFO removal by handle against :class:`~swagkit.spec.nonfifo.OrderedMultisetWindow` (random runs and a
Hypothesis state machine), batches with duplicate slots (last write wins) and their combine bound, the FIFO
state machine of :mod:`swagkit.verify.machine` (model + invariants + budgets + space after every operation),
misuse that changes nothing, and compiled-vs-reference differential runs.
"""

from __future__ import annotations

import math
import random
import struct
from collections.abc import Callable
from dataclasses import fields, is_dataclass
from typing import Any

import pytest

import swagkit.optimized as opt
import swagkit.reference as ref
from swagkit.optimized import _fallback
from swagkit.spec.budgets import BUDGETS, BudgetMeter
from swagkit.spec.checkers import CHECKERS, check_reactive
from swagkit.spec.errors import EmptyWindowError, InvariantViolation
from swagkit.spec.library import LIBRARY, collect, matrix2x2, max_count, string_concat, sum_f64, sum_i64
from swagkit.spec.monoid import Monoid
from swagkit.spec.nonfifo import InvalidHandleError, OrderedMultisetWindow
from swagkit.spec.snapshots import ReactiveState
from swagkit.verify import checked, registry
from swagkit.verify.kinds.fifo import CheckedNonFifoAggregator
from swagkit.verify.machine import run_machine
from swagkit.verify.runner import describe_exception

IMPLS = {"reference": ref.ReactiveAggregator, "optimized": opt.ReactiveAggregator}
ALL_IMPLS = {**IMPLS, "fallback": _fallback.ReactiveAggregator}


def canon(x: Any) -> Any:
    """Comparable form in which floats are compared bit for bit."""
    if isinstance(x, float):
        return ("f64", struct.pack("<d", x).hex())
    if isinstance(x, (tuple, list)):
        return (type(x).__name__, tuple(canon(v) for v in x))
    if is_dataclass(x) and not isinstance(x, type):
        return (type(x).__name__, tuple((f.name, canon(getattr(x, f.name))) for f in fields(x)))
    return (type(x).__name__, x)


def buffer_pointers(s: ReactiveState) -> tuple[int, int]:
    """(F, B) 0-based, B the youngest slot."""
    return s.F, (s.F + s.span - 1) % s.capacity


# ------------------------------------------------------------------------------------------ paper fixtures


@pytest.mark.parametrize("impl", list(ALL_IMPLS))
def test_figure_5_trace_with_collect(impl: str) -> None:
    ra = ALL_IMPLS[impl](collect(), min_capacity=4)
    pointers = []
    for event in (4, 7, 3, 2, None, 9):
        if event is None:
            ra.evict()
        else:
            ra.insert(event)
        pointers.append(buffer_pointers(ra.snapshot()))
    assert pointers == [(0, 0), (0, 1), (0, 2), (0, 3), (1, 3), (1, 0)]  # the paper's (1,1) … (2,1), 0-based
    s = ra.snapshot()
    assert s.nodes[4:] == ((9,), (7,), (3,), (2,)) and s.capacity == 4
    assert ra.query() == (7, 3, 2, 9)
    assert s.nodes[1] == (9, 7, 3, 2)  # aggregate() alone would be wrong (the inverted buffer, P2)
    check_reactive(s, collect(), [(7,), (3,), (2,), (9,)])


@pytest.mark.parametrize("impl", list(ALL_IMPLS))
def test_repeated_query_while_inverted_regression(impl: str) -> None:
    """Notes P27: the public C++ code accumulates suffix/prefix inside the propagation loop, so a second query
    with no event in between, while the buffer is inverted, answered only q[F] ⊕ q[B] ("di" for "defghi")."""
    ra = ALL_IMPLS[impl](string_concat(), min_capacity=8)
    for c in "abcdefgh":
        ra.insert(c)
    ra.evict_many(3)
    ra.insert("i")
    s = ra.snapshot()
    assert s.capacity == 8 and s.F + s.span > s.capacity  # wrapped
    answers = []
    for _ in range(4):
        c0 = ra.combine_count
        answers.append(ra.query())
        assert 0 < ra.combine_count - c0 <= 2 * 3 + 1
    assert answers == ["defghi"] * 4


@pytest.mark.parametrize("impl", list(ALL_IMPLS))
def test_query_not_wrapped_is_the_root_without_combines(impl: str) -> None:
    ra = ALL_IMPLS[impl](string_concat())
    ra.insert_many("abc")
    c0 = ra.combine_count
    assert ra.query() == "abc" and ra.combine_count == c0
    empty = ALL_IMPLS[impl](string_concat())
    assert empty.query() == "" and empty.combine_count == 0


# ------------------------------------------------------------------------------------ FIFO vs the model

MONOIDS: dict[str, Callable[[], Monoid[Any, Any, Any]]] = {
    "string_concat": string_concat,
    "matrix2x2": matrix2x2,
    "max_count": max_count,
    "argmax_first": LIBRARY["argmax_first"].factory,
}


def gen_value(mname: str, rng: random.Random) -> Any:
    if mname == "string_concat":
        return rng.choice("abcdefgh")
    if mname == "matrix2x2":
        return tuple(rng.randint(-2, 2) for _ in range(4))
    if mname == "argmax_first":
        return (rng.randint(0, 3), rng.choice("xyz"))  # ties are frequent: the earlier one must win
    return rng.randint(0, 4)


@pytest.mark.parametrize("impl", list(IMPLS))
@pytest.mark.parametrize("mname", list(MONOIDS))
def test_random_fifo_and_nonfifo_runs_match_the_model(impl: str, mname: str) -> None:
    rng = random.Random(hash(mname) % 1000)
    m = MONOIDS[mname]()
    for trial in range(12):
        ra = IMPLS[impl](m, min_capacity=rng.choice([1, 2, 4, 16]))
        model: OrderedMultisetWindow[Any, Any, Any] = OrderedMultisetWindow(m)
        target = rng.choice([3, 20, 70])
        nonfifo = trial % 2 == 1
        for _ in range(250):
            r = rng.random()
            if r < 0.05:
                vs = [gen_value(mname, rng) for _ in range(rng.randint(0, 12))]
                assert ra.insert_many_with_handles(vs) == [model.insert_with_handle(v) for v in vs]
            elif r < 0.08:
                k = rng.randint(0, len(model))
                ra.evict_many(k)
                model.evict_many(k)
            elif nonfifo and r < 0.25 and len(model):
                h = rng.choice(model.handles())
                ra.remove(h)
                model.remove(h)
            elif nonfifo and r < 0.28 and len(model):
                hs = rng.sample(model.handles(), rng.randint(1, len(model)))
                ra.remove_many(hs)
                for h in hs:
                    model.remove(h)
            elif len(model) == 0 or (len(model) < target and r < 0.6):
                v = gen_value(mname, rng)
                assert ra.insert_with_handle(v) == model.insert_with_handle(v)
            else:
                ra.evict()
                model.evict()
            assert m.eq(ra.query(), model.query()) or ra.query() == model.query()
            assert len(ra) == len(model) and ra.handles() == model.handles()
            check_reactive(ra.snapshot(), m, model.values())


# -------------------------------------------------------------------------------------------- resize policy


@pytest.mark.parametrize("impl", list(ALL_IMPLS))
def test_resize_policy_grow_compact_shrink_keeps_order(impl: str) -> None:
    ra = ALL_IMPLS[impl](string_concat())
    caps = []
    for c in "abcdefghijklmnopq":  # 17 inserts
        ra.insert(c)
        caps.append(ra.capacity)
    assert caps[:9] == [2, 2, 4, 4, 8, 8, 8, 8, 16] and caps[-1] == 32
    assert ra.query() == "abcdefghijklmnopq"
    # non-FIFO holes, then fill up: compaction (≤ 3/4 full) keeps the capacity and the order
    hs = ra.handles()
    ra.remove_many(hs[1:9])  # 9 left of capacity 32: ≥ 1/4, no halving
    assert ra.capacity == 32 and ra.query() == "ajklmnopq"
    for c in "RSTUVWXYZ012345":  # the buffer reaches slot 31: full with 24 = 3/4·32 live elements
        ra.insert(c)
    s = ra.snapshot()
    assert s.span == 32 and s.size == 24 and s.capacity == 32
    ra.insert("6")  # compact, not double
    s = ra.snapshot()
    assert s.capacity == 32 and s.F == 0 and s.span == s.size == 25
    assert ra.query() == "ajklmnopqRSTUVWXYZ0123456"
    ra.remove(ra.handles()[3])
    ra.insert_many("789abcd")  # 31 live: full again with > 3/4 → double
    assert ra.capacity == 32
    ra.insert("e")
    assert ra.capacity == 64 and ra.query() == "ajkmnopqRSTUVWXYZ0123456789abcde"
    # drain: halves while under 1/4, the order is kept
    caps = []
    while len(ra) > 1:
        ra.evict()
        caps.append(ra.capacity)
        assert ra.capacity == 2 or 4 * len(ra) >= ra.capacity
    assert ra.query() == "e" and caps[-1] == 4  # one element keeps capacity 4 (4·1 ≥ 4)
    ra.evict()
    assert ra.capacity == 2 and len(ra) == 0 and ra.snapshot().F == 0


@pytest.mark.parametrize("impl", list(ALL_IMPLS))
def test_event_order_decides_capacity(impl: str) -> None:
    """Notes P10: a count window of 2^k stays at capacity 2^k when evicting first, doubles when inserting first."""
    evict_first = ALL_IMPLS[impl](sum_i64())
    insert_first = ALL_IMPLS[impl](sum_i64())
    for i in range(100):
        if len(evict_first) == 8:
            evict_first.evict()
        evict_first.insert(i)
        insert_first.insert(i)
        if len(insert_first) > 8:
            insert_first.evict()
    assert evict_first.capacity == 8 and insert_first.capacity == 16
    assert evict_first.query() == insert_first.query() == sum(range(92, 100))


def test_min_capacity_is_validated() -> None:
    for cls in ALL_IMPLS.values():
        for bad in (0, 3, 6, -2, 2.0):
            with pytest.raises(ValueError):
                cls(sum_i64(), min_capacity=bad)
        assert cls(sum_i64(), min_capacity=16).capacity == 16


# ------------------------------------------------------------------------------------------------- batches


@pytest.mark.parametrize("impl", list(ALL_IMPLS))
def test_batch_duplicate_slots_last_write_wins(impl: str) -> None:
    ra = ALL_IMPLS[impl](string_concat(), min_capacity=4)
    ra.insert_many("abcd")  # full, not wrapped
    assert ra.capacity == 4
    c0 = ra.combine_count
    out = ra.batch([("evict",), ("insert", "e")])  # P4: both events write slot 0
    assert out == [None, 4]
    assert ra.combine_count - c0 == 2  # one distinct slot: one walk of log2 4
    assert ra.query() == "bcde"
    s = ra.snapshot()
    assert s.nodes[4] == "e" and buffer_pointers(s) == (1, 0)
    # insert then remove within one batch: the slot ends as ⊥
    c0 = ra.combine_count
    out = ra.batch([("evict",), ("insert", "f"), ("remove", 5)])
    assert out == [None, 5, None]
    assert ra.query() == "cde" and ra.handles() == [2, 3, 4]
    check_reactive(ra.snapshot(), string_concat(), list("cde"))
    assert ra.combine_count - c0 <= 2 * (1 + 1)  # two distinct slots of 4


@pytest.mark.parametrize("impl", list(IMPLS))
def test_batch_bound_over_distinct_slots(impl: str) -> None:
    rng = random.Random(3)
    m = string_concat()
    for _ in range(60):
        ra = IMPLS[impl](m, min_capacity=64)
        ra.insert_many([rng.choice("xyz") for _ in range(rng.randint(20, 40))])
        model_vals = list(ra.query())
        events: list[tuple[Any, ...]] = []
        for _ in range(rng.randint(1, 10)):
            events.append(("evict",) if rng.random() < 0.5 and len(model_vals) > 17 else ("insert", "q"))
            if events[-1][0] == "evict":
                model_vals.pop(0)
            else:
                model_vals.append("q")
        before = ra.snapshot()
        c0 = ra.combine_count
        ra.batch(events)
        after = ra.snapshot()
        assert after.capacity == 64  # no rebuild in this regime
        written = {
            i for i in range(64) if before.nodes[64 + i] != after.nodes[64 + i] or before.handles[i] != after.handles[i]
        }
        m_distinct = max(len(written), 1)
        assert ra.combine_count - c0 <= m_distinct * (1 + math.ceil(math.log2(64 / m_distinct)))
        assert ra.query() == "".join(model_vals)


@pytest.mark.parametrize("impl", list(ALL_IMPLS))
def test_bad_batch_event_applies_the_prefix(impl: str) -> None:
    ra = ALL_IMPLS[impl](string_concat())
    ra.insert_many("ab")
    with pytest.raises(InvalidHandleError):
        ra.batch([("insert", "c"), ("remove", 0), ("remove", 0), ("insert", "d")])
    assert ra.query() == "bc" and ra.handles() == [1, 2]
    with pytest.raises(ValueError):
        ra.batch([("evict",), ("bogus", 1)])
    assert ra.query() == "c"
    with pytest.raises(EmptyWindowError):
        ra.batch([("evict",), ("evict",)])
    assert len(ra) == 0 and ra.query() == ""
    check_reactive(ra.snapshot(), string_concat(), [])


# ------------------------------------------------------------------------------------------------- misuse


@pytest.mark.parametrize("impl", list(ALL_IMPLS))
def test_misuse_raises_and_changes_nothing(impl: str) -> None:
    ra = ALL_IMPLS[impl](string_concat())
    with pytest.raises(EmptyWindowError):
        ra.evict()
    with pytest.raises(EmptyWindowError):
        ra.evict_many(1)
    ra.insert_many("abc")
    ra.remove(1)
    before, count = ra.snapshot(), ra.combine_count
    for bad in (1, 7, -1, "0", None, 2**70):
        with pytest.raises(InvalidHandleError):
            ra.remove(bad)
    with pytest.raises(KeyError):  # InvalidHandleError is a KeyError
        ra.remove_many([0, 0])
    with pytest.raises(InvalidHandleError):
        ra.remove_many([2, 1])
    with pytest.raises(EmptyWindowError):
        ra.evict_many(3)
    with pytest.raises(ValueError):
        ra.evict_many(-1)
    assert ra.snapshot() == before and ra.combine_count == count and ra.query() == "ac"


TYPED = ["sum_f64", "max_f64", "min_f64", "sum_i64", "max_i64", "min_i64"]


@pytest.mark.parametrize("impl", list(ALL_IMPLS))
@pytest.mark.parametrize("kind", TYPED)
def test_typed_validation_leaves_structure_intact(impl: str, kind: str) -> None:
    m = LIBRARY[kind].factory()
    ra = ALL_IMPLS[impl](m)
    good = [1.5, -2.0, 3.0] if "f64" in kind else [1, -2, 3]
    ra.insert_many(good)
    before, count = canon(ra.snapshot()), ra.combine_count
    bad: list[Any] = ["x", None, True, math.nan, 2**60] if "f64" in kind else ["x", 1.5, True, 2**63]
    for b in bad:
        with pytest.raises((TypeError, ValueError, OverflowError)):
            ra.insert(b)
        with pytest.raises((TypeError, ValueError, OverflowError)):
            ra.insert_many([*good, b])
        with pytest.raises((TypeError, ValueError, OverflowError)):
            ra.insert_with_handle(b)
    assert canon(ra.snapshot()) == before and ra.combine_count == count and len(ra) == 3
    assert ra.insert_with_handle(good[0]) == 3


def test_raising_combine_leaves_the_aggregator_as_before() -> None:
    """Issue 12: the Reactive Aggregator is strongly exception-safe (it used to refuse every later update)."""
    calls = {"n": 0, "fail": -1}

    def combine(a: str, b: str) -> str:
        calls["n"] += 1
        if calls["n"] == calls["fail"]:
            raise RuntimeError("boom")
        return a + b

    for cls in ALL_IMPLS.values():
        calls["n"], calls["fail"] = 0, -1
        ra = cls(Monoid(identity="", combine=combine, name="flaky"), min_capacity=8)
        ra.insert("a")
        calls["fail"] = calls["n"] + 2  # the second combine of the next insert's walk
        before = ra.snapshot()
        with pytest.raises(RuntimeError):
            ra.insert("b")
        assert ra.snapshot() == before and ra.query() == "a" and ra.handles() == [0]
        ra.insert("c")
        assert ra.query() == "ac" and ra.handles() == [0, 1]
        ra.evict()
        assert ra.query() == "c"


def test_checker_names_the_broken_invariant() -> None:
    ra = ref.ReactiveAggregator(string_concat(), min_capacity=4)
    ra.insert_many("abc")
    s = ra.snapshot()
    from dataclasses import replace

    def tree(leaves: str) -> tuple[Any, ...]:
        return tuple(ref.FlatFAT(string_concat(), list(leaves)).snapshot().nodes)

    cases = {
        "window order": replace(s, nodes=tree("acb") + ()),
        "node": replace(s, nodes=(s.nodes[0], "abcx") + s.nodes[2:]),
        "empty leaves": replace(s, nodes=tree("abcz")),
        "pointers": replace(s, F=1, span=2),
        "capacity bounds": replace(s, min_capacity=8),
    }
    for name, bad in cases.items():
        with pytest.raises(InvariantViolation) as err:
            check_reactive(bad, string_concat(), list("abc"))
        if name != "node":
            assert err.value.invariant == name, (name, err.value)
        else:
            assert err.value.invariant in ("node", "window order")
    with pytest.raises(InvariantViolation) as err:
        check_reactive(s, string_concat(), list("abd"))
    assert err.value.invariant == "window order"
    assert CHECKERS["reactive"] is check_reactive


# --------------------------------------------------------------------------------- the FIFO state machine


@pytest.mark.parametrize("implementation", ["reference", "optimized"])
@pytest.mark.parametrize("monoid", ["string_concat", "matrix2x2", "max_count", "max_f64"])
def test_fifo_machine(monoid: str, implementation: str) -> None:
    stats = run_machine("reactive", monoid, implementation, max_examples=20, steps=40)
    assert stats.examples >= 20 and stats.steps > 0


def test_registry_metadata() -> None:
    info = registry.algorithm("reactive")
    assert info.kind.name == "fifo" and info.checker == "reactive" and info.budget == "reactive"
    assert registry.resolve_class("reactive", "optimized") is opt.ReactiveAggregator
    w = registry.create("reactive", "string_concat", check=True)
    w.insert_many("abc")
    w.evict()
    assert w.query() == "bc" and set(w.active_checks) == {"model", "invariants", "budget", "space"}


def test_budget_bounds_and_amortized_rebuild_work() -> None:
    """Every single operation within the budget, and rebuild work amortized: the combines beyond one walk per
    event (log2 capacity) and one query each stay ≤ 16 per event (notes R11, C = 16–32) over long runs."""
    budget = BUDGETS["reactive"]
    rng = random.Random(8)
    for impl in IMPLS.values():
        for target_choices in ([0, 5, 300], [1, 2, 3], [100, 1000]):
            ra = impl(sum_i64())
            meter = BudgetMeter(budget)
            extra = 0
            events = 0
            target = 0
            for _ in range(6000):
                if rng.random() < 0.01:
                    target = rng.choice(target_choices)
                n = len(ra)
                cap = ra.capacity
                c0 = ra.combine_count
                op = "insert" if n < target or n == 0 else "evict"
                if op == "insert":
                    ra.insert(1)
                else:
                    ra.evict()
                used = ra.combine_count - c0
                meter.record(op, n, used)
                meter.check_space(ra.snapshot(), len(ra))
                extra += max(0, used - max(math.log2(cap), math.log2(ra.capacity)))
                events += 1
                c0 = ra.combine_count
                ra.query()
                meter.record("query", len(ra), ra.combine_count - c0)
            assert extra <= 16 * events + 4


# ------------------------------------------------------------------------------- non-FIFO state machine


@pytest.mark.parametrize("impl", list(IMPLS))
@pytest.mark.parametrize("mname", ["string_concat", "matrix2x2", "max_count", "max_f64"])
def test_nonfifo_rules_of_the_shared_machine(impl: str, mname: str) -> None:
    """The registered machine gives the Reactive Aggregator the non-FIFO rules (remove by handle, dead handles,
    remove_many, batch) checked by CheckedNonFifoAggregator against OrderedMultisetWindow."""
    impl_id = "reference" if impl == "reference" else "optimized"
    if impl == "fallback":
        cls = IMPLS[impl]
        info = registry.AlgorithmInfo(
            "reactive_fallback_probe", "ReactiveAggregator", "probe", "-", "reactive", "reactive"
        )
        with registry.registered(info, {"reference": cls}):
            stats = run_machine(info.id, mname, "reference", max_examples=15, steps=40, seed=2)
    else:
        stats = run_machine("reactive", mname, impl_id, max_examples=15, steps=40, seed=2)
    assert stats.steps > stats.examples


def test_debug_mode_follows_handles_and_catches_a_wrong_removal() -> None:
    w = checked(ref.ReactiveAggregator(string_concat()))
    assert isinstance(w, CheckedNonFifoAggregator)
    hs = w.insert_many_with_handles("abcd")
    w.remove(hs[1])
    assert w.query() == "acd" and w.handles() == [0, 2, 3]
    assert w.batch([("insert", "e"), ("remove", 2), ("evict",)]) == [4, None, None] and w.query() == "de"
    with pytest.raises(InvalidHandleError):
        w.remove(hs[1])  # already gone: raises, changes nothing
    assert w.query() == "de"

    class RemovesTheOldest(ref.ReactiveAggregator):
        def remove(self, handle: Any) -> None:
            if handle in self.where:
                handle = min(self.where)
            super().remove(handle)

    info = registry.AlgorithmInfo("reactive_planted", "ReactiveAggregator", "planted", "-", "reactive", "reactive")
    with registry.registered(info, {"reference": RemovesTheOldest}):
        with pytest.raises(Exception) as err:
            run_machine(info.id, "string_concat", "reference", max_examples=60, steps=40, seed=0)
    assert "after remove(" in describe_exception(err.value)  # names the operation that broke it


# ---------------------------------------------------------------------------------- differential (compiled)

DIFF_MONOIDS = ["string_concat", "max_count", "matrix2x2", *TYPED]


def gen_diff(mname: str, rng: random.Random) -> Any:
    if mname in MONOIDS:
        return gen_value(mname, rng)
    if "f64" in mname:
        return rng.choice(
            [
                rng.uniform(-1e6, 1e6),
                0.1,
                -0.0,
                0.0,
                float(rng.randint(-3, 3)),
                rng.uniform(-1, 1) * 10 ** rng.randint(-300, 300),
                math.inf if mname != "sum_f64" else 1e308,
                -math.inf if mname != "sum_f64" else -1e308,
            ]
        )
    return rng.choice([rng.randint(-(2**63), 2**63 - 1), rng.randint(-5, 5)])


def assert_same(a: Any, r: Any, where: str) -> None:
    assert canon(a.query()) == canon(r.query()), where
    assert a.combine_count == r.combine_count, where
    assert len(a) == len(r) and a.capacity == r.capacity, where
    assert a.handles() == r.handles(), where
    assert canon(a.snapshot()) == canon(r.snapshot()), where


@pytest.mark.parametrize("mname", DIFF_MONOIDS)
def test_optimized_matches_reference(mname: str) -> None:
    rng = random.Random(sum(map(ord, mname)))
    m = LIBRARY[mname].factory()
    for trial in range(6):
        minc = rng.choice([1, 2, 8])
        a, r = opt.ReactiveAggregator(m, minc), ref.ReactiveAggregator(m, minc)
        target = rng.choice([1, 5, 40, 300])
        for step in range(400):
            op = rng.random()
            where = f"{mname} trial={trial} step={step}"
            if op < 0.05:
                vs = [gen_diff(mname, rng) for _ in range(rng.randint(0, 30))]
                assert a.insert_many_with_handles(vs) == r.insert_many_with_handles(vs)
            elif op < 0.08:
                k = rng.randint(0, len(r))
                a.evict_many(k)
                r.evict_many(k)
            elif op < 0.18 and len(r):
                h = rng.choice(r.handles())
                a.remove(h)
                r.remove(h)
            elif op < 0.21 and len(r):
                hs = rng.sample(r.handles(), rng.randint(1, min(len(r), 10)))
                a.remove_many(hs)
                r.remove_many(hs)
            elif op < 0.25:
                events: list[tuple[Any, ...]] = [("insert", gen_diff(mname, rng)) for _ in range(rng.randint(0, 4))]
                events += [("evict",)] * rng.randint(0, min(2, len(r)))
                rng.shuffle(events)
                try:
                    out_r = r.batch(events)
                except EmptyWindowError:
                    with pytest.raises(EmptyWindowError):
                        a.batch(events)
                else:
                    assert a.batch(events) == out_r
            elif len(r) == 0 or (len(r) < target and op < 0.6):
                v = gen_diff(mname, rng)
                a.insert(v)
                r.insert(v)
            else:
                a.evict()
                r.evict()
            if rng.random() < 0.02:
                target = rng.choice([0, 1, 3, 40, 300])
            assert_same(a, r, where)


@pytest.mark.parametrize("mname", ["string_concat", "max_count", *TYPED])
def test_window_array_matches_reference(mname: str) -> None:
    import array

    rng = random.Random(4)
    m = LIBRARY[mname].factory()
    values = [gen_diff(mname, rng) for _ in range(500)]
    for window in (1, 2, 7, 64, 600):
        want = ref.window_array(ref.ReactiveAggregator, m, values, window)
        got = opt.window_array(opt.ReactiveAggregator, m, values, window)
        assert canon(list(got)) == canon(want), window
        if mname in TYPED:
            assert isinstance(got, array.array)
            buf = array.array("d" if "f64" in mname else "q", values)
            assert canon(list(opt.window_array(opt.ReactiveAggregator, m, buf, window))) == canon(want)


def test_same_public_api_as_reference() -> None:
    import inspect

    def public(cls: type) -> dict[str, Any]:
        return {n: getattr(cls, n) for n in dir(cls) if not n.startswith("_") and callable(getattr(cls, n))}

    want = public(ref.ReactiveAggregator)
    for cls in (opt.ReactiveAggregator, _fallback.ReactiveAggregator):
        got = public(cls)
        assert sorted(got) == sorted(want)
        for n, f in want.items():
            assert inspect.signature(got[n]) == inspect.signature(f), n
        assert cls.algorithm == "reactive"
        params = [(p.name, p.default) for p in inspect.signature(cls).parameters.values()]
        assert params == [(p.name, p.default) for p in inspect.signature(ref.ReactiveAggregator).parameters.values()]
    assert opt.ReactiveAggregator(sum_f64())._memory_bytes() is None or opt.COMPILED
    assert _fallback.ReactiveAggregator(sum_f64())._memory_bytes() is None


def test_debug_mode_catches_a_planted_order_bug() -> None:
    """A Reactive Aggregator answering aggregate() on an inverted buffer (P2) is caught by the checked wrapper."""

    class RootOnly(ref.ReactiveAggregator):
        def query(self) -> Any:
            return self.monoid.lower(self.fat.T[1])

    w = checked(RootOnly(string_concat()), algorithm="reactive")
    w.insert_many("ab")
    w.evict()
    w.insert("c")  # capacity 2, wrapped: the root is "cb"
    from swagkit.spec.errors import ModelMismatch

    with pytest.raises(ModelMismatch):
        w.query()


def test_nonfifo_model_doctest() -> None:
    import doctest

    import swagkit.spec.nonfifo

    assert doctest.testmod(swagkit.spec.nonfifo).failed == 0


# ------------------------------------------------------------------------------- FIFO optimization (masked)


@pytest.mark.parametrize("mname", list(MONOIDS))
def test_fifo_optimization_masked_matches_explicit_bottom(mname: str) -> None:
    """Notes P12: the no-⊥ FIFO version (masked combine) differentially against the explicit-⊥ version: same
    answers, capacities and pointers, never more ⊕ per operation, and the masked invariant after every step."""
    from swagkit.reference.reactive import FifoReactiveAggregator
    from swagkit.spec.checkers.reactive import check_reactive_masked

    rng = random.Random(21)
    m = MONOIDS[mname]()
    for _trial in range(10):
        minc = rng.choice([1, 2, 4])
        fast, full = FifoReactiveAggregator(m, minc), ref.ReactiveAggregator(m, minc)
        model: OrderedMultisetWindow[Any, Any, Any] = OrderedMultisetWindow(m)
        target = rng.choice([1, 3, 17, 70])
        for _ in range(300):
            c_fast, c_full = fast.combine_count, full.combine_count
            if len(model) == 0 or (len(model) < target and rng.random() < 0.6):
                v = gen_value(mname, rng)
                fast.insert(v)
                full.insert(v)
                model.insert(v)
            else:
                fast.evict()
                full.evict()
                model.evict()
            got = fast.query()
            assert got == full.query() and (got == model.query() or m.eq(got, model.query()))
            assert fast.combine_count - c_fast <= full.combine_count - c_full
            sf, sx = fast.snapshot(), full.snapshot()
            assert (sf.capacity, sf.F, sf.span, sf.handles) == (sx.capacity, sx.F, sx.span, sx.handles)
            check_reactive_masked(sf, m, model.values())
            if rng.random() < 0.02:
                target = rng.choice([0, 1, 5, 40])
        assert fast.combine_count < full.combine_count  # masking skips the combines with ⊥
    with pytest.raises(EmptyWindowError):
        FifoReactiveAggregator(m).evict()
    f = FifoReactiveAggregator(string_concat(), 4)
    f.insert_many("abcde")
    f.evict_many(2)
    s = f.snapshot()
    check_reactive_masked(s, string_concat(), list("cde"))
    from dataclasses import replace

    with pytest.raises(InvariantViolation) as err:
        check_reactive_masked(replace(s, nodes=(s.nodes[0], "xx") + s.nodes[2:]), string_concat(), list("cde"))
    assert err.value.invariant == "masked node"
