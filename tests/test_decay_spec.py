"""The paper-004 specification itself: decay functions as objects, the exact oracle (and its input contract),
the acceptance tests of approximate answers, the stream generators, and the bound formulas."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from swagkit.spec.decay import Decay, ExponentialDecay, NoDecay, PolynomialDecay, SlidingWindowDecay, UserDecay
from swagkit.spec.decay.bounds import (
    CONTRACTS,
    qdigest_merge_limit,
    value_division_summary_bound,
    window_count_alpha_min,
    window_level_need,
    window_quantiles_alpha_min,
)
from swagkit.spec.decay.errors import (
    ClockError,
    FutureTimestampError,
    InputTypeError,
    InvalidParameterError,
    NegativeWeightError,
    OutOfUniverseError,
    WeightOverflowError,
)
from swagkit.spec.decay.oracle import ExactStream, RankProfile, heavy_hitters_violation, quantile_violation
from swagkit.spec.decay.streams import GENERATORS, generate, to_oracle
from swagkit.spec.errors import SwagkitError

#: independent of swagkit.optimized: run once (tools/check.sh's compiled pass)
pytestmark = pytest.mark.once


def test_decay_functions() -> None:
    assert [SlidingWindowDecay(3)(a) for a in range(5)] == [1.0, 1.0, 1.0, 0.0, 0.0]
    assert ExponentialDecay(0.5)(2) == math.exp(-1.0)
    assert PolynomialDecay(2)(3) == 1 / 16
    assert NoDecay()(10**9) == 1.0
    for g in (ExponentialDecay(0.1), PolynomialDecay(0.5), PolynomialDecay(3), NoDecay()):
        g.validate()
        assert g.smooth and g.positive and g.is_smooth_on(512)
    assert not SlidingWindowDecay(4).is_smooth_on(16)
    assert not UserDecay(lambda a: math.exp(-a * a / 9.0), "gauss").is_smooth_on(64)  # log-concave
    assert UserDecay(lambda a: 1.0 / (1.0 + math.log1p(a)), "sub_poly").is_smooth_on(256)
    with pytest.raises(InvalidParameterError):
        UserDecay(lambda a: 0.5, "not_one_at_zero")
    with pytest.raises(InvalidParameterError):
        UserDecay(lambda a: 1.0 if a % 2 == 0 else 0.5, "not_monotone")
    with pytest.raises(InvalidParameterError):
        PolynomialDecay(0)
    with pytest.raises(InvalidParameterError):
        ExponentialDecay(-1)
    with pytest.raises(InvalidParameterError):
        SlidingWindowDecay(0)
    with pytest.raises(InvalidParameterError):
        PolynomialDecay(1)(-1)
    assert isinstance(PolynomialDecay(1), Decay) and repr(PolynomialDecay(1.5)) == "polynomial(1.5)"


def test_oracle_answers_and_contract() -> None:
    o = ExactStream(value_bits=4, time_bits=6)
    o.advance(10)
    for value, ts, w in ((3, 10, 1), (9, 9, 2), (3, 2, 5), (15, 10, 1)):
        o.insert(value, ts, w)
    assert o.total() == 9 and len(o) == 4
    assert [o.count_window(w) for w in (0, 1, 2, 8, 9, 100)] == [0, 2, 4, 4, 9, 9]
    assert o.right_rank(8) == 4 and o.rank(4) == 6 and o.rank(4, 1) == 1 and o.frequency(3) == 6
    assert o.decayed_count(SlidingWindowDecay(2)) == 4.0
    assert o.decayed_rank(16, NoDecay()) == 9.0 and o.decayed_frequency(9, PolynomialDecay(1)) == 1.0
    for action, error in [
        (lambda: o.insert(16, 3), OutOfUniverseError),
        (lambda: o.insert(1, 11), FutureTimestampError),
        (lambda: o.insert(1, 3, -1), NegativeWeightError),
        (lambda: o.insert(1, 3, 2**62), WeightOverflowError),
        (lambda: o.insert(1.5, 3), InputTypeError),
        (lambda: o.advance(9), ClockError),
        (lambda: o.count_window(-2), InvalidParameterError),
    ]:
        with pytest.raises(error):
            action()
    assert o.total() == 9
    assert issubclass(FutureTimestampError, SwagkitError) and issubclass(InputTypeError, TypeError)


def test_acceptance_tests() -> None:
    prof = RankProfile.of([(1, 5), (4, 5)])
    assert quantile_violation(prof, 1, 0.5, 0.0) is None  # rank_lt(1) = 0 <= 5, rank_le(1) = 5 >= 5
    assert quantile_violation(prof, 4, 0.2, 0.1) is not None  # rank_lt(4) = 5 > 3
    assert quantile_violation(prof, None, 0.5, 0.1) is not None
    assert quantile_violation(RankProfile.of([]), None, 0.5, 0.1) is None
    assert heavy_hitters_violation(prof, [1, 4], 0.5, 0.1) is None
    assert heavy_hitters_violation(prof, [1], 0.5, 0.1) is None  # 4 need not be reported: 5 < (0.5 + 0.1)·10
    assert heavy_hitters_violation(prof, [1], 0.3, 0.1) is not None  # 4 has weight 5 >= 0.4·10: missing
    assert heavy_hitters_violation(prof, [7], 0.1, 0.05) is not None  # 7 has weight 0


@pytest.mark.parametrize("kind", sorted(GENERATORS))
def test_generators_are_deterministic_and_well_formed(kind: str) -> None:
    a = generate(kind, 400, time_bits=8, value_bits=5, seed=3, weighted=True)
    assert a == generate(kind, 400, time_bits=8, value_bits=5, seed=3, weighted=True)
    assert len(a) == 400
    nows = [x.now for x in a]
    assert nows == sorted(nows)
    assert all(0 <= x.timestamp <= x.now < 256 and 0 <= x.value < 32 and x.weight >= 1 for x in a)
    o = to_oracle(a, time_bits=8, value_bits=5)
    assert o.total() == sum(x.weight for x in a)
    generate(kind, 50, time_bits=3, value_bits=1, seed=1)  # tiny universes work


def test_disorder_of_the_paper_like_generators() -> None:
    """flow: moderate disorder (few inversions relative to n²); looping and reversed: heavy."""

    def inversions(kind: str) -> float:
        ts = [x.timestamp for x in generate(kind, 600, time_bits=16, value_bits=8, seed=2)]
        inv = sum(1 for i in range(len(ts)) for j in range(i + 1, min(len(ts), i + 60)) if ts[i] > ts[j])
        return inv / len(ts)

    assert inversions("flow") < inversions("looping") < inversions("reversed")
    burst = generate("bursts", 500, time_bits=16, value_bits=8, seed=1)
    assert max(sum(1 for x in burst if x.timestamp == t) for t in {x.timestamp for x in burst}) > 100
    same = generate("all_equal", 100, time_bits=8, value_bits=6, seed=1)
    assert len({x.value for x in same}) == 1


def test_bound_formulas() -> None:
    assert window_count_alpha_min(20, 0.1) == 1741 and window_quantiles_alpha_min(20, 0.1) == 3341
    assert window_count_alpha_min(1, 0.5) == math.ceil(16 + 7 + 1)
    assert window_level_need(20, 0.5, 8, 2) == Fraction(2 * 20 * 8) / Fraction(0.5)
    assert qdigest_merge_limit(10, 0.5, 40) == 2 and qdigest_merge_limit(10, 0.5, 41) == 3
    assert value_division_summary_bound(PolynomialDecay(1.0), 1.0, 2**10 - 1) >= 2 * 10 - 1
    assert value_division_summary_bound(SlidingWindowDecay(3), 0.1, 10) == 2**62  # g reaches 0: unbounded
    structures = {c.structure for c in CONTRACTS}
    assert structures == {"qdigest", "window_count", "window_quantiles", "value_division"}
    # P2 is a hard check of a compressed q-digest (issue 25 §3: the space-only bugs hide behind a soft one)
    assert {c.quantity for c in CONTRACTS if not c.hard} == {"closure (P3)"}
