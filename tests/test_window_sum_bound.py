"""Issue 24 item 8: every answer of ``window_sum(sum_f64(), values, w)`` lies within the any-order bound of its own
frame, ``|got − exact| ≤ γ_{n−1}·Σ|x|`` over the frame's ``n`` values (a value some summation order of the frame's
values could produce), whatever left the frame before; the compiled kernel and the pure-Python twin agree to the
bit; the work per item does not depend on the data. Also confirms the bound for ``window_array(DABALite, …)``
(combines only the window's values), the path ``sliding_aggregate`` takes for sums by default, and checks the
bench's exact accuracy measure (:mod:`swagkit.verify.bench.sum_accuracy`) against Fractions.

Runs in both passes (compiled and ``SWAGKIT_PUREPYTHON=1``) except the one test marked ``once``.
"""

from __future__ import annotations

import array
import random
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import swagkit.optimized as opt
from swagkit.optimized._window_sum import _sums_f64, window_sum_python
from swagkit.spec.library import sum_f64
from swagkit.verify.bench.sum_accuracy import spiked_floats, worst_share_of_bound

U = Fraction(1, 2**53)


def exact_frames(xs: list[float], w: int) -> list[tuple[Fraction, Fraction]]:
    """(exact sum, any-order bound γ_{n−1}·Σ|x|) of every frame ``xs[max(0, i−w+1) .. i]``, in Fractions."""
    sums, abs_sums = [Fraction(0)], [Fraction(0)]
    for x in xs:
        sums.append(sums[-1] + Fraction(x))
        abs_sums.append(abs_sums[-1] + abs(Fraction(x)))
    frames = []
    for i in range(len(xs)):
        lo = max(0, i - w + 1)
        k = i - lo  # n − 1
        frames.append((sums[i + 1] - sums[lo], k * U / (1 - k * U) * (abs_sums[i + 1] - abs_sums[lo])))
    return frames


def assert_each_answer_within_its_frame_bound(xs: list[float], got: Any, w: int) -> None:
    assert len(got) == len(xs)
    for i, (answer, (exact, bound)) in enumerate(zip(got, exact_frames(xs, w))):
        assert abs(Fraction(answer) - exact) <= bound, (i, answer, float(exact), float(bound))


# values that break running sums: huge (1e17 swamps the 53-bit mantissa of ordinary values, 1e300 all of them),
# tiny and subnormal ones (below every other value's last bit), ordinary ones; no overflow: at most 50 × 1e300
ORDINARY = st.floats(min_value=-1e3, max_value=1e3, allow_nan=False, allow_infinity=False)
SPIKES = st.sampled_from([1e17, -1e17, 1e300, -1e300, 3.0e16 + 2.0, 1e-300, -5e-324, 2.0**-1060])
TINY = st.floats(min_value=-1e-290, max_value=1e-290, allow_nan=False)
SEGMENTS = st.one_of(
    st.lists(ORDINARY, min_size=1, max_size=20),
    st.lists(TINY, min_size=1, max_size=4),
    st.tuples(st.one_of(SPIKES, ORDINARY), st.integers(1, 40)).map(lambda t: [t[0]] * t[1]),  # constant runs
    st.tuples(SPIKES, ORDINARY).map(lambda t: [t[0], t[1], -t[0]]),  # cancellation around a small value
)


@st.composite
def spiky_arrays(draw: st.DrawFn, max_size: int = 160) -> list[float]:
    parts = draw(st.lists(SEGMENTS, max_size=12))
    return [x for part in parts for x in part][:max_size]


def test_the_issue_example_answers_the_rounded_frame_sums() -> None:
    """[1e17, 1, 1] with w = 2: the frames (1e17), (1e17, 1), (1, 1) answer their exact sums rounded -- the
    last one 2.0, where a subtract-on-evict running sum answered 0.0."""
    xs = [1e17, 1.0, 1.0]
    expected = [float(exact) for exact, _ in exact_frames(xs, 2)]
    assert expected[2] == 2.0
    for values in (xs, array.array("d", xs)):
        assert list(opt.window_sum(sum_f64(), values, 2)) == expected
    assert list(window_sum_python(sum_f64(), xs, 2)) == expected


