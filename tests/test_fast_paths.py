"""The issue-16 fast paths of ``swagkit.optimized`` against the reference: ``window_sum`` (exact for sum_i64,
within each frame's any-order error bound for sum_f64 -- issue 24 --, bit-identical to its pure-Python twin), the
sum_i64 ``window_array`` paths of SlickDequeInv and SubtractOnEvict (exact, equal to the reference's ⊗ sequence),
and the per-call ``query`` that skips an identity ``lower`` (a non-identity ``lower`` still applies). Runs on
whichever implementation ``swagkit.optimized`` resolved to (compiled, or ``SWAGKIT_PUREPYTHON=1``).
"""

from __future__ import annotations

import array
import math
import random
import re
from dataclasses import replace
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import swagkit.optimized as opt
import swagkit.reference as ref
from swagkit.optimized._window_sum import window_sum_python
from swagkit.spec.errors import UnsupportedMonoidError
from swagkit.spec.library import INT64_MAX, INT64_MIN, max_f64, max_i64, sum_f64, sum_i64

np = pytest.importorskip("numpy")

WINDOWS = (1, 2, 3, 7, 64, 1000)


def exact_window_sums(xs: list[float], w: int) -> list[Fraction]:
    """Exact sums of every window (prefix sums of Fractions)."""
    prefix = [Fraction(0)]
    for x in xs:
        prefix.append(prefix[-1] + Fraction(x))
    return [prefix[i + 1] - prefix[max(0, i - w + 1)] for i in range(len(xs))]


def frame_bounds(xs: list[float], w: int) -> list[Fraction]:
    """Each frame's any-order bound ``γ_{n−1}·Σ|x|`` over the frame's own ``n`` values, exactly (issue 24)."""
    u = Fraction(1, 2**53)
    prefix = [Fraction(0)]
    for x in xs:
        prefix.append(prefix[-1] + abs(Fraction(x)))
    bounds = []
    for i in range(len(xs)):
        lo = max(0, i - w + 1)
        k = i - lo  # n − 1
        bounds.append(k * u / (1 - k * u) * (prefix[i + 1] - prefix[lo]))
    return bounds


def assert_within_bound(xs: list[float], w: int) -> None:
    got = opt.window_sum(sum_f64(), xs, w)
    assert len(got) == len(xs)
    for i, (s, exact, bound) in enumerate(zip(got, exact_window_sums(xs, w), frame_bounds(xs, w))):
        assert abs(Fraction(s) - exact) <= bound, (i, s, float(exact))


# ---------------------------------------------------------------------------------------------------- sum_i64


@pytest.mark.parametrize("w", WINDOWS)
def test_window_sum_i64_is_the_exact_wrapped_sum(w: int) -> None:
    rng = random.Random(w)
    xs = [rng.choice([INT64_MIN, INT64_MAX, 0, -1, 1, rng.randint(INT64_MIN, INT64_MAX)]) for _ in range(1500)]
    expected = ref.window_array(ref.SubtractOnEvict, sum_i64(), xs, w)
    for values in (xs, array.array("q", xs), np.array(xs, dtype=np.int64)):
        got = opt.window_sum(sum_i64(), values, w)
        assert isinstance(got, array.array) and got.typecode == "q"
        assert list(got) == expected
    assert list(window_sum_python(sum_i64(), xs, w)) == expected


@pytest.mark.parametrize("cls_name", ["SlickDequeInv", "SubtractOnEvict"])
@pytest.mark.parametrize("w", WINDOWS)
def test_window_array_sum_i64_fast_path_equals_the_reference(cls_name: str, w: int) -> None:
    """The two-read loop gives the ⊗ sequence's answers (a group: any order of wrapping additions is exact)."""
    rng = random.Random(100 + w)
    xs = [rng.randint(INT64_MIN, INT64_MAX) for _ in range(1200)]
    expected = ref.window_array(getattr(ref, cls_name), sum_i64(), xs, w)
    for values in (xs, array.array("q", xs), np.array(xs, dtype=np.int64), memoryview(array.array("q", xs))):
        got = opt.window_array(getattr(opt, cls_name), sum_i64(), values, w)
        assert list(got) == expected


# ---------------------------------------------------------------------------------------------------- sum_f64


