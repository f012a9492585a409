"""Subtract-on-Evict (paper 000 §8.3): exact ⊗ and inverse counts, the SlickDeque example as sliding windows, the
left inverse over a non-commutative group (the affine maps), the emptied window resetting to the identity, the
monoids it refuses, the sum_i64 fast path's wrap-around, the FIFO machine over every supported library monoid,
and the two twins agreeing call for call.

Runs on the reference and on ``swagkit.optimized`` (compiled, or its pure-Python fallback). The registry-driven
suites (hardening, copies, re-entrancy, ``swagkit verify``) cover it too; ``tests/test_stateful.py`` lists its
algorithms by hand, so the FIFO machine runs are here.
"""

from __future__ import annotations

import copy
import pickle
import random
import types
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import swagkit.optimized
import swagkit.reference
from swagkit.spec.algorithms import card
from swagkit.spec.checkers.subtract_on_evict import SubtractOnEvictState, check_subtract_on_evict
from swagkit.spec.errors import EmptyWindowError, InvariantViolation, ReentrantCallError, UnsupportedMonoidError
from swagkit.spec.library import (
    INT64_MAX,
    INT64_MIN,
    LIBRARY,
    matrix2x2,
    max_count,
    max_i64,
    min_f64,
    string_concat,
    sum_f64,
    sum_i64,
    sum_monoid,
)
from swagkit.spec.monoid import Monoid, check_laws, fold
from swagkit.verify import checked, registry
from swagkit.verify.machine import run_machine

IMPLS = [pytest.param(swagkit.reference, id="reference"), pytest.param(swagkit.optimized, id="optimized")]
CARD = card("subtract_on_evict")

# ---------------------------------------------------------------------------------------------------------------
# a non-commutative group: the affine maps x ↦ a·x + b over Fractions, a ≠ 0, composed left to right
# (``f ⊗ g`` applies f, then g)

Affine = tuple[Fraction, Fraction]


def _then(f: Affine, g: Affine) -> Affine:
    """``x ↦ g(f(x))``: a_g·(a_f·x + b_f) + b_g."""
    return (f[0] * g[0], f[1] * g[0] + g[1])


def _undo(f: Affine) -> Affine:
    """``f⁻¹``: x ↦ (x − b)/a."""
    return (1 / f[0], -f[1] / f[0])


def _affine_map(x: Any) -> Affine:
    a, b = x
    if a == 0:
        raise ValueError("an affine map x ↦ a·x + b is invertible only for a ≠ 0")
    return (Fraction(a), Fraction(b))


AFFINE: Monoid[Any, Affine, Affine] = Monoid(
    identity=(Fraction(1), Fraction(0)),
    combine=_then,
    lift=_affine_map,
    name="affine_maps",
    invertible=True,
    inverse=_undo,
)
AFFINE_VALUES = st.tuples(st.integers(-4, 4).filter(bool), st.integers(-9, 9))


def test_affine_maps_are_a_non_commutative_group() -> None:
    samples = [(2, 1), (Fraction(-1, 3), 5), (1, -2), (-1, 0)]
    assert check_laws(AFFINE, samples) == []
    f, g = _affine_map(samples[0]), _affine_map(samples[1])
    assert _then(f, g) != _then(g, f)


# ---------------------------------------------------------------------------------------------------------------
# exact counts (000 §8.3: one ⊗ per insert and per evict, none per query)


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("monoid", [sum_monoid, sum_i64, lambda: AFFINE], ids=["sum", "sum_i64", "affine"])
def test_exact_combine_and_inverse_counts(impl: types.ModuleType, monoid: Callable[[], Monoid[Any, Any, Any]]) -> None:
    m = monoid()
    values = [(k % 5 + 1, k) for k in range(40)] if m is AFFINE else list(range(-20, 20))
    agg = impl.SubtractOnEvict(m)
    for v in values:
        before = agg.combine_count
        agg.insert(v)
        assert agg.combine_count == before + 1, "insert: exactly one ⊗ (agg ⊗ v)"
        agg.query()
        assert agg.combine_count == before + 1, "query: no ⊗"
        assert agg.inverse_count == 0
    inverses = 0
    while len(agg):
        before, n = agg.combine_count, len(agg)
        agg.evict()
        inverses += n > 1
        assert agg.combine_count == before + (n > 1), "evict: one ⊗, none when it empties the window"
        assert agg.inverse_count == inverses
    assert agg.inverse_count == len(values) - 1
    assert agg.snapshot().agg is m.identity, "an emptied window is reset to the identity itself"


