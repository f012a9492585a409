"""Every structure pickles and copies (issue 12, guarantee 5): ``pickle``, ``copy.copy`` and ``copy.deepcopy``
give a structure with the same snapshot, length, answers and ``combine_count``, independent of the original, in
both implementations and on the typed fast paths; a pickle is flat (a window of 10^5 values does not recurse).
"""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable
from typing import Any

import pytest
from hardening import CASES_BY_ID, TEST_MONOIDS, Case, apply

from swagkit.spec.library import max_i64, sum_f64
from swagkit.spec.monoid import Monoid

CASES = list(CASES_BY_ID.values())

ROUND_TRIPS: dict[str, Callable[[Any], Any]] = {
    "pickle": lambda a: pickle.loads(pickle.dumps(a, protocol=pickle.HIGHEST_PROTOCOL)),
    "copy": copy.copy,
    "deepcopy": copy.deepcopy,
}


def _monoids(case: Case) -> list[tuple[Monoid[Any, Any, Any], list[Any]]]:
    """The library test monoid the algorithm supports, plus typed kinds where it takes them (fast paths)."""
    out = []
    for factory, values in TEST_MONOIDS:
        m = factory()
        if case.info.supports(m):
            out.append((m, list(values)))
            break
    for m, values in ((sum_f64(), [1.5, -2.0, 0.25, 8.0]), (max_i64(), [3, -7, 12, 5])):
        if case.info.supports(m) and case.kind.name != "tree":
            out.append((m, values))
    return out


def _updates(kind: str, values: list[Any]) -> list[tuple[Any, ...]]:
    """A few updates valid in any state of the kind (for the independence check)."""
    v = values[0]
    if kind == "fifo":
        return [("insert", v), ("insert", v), ("evict",)]
    if kind == "handles":
        return [("insert_with_handle", v), ("insert_with_handle", v), ("evict",)]
    if kind == "out_of_order":
        return [("insert", 1000, v), ("insert", -1000, v), ("evict",)]
    return [("update", [(0, v), (3, v)])]


@pytest.mark.parametrize("how", sorted(ROUND_TRIPS))
@pytest.mark.parametrize("case", CASES, ids=str)
def test_round_trip_keeps_state_and_independence(case: Case, how: str) -> None:
    for monoid, values in _monoids(case):
        kind = case.kind
        if kind.name == "tree":
            agg = case.cls(monoid, [values[i % len(values)] for i in range(16)], **case.info.params)
        else:
            agg, _ = kind.build(case.cls, monoid, **case.info.params)  # SlickDeque with ranges, as the script asks
        script = kind.script(agg, values, 1)
        half = len(script) // 2
        for op in script[:half]:
            apply(agg, op)
        state = kind.observe(agg)
        count = agg.combine_count
        twin = ROUND_TRIPS[how](agg)
        assert type(twin) is type(agg)
        assert agg.combine_count == count, f"{how} changed the original's combine_count"
        assert twin.combine_count == count
        for counter in ("touched_count", "inverse_count"):  # FiBA's node visits, SlickDeque Inv's inverses
            if hasattr(agg, counter):
                assert getattr(twin, counter) == getattr(agg, counter), f"{how} lost {counter}"
        assert kind.observe(twin) == state, f"{case} {monoid.name}: {how} changed the state"
        for op in script[half:]:
            assert apply(twin, op) == apply(agg, op), f"{case} {monoid.name}: {how} answers differently at {op!r}"
        assert kind.observe(twin) == kind.observe(agg)
        # independence: updating the twin leaves the original as it was (and the other way round)
        before, twin_before = kind.observe(agg), kind.observe(twin)
        for op in _updates(kind.name, values):
            apply(twin, op)
        assert kind.observe(agg) == before, f"{case} {monoid.name}: updating the {how} changed the original"
        for op in _updates(kind.name, values):
            apply(agg, op)
        assert kind.observe(twin) != twin_before or kind.name == "tree"
        assert kind.observe(twin) == kind.observe(agg)


@pytest.mark.parametrize("case", [c for c in CASES if c.kind.name in ("fifo", "handles")], ids=str)
def test_large_window_pickles_flat(case: Case) -> None:
    """10^5 values: a structure's own object graph (linked chunks) would exceed the recursion limit. (Monoids
    with O(1)-size aggregates: string concatenation would make this quadratic.)"""
    for factory, values in reversed(TEST_MONOIDS):  # noqa: B007 (the break keeps the pair)
        m = factory()
        if case.info.supports(m):
            break
    agg = case.cls(m, **case.info.params)
    agg.insert_many([values[i % len(values)] for i in range(100_000)])
    agg.evict()
    twin = pickle.loads(pickle.dumps(agg))
    assert len(twin) == len(agg) and twin.query() == agg.query()
    assert copy.copy(agg).snapshot() == agg.snapshot()