def test_window_sum_f64_is_bit_identical_to_its_twin_at_every_small_length() -> None:
    """Every length and window around the kernel's cases: n ≤ w (one prefix), one stream of blocks, two halves
    side by side (from 6 full blocks), with and without a partial last block."""
    rng = random.Random(5)
    for w in range(2, 10):
        for n in range(1, 8 * w + 3):
            xs = [rng.uniform(-1e6, 1e6) * rng.choice([1.0, 1e-9, 1e9]) for _ in range(n)]
            got = opt.window_sum(sum_f64(), xs, w).tobytes()
            assert got == window_sum_python(sum_f64(), xs, w).tobytes(), (n, w)


@pytest.mark.parametrize("w", WINDOWS)
def test_window_sum_f64_is_bit_identical_to_its_python_twin(w: int) -> None:
    rng = random.Random(w)
    xs = [rng.uniform(-1e6, 1e6) * rng.choice([1.0, 1e-9, 1e9]) for _ in range(2000)]
    expected = window_sum_python(sum_f64(), xs, w).tobytes()
    for values in (xs, array.array("d", xs), np.array(xs)):
        got = opt.window_sum(sum_f64(), values, w)
        assert isinstance(got, array.array) and got.typecode == "d"
        assert got.tobytes() == expected


def test_window_sum_f64_of_int64_buffers_and_python_ints() -> None:
    xs = [3, -(2**53), 2**53, 7, 0, 11]
    expected = [float(s) for s in exact_window_sums([float(x) for x in xs], 3)]
    for values in (xs, np.array(xs, dtype=np.int64), array.array("q", xs)):
        assert list(opt.window_sum(sum_f64(), values, 3)) == expected


@pytest.mark.parametrize("w", WINDOWS)
def test_window_sum_f64_within_the_stated_bound_on_random_data(w: int) -> None:
    rng = random.Random(7 * w)
    xs = [rng.uniform(-1.0, 1.0) * 10.0 ** rng.randint(-12, 12) for _ in range(1500)]
    assert_within_bound(xs, w)


@pytest.mark.parametrize("w", [2, 5, 64, 257])
def test_window_sum_f64_within_the_bound_when_huge_values_cancel(w: int) -> None:
    """Adversarial: huge values (1e16, 1e300-scale pairs) enter and cancel among small ones. Every answer stays
    within its own frame's bound, so once the huge values have left, the answers are as good as for small values
    alone -- where a running sum that subtracts evicted values (bottleneck's ``move_sum``) keeps their rounding
    error forever."""
    rng = random.Random(w)
    xs: list[float] = []
    for burst in range(6):
        xs += [rng.uniform(0.0, 1.0) for _ in range(3 * w)]
        xs += [1e16 * (burst + 1), 0.1, -1e16 * (burst + 1), 1e300, 0.3, -1e300]
    xs += [rng.uniform(0.0, 1.0) for _ in range(3 * w)]
    assert_within_bound(xs, w)
    # what subtract-on-evict would have done: beyond the frame's bound at the tail, long after the huge values left
    exact, bounds = exact_window_sums(xs, w), frame_bounds(xs, w)
    drift_beyond_bound, running = False, 0.0
    for i, x in enumerate(xs):
        running = running + (x - (xs[i - w] if i >= w else 0.0))
        if i >= len(xs) - w:
            drift_beyond_bound |= abs(Fraction(running) - exact[i]) > bounds[i]
    assert drift_beyond_bound


@given(
    st.lists(st.floats(min_value=-1e300, max_value=1e300, allow_nan=False, width=64), max_size=200),
    st.integers(min_value=1, max_value=40),
)
def test_window_sum_f64_within_the_bound_property(xs: list[float], w: int) -> None:
    assert_within_bound(xs, w)
    assert opt.window_sum(sum_f64(), xs, w).tobytes() == window_sum_python(sum_f64(), xs, w).tobytes()


