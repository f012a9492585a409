"""SlickDeque (paper 001): paper examples and counts, the answer-loop erratum, multi-query against brute force,
invariants, budgets, monoid requirements, drift bound, Range, the shared plan, and non-commutative monoids.

Runs on the reference and on ``swagkit.optimized`` (compiled, or its pure-Python fallback).
"""

from __future__ import annotations

import math
import random
import types
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import swagkit.optimized
import swagkit.reference
from swagkit.reference.slickdeque_plan import run_plan
from swagkit.spec import CHECKERS
from swagkit.spec.budgets import BUDGETS, stored_aggregates
from swagkit.spec.errors import EmptyWindowError, InvariantViolation, UnsupportedMonoidError
from swagkit.spec.f64_track import any_order_ok
from swagkit.spec.library import (
    argmax,
    argmin,
    bloom_filter,
    count_monoid,
    first,
    last,
    matrix2x2,
    max_count,
    max_f64,
    max_monoid,
    min_monoid,
    sum_f64,
    sum_i64,
    sum_monoid,
)
from swagkit.spec.monoid import Monoid, check_laws, counted, fold
from swagkit.spec.slickdeque import (
    answer_index,
    multi_query_budget,
    paper_answer_index,
)
from swagkit.spec.slickdeque_plan import ACQ, PlanError, build_shared_plan
from swagkit.spec.snapshots import SlickDequeInvState, SlickDequeNonInvState
from swagkit.verify import checked

IMPLS = [pytest.param(swagkit.reference, id="reference"), pytest.param(swagkit.optimized, id="optimized")]
PAPER_INPUT = [6, 5, 0, 1, 3, 4, 2, 7]


def _run_all(agg: Any, xs: list[Any]) -> list[dict[int, Any]]:
    return [agg.step(x) for x in xs]


# ---------------------------------------------------------------------------------------------------------------
# paper examples 2 and 3 (Figs. 8 and 9), with the operation counts


@pytest.mark.parametrize("impl", IMPLS)
def test_example2_inv_sum_answers_and_32_operations(impl: types.ModuleType) -> None:
    m, counter = counted(sum_monoid())
    agg = impl.SlickDequeInv(m, ranges=(3, 5))
    out = _run_all(agg, PAPER_INPUT)
    assert [(a[3], a[5]) for a in out] == [(6, 6), (11, 11), (11, 11), (6, 12), (4, 15), (8, 13), (9, 10), (13, 17)]
    # 8 steps × 2 ranges × (one ⊕ and one ⊖): every ⊖ is one ⊗ with the inverse
    assert counter.calls == agg.combine_count == 32
    assert agg.inverse_count == 16
    assert multi_query_budget("inv", 2, 8) == 32


@pytest.mark.parametrize("impl", IMPLS)
def test_example2_step1_subtracts_slots_2_and_0(impl: types.ModuleType) -> None:
    agg = impl.SlickDequeInv(sum_monoid(), ranges=(3, 5))
    agg.insert(6)  # step 0 leaves currPos = 1: startPos = 1 - 3 + 5 = 3 for Q1? no: step 1 is the second partial
    s = agg.snapshot()
    assert s.cursor == 1
    # at step 1 (currPos = 1) Q1 subtracts slot (1 - 3) mod 5 = 3 and Q2 slot (1 - 5) mod 5 = 1 … the paper's Fig. 8
    # numbers slots from the write position; what matters is that both are the identity during warm-up:
    assert s.partials[(1 - 3) % 5] == 0 and s.partials[(1 - 5) % 5] == 0


@pytest.mark.parametrize("impl", IMPLS)
def test_example3_noninv_max_deques_answers_and_11_operations(impl: types.ModuleType) -> None:
    m, counter = counted(max_monoid())
    agg = impl.SlickDequeNonInv(m, ranges=[5, 3])
    deques, answers = [], []
    for x in PAPER_INPUT:
        a = agg.step(x)
        answers.append((a[3], a[5]))
        deques.append([v for _, v in agg.snapshot().nodes])
    assert deques == [[6], [6, 5], [6, 5, 0], [6, 5, 1], [6, 5, 3], [5, 4], [4, 2], [7]]
    assert answers == [(6, 6), (6, 6), (6, 6), (5, 6), (3, 6), (4, 5), (4, 4), (7, 7)]
    assert counter.calls == agg.combine_count == 11
    assert agg.combine_count <= multi_query_budget("noninv", 2, 8)


