"""The spec layer itself: the model, the pointer deque, the checkers (each invariant is named when broken),
the timestamped wrapper and documented errors."""

from __future__ import annotations

import dataclasses
import random
import types
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import swagkit.optimized
import swagkit.reference
from swagkit.reference.chunked_deque import CHUNK, ChunkedDeque
from swagkit.spec import (
    CHECKERS,
    EmptyWindowError,
    FifoSwag,
    InvariantViolation,
    OutOfOrderError,
    TimestampedWindow,
    fold,
)
from swagkit.spec.library import string_concat, sum_monoid

IMPLEMENTATIONS = [pytest.param(swagkit.reference, id="reference"), pytest.param(swagkit.optimized, id="optimized")]
CLASSES = ["Recalc", "TwoStacks", "TwoStacksLite", "DABA", "DABALite"]


# ---------------------------------------------------------------------------------------------- the model


def test_model_queries_the_ordered_product_and_identity_when_empty() -> None:
    m = FifoSwag(string_concat())
    assert m.query() == ""  # 000 §2.1: "If the window is empty, it returns 1"
    for ch in "xyz":
        m.insert(ch)
    assert m.query() == "xyz"
    m.evict()
    assert m.query() == "yz" and len(m) == 2
    assert fold(string_concat(), ["p", "q", "r"]) == "pqr"


@given(st.lists(st.one_of(st.text("ab", min_size=1), st.none()), max_size=60))
def test_model_matches_a_plain_list(ops: list[str | None]) -> None:
    m = FifoSwag(string_concat())
    shadow: list[str] = []
    for op in ops:
        if op is None:
            if shadow:
                m.evict()
                shadow.pop(0)
        else:
            m.insert(op)
            shadow.append(op)
        assert m.query() == "".join(shadow)


# ---------------------------------------------------------------------------------------------- pointer deque


@given(st.lists(st.integers(min_value=0, max_value=3 * CHUNK), min_size=1, max_size=8))
def test_chunked_deque_pointers_cross_chunk_boundaries(bursts: list[int]) -> None:
    d: ChunkedDeque[int] = ChunkedDeque()
    shadow: list[int] = []
    counter = 0
    for i, k in enumerate(bursts):
        if i % 2 == 0:
            for _ in range(k):
                d.push_back(counter)
                shadow.append(counter)
                counter += 1
        else:
            for _ in range(min(k, len(shadow))):
                d.pop_front()
                shadow.pop(0)
        assert d.to_list() == shadow and len(d) == len(shadow)
        # walk forward from F to E and back again with single steps
        p, steps = d.front(), 0
        while p != d.end():
            assert d.get(p) == shadow[steps] and d.offset(p) == steps
            p, steps = p + 1, steps + 1
        assert steps == len(shadow)
        while p != d.front():
            p = p - 1
            steps -= 1
            assert d.get(p) == shadow[steps]


def test_chunked_deque_pointers_move_one_step_only() -> None:
    d: ChunkedDeque[int] = ChunkedDeque()
    d.push_back(1)
    with pytest.raises(ValueError):
        d.front() + 2


# ---------------------------------------------------------------------------------------------- checkers


def _healthy(cls: str) -> tuple[Any, list[str]]:
    agg = getattr(swagkit.reference, cls)(string_concat())
    for ch in "abcdefghij":
        agg.insert(ch)
    for _ in range(3):
        agg.evict()
    for ch in "klmno":
        agg.insert(ch)
    agg.evict()
    return agg.snapshot(), list("efghijklmno")


def _set(seq: tuple[Any, ...], i: int, value: Any) -> tuple[Any, ...]:
    out = list(seq)
    out[i] = value
    return tuple(out)


