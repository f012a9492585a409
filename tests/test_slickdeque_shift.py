"""``shift(value)`` of both SlickDeques (``evict(); insert(value); query()`` in one call), compiled and reference.

Every check runs on the two twins (``swagkit.optimized`` — whichever implementation it resolved to — and
``swagkit.reference``): a structure driven by ``shift`` must answer, count (``combine_count``, ``inverse_count``)
and snapshot exactly like a twin driven by the three calls, and like the other implementation's ``shift``. Also:
an empty window or a refused value changes nothing; a ``combine`` raising in the insertion leaves the eviction
done, a note on the exception and a structure that keeps answering like a model; the re-entry guard names
``shift``. The typed kinds (max/min f64/i64, sum f64/i64) run the C paths, the others the generic ones, among
them non-commutative (``first``, ``affine``) and non-invertible (``max``, ``first``) monoids. A last test pins the
fresh-deque ``window_array`` kernel of the compiled Non-Inv to the reference on inputs with ties, signed zeros,
infinities and long monotone runs (the cases its keys and its buffer compaction must get right).
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable
from dataclasses import replace
from fractions import Fraction
from functools import reduce
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import swagkit.optimized as opt
import swagkit.reference as ref
from swagkit.spec.errors import EmptyWindowError, ReentrantCallError
from swagkit.spec.library import (
    INT64_MAX,
    INT64_MIN,
    affine,
    first,
    max_f64,
    max_i64,
    max_monoid,
    min_f64,
    min_i64,
    sum_f64,
    sum_i64,
    sum_monoid,
)
from swagkit.spec.monoid import Monoid

IMPLS: dict[str, ModuleType] = {"optimized": opt, "reference": ref}

finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False) | st.sampled_from([0.0, -0.0, 1.5, -1.5])
extreme = finite | st.sampled_from([math.inf, -math.inf, 5e-324, -5e-324, 1e308, -1e308])
int64 = st.integers(INT64_MIN, INT64_MAX) | st.sampled_from([INT64_MIN, INT64_MAX, 0, -1, 1])
small = st.integers(-20, 20)
nonzero = st.integers(-5, 5).filter(lambda a: a != 0)

#: (class name, monoid factory, value strategy); ``typed`` says whether the compiled class runs it in C
CASES: dict[str, tuple[str, Callable[[], Monoid[Any, Any, Any]], st.SearchStrategy[Any]]] = {
    "noninv-max_f64": ("SlickDequeNonInv", max_f64, extreme),
    "noninv-min_f64": ("SlickDequeNonInv", min_f64, extreme),
    "noninv-max_i64": ("SlickDequeNonInv", max_i64, int64),
    "noninv-min_i64": ("SlickDequeNonInv", min_i64, int64),
    "noninv-max": ("SlickDequeNonInv", max_monoid, small),  # generic, non-invertible
    "noninv-first": ("SlickDequeNonInv", first, small),  # generic, non-commutative, non-invertible
    "noninv-max_f64-lowered": ("SlickDequeNonInv", lambda: replace(max_f64(), lower=lambda x: -x), extreme),
    "inv-sum_f64": ("SlickDequeInv", sum_f64, finite),  # with the periodic recomputation
    "inv-sum_i64": ("SlickDequeInv", sum_i64, int64),  # wrapping
    "inv-sum": ("SlickDequeInv", sum_monoid, small),  # generic group
    "inv-affine": ("SlickDequeInv", affine, st.tuples(nonzero, small)),  # generic, non-commutative group
}


def _bits(x: Any) -> Any:
    """``x`` with every float as its IEEE bits (so -0.0 ≠ 0.0 and NaN == NaN), recursively."""
    if isinstance(x, float):
        return struct.pack("<d", x)
    if isinstance(x, (tuple, list)):
        return tuple(_bits(v) for v in x)
    if isinstance(x, dict):
        return {k: _bits(v) for k, v in x.items()}
    if hasattr(x, "__dataclass_fields__"):
        return (type(x).__name__, _bits(tuple(getattr(x, f) for f in x.__dataclass_fields__)))
    return x


def _state(agg: Any) -> Any:
    return (
        _bits(agg.snapshot()),
        len(agg),
        agg.combine_count,
        getattr(agg, "inverse_count", 0),
    )


def _make(impl: str, case: str, ranges: Any = None) -> Any:
    cls_name, factory, _ = CASES[case]
    return getattr(IMPLS[impl], cls_name)(factory(), ranges)


@pytest.mark.parametrize("impl", list(IMPLS))
@pytest.mark.parametrize("case", list(CASES))
@given(data=st.data(), window=st.integers(1, 9), capacity=st.booleans())
def test_shift_is_evict_insert_query(impl: str, case: str, data: st.DataObject, window: int, capacity: bool) -> None:
    """Each shift answers, counts and snapshots like ``evict(); insert(v); query()`` on a twin, and like the other
    implementation's shift; in capacity mode (``ranges=[window]``) too."""
    values = data.draw(st.lists(CASES[case][2], min_size=window, max_size=window + 40))
    ranges = [window] if capacity else None
    other = "reference" if impl == "optimized" else "optimized"
    shifted, three, twin = _make(impl, case, ranges), _make(impl, case, ranges), _make(other, case, ranges)
    for agg in (shifted, three, twin):
        agg.insert_many(values[:window])
    for v in values[window:]:
        got = shifted.shift(v)
        three.evict()
        three.insert(v)
        want = three.query()
        assert _bits(got) == _bits(want)
        assert _bits(twin.shift(v)) == _bits(want)
        assert _state(shifted) == _state(three) == _state(twin)
        assert len(shifted) == window