def test_naive_would_use_48() -> None:
    # the paper's Naive count for the same example: 8 × ((3 − 1) + (5 − 1))
    assert 8 * ((3 - 1) + (5 - 1)) == 48


# ---------------------------------------------------------------------------------------------------------------
# the answer-loop erratum (notes §3.2)


def _mod_positions(nodes: tuple[tuple[int, Any], ...], w: int) -> list[int]:
    return [s % w for s, _ in nodes]


def test_paper_answer_loops_accept_an_expired_node_and_the_fix_does_not() -> None:
    agg = swagkit.reference.SlickDequeNonInv(max_monoid(), ranges=(3, 5))
    literal, fixed = [], []
    for t, x in enumerate(PAPER_INPUT):
        agg.insert(x)
        nodes = agg.snapshot().nodes
        pos = _mod_positions(nodes, 5)
        vals = [v for _, v in nodes]
        cur = t % 5
        literal.append(vals[paper_answer_index(pos, cur, 5, 3, corrected=False)])
        fixed.append(vals[paper_answer_index(pos, cur, 5, 3, corrected=True)])
        assert paper_answer_index(pos, cur, 5, 3, corrected=True) == answer_index([s for s, _ in nodes], t, 3)
    assert fixed == [6, 6, 6, 5, 3, 4, 4, 7]  # Example 3, Q1
    assert literal[3:5] == [6, 5]  # steps 3 and 4 (0-based): the node at startPos had already left the window
    assert literal != fixed


# ---------------------------------------------------------------------------------------------------------------
# multi-query against brute force (Hypothesis), with the invariant checkers after every step


def _brute(m: Monoid[Any, Any, Any], window: list[Any], r: int) -> Any:
    return m.lower(fold(m, [m.lift(x) for x in window[max(len(window) - r, 0) :]]))


ops = st.lists(st.one_of(st.integers(-6, 6), st.just("evict")), max_size=60)


@pytest.mark.parametrize("impl", IMPLS)
@settings(max_examples=60)
@given(ranges=st.lists(st.integers(1, 9), min_size=1, max_size=5), script=ops)
def test_noninv_multi_query_matches_brute_force(impl: types.ModuleType, ranges: list[int], script: list[Any]) -> None:
    m = max_monoid()
    agg = impl.SlickDequeNonInv(m, ranges=ranges)
    w = max(ranges)
    window: list[Any] = []
    for op in script:
        if op == "evict":
            if not window:
                with pytest.raises(EmptyWindowError):
                    agg.evict()
                continue
            agg.evict()
            window.pop(0)
        else:
            agg.insert(op)
            window.append(op)
            window = window[-w:]
        CHECKERS["slickdeque_noninv"](agg.snapshot(), m, [m.lift(x) for x in window])
        assert agg.query_all() == {r: _brute(m, window, r) for r in sorted(set(ranges), reverse=True)}
        assert agg.query() == _brute(m, window, w)
        for r in range(1, w + 3):
            assert agg.query_range(r) == _brute(m, window, r)
        runs = agg.query_runs()  # every range at once, one pair per deque node
        assert len(runs) == max(1, len(agg.snapshot().nodes))
        assert [r for r, _ in runs] == sorted({r for r, _ in runs}) and runs[0][0] == 1
        for r in range(1, w + 3):
            assert [a for start, a in runs if start <= r][-1] == _brute(m, window, r)