@pytest.mark.parametrize("impl", IMPLS)
def test_notes_example_as_two_sliding_windows(impl: types.ModuleType) -> None:
    """Notes 001 §3.1's SlickDeque (Inv) example, Sum over 6 5 0 1 3 4 2 7: Q1 (r = 3) and Q2 (r = 5) are the
    answers of subtract-on-evict windows of 3 and 5 (SlickDeque Inv is subtract-on-evict per range). Cost:
    per step one insert ⊗, and one evict ⊗ once the window is full."""
    data = [6, 5, 0, 1, 3, 4, 2, 7]
    q1 = [6, 11, 11, 6, 4, 8, 9, 13]
    q2 = [6, 11, 11, 12, 15, 13, 10, 17]
    for r, want in ((3, q1), (5, q2)):
        assert list(impl.window_array(impl.SubtractOnEvict, sum_monoid(), data, r)) == want
        agg = impl.SubtractOnEvict(sum_monoid())
        for x in data:
            if len(agg) == r:
                agg.evict()
            agg.insert(x)
        assert agg.combine_count == len(data) + (len(data) - r)
    assert list(impl.window_array(impl.SubtractOnEvict, sum_i64(), data, 5)) == q2


# ---------------------------------------------------------------------------------------------------------------
# the left inverse (notes 001 §7.5: the paper's ``(ans ⊕ new) ⊖ old`` is only right for commutative ⊗)


@pytest.mark.parametrize("impl", IMPLS)
def test_left_inverse_over_a_non_commutative_group(impl: types.ModuleType) -> None:
    old, mid, new = _affine_map((2, 1)), _affine_map((-3, 5)), _affine_map((1, -7))
    agg = impl.SubtractOnEvict(AFFINE)
    for f in (old, mid, new):
        agg.insert(f)
    agg.evict()
    assert agg.query() == _then(mid, new)
    right_inverse = _then(_then(_then(old, mid), new), _undo(old))  # what subtracting on the right would give
    assert right_inverse != _then(mid, new)


@pytest.mark.parametrize("impl", IMPLS)
@given(ops=st.lists(st.one_of(st.none(), AFFINE_VALUES), max_size=60))
def test_affine_windows_checked_against_model_invariants_and_budget(impl: types.ModuleType, ops: list[Any]) -> None:
    agg = checked(impl.SubtractOnEvict(AFFINE))  # model, invariants, ⊗ budget and space after every operation
    window: list[Affine] = []
    for op in ops:
        if op is None:
            if window:
                agg.evict()
                window.pop(0)
        else:
            agg.insert(op)
            window.append(_affine_map(op))
        assert agg.query() == fold(AFFINE, window)


# ---------------------------------------------------------------------------------------------------------------
# refused monoids: everything that is not declared an exact group (sum_f64 too: no drift control here)

REFUSED = [sum_f64, min_f64, max_i64, string_concat, matrix2x2, max_count]


@pytest.mark.parametrize("factory", REFUSED, ids=lambda f: f.__name__)
def test_non_groups_are_refused_alike_by_both_twins(factory: Callable[[], Monoid[Any, Any, Any]]) -> None:
    m = factory()
    messages = set()
    for impl in (swagkit.reference, swagkit.optimized):
        with pytest.raises(UnsupportedMonoidError) as caught:
            impl.SubtractOnEvict(m)
        messages.add(str(caught.value))
        with pytest.raises(UnsupportedMonoidError):  # the typed window loop builds no instance, and refuses too
            impl.window_array(impl.SubtractOnEvict, m, [1, 2, 3], 2)
    assert len(messages) == 1
    (message,) = messages
    assert "subtract_on_evict" in message and "daba_lite" in message
    assert ("slickdeque_inv" in message) == (m.name == "sum_f64")
    assert not CARD.supports(m)


def test_card_requires_an_invertible_monoid() -> None:
    assert CARD.requires == ("invertible",) and CARD.kind == "fifo"
    supported = [k for k, e in LIBRARY.items() if CARD.supports(e.factory())]
    assert "sum_i64" in supported and "sum" in supported and "sum_f64" not in supported
    assert CARD.budget is not None
    assert [CARD.budget.bound(op, 10) for op in ("query", "insert", "evict")] == [0, 1, 1]
    assert CARD.stored is not None and CARD.stored(SubtractOnEvictState((1, 2, 3), 6)) == 4


