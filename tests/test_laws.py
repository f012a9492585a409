"""Monoid laws for every library entry, and proof that each law checker really catches a wrong declaration.

Part 1: every ``LIBRARY`` monoid passes :func:`check_laws` on its deterministic examples and on
Hypothesis-generated inputs (from :mod:`swagkit.verify.strategies`). Part 2: deliberately broken monoids --
non-associative, wrong identity, falsely declared commutative / selective / invertible -- are reported as a
:class:`LawViolation` naming the right law, whose operands really reproduce the failure.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from swagkit.spec.library import (
    LIBRARY,
    argmax,
    bloom_filter,
    max_monoid,
    string_concat,
    sum_monoid,
)
from swagkit.spec.monoid import (
    LawViolation,
    Monoid,
    check_associativity,
    check_commutativity,
    check_identity,
    check_inverse,
    check_laws,
    check_selectivity,
)
from swagkit.verify.strategies import STRATEGIES, strategy_for

#: independent of swagkit.optimized: run once (tools/check.sh's compiled pass)
pytestmark = pytest.mark.once

IDS = sorted(LIBRARY)

# ------------------------------------------------------------------------------------ part 1: library passes


def test_every_library_entry_has_a_strategy_and_vice_versa() -> None:
    assert set(STRATEGIES) == set(LIBRARY)


@pytest.mark.parametrize("monoid_id", IDS)
def test_library_examples_satisfy_the_laws(monoid_id: str) -> None:
    entry = LIBRARY[monoid_id]
    monoid = entry.factory()
    assert len(entry.examples) >= 3
    assert check_laws(monoid, entry.examples) == []


@pytest.mark.parametrize("monoid_id", IDS)
def test_library_generated_inputs_satisfy_the_laws(monoid_id: str) -> None:
    monoid = LIBRARY[monoid_id].factory()

    @settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.lists(strategy_for(monoid_id), min_size=1, max_size=5))
    def laws_hold(inputs: list[Any]) -> None:
        violations = check_laws(monoid, inputs)
        assert violations == [], str(violations[0])

    laws_hold()


@pytest.mark.parametrize("monoid_id", IDS)
def test_strategy_values_are_accepted_by_lift(monoid_id: str) -> None:
    monoid = LIBRARY[monoid_id].factory()

    @settings(max_examples=50, deadline=None)
    @given(strategy_for(monoid_id))
    def lifts(x: Any) -> None:
        monoid.lift(x)  # must not raise

    lifts()


# ------------------------------------------------------------------------ part 2: checkers catch wrong claims


def _only(violations: list[LawViolation], law: str) -> LawViolation:
    laws = [v.law for v in violations]
    assert law in laws, f"expected a {law} violation, got {laws}"
    return next(v for v in violations if v.law == law)


def test_subtraction_is_reported_non_associative_with_a_real_counterexample() -> None:
    sub: Monoid[int, int, int] = Monoid(identity=0, combine=lambda a, b: a - b, name="sub")
    v = _only(check_laws(sub, [1, 2, 3]), "associativity")
    assert v.monoid == "sub"
    a, b, c = v.operands
    assert (a - b) - c != a - (b - c)
    # subtraction's 0 is only a right identity: 0 - a != a
    assert _only(check_laws(sub, [1, 2, 3]), "identity").operands[0] != 0


def test_average_is_reported_non_associative() -> None:
    avg: Monoid[Fraction, Fraction, Fraction] = Monoid(
        identity=Fraction(0), combine=lambda a, b: (a + b) / 2, name="average"
    )
    v = check_associativity(avg, [Fraction(0), Fraction(4), Fraction(8)])
    assert v is not None and v.law == "associativity"
    a, b, c = v.operands
    assert ((a + b) / 2 + c) / 2 != (a + (b + c) / 2) / 2


def test_float_sum_with_exact_equality_is_reported_non_associative() -> None:
    """Why float monoids carry a tolerant ``eq``: (0.1 + 0.2) + 0.3 != 0.1 + (0.2 + 0.3)."""
    exact_float_sum: Monoid[float, float, float] = Monoid(identity=0.0, combine=lambda a, b: a + b, name="fsum")
    v = check_associativity(exact_float_sum, [0.1, 0.2, 0.3])
    assert v is not None
    a, b, c = v.operands
    assert (a + b) + c != a + (b + c)


def test_wrong_identity_is_reported() -> None:
    bad: Monoid[int, int, int] = Monoid(
        identity=1, combine=lambda a, b: a + b, name="sum_with_identity_1", commutative=True
    )
    v = _only(check_laws(bad, [0, 5, -2]), "identity")
    assert v.operands and "expected" in v.detail
    assert check_identity(bad, [7]) is not None


def test_max_with_too_large_identity_is_reported() -> None:
    bad = Monoid(identity=0, combine=max_monoid().combine, name="max_identity_0", commutative=True, selective=True)
    v = _only(check_laws(bad, [-3, -1]), "identity")
    assert v.operands[0] < 0


def test_falsely_commutative_string_concat_is_reported() -> None:
    bad = Monoid(identity="", combine=string_concat().combine, name="concat_claimed_commutative", commutative=True)
    violations = check_laws(bad, ["a", "b"])
    assert [v.law for v in violations] == ["commutativity"]
    a, b = violations[0].operands
    assert a + b != b + a


def test_falsely_commutative_argmax_is_reported_on_a_tie() -> None:
    base = argmax()
    bad = Monoid(
        identity=base.identity,
        combine=base.combine,
        lift=base.lift,
        name="argmax_claimed_commutative",
        commutative=True,
        selective=True,
    )
    v = _only(check_laws(bad, [(5, "x"), (5, "y")]), "commutativity")
    a, b = v.operands
    assert a[0] == b[0] and a[1] != b[1]  # the witness is a tie with different payloads


def test_falsely_selective_sum_is_reported() -> None:
    bad = Monoid(
        identity=0, combine=sum_monoid().combine, name="sum_claimed_selective", commutative=True, selective=True
    )
    violations = check_laws(bad, [1, 2])
    assert [v.law for v in violations] == ["selectivity"]
    a, b = violations[0].operands
    assert a + b not in (a, b)
    assert check_selectivity(bad, [0, 0]) is None  # 0 + 0 is an operand: only a real witness counts


def test_wrong_inverse_is_reported() -> None:
    bad = Monoid(
        identity=0,
        combine=sum_monoid().combine,
        name="sum_with_identity_inverse",
        commutative=True,
        invertible=True,
        inverse=lambda a: a,
    )
    violations = check_laws(bad, [0, 3])
    assert [v.law for v in violations] == ["inverse"]
    a, b = violations[0].operands
    assert a + (a + b) != b or (a + b) + b != a


def test_falsely_invertible_bloom_filter_is_reported() -> None:
    base = bloom_filter(m_bits=64, k=2)
    bad = Monoid(
        identity=0,
        combine=base.combine,
        lift=base.lift,
        name="bloom_claimed_invertible",
        commutative=True,
        invertible=True,
        inverse=lambda a: a,
    )
    v = _only(check_laws(bad, ["p", "q"]), "inverse")
    assert v.operands


def test_invertible_without_inverse_is_refused_or_reported() -> None:
    with pytest.raises(ValueError):
        Monoid(identity=0, combine=lambda a, b: a + b, invertible=True)
    # the checker itself also reports a missing inverse rather than crashing
    plain: Monoid[int, int, int] = Monoid(identity=0, combine=lambda a, b: a + b, name="plain")
    v = check_inverse(plain, [1, 2])
    assert v is not None and v.law == "inverse"


def test_correct_declarations_produce_no_violation_and_checkers_are_independent() -> None:
    m = sum_monoid()
    samples = [0, 1, -4, 9]
    assert check_associativity(m, samples) is None
    assert check_identity(m, samples) is None
    assert check_commutativity(m, samples) is None
    assert check_inverse(m, samples) is None
    # commutativity is only checked when declared: string concat, declared non-commutative, passes check_laws
    assert check_laws(string_concat(), ["a", "b"]) == []
    assert check_commutativity(string_concat(), ["a", "b"]) is not None


def test_violation_str_names_monoid_law_and_operands() -> None:
    bad = Monoid(identity="", combine=string_concat().combine, name="concat!", commutative=True)
    (v,) = check_laws(bad, ["a", "b"])
    text = str(v)
    assert "concat!" in text and "commutativity" in text and "'a'" in text