@pytest.mark.parametrize("impl", IMPLS)
@settings(max_examples=60)
@given(ranges=st.lists(st.integers(1, 9), min_size=1, max_size=5), script=ops)
def test_inv_multi_query_matches_brute_force(impl: types.ModuleType, ranges: list[int], script: list[Any]) -> None:
    m = sum_monoid()
    agg = impl.SlickDequeInv(m, ranges=ranges)
    w = max(ranges)
    window: list[Any] = []
    for op in script:
        before = agg.combine_count
        if op == "evict":
            if not window:
                with pytest.raises(EmptyWindowError):
                    agg.evict()
                continue
            agg.evict()
            window.pop(0)
            assert agg.combine_count - before <= len(set(ranges))
        else:
            agg.insert(op)
            window.append(op)
            window = window[-w:]
            assert agg.combine_count - before == 2 * len(set(ranges))  # exactly 2 per distinct range
        CHECKERS["slickdeque_inv"](agg.snapshot(), m, list(window))
        assert agg.query_all() == {r: _brute(m, window, r) for r in sorted(set(ranges), reverse=True)}
        assert agg.query() == _brute(m, window, w)


@pytest.mark.parametrize("impl", IMPLS)
def test_noninv_combines_at_most_2n_minus_1(impl: types.ModuleType) -> None:
    rng = random.Random(7)
    for pattern in ("uniform", "decreasing", "sawtooth", "walk"):
        agg = impl.SlickDequeNonInv(max_monoid(), ranges=range(1, 33))
        x = 0
        n = 500
        for i in range(n):
            if pattern == "uniform":
                x = rng.randint(0, 10**6)
            elif pattern == "decreasing":
                x = -i
            elif pattern == "sawtooth":
                x = -(i % 40) + (1000 if i % 40 == 0 else 0)
            else:
                x += rng.randint(-3, 3)
            agg.step(x)
            assert agg.combine_count <= multi_query_budget("noninv", 32, i + 1)


def test_multi_query_budget_rejects_bad_input() -> None:
    with pytest.raises(ValueError):
        multi_query_budget("both", 1, 1)
    with pytest.raises(ValueError):
        multi_query_budget("inv", -1, 1)
    assert multi_query_budget("noninv", 5, 0) == 0


# ---------------------------------------------------------------------------------------------------------------
# API semantics


@pytest.mark.parametrize("impl", IMPLS)
def test_multi_query_mode_auto_evicts_at_capacity(impl: types.ModuleType) -> None:
    for cls, m in ((impl.SlickDequeInv, sum_monoid()), (impl.SlickDequeNonInv, max_monoid())):
        agg = cls(m, ranges=(2, 4))
        agg.insert_many([1, 2, 3, 4, 5, 6])
        assert len(agg) == 4
        assert agg.query() == (3 + 4 + 5 + 6 if m.name == "sum" else 6)
        agg.evict_many(3)
        assert len(agg) == 1 and agg.query_all() == {4: 6, 2: 6}
        agg.evict()
        assert len(agg) == 0 and agg.query() == m.lower(m.identity)
        assert agg.query_all() == {4: m.identity, 2: m.identity}
        with pytest.raises(EmptyWindowError):
            agg.evict_many(1)
        with pytest.raises(ValueError):
            agg.evict_many(-1)


@pytest.mark.parametrize("impl", IMPLS)
def test_range_arguments_are_validated(impl: types.ModuleType) -> None:
    for cls, m in ((impl.SlickDequeInv, sum_monoid()), (impl.SlickDequeNonInv, max_monoid())):
        with pytest.raises(ValueError):
            cls(m, ranges=(3, 0))
        with pytest.raises(TypeError):
            cls(m, ranges=(3, 1.5))
        assert cls(m, ranges=[2, 5, 2]).ranges == (5, 2)
    inv = impl.SlickDequeInv(sum_monoid(), ranges=(3,))
    with pytest.raises(ValueError, match="registered ranges"):
        inv.query_range(2)
    with pytest.raises(ValueError):
        impl.SlickDequeInv(sum_monoid()).query_range(1)
    assert impl.SlickDequeInv(sum_monoid()).query_all() == {}
    non = impl.SlickDequeNonInv(max_monoid())
    with pytest.raises(ValueError):
        non.query_range(0)
    non.insert_many([3, 1, 2])
    assert [non.query_range(r) for r in (1, 2, 3, 10)] == [2, 2, 3, 3]