# ---------------------------------------------------------------------------------------------------------------
# the checker


def test_checker_names_the_broken_invariant() -> None:
    m = sum_monoid()
    check_subtract_on_evict(SubtractOnEvictState((1, 2), 3), m, [1, 2])
    check_subtract_on_evict(SubtractOnEvictState((), 0), m, [])
    with pytest.raises(InvariantViolation, match="agg"):
        check_subtract_on_evict(SubtractOnEvictState((1, 2), 4), m, [1, 2])
    with pytest.raises(InvariantViolation, match="values"):
        check_subtract_on_evict(SubtractOnEvictState((2, 1), 3), m, [1, 2])
    with pytest.raises(InvariantViolation, match="values"):
        check_subtract_on_evict(SubtractOnEvictState((1,), 1), m, [1, 2])


# ---------------------------------------------------------------------------------------------------------------
# sum_i64: the compiled fast path wraps modulo 2**64 exactly like the library's _add64/_neg64


@pytest.mark.parametrize("impl", IMPLS)
def test_sum_i64_wraps_like_the_library(impl: types.ModuleType) -> None:
    agg = impl.SubtractOnEvict(sum_i64())
    agg.insert_many([INT64_MAX, INT64_MAX, INT64_MIN, 5])
    assert agg.query() == INT64_MIN + 3  # 2·(2**63 − 1) − 2**63 + 5 = 2**63 + 3, wrapped
    agg.evict()  # ⊗ −INT64_MAX: INT64_MAX + INT64_MIN + 5
    assert agg.query() == 4
    agg.evict()
    assert agg.query() == INT64_MIN + 5
    agg.evict()  # −INT64_MIN wraps to INT64_MIN itself: INT64_MIN ⊗ (INT64_MIN + 5) = 5
    assert agg.query() == 5 and agg.snapshot() == SubtractOnEvictState((5,), 5)
    with pytest.raises(OverflowError):
        agg.insert(INT64_MAX + 1)
    assert agg.snapshot() == SubtractOnEvictState((5,), 5) and agg.combine_count == 4 + 3


# ---------------------------------------------------------------------------------------------------------------
# FIFO machine over every supported library monoid (test_stateful.py names its algorithms by hand)

SUPPORTED = [k for k, e in LIBRARY.items() if CARD.supports(e.factory())]


@pytest.mark.parametrize("implementation", registry.available_implementations("subtract_on_evict"))
@pytest.mark.parametrize("monoid", SUPPORTED)
def test_fifo_machine(monoid: str, implementation: str) -> None:
    stats = run_machine("subtract_on_evict", monoid, implementation, max_examples=20, steps=40)
    assert stats.examples >= 20 and stats.steps > 0


# ---------------------------------------------------------------------------------------------------------------
# the twins, call for call


@pytest.fixture(params=[sum_monoid, sum_i64, lambda: AFFINE], ids=["sum", "sum_i64", "affine"])
def twins(request: pytest.FixtureRequest) -> tuple[Any, Any, Callable[[random.Random], Any]]:
    """A reference and an optimized Subtract-on-Evict over one monoid, and a value generator for it."""
    m = request.param()
    rng_values: dict[str, Callable[[random.Random], Any]] = {
        "affine_maps": lambda rng: (rng.choice([-3, -2, -1, 1, 2, 3]), rng.randint(-9, 9)),
        "sum_i64": lambda rng: rng.choice([INT64_MAX, INT64_MIN, rng.randint(-(10**18), 10**18), rng.randint(-5, 5)]),
        "sum": lambda rng: rng.randint(-(10**30), 10**30),
    }
    gen = rng_values[m.name]
    return swagkit.reference.SubtractOnEvict(m), swagkit.optimized.SubtractOnEvict(m), gen


def _observe(agg: Any) -> tuple[Any, ...]:
    return (agg.snapshot(), agg.combine_count, agg.inverse_count, len(agg), agg.query())


