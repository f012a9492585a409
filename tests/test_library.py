"""Semantics of the library monoids: each operator computes what its paper says, under every bracketing.

Exact operators are compared with ``==`` against brute-force computations over ``int``/``Fraction``; float
ones against exact (Fraction / ``statistics``) references with an explicitly stated tolerance.
"""

from __future__ import annotations

import copy
import math
import pickle
import statistics
import subprocess
import sys
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swagkit.spec.library import (
    INT64_MAX,
    INT64_MIN,
    LIBRARY,
    NEUTRAL,
    BloomFilter,
    CountMinSketch,
    argmax,
    argmin,
    as_exact,
    as_f64,
    as_i64,
    bloom_filter,
    bloom_positions,
    collect,
    count_min_positions,
    count_min_sketch,
    count_monoid,
    first,
    geomean,
    last,
    matrix2x2,
    max_count,
    max_f64,
    max_i64,
    mean_monoid,
    min_count,
    min_f64,
    min_i64,
    min_monoid,
    relative_variation,
    relative_variation_mean,
    stddev,
    sum_f64,
    sum_i64,
    variance_exact,
    variance_moments_exact,
)
from swagkit.spec.monoid import Monoid, check_commutativity, check_selectivity, fold

#: independent of swagkit.optimized: run once (tools/check.sh's compiled pass)
pytestmark = pytest.mark.once

EXACT = st.one_of(
    st.integers(min_value=-(10**6), max_value=10**6),
    st.fractions(min_value=-1000, max_value=1000, max_denominator=50),
)


def left_fold(m: Monoid[Any, Any, Any], xs: Sequence[Any]) -> Any:
    return fold(m, [m.lift(x) for x in xs])


def right_fold(m: Monoid[Any, Any, Any], xs: Sequence[Any]) -> Any:
    acc = m.identity
    for x in reversed(xs):
        acc = m.combine(m.lift(x), acc)
    return acc


def tree_fold(m: Monoid[Any, Any, Any], xs: Sequence[Any]) -> Any:
    """Balanced bracketing, as FlatFAT / FiBA associate."""
    if not xs:
        return m.identity
    if len(xs) == 1:
        return m.lift(xs[0])
    mid = len(xs) // 2
    return m.combine(tree_fold(m, xs[:mid]), tree_fold(m, xs[mid:]))


def query(m: Monoid[Any, Any, Any], xs: Sequence[Any]) -> Any:
    """The window's answer, computed under three bracketings that must all agree (exact monoids)."""
    results = [m.lower(f(m, xs)) for f in (left_fold, right_fold, tree_fold)]
    assert results[0] == results[1] == results[2]
    return results[0]


# ------------------------------------------------------------------------------------------ library shape


def test_library_declares_tight_properties() -> None:
    """Every property a monoid does NOT declare is actually false on its examples (declarations are tight, not
    merely safe), and every new entry carries its paper source."""
    for monoid_id, entry in LIBRARY.items():
        m = entry.factory()
        assert m.name == monoid_id
        assert entry.source, monoid_id
        samples = [m.lift(x) for x in entry.examples] + [m.identity]
        if not m.commutative:
            assert check_commutativity(m, samples) is not None, monoid_id
        if not m.selective:
            assert check_selectivity(m, samples) is not None, monoid_id