# ---------------------------------------------------------------------------------------------------------------
# monoid requirements


@pytest.mark.parametrize("impl", IMPLS)
def test_noninv_rejects_non_selective_monoids_naming_alternatives(impl: types.ModuleType) -> None:
    for m in (bloom_filter(), max_count(), matrix2x2()):  # non-invertible but not selective (OR, maxcount, product)
        with pytest.raises(UnsupportedMonoidError, match="selective") as err:
            impl.SlickDequeNonInv(m)
        assert "daba_lite" in str(err.value) and "two_stacks_lite" in str(err.value)
        assert "slickdeque_inv" not in str(err.value)
    with pytest.raises(UnsupportedMonoidError, match="slickdeque_inv, daba_lite"):
        impl.SlickDequeNonInv(sum_monoid())


@pytest.mark.parametrize("impl", IMPLS)
def test_inv_rejects_non_invertible_monoids_naming_alternatives(impl: types.ModuleType) -> None:
    with pytest.raises(UnsupportedMonoidError, match="slickdeque_noninv, daba_lite") as err:
        impl.SlickDequeInv(max_monoid())
    assert "invertible" in str(err.value)
    with pytest.raises(UnsupportedMonoidError, match="daba_lite, two_stacks_lite"):
        impl.SlickDequeInv(matrix2x2())
    impl.SlickDequeInv(sum_f64())  # accepted with drift control
    impl.SlickDequeInv(count_monoid())


# ---------------------------------------------------------------------------------------------------------------
# selectivity, ties, non-commutative selective monoids


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize(
    "factory", [argmax, lambda: argmax(ties="left"), argmin, lambda: argmin(ties="left"), first, last]
)
def test_noninv_non_commutative_selective_monoids(impl: types.ModuleType, factory: Any) -> None:
    m = factory()
    rng = random.Random(3)
    agg = impl.SlickDequeNonInv(m, ranges=(1, 3, 6))
    window: list[Any] = []
    for i in range(300):
        if window and rng.random() < 0.2:
            agg.evict()
            window.pop(0)
            continue
        x = (rng.randint(0, 3), i) if m.name.startswith("arg") else rng.choice([1, 2, 3, "x"])
        agg.insert(x)
        window = (window + [x])[-6:]
        CHECKERS["slickdeque_noninv"](agg.snapshot(), m, [m.lift(v) for v in window])
        assert agg.query_all() == {r: _brute(m, window, r) for r in (6, 3, 1)}


def test_argmax_ties_keep_the_younger_and_argmax_first_the_older() -> None:
    for ties, want in (("right", "c"), ("left", "b")):
        agg = swagkit.reference.SlickDequeNonInv(argmax(ties=ties), ranges=(3,))
        agg.insert_many([(3, "a"), (7, "b"), (7, "c")])
        assert agg.query() == want
        assert len(agg.snapshot().nodes) == (1 if ties == "right" else 2)


def test_range_as_one_pair_operator_is_not_selective() -> None:
    # (max, min) as one operator yields a pair that is neither input: it cannot be a Non-Inv monoid
    def pair(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int]:
        return (max(a[0], b[0]), min(a[1], b[1]))

    m = Monoid(identity=(-math.inf, math.inf), combine=pair, name="maxmin", commutative=True, selective=True)
    violations = check_laws(m, [(1, 1), (5, 5), (3, 3)])
    assert any(v.law == "selectivity" for v in violations)