CORRUPTIONS: list[tuple[str, str, Callable[[Any], Any]]] = [
    ("two_stacks", "F.val", lambda s: dataclasses.replace(s, front=_set(s.front, 0, ("X", s.front[0][1])))),
    ("two_stacks", "F.agg", lambda s: dataclasses.replace(s, front=_set(s.front, 1, (s.front[1][0], "X")))),
    ("two_stacks", "B.val", lambda s: dataclasses.replace(s, back=_set(s.back, 0, ("X", s.back[0][1])))),
    ("two_stacks", "B.agg", lambda s: dataclasses.replace(s, back=_set(s.back, 1, (s.back[1][0], "X")))),
    ("two_stacks", "size", lambda s: dataclasses.replace(s, back=s.back[:-1])),
    ("two_stacks_lite", "lF", lambda s: dataclasses.replace(s, deque=_set(s.deque, 0, "X"))),
    ("two_stacks_lite", "lB", lambda s: dataclasses.replace(s, deque=_set(s.deque, s.B, "X"))),
    ("two_stacks_lite", "aggB", lambda s: dataclasses.replace(s, aggB="X")),
    ("two_stacks_lite", "pointer order", lambda s: dataclasses.replace(s, B=s.E + 1)),
    ("daba", "values", lambda s: dataclasses.replace(s, vals=_set(s.vals, 2, "X"))),
    ("daba", "lF", lambda s: dataclasses.replace(s, aggs=_set(s.aggs, s.F, "X"))),
    ("daba", "lL", lambda s: dataclasses.replace(s, aggs=_set(s.aggs, s.L, "X"))),
    ("daba", "lR", lambda s: dataclasses.replace(s, aggs=_set(s.aggs, s.R, "X"))),
    ("daba", "lA", lambda s: dataclasses.replace(s, aggs=_set(s.aggs, s.A, "X"))),
    ("daba", "lB", lambda s: dataclasses.replace(s, aggs=_set(s.aggs, s.B, "X"))),
    ("daba", "pointer order", lambda s: dataclasses.replace(s, L=s.R + 1)),
    ("daba_lite", "lF", lambda s: dataclasses.replace(s, deque=_set(s.deque, s.F, "X"))),
    ("daba_lite", "lL", lambda s: dataclasses.replace(s, deque=_set(s.deque, s.L, "X"))),
    ("daba_lite", "lR", lambda s: dataclasses.replace(s, deque=_set(s.deque, s.R, "X"))),
    ("daba_lite", "aggRA", lambda s: dataclasses.replace(s, aggRA="X")),
    ("daba_lite", "lA", lambda s: dataclasses.replace(s, deque=_set(s.deque, s.A, "X"))),
    ("daba_lite", "lB", lambda s: dataclasses.replace(s, deque=_set(s.deque, s.B, "X"))),
    ("daba_lite", "aggB", lambda s: dataclasses.replace(s, aggB="X")),
    ("recalc", "values", lambda s: dataclasses.replace(s, values=_set(s.values, 0, "X"))),
]

_CLASS_OF = {
    "two_stacks": "TwoStacks",
    "two_stacks_lite": "TwoStacksLite",
    "daba": "DABA",
    "daba_lite": "DABALite",
    "recalc": "Recalc",
}


def _state_with_all_sublists(algorithm: str) -> tuple[Any, list[str]]:
    """A healthy state in which every sublist the corruption touches is non-empty."""
    cls = getattr(swagkit.reference, _CLASS_OF[algorithm])
    rng = random.Random(3)
    for _ in range(2000):
        agg = cls(string_concat())
        model = FifoSwag(string_concat())
        for _step in range(rng.randint(5, 60)):
            if len(agg) and rng.random() < 0.4:
                agg.evict()
                model.evict()
            else:
                ch = rng.choice("abcdefgh")
                agg.insert(ch)
                model.insert(ch)
        s = agg.snapshot()
        if algorithm in ("daba", "daba_lite"):
            if not (s.F < s.L < s.R < s.A < s.B < s.E):
                continue
        elif algorithm == "two_stacks":
            if len(s.front) < 2 or len(s.back) < 2:
                continue
        elif algorithm == "two_stacks_lite":
            if not (s.F < s.B < s.E):
                continue
        elif len(s.values) == 0:
            continue
        return s, model.values()
    raise AssertionError("no suitable state found")