def test_declared_properties_table() -> None:
    expected = {  # id: (commutative, invertible, selective)
        "sum": (True, True, False),
        "count": (True, True, False),
        "mean": (True, True, False),
        "geomean": (True, False, False),
        "stddev_pop": (True, False, False),
        "stddev_sample": (True, False, False),
        "variance_pop_exact": (True, False, False),
        "variance_sample_exact": (True, False, False),
        "variance_moments_exact": (True, True, False),
        "string_concat": (False, False, False),
        "max_count": (True, False, False),
        "min_count": (True, False, False),
        "matrix2x2": (False, False, False),
        "affine": (False, True, False),
        "max": (True, False, True),
        "min": (True, False, True),
        "argmax": (False, False, True),
        "argmax_first": (False, False, True),
        "argmin": (False, False, True),
        "argmin_first": (False, False, True),
        "first": (False, False, True),
        "last": (False, False, True),
        "collect": (False, False, False),
        "bloom": (True, False, False),
        "count_min": (True, True, False),
        "relative_variation": (True, False, False),
        "relative_variation_mean": (True, False, False),
        "sum_f64": (True, False, False),
        "max_f64": (True, False, True),
        "min_f64": (True, False, True),
        "sum_i64": (True, True, False),
        "max_i64": (True, False, True),
        "min_i64": (True, False, True),
    }
    assert set(expected) == set(LIBRARY)
    for monoid_id, (c, i, s) in expected.items():
        m = LIBRARY[monoid_id].factory()
        assert (m.commutative, m.invertible, m.selective) == (c, i, s), monoid_id


def test_typed_fast_paths_are_kept() -> None:
    for k in ("sum_f64", "max_f64", "min_f64", "sum_i64", "max_i64", "min_i64"):
        assert LIBRARY[k].factory().fast_path == k
    assert all(LIBRARY[k].factory().fast_path is None for k in LIBRARY if not k.endswith(("_f64", "_i64")))


def test_neutral_is_a_singleton_through_copy_and_pickle() -> None:
    assert copy.copy(NEUTRAL) is NEUTRAL and copy.deepcopy(NEUTRAL) is NEUTRAL
    assert pickle.loads(pickle.dumps(NEUTRAL)) is NEUTRAL
    assert pickle.loads(pickle.dumps((3, NEUTRAL)))[1] is NEUTRAL
    assert type(NEUTRAL)() is NEUTRAL


# ------------------------------------------------------------------------------------------------ sum-like


@given(st.lists(st.integers(min_value=-100, max_value=100) | st.text(max_size=1), max_size=20))
def test_count_counts(xs: list[Any]) -> None:
    assert query(count_monoid(), xs) == len(xs)


@given(st.lists(EXACT, max_size=20))
def test_mean_is_exact_and_none_when_empty(xs: list[Any]) -> None:
    got = query(mean_monoid(), xs)
    if not xs:
        assert got is None
    else:
        assert got == Fraction(sum(xs)) / len(xs) and isinstance(got, Fraction)


@given(st.lists(EXACT, min_size=1, max_size=20), st.data())
def test_mean_subtract_on_evict(xs: list[Any], data: st.DataObject) -> None:
    """Invertibility used as deletion: window ⊗ inv(oldest) == window without the oldest."""
    m = mean_monoid()
    k = data.draw(st.integers(min_value=0, max_value=len(xs)))
    agg = left_fold(m, xs)
    assert m.inverse is not None
    for x in xs[:k]:
        agg = m.combine(m.inverse(m.lift(x)), agg)
    assert agg == left_fold(m, xs[k:])


def two_pass_m2(xs: Sequence[Fraction]) -> tuple[int, Fraction, Fraction]:
    n = len(xs)
    mean = sum(xs, Fraction(0)) / n
    return n, mean, sum(((x - mean) ** 2 for x in xs), Fraction(0))


@given(st.lists(EXACT, min_size=1, max_size=30), st.data())
def test_chan_merge_equals_two_pass_exactly_for_random_splits(xs: list[Any], data: st.DataObject) -> None:
    m = variance_exact()
    cuts = sorted(data.draw(st.lists(st.integers(min_value=0, max_value=len(xs)), max_size=4)))
    parts = [xs[i:j] for i, j in zip([0, *cuts], [*cuts, len(xs)])]
    merged = fold(m, [left_fold(m, p) for p in parts])  # empty parts contribute the identity
    assert merged == two_pass_m2([Fraction(x) for x in xs])
    n, _, m2 = merged
    assert m.lower(merged) == m2 / n
    sample = variance_exact(sample=True).lower(merged)
    assert sample == (m2 / (n - 1) if n > 1 else None)
    assert sample == (statistics.variance([Fraction(x) for x in xs]) if n > 1 else None)