@pytest.mark.parametrize("impl", IMPLS)
def test_slick_range_two_deques(impl: types.ModuleType) -> None:
    rng = random.Random(11)
    rs = impl.SlickRange(ranges=(2, 5, 9))
    assert rs.query() is None and rs.query_all() == {9: None, 5: None, 2: None}
    window: list[int] = []
    for _ in range(400):
        if window and rng.random() < 0.15:
            rs.evict()
            window.pop(0)
        else:
            x = rng.randint(-50, 50)
            got = rs.step(x)
            window = (window + [x])[-9:]
            assert got == {r: max(window[-r:]) - min(window[-r:]) for r in (9, 5, 2)}
        assert rs.query() == (max(window) - min(window) if window else None)
        assert rs.query_range(3) == (max(window[-3:]) - min(window[-3:]) if window else None)
    assert rs.combine_count == rs.hi.combine_count + rs.lo.combine_count
    while len(rs):
        rs.evict()
    with pytest.raises(EmptyWindowError):
        rs.evict()


# ---------------------------------------------------------------------------------------------------------------
# Inv over a non-commutative group (left inverse)

Affine = tuple[Fraction, Fraction]  # x ↦ a·x + b, a ≠ 0; (f ⊗ g) = g ∘ f (apply f first)


def _aff(f: Affine, g: Affine) -> Affine:
    return (f[0] * g[0], f[1] * g[0] + g[1])


def _aff_inv(f: Affine) -> Affine:
    return (1 / f[0], -f[1] / f[0])


AFFINE = Monoid(identity=(Fraction(1), Fraction(0)), combine=_aff, name="affine", invertible=True, inverse=_aff_inv)


def test_affine_group_is_a_non_commutative_group() -> None:
    samples = [(Fraction(2), Fraction(1)), (Fraction(-1, 3), Fraction(5)), (Fraction(1), Fraction(-2))]
    assert check_laws(AFFINE, samples) == []
    assert _aff(samples[0], samples[1]) != _aff(samples[1], samples[0])


@pytest.mark.parametrize("impl", IMPLS)
def test_inv_with_left_inverse_over_a_non_commutative_group(impl: types.ModuleType) -> None:
    rng = random.Random(5)
    agg = impl.SlickDequeInv(AFFINE, ranges=(1, 4, 7))
    plain = impl.SlickDequeInv(AFFINE)
    window: list[Affine] = []
    full: list[Affine] = []
    for _ in range(200):
        if window and rng.random() < 0.2:
            agg.evict()
            window.pop(0)
        else:
            x = (Fraction(rng.choice([-3, -2, -1, 1, 2, 3]), rng.choice([1, 2])), Fraction(rng.randint(-5, 5)))
            agg.insert(x)
            window = (window + [x])[-7:]
        CHECKERS["slickdeque_inv"](agg.snapshot(), AFFINE, window)
        assert agg.query_all() == {r: fold(AFFINE, window[-r:]) for r in (7, 4, 1)}
        if full and rng.random() < 0.4:
            plain.evict()
            full.pop(0)
        else:
            x = (Fraction(rng.choice([-2, 1, 3])), Fraction(rng.randint(-5, 5)))
            plain.insert(x)
            full.append(x)
        assert plain.query() == fold(AFFINE, full)


def test_inv_right_inverse_would_be_wrong_for_non_commutative() -> None:
    # the paper's (ans ⊕ new) ⊖ old, i.e. ans ⊗ new ⊗ inv(old), differs from inv(old) ⊗ ans ⊗ new here
    old, mid, new = (Fraction(2), Fraction(1)), (Fraction(3), Fraction(0)), (Fraction(1), Fraction(4))
    ans = _aff(old, mid)
    right = _aff(_aff(ans, new), _aff_inv(old))
    left = _aff(_aff_inv(old), _aff(ans, new))
    assert left == _aff(mid, new) != right


# ---------------------------------------------------------------------------------------------------------------
# float drift: sum_f64 held to each window's own any-order bound (swagkit.spec.f64_track)