@pytest.mark.parametrize("seed", range(4))
def test_twins_agree_call_for_call(twins: tuple[Any, Any, Callable[[random.Random], Any]], seed: int) -> None:
    ref, opt, gen = twins
    rng = random.Random(seed)
    for _ in range(600):
        roll = rng.random()
        if roll < 0.45:
            v = gen(rng)
            ref.insert(v)
            opt.insert(v)
        elif roll < 0.8:
            if len(ref) == 0:
                for agg in (ref, opt):
                    with pytest.raises(EmptyWindowError):
                        agg.evict()
            else:
                ref.evict()
                opt.evict()
        elif roll < 0.9:
            vs = [gen(rng) for _ in range(rng.randint(0, 8))]
            ref.insert_many(vs)
            opt.insert_many(vs)
        else:
            k = rng.randint(0, len(ref))
            ref.evict_many(k)
            opt.evict_many(k)
        assert _observe(ref) == _observe(opt)
    round_trips: list[Callable[[Any], Any]] = [copy.copy, copy.deepcopy, lambda a: pickle.loads(pickle.dumps(a))]
    for how in round_trips:
        assert _observe(how(ref)) == _observe(how(opt)) == _observe(ref)


# ---------------------------------------------------------------------------------------------------------------
# exception safety of the inverse (the hardening suite makes combine raise; here the inverse does)


class _Refused(Exception):
    pass


@pytest.mark.parametrize("impl", IMPLS)
def test_raising_inverse_changes_nothing_but_the_counter(impl: types.ModuleType) -> None:
    calls = {"left": 2}

    def flaky_inverse(f: Affine) -> Affine:
        calls["left"] -= 1
        if calls["left"] < 0:
            raise _Refused
        return _undo(f)

    m: Monoid[Any, Affine, Affine] = Monoid(
        identity=AFFINE.identity,
        combine=_then,
        lift=_affine_map,
        name="flaky_affine",
        invertible=True,
        inverse=flaky_inverse,
    )
    agg = impl.SubtractOnEvict(m)
    agg.insert_many([(2, 1), (3, 0), (-1, 4), (1, 1)])
    agg.evict()
    agg.evict()
    state, count, inverses = agg.snapshot(), agg.combine_count, agg.inverse_count
    with pytest.raises(_Refused):
        agg.evict()
    assert agg.snapshot() == state and agg.combine_count == count and agg.inverse_count == inverses + 1
    with pytest.raises(_Refused):
        agg.evict_many(2)
    assert agg.snapshot() == state and len(agg) == 2
    check_subtract_on_evict(agg.snapshot(), m, [_affine_map((-1, 4)), _affine_map((1, 1))])


# ---------------------------------------------------------------------------------------------------------------
# restoring from a snapshot


@pytest.mark.parametrize("impl", IMPLS)
def test_malformed_snapshots_are_refused_alike(impl: types.ModuleType) -> None:
    cls = impl.SubtractOnEvict
    with pytest.raises(TypeError):
        cls._from_snapshot(sum_monoid(), (1, 2))
    with pytest.raises(TypeError):
        cls._from_snapshot(sum_monoid(), SubtractOnEvictState([1, 2], 3))  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        cls._from_snapshot(sum_monoid(), SubtractOnEvictState((1,), 1), inverse_count=-1)
    with pytest.raises(OverflowError):
        cls._from_snapshot(sum_i64(), SubtractOnEvictState((INT64_MAX + 1,), 0))
    with pytest.raises(TypeError):
        cls._from_snapshot(sum_i64(), SubtractOnEvictState((1,), 1.5))
    with pytest.raises(UnsupportedMonoidError):
        cls._from_snapshot(sum_f64(), SubtractOnEvictState((), 0.0))
    agg = cls._from_snapshot(sum_i64(), SubtractOnEvictState((4, -1), 3), inverse_count=7)
    assert (agg.query(), agg.inverse_count, agg.combine_count) == (3, 7, 0)


@pytest.mark.parametrize("impl", IMPLS)
def test_inverse_calling_back_is_refused_before_any_change(impl: types.ModuleType) -> None:
    holder: list[Any] = []

    def reentrant_inverse(x: int) -> int:
        holder[0].insert(99)  # refused: the evict that calls this inverse is still running
        return -x

    m: Monoid[Any, Any, Any] = Monoid(
        identity=0,
        combine=lambda a, b: a + b,
        name="sum_reentrant",
        invertible=True,
        inverse=reentrant_inverse,
        commutative=True,
    )
    agg = impl.SubtractOnEvict(m)
    holder.append(agg)
    agg.insert_many([1, 2, 3])
    with pytest.raises(ReentrantCallError):
        agg.evict()
    assert agg.snapshot() == SubtractOnEvictState((1, 2, 3), 6) and agg.inverse_count == 1