@pytest.mark.parametrize(
    ("algorithm", "invariant", "corrupt"), CORRUPTIONS, ids=[f"{a}-{i}" for a, i, _ in CORRUPTIONS]
)
def test_checker_names_the_broken_invariant(algorithm: str, invariant: str, corrupt: Callable[[Any], Any]) -> None:
    state, window = _state_with_all_sublists(algorithm)
    CHECKERS[algorithm](state, string_concat(), window)  # healthy
    bad = corrupt(state)
    with pytest.raises(InvariantViolation) as info:
        CHECKERS[algorithm](bad, string_concat(), window)
    err = info.value
    assert err.invariant == invariant and err.algorithm == algorithm
    assert err.state == bad and err.wording in str(err)


def test_size_invariant_is_named_when_only_sizes_are_wrong() -> None:
    """Contents consistent with every partial-aggregate invariant, but the whole window sits in lF with
    empty inner sublists: |lL| + |lR| + |lA| + 1 = 1 ≠ 3 = |lF| − |lB|."""
    from swagkit.spec.snapshots import DABALiteState, DABAState

    daba = DABAState(vals=("a", "b", "c"), aggs=("abc", "bc", "c"), F=0, L=3, R=3, A=3, B=3, E=3)
    lite = DABALiteState(deque=("abc", "bc", "c"), F=0, L=3, R=3, A=3, B=3, E=3, aggRA="", aggB="")
    for algorithm, state in (("daba", daba), ("daba_lite", lite)):
        with pytest.raises(InvariantViolation) as info:
            CHECKERS[algorithm](state, string_concat(), ["a", "b", "c"])
        assert info.value.invariant == "size"


def test_checker_rejects_a_window_that_differs_from_the_state() -> None:
    state, window = _healthy("DABALite")
    with pytest.raises(InvariantViolation):
        CHECKERS["daba_lite"](state, string_concat(), window[:-1] + ["Z"])


# ---------------------------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
@pytest.mark.parametrize("cls", CLASSES)
def test_evict_on_empty_raises_and_leaves_the_aggregator_usable(impl: types.ModuleType, cls: str) -> None:
    agg = getattr(impl, cls)(string_concat())
    with pytest.raises(EmptyWindowError):
        agg.evict()
    with pytest.raises(IndexError):  # documented: EmptyWindowError is an IndexError
        agg.evict()
    agg.insert("a")
    agg.insert("b")
    with pytest.raises(EmptyWindowError):
        agg.evict_many(3)
    assert agg.query() == "ab" and len(agg) == 2  # evict_many evicted nothing
    agg.evict_many(2)
    assert agg.query() == "" and len(agg) == 0
    with pytest.raises(ValueError):
        agg.evict_many(-1)
    agg.insert_many("cde")
    assert agg.query() == "cde"


# ---------------------------------------------------------------------------------------------- timestamps


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
@pytest.mark.parametrize("cls", CLASSES)
def test_timestamped_window(impl: types.ModuleType, cls: str) -> None:
    w = TimestampedWindow(getattr(impl, cls)(sum_monoid()))
    with pytest.raises(EmptyWindowError):
        w.oldest()
    with pytest.raises(EmptyWindowError):
        w.youngest()
    for t, v in [(1, 10), (2, 20), (2, 5), (5, 1), (9, 100)]:
        w.insert(t, v)
    with pytest.raises(OutOfOrderError, match="older than the youngest"):
        w.insert(4, 1000)
    # nothing was lost or added by the rejected insert
    assert (len(w), w.query(), w.oldest(), w.youngest()) == (5, 136, 1, 9)
    assert w.evict_older_than(3) == 3  # "evict while older than the bound"
    assert (w.query(), w.oldest(), w.times()) == (101, 5, (5, 9))
    assert w.evict_older_than(3) == 0
    w.evict()
    assert (w.query(), len(w)) == (100, 1)


def test_timestamped_window_rejects_a_monoid_and_a_non_empty_aggregator() -> None:
    with pytest.raises(TypeError, match="not a monoid"):
        TimestampedWindow(sum_monoid())  # type: ignore[arg-type]
    agg = FifoSwag(sum_monoid())
    agg.insert(1)
    with pytest.raises(ValueError, match="empty aggregator"):
        TimestampedWindow(agg)