def _spiky(seed: int, n: int) -> list[float]:
    rng = random.Random(seed)
    pool = [1e16, 1e17, 1.0, 0.1, 3.3e-3, 2.5e8, math.inf, 1e300]
    weights = [3, 2, 20, 20, 10, 5, 1, 1]
    return [rng.choices(pool, weights)[0] * rng.choice([1, -1]) for _ in range(n)]


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("recompute_every", [None, 0, 7])
@pytest.mark.parametrize("ranges", [None, (5, 3, 1), (16, 2)])
def test_sum_f64_answers_lie_within_their_windows_any_order_bound(
    impl: types.ModuleType, recompute_every: int | None, ranges: tuple[int, ...] | None
) -> None:
    """Spikes of 1e16/1e17/1e300 and infinities entering and leaving: every answer is one some summation order
    of its own window's values gives (NaN only with both infinities inside, ±inf only with that one) -- values
    that left the window do not matter, with or without periodic recomputation."""
    xs = _spiky(len(ranges or ()) + (recompute_every or 0), 1500)
    agg = impl.SlickDequeInv(sum_f64(), ranges=ranges, recompute_every=recompute_every)
    window: list[float] = []
    rng = random.Random(3)
    for x in xs:
        if ranges is None:
            if window and (len(window) > 12 or rng.random() < 0.4):
                agg.evict()
                window.pop(0)
            agg.insert(x)
            window.append(x)
            assert any_order_ok(agg.query(), window), (window, agg.query())
        else:
            got = agg.step(x)
            window = [*window, x][-ranges[0] :]
            for r in ranges:
                assert any_order_ok(got[r], window[-r:]), (r, window[-r:], got[r])


@pytest.mark.parametrize("impl", IMPLS)
def test_a_departed_spike_or_infinity_leaves_no_trace(impl: types.ModuleType) -> None:
    """Issue 24's example: the frame (1.0, 1.0) sums to 2.0 after 1e17 left; after an infinity left, the sum of
    the finite values (not NaN)."""
    for big, want in ((1e17, 2.0), (math.inf, 2.0), (-math.inf, 2.0)):
        plain = impl.SlickDequeInv(sum_f64())
        for v in (big, 1.0, 1.0):
            plain.insert(v)
        plain.evict()
        assert plain.query() == want
        multi = impl.SlickDequeInv(sum_f64(), ranges=(2,), recompute_every=0)
        assert [a[2] for a in map(multi.step, (big, 1.0, 1.0))] == [big, big + 1.0, want]
    both = impl.SlickDequeInv(sum_f64(), ranges=(3, 2))
    answers = [both.step(v) for v in (math.inf, -math.inf, 1.0, 2.0)]
    assert math.isnan(answers[1][2]) and answers[2][2] == -math.inf and answers[3] == {3: -math.inf, 2: 3.0}
    with pytest.raises(ValueError):
        impl.SlickDequeInv(sum_f64(), recompute_every=-1)


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("ranges", [None, (6, 2)])
def test_sum_f64_drift_control_survives_copies_and_refuses_forged_tracks(
    impl: types.ModuleType, ranges: tuple[int, ...] | None
) -> None:
    import pickle

    xs = _spiky(11, 400)
    agg = impl.SlickDequeInv(sum_f64(), ranges=ranges)
    for x in xs[:200]:
        if ranges is None and len(agg) == 6:
            agg.evict()
        agg.insert(x)
    twin = pickle.loads(pickle.dumps(agg))
    for x in xs[200:]:
        for a in (agg, twin):
            if ranges is None and len(a) == 6:
                a.evict()
            a.insert(x)
        assert repr(twin.snapshot()) == repr(agg.snapshot()) and twin.combine_count == agg.combine_count
    params = agg.__reduce__()[1][2]  # (restore, (cls, monoid, params, snapshot, combine_count))
    assert params["tracks"] is not None and len(params["tracks"]) == len(ranges or (0,))
    forged = {**params, "tracks": tuple((*t[:5], -1, *t[6:]) for t in params["tracks"])}
    with pytest.raises(TypeError, match="non-negative ints"):
        type(agg)._from_snapshot(agg.monoid, agg.snapshot(), **forged)
    with pytest.raises(ValueError, match="tracks must be"):
        type(agg)._from_snapshot(agg.monoid, agg.snapshot(), **{**params, "tracks": ()})
    rebuilt = type(agg)._from_snapshot(agg.monoid, agg.snapshot(), **{**params, "tracks": None})
    window = list(agg.snapshot().partials) if ranges is None else None
    if window is not None:
        assert any_order_ok(rebuilt.query(), window)  # refolded from the partials when the tracks are absent