@given(st.lists(EXACT, max_size=30))
def test_power_sum_variance_agrees_with_chan_and_is_invertible(xs: list[Any]) -> None:
    ps, chan = variance_moments_exact(), variance_exact()
    assert query(ps, xs) == query(chan, xs)
    agg = left_fold(ps, xs)
    assert ps.inverse is not None
    for x in xs:  # evicting everything returns to the identity
        agg = ps.combine(ps.inverse(ps.lift(x)), agg)
    assert agg == ps.identity


STD_FLOATS = st.floats(min_value=-1e3, max_value=1e3, allow_nan=False)


@given(st.lists(STD_FLOATS, min_size=2, max_size=30), st.data())
def test_float_stddev_matches_exact_reference_within_tolerance(xs: list[float], data: st.DataObject) -> None:
    """Tolerance: relative 1e-9 plus absolute 1e-6 (stddev of values bounded by 1e3)."""
    cut = data.draw(st.integers(min_value=0, max_value=len(xs)))
    n, mean, m2 = two_pass_m2([Fraction(x) for x in xs])  # exact reference
    for sample, denominator in ((False, n), (True, n - 1)):
        m = stddev(sample=sample)
        merged = m.combine(left_fold(m, xs[:cut]), tree_fold(m, xs[cut:]))
        got = m.lower(merged)
        assert got is not None
        assert math.isclose(got, math.sqrt(m2 / denominator), rel_tol=1e-9, abs_tol=1e-6)
        assert merged[0] == n
        assert math.isclose(merged[1], float(mean), rel_tol=1e-9, abs_tol=1e-9)
        assert math.isclose(merged[2], float(m2), rel_tol=1e-9, abs_tol=1e-6)


def test_chan_merge_is_numerically_sound_where_sum_of_squares_is_not() -> None:
    xs = [1e9 + d for d in (4.0, 7.0, 13.0, 16.0)]  # exact pop. variance 22.5
    m = stddev()
    got = m.lower(tree_fold(m, xs))
    assert got is not None and math.isclose(got, math.sqrt(22.5), rel_tol=1e-9)
    # the table's (n, Σx, Σx²) form in float64 is far off on the same input (the reason for Chan's merge)
    n, s, q = len(xs), sum(xs), sum(x * x for x in xs)
    naive_var = (q - s * s / n) / n
    assert abs(naive_var - 22.5) > 1.0


def test_stddev_and_variance_are_none_where_undefined() -> None:
    assert stddev().lower(stddev().identity) is None
    assert stddev(sample=True).lower(stddev().lift(3.0)) is None
    assert stddev().lower(stddev().lift(3.0)) == 0.0
    assert variance_exact(sample=True).lower(variance_exact().lift(3)) is None
    assert variance_moments_exact().lower(variance_moments_exact().identity) is None
    with pytest.raises(TypeError):
        variance_exact().lift(1.5)
    with pytest.raises(TypeError):
        as_exact(True)


@given(st.lists(st.floats(min_value=1e-3, max_value=1e3), min_size=1, max_size=20))
def test_geomean_matches_statistics_within_tolerance(xs: list[float]) -> None:
    """Tolerance: relative 1e-9."""
    m = geomean()
    got = m.lower(tree_fold(m, xs))
    assert got is not None and math.isclose(got, statistics.geometric_mean(xs), rel_tol=1e-9)


def test_geomean_rejects_non_positive_and_is_none_when_empty() -> None:
    m = geomean()
    assert m.lower(m.identity) is None
    for bad in (0, -1.0, math.inf):
        with pytest.raises(ValueError):
            m.lift(bad)
    with pytest.raises(TypeError):
        m.lift("2")
    assert m.lower(left_fold(m, [2, 8])) == pytest.approx(4.0, rel=1e-12)


# ------------------------------------------------------------------------------------------------ max-like