@settings(max_examples=150)
@given(spiky_arrays(), spiky_arrays(max_size=60), st.integers(min_value=1, max_value=50))
def test_every_answer_within_its_frames_any_order_bound(xs: list[float], history: list[float], w: int) -> None:
    """The bound, exactly; compiled and pure give the same bits; and what came before a frame does not matter:
    the same values at the same place in the stream (block alignment) answer the same bits after any history."""
    got = opt.window_sum(sum_f64(), xs, w)
    assert_each_answer_within_its_frame_bound(xs, got, w)
    assert got.tobytes() == window_sum_python(sum_f64(), xs, w).tobytes()
    # another history of the same length (ordinary values instead of ``xs``'s head): frames past it agree
    other = [float(i % 7) for i in range(len(history))] + xs
    mine = opt.window_sum(sum_f64(), history + xs, w)
    theirs = opt.window_sum(sum_f64(), other, w)
    first_clean = len(history) + w - 1  # first frame that lies entirely in ``xs``
    assert mine.tobytes()[8 * first_clean :] == theirs.tobytes()[8 * first_clean :]


@settings(max_examples=60)
@given(spiky_arrays(max_size=100), st.integers(min_value=1, max_value=30))
def test_window_array_dabalite_is_within_the_bound_too(xs: list[float], w: int) -> None:
    """``window_array(DABALite, sum_f64(), …)`` (``sliding_aggregate``'s default for sums) combines only the
    window's values: within the same bound, no fix needed."""
    assert_each_answer_within_its_frame_bound(xs, opt.window_array(opt.DABALite, sum_f64(), xs, w), w)


class CountingFloat(float):
    """A float that counts the additions and subtractions made with it (the result stays counting)."""

    additions = 0
    subtractions = 0

    def __add__(self, other: float) -> CountingFloat:
        CountingFloat.additions += 1
        return CountingFloat(float(self) + float(other))

    __radd__ = __add__

    def __sub__(self, other: float) -> CountingFloat:
        CountingFloat.subtractions += 1
        return CountingFloat(float(self) - float(other))

    def __rsub__(self, other: float) -> CountingFloat:
        CountingFloat.subtractions += 1
        return CountingFloat(float(other) - float(self))


def additions_of(xs: list[float], w: int) -> tuple[int, int]:
    CountingFloat.additions = CountingFloat.subtractions = 0
    answers = _sums_f64([CountingFloat(x) for x in xs], w)
    assert len(answers) == len(xs)
    return CountingFloat.additions, CountingFloat.subtractions


@pytest.mark.once
@pytest.mark.parametrize(("n", "w"), [(1000, 1), (1000, 2), (1000, 7), (1000, 64), (1001, 1000), (50, 200)])
def test_work_per_item_is_at_most_three_additions_whatever_the_data(n: int, w: int) -> None:
    """No recomputation to bound: the sums are additions only, at most 3 per item, the same number on ordinary
    data and on data built to force recomputations in an error-tracking design (a huge value entering and
    leaving every other window, cancellations, subnormals). Counted through the Python twin, which the tests
    above show to compute the compiled kernel's bits."""
    rng = random.Random(n * 31 + w)
    ordinary = [rng.uniform(-1.0, 1.0) for _ in range(n)]
    adversarial = [
        (1e17 if i % (2 * w) == 0 else -1e17 if i % (2 * w) == 1 else 5e-324 if i % 3 else rng.uniform(-1.0, 1.0))
        for i in range(n)
    ]
    counts = {additions_of(xs, w) for xs in (ordinary, adversarial, [0.0] * n)}
    assert len(counts) == 1
    ((adds, subs),) = counts
    assert subs == 0
    assert adds <= 3 * n


def test_worst_share_of_bound_is_exact_and_tells_window_sum_from_subtract_on_evict() -> None:
    """The bench's measure (Python ints, no Fractions) agrees with Fractions, is at most 1 for ``window_sum`` on
    the issue's kind of data (a scaled-down copy: spikes of ±1e17 among normal floats) and is far above 1 for a
    running sum that subtracts evicted values."""
    w = 64
    xs = spiked_floats(6000, spikes=8, seed=5)
    running, acc = [], 0.0
    for i, x in enumerate(xs):
        acc = acc + (x - (xs[i - w] if i >= w else 0.0))
        running.append(acc)
    got = list(opt.window_sum(sum_f64(), xs, w))
    assert worst_share_of_bound(xs, got, w) <= 1.0
    assert worst_share_of_bound(xs, running, w) > 1e6
    # against Fractions, up to a while after the first spike (at 1239) left the window
    head, answers = xs[:1400], running[:1400]
    shares = [
        abs(Fraction(a) - exact) / bound for a, (exact, bound) in zip(answers, exact_frames(head, w)) if bound != 0
    ]
    assert max(shares) > 1
    assert worst_share_of_bound(head, answers, w) == pytest.approx(float(max(shares)), rel=1e-12)