#: a value every case accepts, and one it refuses (with the error ``insert`` raises for it)
_GOOD: dict[str, Any] = {
    "max_f64": 1.0,
    "min_f64": 1.0,
    "max_i64": 1,
    "min_i64": 1,
    "max": 1,
    "first": 1,
    "sum_f64": 1.0,
    "sum_i64": 1,
    "sum": 1,
    "affine": (2, 1),
}
_BAD: dict[str, list[Any]] = {
    "max_f64": ["x", math.nan, None],
    "min_f64": ["x", math.nan],
    "max_i64": [2**63, 1.5, "x"],
    "min_i64": [-(2**63) - 1, 1.0],
    "max": [math.nan, float("nan")],
    "sum_f64": [math.nan, "x"],
    "sum_i64": [2**63, 0.5],
    "sum": [math.nan, "x"],
    "affine": [(0, 1), 3, ("a", 1)],
}


@pytest.mark.parametrize("impl", list(IMPLS))
@pytest.mark.parametrize("case", list(CASES))
def test_shift_on_an_empty_window_changes_nothing(impl: str, case: str) -> None:
    agg = _make(impl, case)
    value = _GOOD[CASES[case][1]().name]
    for prepare in (lambda: None, lambda: (agg.insert(value), agg.evict())):
        prepare()
        before = _state(agg)
        with pytest.raises(EmptyWindowError, match=r"shift\(\) on an empty window"):
            agg.shift(value)
        assert _state(agg) == before
        assert _bits(agg.query()) == _bits(_make(impl, case).query())


@pytest.mark.parametrize("impl", list(IMPLS))
@pytest.mark.parametrize("case", [c for c in CASES if CASES[c][1]().name in _BAD])
@pytest.mark.parametrize("size", [0, 1, 3])
def test_a_refused_value_changes_nothing(impl: str, case: str, size: int) -> None:
    """Validated (lifted) before anything, with ``insert``'s error; even on an empty window (the value's error
    comes first, as the reference lifts first)."""
    name = CASES[case][1]().name
    agg, probe = _make(impl, case), _make(impl, case)
    for _ in range(size):
        agg.insert(_GOOD[name])
    for bad in _BAD[name]:
        with pytest.raises(Exception) as by_insert:
            probe.insert(bad)
        before = _state(agg)
        with pytest.raises(type(by_insert.value)):
            agg.shift(bad)
        assert _state(agg) == before
    assert len(agg) == size


class Poison(Exception):
    """What the poisoned ``combine`` raises."""


#: the poisoned value: the only Fraction the raising tests use (their aggregates of ints are never Fractions)
POISON = Fraction(1, 3)


def _poisoned(monoid: Monoid[Any, Any, Any]) -> Monoid[Any, Any, Any]:
    """``monoid`` (generic) whose ``combine`` raises when an operand is ``POISON``."""
    combine = monoid.combine

    def guarded(a: Any, b: Any) -> Any:
        if isinstance(a, Fraction) or isinstance(b, Fraction):
            raise Poison
        return combine(a, b)

    return replace(monoid, combine=guarded, fast_path=None)


# generic cases whose ``combine`` sees the new value during the insertion, with a model of the window's answer
RAISING: dict[str, tuple[str, Callable[[], Monoid[Any, Any, Any]], Callable[[list[int]], Any]]] = {
    "noninv-max": ("SlickDequeNonInv", max_monoid, max),
    "noninv-first": ("SlickDequeNonInv", first, lambda w: w[0]),
    "inv-sum": ("SlickDequeInv", sum_monoid, sum),
}