@given(st.lists(st.tuples(st.integers(min_value=-3, max_value=3), st.integers(min_value=0, max_value=99)), max_size=20))
def test_argmax_argmin_tie_rules_against_brute_force(pairs: list[tuple[int, int]]) -> None:
    keys = [k for k, _ in pairs]
    if not pairs:
        for m in (argmax(), argmin(), argmax(ties="left"), argmin(ties="left")):
            assert query(m, pairs) is None
        return
    hi, lo = max(keys), min(keys)
    last_hi = max(i for i, k in enumerate(keys) if k == hi)
    first_hi = keys.index(hi)
    last_lo = max(i for i, k in enumerate(keys) if k == lo)
    first_lo = keys.index(lo)
    assert query(argmax(), pairs) == pairs[last_hi][1]  # ties: the younger (right) wins
    assert query(argmax(ties="left"), pairs) == pairs[first_hi][1]  # paper 002: the first wins
    assert query(argmin(), pairs) == pairs[last_lo][1]
    assert query(argmin(ties="left"), pairs) == pairs[first_lo][1]


def test_argmax_tie_examples_and_selectivity() -> None:
    m = argmax()
    a, b = m.lift((5, "old")), m.lift((5, "young"))
    assert m.combine(a, b) is b and m.combine(b, a) is a  # right operand wins a tie, so not commutative
    assert m.combine(m.lift((6, "x")), b) == (6, "x")
    left = argmax(ties="left")
    assert left.combine(a, b) is a
    assert m.lower(m.combine(m.identity, a)) == "old" and m.combine(a, m.identity) is a
    with pytest.raises(TypeError):
        m.lift(5)
    with pytest.raises(ValueError):
        argmax(ties="middle")


@given(st.lists(st.integers(min_value=0, max_value=4), max_size=20))
def test_max_count_and_min_count_against_brute_force(xs: list[int]) -> None:
    assert query(max_count(), xs) == (xs.count(max(xs)) if xs else 0)
    assert query(min_count(), xs) == (xs.count(min(xs)) if xs else 0)


@given(st.lists(EXACT, max_size=20))
def test_min_is_exact(xs: list[Any]) -> None:
    got = query(min_monoid(), xs)
    assert got == (min(xs) if xs else math.inf)


@given(st.lists(st.integers(min_value=-5, max_value=5) | st.sampled_from(["a", "b"]), max_size=15))
def test_first_last_collect(xs: list[Any]) -> None:
    assert query(first(), xs) == (xs[0] if xs else None)
    assert query(last(), xs) == (xs[-1] if xs else None)
    assert query(collect(), xs) == tuple(xs)


def test_first_last_are_non_commutative_and_keep_their_side() -> None:
    f, la = first(), last()
    assert f.combine("a", "b") == "a" and f.combine("b", "a") == "b"
    assert la.combine("a", "b") == "b" and la.combine("b", "a") == "a"
    assert f.combine(NEUTRAL, "z") == "z" and la.combine("z", NEUTRAL) == "z"
    # None is an ordinary value inside the window; only the empty window lowers to None by emptiness
    assert f.lower(f.combine(None, "x")) is None and la.lower(la.combine(None, "x")) == "x"


def test_collect_uses_tuples_and_preserves_order() -> None:
    m = collect()
    assert m.combine(m.lift(1), m.lift(2)) == (1, 2) != m.combine(m.lift(2), m.lift(1))
    assert m.identity == ()


# ------------------------------------------------------------------------------------------------ sketches


@given(st.lists(st.text(alphabet="abcdef", max_size=3) | st.integers(min_value=-50, max_value=50), max_size=40))
def test_bloom_filter_has_no_false_negatives(xs: list[Any]) -> None:
    m = bloom_filter(m_bits=128, k=3)
    bf = m.lower(tree_fold(m, xs))
    assert isinstance(bf, BloomFilter)
    assert all(bf.might_contain(x) for x in xs)
    assert bin(bf.bits).count("1") <= 3 * len(set(map(repr, xs)))
    assert bf.bits < 2**128


def test_bloom_filter_basics() -> None:
    m = bloom_filter()
    empty = m.lower(m.identity)
    assert not any(empty.might_contain(x) for x in ("a", 1, b"x"))
    a = m.lift("apple")
    assert m.combine(a, a) == a  # idempotent
    assert bin(a).count("1") <= 4 and a != m.lift("banana")
    assert bloom_positions("apple", 1024, 4) == bloom_positions("apple", 1024, 4)
    assert m.lift(1) != m.lift("1")  # typed keys
    with pytest.raises(ValueError):
        bloom_filter(m_bits=0)