@pytest.mark.parametrize("impl", IMPLS)
def test_sum_f64_needs_no_periodic_recomputation(impl: types.ModuleType) -> None:
    agg = impl.SlickDequeInv(sum_f64())
    assert agg.recompute_every == 0  # its drift control keeps every answer within its bound
    exact = impl.SlickDequeInv(sum_i64())
    assert exact.recompute_every == 0


# ---------------------------------------------------------------------------------------------------------------
# checkers name the invariant in the paper's words


def test_checker_failures_name_the_invariant() -> None:
    m = max_monoid()
    good = SlickDequeNonInvState(5, ((0, 6), (1, 5)), 0, 2, (5, 3))
    CHECKERS["slickdeque_noninv"](good, m, [6, 5])
    cases = {
        "tail": SlickDequeNonInvState(5, ((0, 6),), 0, 2, (5, 3)),
        "suffix": SlickDequeNonInvState(5, ((1, 5),), 0, 2, (5, 3)),
        "dominance": SlickDequeNonInvState(5, ((0, 6), (1, 5)), 0, 2, (5, 3)),
        "order": SlickDequeNonInvState(5, ((1, 6), (1, 5)), 0, 2, (5, 3)),
    }
    windows = {"tail": [6, 5], "suffix": [6, 5], "dominance": [6, 7], "order": [6, 5]}
    for name, state in cases.items():
        with pytest.raises(InvariantViolation) as err:
            CHECKERS["slickdeque_noninv"](state, m, windows[name])
        assert err.value.invariant in (name, "order", "tail"), (name, err.value.invariant)
        assert err.value.state is state and "N" in err.value.wording
    s = sum_monoid()
    ok = SlickDequeInvState(3, (4, 0, 0), 1, 1, ((3, 4), (1, 4)), 1)
    CHECKERS["slickdeque_inv"](ok, s, [4])
    for bad, inv in (
        (SlickDequeInvState(3, (4, 0, 0), 2, 1, ((3, 4), (1, 4)), 1), "cursor"),
        (SlickDequeInvState(3, (4, 9, 0), 1, 1, ((3, 4), (1, 4)), 1), "ring"),
        (SlickDequeInvState(3, (4, 0, 0), 1, 1, ((3, 5), (1, 4)), 1), "answers"),
        (SlickDequeInvState(3, (4, 0, 0), 1, 1, ((1, 4), (3, 4)), 1), "keys"),
    ):
        with pytest.raises(InvariantViolation) as err2:
            CHECKERS["slickdeque_inv"](bad, s, [4])
        assert err2.value.invariant == inv
        assert "I" in err2.value.wording


# ---------------------------------------------------------------------------------------------------------------
# FIFO budgets and space through debug mode


@pytest.mark.parametrize("impl", IMPLS)
def test_debug_mode_fifo(impl: types.ModuleType) -> None:
    rng = random.Random(2)
    for cls, m in ((impl.SlickDequeInv, sum_i64()), (impl.SlickDequeNonInv, max_f64())):
        agg = checked(cls(m))
        assert set(agg.active_checks) == {"model", "invariants", "budget", "space"}
        for _ in range(400):
            if len(agg) and rng.random() < 0.45:
                agg.evict()
            else:
                agg.insert(rng.randint(-100, 100))
            agg.query()


def test_space_rules() -> None:
    s = swagkit.reference.SlickDequeInv(sum_monoid(), ranges=(4, 2))
    s.insert_many([1, 2, 3])
    assert stored_aggregates(s.snapshot()) == 4 + 2
    p = swagkit.reference.SlickDequeInv(sum_monoid())
    p.insert_many([1, 2, 3])
    assert stored_aggregates(p.snapshot()) == BUDGETS["slickdeque_inv"].space(3) == 4
    n = swagkit.reference.SlickDequeNonInv(max_monoid())
    n.insert_many([5, 4, 3, 9, 1])
    assert stored_aggregates(n.snapshot()) == 2 <= BUDGETS["slickdeque_noninv"].space(5)
    assert BUDGETS["slickdeque_noninv"].space_exact is False