@pytest.mark.parametrize("w", [1, 2, 4, 7])
def test_window_sum_f64_infinity_poisons_only_its_frames(w: int) -> None:
    """An answer is computed from its frame's values only: infinite exactly for the frames holding the
    infinity, NaN for those holding both infinities, exact (small integers) for every other frame."""
    xs = [1.0] * 8 + [float("inf")] + [1.0] * 5 + [float("-inf")] + [1.0] * 12
    got = list(opt.window_sum(sum_f64(), xs, w))
    for i, answer in enumerate(got):
        frame = xs[max(0, i - w + 1) : i + 1]
        infinities = {v for v in frame if math.isinf(v)}
        if len(infinities) == 2:
            assert math.isnan(answer), (i, answer)
        elif infinities:
            assert answer == infinities.pop(), (i, answer)
        else:
            assert answer == len(frame), (i, answer)


# ---------------------------------------------------------------------------------------------------- refusals


@pytest.mark.parametrize("monoid", [sum_f64, sum_i64])
def test_window_sum_validates_like_insert(monoid: Any) -> None:
    bad = [1.0, float("nan"), 2.0] if monoid is sum_f64 else [1, 2**64, 3]
    with pytest.raises(Exception) as expected:
        ref.SlickDequeInv(monoid()).insert(bad[1])
    inputs: list[Any] = [bad]
    if monoid is sum_f64:
        inputs += [array.array("d", bad), np.array(bad)]
    for values in inputs:
        with pytest.raises(type(expected.value), match=re.escape(str(expected.value))):
            opt.window_sum(monoid(), values, 2)
        with pytest.raises(type(expected.value)):
            window_sum_python(monoid(), values, 2)


@pytest.mark.parametrize("w", [1, 3, 100, 300])
def test_a_nan_anywhere_in_a_float_buffer_is_refused(w: int) -> None:
    """The compiled float paths find NaN from the blocks' folds (``window_sum``) or by blocks of 256
    (``window_array``): at a block's first, middle and last item, in the first block, where the kernel's second
    half starts, in the partial last block and at the end."""
    n = 3 * w + 600
    half = n // w // 2 * w
    for pos in sorted({0, w - 1, w, min(w + 1, n - 1), 2 * w - 1, 255, 256, 257, half - 1, half, n - 2, n - 1}):
        xs = [float(i % 7) for i in range(n)]
        xs[pos] = float("nan")
        for values in (np.array(xs), array.array("d", xs)):
            with pytest.raises(ValueError, match="NaN"):
                opt.window_sum(sum_f64(), values, w)
            for cls_name, monoid in (("SlickDequeInv", sum_f64), ("SlickDequeNonInv", max_f64)):
                with pytest.raises(ValueError, match="NaN"):
                    opt.window_array(getattr(opt, cls_name), monoid(), values, w)


@pytest.mark.parametrize("monoid", [max_f64, max_i64, lambda: replace(sum_f64(), lower=lambda x: x)])
def test_window_sum_refuses_other_monoids(monoid: Any) -> None:
    with pytest.raises(UnsupportedMonoidError):
        opt.window_sum(monoid(), [1, 2, 3], 2)


@pytest.mark.parametrize(("window", "error"), [(0, ValueError), (2.5, TypeError), (True, TypeError)])
def test_window_sum_checks_the_window(window: Any, error: type[Exception]) -> None:
    with pytest.raises(error):
        opt.window_sum(sum_i64(), [1, 2], window)


def test_window_sum_of_nothing_and_of_a_window_beyond_the_input() -> None:
    assert list(opt.window_sum(sum_f64(), [], 3)) == []
    assert list(opt.window_sum(sum_i64(), [1, 2, 3], 2**80)) == [1, 3, 6]


# ---------------------------------------------------------------------------------------------------- per call


@pytest.mark.parametrize(
    ("cls_name", "monoid"),
    [("SlickDequeInv", sum_f64), ("SlickDequeInv", sum_i64), ("SlickDequeNonInv", max_f64)],
)
def test_query_applies_a_non_identity_lower(cls_name: str, monoid: Any) -> None:
    """``query`` skips the Python call only for the identity ``lower``; another one still applies."""
    for m in (monoid(), replace(monoid(), lower=lambda x: ("lowered", x))):
        mine, theirs = getattr(opt, cls_name)(m), getattr(ref, cls_name)(m)
        for v in [3, 1, 4, 1, 5, 9, 2, 6]:
            if len(mine) == 3:
                mine.evict()
                theirs.evict()
            mine.insert(v)
            theirs.insert(v)
            assert mine.query() == theirs.query()