def test_sketch_hashing_is_independent_of_pythonhashseed() -> None:
    code = (
        "from swagkit.spec.library import bloom_filter, count_min_sketch;"
        "print(bloom_filter().lift('apple'), count_min_sketch().lift(('k', 3)))"
    )
    outs = set()
    for seed in ("1", "2"):
        env = {"PYTHONHASHSEED": seed, "PYTHONPATH": ":".join(p for p in sys.path if p)}
        outs.add(
            subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
        )
    assert len(outs) == 1
    assert outs.pop().split()[0] == str(bloom_filter().lift("apple"))


@settings(max_examples=60)
@given(st.lists(st.text(alphabet="abcdefghij", min_size=1, max_size=2), max_size=60))
def test_count_min_never_underestimates(xs: list[str]) -> None:
    m = count_min_sketch(width=8, depth=3)  # narrow: collisions are frequent
    sketch = m.lower(tree_fold(m, xs))
    assert isinstance(sketch, CountMinSketch)
    for row in sketch.table:
        assert sum(row) == len(xs) and len(row) == 8
    for x in set(xs) | {"zz", "q"}:
        est = sketch.estimate(x)
        assert xs.count(x) <= est <= len(xs)


@settings(max_examples=60)
@given(st.lists(st.integers(min_value=0, max_value=30), max_size=40))
def test_count_min_estimate_is_the_row_minimum_of_colliding_counts(xs: list[int]) -> None:
    """Brute force: row r's counter for x counts the inputs hashed to x's column in row r; the estimate is the
    minimum over rows (Cormode & Muthukrishnan)."""
    width, depth = 5, 3
    m = count_min_sketch(width=width, depth=depth)
    sketch = m.lower(left_fold(m, xs))
    pos = {y: count_min_positions(y, width, depth) for y in set(xs) | {99}}
    for x in pos:
        per_row = [sum(1 for y in xs if pos[y][r] == pos[x][r]) for r in range(depth)]
        assert sketch.estimate(x) == min(per_row)


def test_count_min_is_exact_without_collisions() -> None:
    m = count_min_sketch(width=256, depth=4)
    xs = ["a", "b", "a", "c", "a", "b"]
    pos = {x: count_min_positions(x, 256, 4) for x in "abcd"}
    # precondition (checked, so the exactness below is not hash luck): each item has a row where no other
    # inserted item shares its column
    for x in "abcd":
        assert any(all(pos[x][r] != pos[y][r] for y in "abc" if y != x) for r in range(4))
    sketch = m.lower(tree_fold(m, xs))
    assert [sketch.estimate(x) for x in "abcd"] == [3, 2, 1, 0]


@given(st.lists(st.integers(min_value=0, max_value=9), min_size=1, max_size=30), st.data())
def test_count_min_subtract_on_evict_is_exact(xs: list[int], data: st.DataObject) -> None:
    m = count_min_sketch(width=8, depth=2)
    k = data.draw(st.integers(min_value=0, max_value=len(xs)))
    agg = left_fold(m, xs)
    assert m.inverse is not None
    for x in xs[:k]:
        agg = m.combine(m.inverse(m.lift(x)), agg)
    assert agg == left_fold(m, xs[k:])


# -------------------------------------------------------------------------------------- relative variation


@given(st.lists(EXACT, max_size=25))
def test_relative_variation_matches_brute_force(xs: list[Any]) -> None:
    got = query(relative_variation(), xs)
    if not xs or max(xs) == 0:
        assert got is None
    else:
        assert got == Fraction(max(xs) - min(xs)) / max(xs)
    got_mean = query(relative_variation_mean(), xs)
    if not xs or sum(xs) == 0:
        assert got_mean is None
    else:
        assert got_mean == Fraction(max(xs) - min(xs)) / (Fraction(sum(xs)) / len(xs))