@pytest.mark.parametrize("case", list(RAISING))
@given(values=st.lists(st.integers(-9, 9), min_size=2, max_size=12), after=st.lists(st.integers(-9, 9), max_size=12))
def test_a_raising_insertion_keeps_the_eviction(case: str, values: list[int], after: list[int]) -> None:
    """The eviction stays done (one shorter, the snapshot of a twin that only evicted; the failed ⊗ counted alike
    in both implementations), the note says so, and the structure keeps answering like a model of the window."""
    cls_name, factory, model = RAISING[case]
    monoid = _poisoned(factory())
    states = []
    for mod in IMPLS.values():
        agg, evicted = getattr(mod, cls_name)(monoid), getattr(mod, cls_name)(monoid)
        agg.insert_many(values)
        evicted.insert_many(values)
        evicted.evict()
        with pytest.raises(Poison) as caught:
            agg.shift(POISON)
        note = f"swagkit {type(agg).algorithm}: shift evicted the oldest value, then the insertion raised"
        assert note in caught.value.__notes__
        assert len(agg) == len(values) - 1
        assert _bits(agg.snapshot()) == _bits(evicted.snapshot())
        assert agg.combine_count >= evicted.combine_count
        states.append(_state(agg))
        window = values[1:]
        for v in after:
            if window:
                window = window[1:] + [v]
                assert agg.shift(v) == model(window)
            else:
                window = [v]
                agg.insert(v)
            assert agg.query() == model(window)
            assert len(agg) == len(window)
    assert states[0] == states[1]


@pytest.mark.parametrize("impl", list(IMPLS))
@pytest.mark.parametrize("cls_name", ["SlickDequeNonInv", "SlickDequeInv"])
def test_shift_is_guarded(impl: str, cls_name: str) -> None:
    """A ``lift`` that re-enters the structure is refused under the name ``shift``, before anything changes."""
    holder: list[Any] = []
    reenter = 99

    def lift(x: Any) -> Any:
        if x == reenter:
            holder[0].shift(1)
        return x

    base = max_monoid() if cls_name == "SlickDequeNonInv" else sum_monoid()
    agg = getattr(IMPLS[impl], cls_name)(replace(base, lift=lift))
    holder.append(agg)
    agg.insert_many([1, 2, 3])
    before = _state(agg)
    with pytest.raises(ReentrantCallError, match=r"shift\(\) called while"):
        agg.shift(reenter)
    assert _state(agg) == before
    assert agg.shift(4) == (4 if cls_name == "SlickDequeNonInv" else 2 + 3 + 4)


def test_shift_matches_a_window_model_over_a_long_run() -> None:
    """Hundreds of shifts over a window of 50 (the compiled ring wraps and grows): max, min and exact int sum
    agree with Python's own over the same window, in both implementations."""
    xs = [(i * 7919) % 1013 - 500 for i in range(600)]
    for mod in IMPLS.values():
        for cls_name, monoid, fold in (
            ("SlickDequeNonInv", max_i64(), max),
            ("SlickDequeNonInv", min_i64(), min),
            ("SlickDequeInv", sum_i64(), sum),
            ("SlickDequeNonInv", max_f64(), lambda w: float(max(w))),
        ):
            agg = getattr(mod, cls_name)(monoid)
            agg.insert_many(xs[:50])
            got = [agg.shift(v) for v in xs[50:]]
            assert got == [fold(xs[i - 49 : i + 1]) for i in range(50, len(xs))]


_RUNS = st.lists(
    st.tuples(st.sampled_from(["up", "down", "flat", "random"]), st.integers(1, 40)), min_size=1, max_size=8
)


@pytest.mark.parametrize("monoid", [max_f64, min_f64, max_i64, min_i64], ids=lambda f: f.__name__)
@given(data=st.data(), window=st.integers(1, 70) | st.just(10**30), runs=_RUNS)
def test_window_array_fresh_kernel(
    monoid: Callable[[], Monoid[Any, Any, Any]], data: st.DataObject, window: int, runs: list[tuple[str, int]]
) -> None:
    """``window_array`` of the Non-Inv over monotone runs (the deque as long as the window, so its buffer is
    compacted), ties, signed zeros and infinities: bit-identical to the reference driver."""
    floats = monoid().name.endswith("f64")
    pool = extreme if floats else int64
    xs: list[Any] = []
    for shape, length in runs:
        if shape == "random":
            xs += data.draw(st.lists(pool, min_size=length, max_size=length))
        else:
            step = {"up": 1, "down": -1, "flat": 0}[shape]
            start = data.draw(st.integers(-5, 5))
            xs += [(float(start + step * i) if floats else start + step * i) for i in range(length)]
    xs = [(-0.0 if floats and x == 0 and data.draw(st.booleans()) else x) for x in xs]
    want = ref.window_array(ref.SlickDequeNonInv, monoid(), xs, window)
    got = opt.window_array(opt.SlickDequeNonInv, monoid(), xs, window)
    assert _bits(list(got)) == _bits(list(want))
    # the values a fold of each window gives (== only: which of two equal zeros wins is Algorithm 2's choice)
    assert list(got) == [reduce(monoid().combine, xs[max(0, i - window + 1) : i + 1]) for i in range(len(xs))]