# ---------------------------------------------------------------------------------------------------------------
# the shared plan (notes §1.2–1.3) against brute force


def test_plan_example1_fig7() -> None:
    plan = build_shared_plan([ACQ(6, 2), ACQ(8, 4)])
    assert plan.composite == 4 and plan.edges == (0, 2) and plan.lengths == (2, 2)
    assert plan.ranges_of(0) == (3,) and plan.ranges_of(1) == (4,)
    assert plan.constant_ranges and plan.w_size == 4


def test_plan_pairs_single_query() -> None:
    plan = build_shared_plan([ACQ(7, 3)])  # f2 = 7 % 3 = 1, f1 = 2: fragments [2][1]
    assert plan.lengths == (2, 1) and plan.edges == (0, 2)  # each slide split as [f1][f2]
    assert plan.ranges_of(0) == (5,)  # 2q + 1 with q = 2


def test_plan_non_constant_range_in_partials() -> None:
    plan = build_shared_plan([ACQ(4, 2), ACQ(3, 3)])
    assert plan.edges == (0, 2, 3, 4)
    assert plan.ranges_of(0) == (2, 3) and not plan.constant_ranges
    xs = list(range(1, 40))
    for variant, m in (("inv", sum_monoid()), ("noninv", max_monoid())):
        got = run_plan(plan, m, xs, variant)
        want = [
            (T, qi, fold(m, xs[max(0, T - q.range) : T]))
            for qi, q in enumerate(plan.queries)
            for T in range(q.slide, len(xs) + 1, q.slide)
        ]
        assert sorted(got) == sorted(want)


def test_plan_rejects_invalid_queries() -> None:
    with pytest.raises(PlanError):
        build_shared_plan([])
    with pytest.raises(PlanError):
        build_shared_plan([ACQ(0, 1)])
    with pytest.raises(PlanError):
        build_shared_plan([ACQ(3, 0)])
    with pytest.raises(PlanError, match="max_composite"):
        build_shared_plan([ACQ(3, 997), ACQ(3, 991)], max_composite=10_000)
    with pytest.raises(ValueError):
        run_plan(build_shared_plan([ACQ(2, 1)]), sum_monoid(), [1], "other")


@settings(max_examples=80)
@given(
    queries=st.lists(st.builds(ACQ, st.integers(1, 14), st.integers(1, 6)), min_size=1, max_size=4),
    xs=st.lists(st.integers(-20, 20), max_size=70),
)
def test_plan_driver_matches_brute_force(queries: list[ACQ], xs: list[int]) -> None:
    plan = build_shared_plan(queries)
    assert sum(plan.lengths) == plan.composite
    for variant, m, impl in (
        ("inv", sum_monoid(), swagkit.reference),
        ("noninv", max_monoid(), swagkit.reference),
        ("inv", sum_monoid(), swagkit.optimized),
        ("noninv", max_monoid(), swagkit.optimized),
    ):
        got = run_plan(plan, m, xs, variant, classes=(impl.SlickDequeInv, impl.SlickDequeNonInv))
        want = [
            (T, qi, fold(m, xs[max(0, T - q.range) : T]))
            for qi, q in enumerate(queries)
            for T in range(q.slide, len(xs) + 1, q.slide)
        ]
        assert sorted(got) == sorted(want)


def test_plan_with_minimum_monoid_and_time_gaps_as_identity() -> None:
    # an empty time interval becomes an identity partial; Non-Inv treats it as an ordinary node
    agg = swagkit.reference.SlickDequeNonInv(min_monoid(), ranges=(2, 3))
    answers = [agg.step(x) for x in [5, math.inf, 3, math.inf, math.inf]]
    assert [a[3] for a in answers] == [5, 5, 3, 3, 3]
    assert [a[2] for a in answers] == [5, 5, 3, 3, math.inf]