def test_relative_variation_example() -> None:
    readings = [10, 12, 8, 10]
    assert query(relative_variation(), readings) == Fraction(4, 12)
    assert query(relative_variation_mean(), readings) == Fraction(4, 10)
    assert query(relative_variation(), [5, 5]) == 0
    assert relative_variation().lower(relative_variation().identity) is None


# ------------------------------------------------------------------------------------------ matrix and typed


def test_matrix_product_is_not_commutative() -> None:
    m = matrix2x2()
    a, b = (1, 1, 0, 1), (1, 0, 1, 1)
    assert m.combine(a, b) == (2, 1, 1, 1)
    assert m.combine(b, a) == (1, 1, 1, 2)
    assert m.combine(m.identity, a) == a == m.combine(a, m.identity)


def test_sum_i64_wraps_in_partials_but_gives_the_true_sum_when_it_fits() -> None:
    m = sum_i64()
    xs = [INT64_MAX, 1, -1]  # partial INT64_MAX + 1 overflows, the window sum INT64_MAX fits
    assert m.combine(m.lift(INT64_MAX), m.lift(1)) == INT64_MIN
    assert m.lower(left_fold(m, xs)) == INT64_MAX == m.lower(right_fold(m, xs))


@given(st.lists(st.integers(min_value=INT64_MIN, max_value=INT64_MAX), max_size=12))
def test_sum_i64_equals_exact_sum_whenever_it_fits(xs: list[int]) -> None:
    m = sum_i64()
    total = sum(xs)
    results = {m.lower(f(m, xs)) for f in (left_fold, right_fold, tree_fold)}
    assert len(results) == 1
    got = results.pop()
    assert INT64_MIN <= got <= INT64_MAX
    if INT64_MIN <= total <= INT64_MAX:
        assert got == total
    else:
        assert (got - total) % 2**64 == 0


@pytest.mark.parametrize("lift", [sum_f64().lift, max_f64().lift, min_f64().lift, as_f64])
def test_f64_lift_validation(lift: Any) -> None:
    assert lift(3) == 3.0 and isinstance(lift(3), float) and lift(-2.5) == -2.5
    assert lift(2**53) == float(2**53)
    for bad in (True, "1.0", None, Fraction(1, 3), [1.0]):
        with pytest.raises(TypeError):
            lift(bad)
    assert lift(Fraction(1, 2)) == 0.5  # exactly representable: taken, like numpy.float32(0.5)
    with pytest.raises(TypeError):
        lift(2**53 + 1)  # not exactly representable
    with pytest.raises(ValueError):
        lift(math.nan)


@pytest.mark.parametrize("lift", [sum_i64().lift, max_i64().lift, min_i64().lift, as_i64])
def test_i64_lift_validation(lift: Any) -> None:
    assert lift(INT64_MAX) == INT64_MAX and lift(INT64_MIN) == INT64_MIN
    for bad in (True, False, "1", 1.0, Fraction(1), None):
        with pytest.raises(TypeError):
            lift(bad)
    for bad in (INT64_MAX + 1, INT64_MIN - 1, 10**30):
        with pytest.raises(OverflowError):
            lift(bad)


def test_affine_is_a_non_commutative_group_that_refuses_bad_maps() -> None:
    from swagkit.spec.library import affine

    m = affine()
    f, g = m.lift((2, 1)), m.lift((Fraction(1, 3), -4))
    assert m.combine(f, g) != m.combine(g, f)
    for x in (f, g, m.combine(f, g)):
        assert m.combine(m.inverse(x), x) == m.identity == m.combine(x, m.inverse(x))
    # the older map runs first: t=5 -> 2*5+1 = 11 -> 11/3 - 4
    a, b = m.combine(f, g)
    assert a * 5 + b == Fraction(11, 3) - 4
    with pytest.raises(ValueError, match="a != 0"):
        m.lift((0, 1))
    with pytest.raises(TypeError, match="pair"):
        m.lift(3)
    with pytest.raises(TypeError, match="exact"):
        m.lift((1.5, 0))
