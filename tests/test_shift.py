"""``shift(value)`` of the in-order SWAGs (Two-Stacks, Two-Stacks Lite, DABA, DABA Lite, FlatFIT,
subtract-on-evict): ``evict(); insert(value); query()`` in one call, on both twins, and its face in verify/.

A structure driven by ``shift`` must answer, count (``combine_count``) and snapshot exactly like a twin driven by
the three calls and like the other implementation's ``shift``, over typed kinds (the C paths of the compiled
classes) and generic monoids, among them non-commutative (``string_concat``, ``affine``) and non-invertible
(``max``, ``string_concat``) ones. An empty window or a refused value changes nothing; a ``combine`` raising in
the insertion leaves the eviction done (a note says so), raising in the query leaves the window shifted. The
debug wrapper checks a user's ``shift`` (and catches one that forgets to evict), the machine drives it, and
replay files carry it.
"""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import swagkit.optimized as opt
import swagkit.reference as ref
from swagkit.spec.errors import EmptyWindowError, ReentrantCallError
from swagkit.spec.library import affine, max_f64, max_monoid, string_concat, sum_f64, sum_i64, sum_monoid
from swagkit.spec.monoid import Monoid
from swagkit.verify import checked
from swagkit.verify.errors import ModelMismatch
from swagkit.verify.replay import run as run_replay

IMPLS: dict[str, ModuleType] = {"optimized": opt, "reference": ref}
CLASSES = ["TwoStacks", "TwoStacksLite", "DABA", "DABALite", "FlatFIT"]

floats = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False)
ints = st.integers(-(2**40), 2**40)
pairs = st.tuples(st.integers(-5, 5).filter(bool), st.integers(-5, 5))
letters = st.text(alphabet="abc", min_size=1, max_size=2)

#: monoid id -> (factory, values); sum_f64/max_f64/sum_i64 are typed kinds (C paths), the rest generic
MONOIDS: dict[str, tuple[Callable[[], Monoid[Any, Any, Any]], st.SearchStrategy[Any]]] = {
    "sum_f64": (sum_f64, floats),
    "max_f64": (max_f64, floats),
    "sum_i64": (sum_i64, ints),
    "string_concat": (string_concat, letters),
    "affine": (affine, pairs),
    "max": (max_monoid, st.integers(-9, 9)),
}


def _pairs_of_twins() -> list[tuple[str, str, str]]:
    return [(impl, name, mid) for impl in IMPLS for name in CLASSES for mid in MONOIDS]


@pytest.mark.parametrize(("impl", "name", "mid"), _pairs_of_twins())
@given(data=st.data(), size=st.integers(1, 80))
def test_shift_is_evict_insert_query(impl: str, name: str, mid: str, data: st.DataObject, size: int) -> None:
    factory, values = MONOIDS[mid]
    cls = getattr(IMPLS[impl], name)
    other = getattr(IMPLS["reference" if impl == "optimized" else "optimized"], name)
    seed = data.draw(st.lists(values, min_size=size, max_size=size))
    stream = data.draw(st.lists(values, max_size=200))
    by_shift, by_steps, twin = cls(factory()), cls(factory()), other(factory())
    for agg in (by_shift, by_steps, twin):
        agg.insert_many(seed)
    for v in stream:
        got = by_shift.shift(v)
        by_steps.evict()
        by_steps.insert(v)
        assert got == by_steps.query() == twin.shift(v)
        assert by_shift.combine_count == by_steps.combine_count == twin.combine_count
    assert by_shift.snapshot() == by_steps.snapshot() == twin.snapshot()
    assert len(by_shift) == size


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("name", ["SubtractOnEvict", *CLASSES])
def test_shift_of_an_exact_group(impl: str, name: str) -> None:
    """Subtract-on-evict (an exact group: int sums) shifts like the others."""
    cls = getattr(IMPLS[impl], name)
    a, b = cls(sum_monoid()), cls(sum_i64())
    a.insert_many(range(10))
    b.insert_many(range(10))
    assert (
        [a.shift(v) for v in range(10, 100)]
        == [b.shift(v) for v in range(10, 100)]
        == [sum(range(v - 9, v + 1)) for v in range(10, 100)]
    )


def _checked_str() -> Monoid[Any, Any, Any]:
    """``string_concat`` whose ``lift`` refuses non-strings (a generic monoid that validates its input)."""
    base = string_concat()

    def lift(v: Any) -> str:
        if not isinstance(v, str):
            raise TypeError(f"not a str: {v!r}")
        return v

    return Monoid(identity="", combine=base.combine, lift=lift, lower=base.lower, name="checked_str")


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("name", CLASSES)
@pytest.mark.parametrize("mid", ["sum_f64", "checked_str"])
def test_empty_window_and_refused_value_change_nothing(impl: str, name: str, mid: str) -> None:
    factory = sum_f64 if mid == "sum_f64" else _checked_str
    agg = getattr(IMPLS[impl], name)(factory())
    good, bad = (1.5, "x") if mid == "sum_f64" else ("a", 7)
    with pytest.raises(EmptyWindowError, match=r"shift\(\) on an empty window"):
        agg.shift(good)
    with pytest.raises((TypeError, ValueError)):  # the value is checked before the window
        agg.shift(bad)
    assert len(agg) == 0 and agg.combine_count == 0
    agg.insert_many([good, good])
    before = (agg.snapshot(), agg.combine_count)
    with pytest.raises((TypeError, ValueError)):
        agg.shift(bad)
    assert (agg.snapshot(), agg.combine_count) == before
    agg.shift(good)
    assert len(agg) == 2


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("name", CLASSES)
def test_a_value_combine_refuses_leaves_the_eviction_done(impl: str, name: str) -> None:
    """``string_concat`` lifts anything and ``"ab" + 7`` raises: shift ends where ``evict(); insert(7);
    query()`` stops -- raising in the insertion (the eviction stays done, noted on the exception, 7 not kept),
    or, for FlatFIT whose ⊗ are all in queries, in the query (7 kept, as ``insert(7)`` keeps it)."""
    agg, twin = (getattr(IMPLS[impl], name)(string_concat()) for _ in range(2))
    agg.insert_many("abc")
    twin.insert_many("abc")
    with pytest.raises(TypeError) as info:
        agg.shift(7)
    twin.evict()
    with pytest.raises(TypeError):
        twin.insert(7)
        twin.query()
    assert agg.snapshot() == twin.snapshot() and agg.combine_count == twin.combine_count
    notes = getattr(info.value, "__notes__", [])
    assert (len(agg) == 2) == any("shift evicted the oldest value" in n for n in notes)
    if len(agg) == 2:
        assert agg.query() == "bc" and agg.shift("d") == "cd"
    else:
        agg.evict_many(2)
        assert len(agg) == 1 and agg.query() == 7  # the window is [7], and 7 leaves by eviction as usual
        agg.evict()
        assert agg.query() == "" and len(agg) == 0


class _Faulty:
    """``string_concat`` whose ``combine`` raises at chosen call numbers (counted from the arming)."""

    def __init__(self) -> None:
        base = string_concat()
        self.identity, self.lift, self.lower = base.identity, base.lift, base.lower
        self.calls, self.fail_at = 0, -1

    def combine(self, a: str, b: str) -> str:
        self.calls += 1
        if self.calls == self.fail_at:
            raise ArithmeticError("planted")
        return a + b


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("name", CLASSES)
def test_combine_raising_inside_shift_leaves_a_consistent_window(impl: str, name: str) -> None:
    """Whichever ⊗ of a shift raises, the structure ends as before it, as after its eviction (one shorter, with
    the note), or as after it: and it answers like that window from then on."""
    window = list("abcdefghij")
    for k in range(1, 40):
        m = _Faulty()
        agg = getattr(IMPLS[impl], name)(m)
        agg.insert_many(window)
        for v in "klmnop":  # some history, so flips and fixups are under way
            agg.shift(v)
        held = [*window, *"klmnop"][-len(window) :]
        m.calls, m.fail_at = 0, k
        try:
            agg.shift("z")
        except ArithmeticError as err:
            notes = getattr(err, "__notes__", [])
            if len(agg) == len(held) - 1:
                held = held[1:]
                assert any("shift evicted the oldest value" in n for n in notes)
            elif agg.query() == "".join([*held[1:], "z"]):
                held = [*held[1:], "z"]
        else:
            held = [*held[1:], "z"]
        m.fail_at = -1
        assert agg.query() == "".join(held), (k, agg.query(), held)
        for v in "qrs":
            held = [*held[1:], v]
            assert agg.shift(v) == "".join(held)


@pytest.mark.parametrize("impl", IMPLS)
def test_reentry_from_shift_is_refused(impl: str) -> None:
    box: list[Any] = []
    base = string_concat()

    def combine(a: str, b: str) -> str:
        if box:
            box.pop().shift("r")
        return a + b

    m = Monoid(identity="", combine=combine, lift=base.lift, lower=base.lower, name="reentrant")
    agg = IMPLS[impl].TwoStacks(m)
    agg.insert_many("abc")
    box.append(agg)
    with pytest.raises(ReentrantCallError, match="shift"):
        agg.shift("d")


# --- verify/: the debug wrapper, the machine, replay ------------------------------------------------------------


class ForgetsToEvict:
    """A user's window (a list) whose ``shift`` inserts and answers but forgets to evict once it holds 5."""

    def __init__(self, monoid: Monoid[Any, Any, Any]) -> None:
        self.monoid, self.items = monoid, []  # type: list[Any]

    def insert(self, v: Any) -> None:
        self.items.append(self.monoid.lift(v))

    def evict(self) -> None:
        if not self.items:
            raise EmptyWindowError("empty")
        self.items.pop(0)

    def query(self) -> Any:
        out = self.monoid.identity
        for x in self.items:
            out = self.monoid.combine(out, x)
        return self.monoid.lower(out)

    def shift(self, v: Any) -> Any:
        if not self.items:
            raise EmptyWindowError("empty")
        if len(self.items) != 5:
            self.items.pop(0)
        self.items.append(self.monoid.lift(v))
        return self.query()

    def __len__(self) -> int:
        return len(self.items)


def test_debug_wrapper_catches_a_shift_that_forgets_to_evict() -> None:
    w = checked(ForgetsToEvict(string_concat()))
    w.insert_many("abcd")
    assert w.shift("e") == "bcde"
    w.insert("f")
    with pytest.raises(ModelMismatch, match=r"shift\('g'\)"):
        w.shift("g")


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("name", CLASSES)
def test_debug_wrapper_checks_shift_budget_and_invariants(impl: str, name: str) -> None:
    w = checked(getattr(IMPLS[impl], name)(string_concat()))
    assert "budget" in w.active_checks and "invariants" in w.active_checks
    with pytest.raises(EmptyWindowError):
        w.shift("a")
    w.insert_many("abcdefgh")
    out = [w.shift(c) for c in "ijklmnopqrstuvwxyz" * 4]
    assert out[-1] == ("ijklmnopqrstuvwxyz" * 4)[-8:]


def test_debug_wrapper_without_an_own_shift_uses_the_three_operations() -> None:
    class NoShift(ForgetsToEvict):
        shift = None  # type: ignore[assignment]

    w = checked(NoShift(string_concat()))
    w.insert_many("abc")
    assert w.shift("d") == "bcd"
    assert w.operations == 4  # insert_many, then evict, insert, query


def test_replay_file_with_shift(tmp_path: Any) -> None:
    """A replay file's ``shift`` runs through the wrapper, its ``expect`` is the query's answer."""
    lines = [
        {"swagkit_replay": 1, "kind": "fifo", "monoid": "string_concat", "impl": f"{__name__}:ForgetsToEvict"},
        {"op": "insert_many", "values": ["a", "b", "c", "d"]},
        {"op": "shift", "value": "e", "expect": "bcde"},
        {"op": "insert", "value": "f"},
        {"op": "shift", "value": "g", "expect": "cdefg"},
    ]
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    out = io.StringIO()
    assert run_replay(str(path), ForgetsToEvict, out=out) == 1
    assert "shift('g')" in out.getvalue(), out.getvalue()
    lines[-1]["expect"] = "defg"  # what ForgetsToEvict answers: the model (not the file) must catch it
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    out = io.StringIO()
    assert run_replay(str(path), ForgetsToEvict, out=out) == 1
    good = [x for x in lines if x.get("op") != "insert"]
    good[-1]["expect"] = "cdeg"  # window 4: no insert first, so ForgetsToEvict evicts as it should
    path.write_text("\n".join(json.dumps(x) for x in good) + "\n")
    assert run_replay(str(path), ForgetsToEvict, out=io.StringIO()) == 0


@pytest.mark.parametrize("k", range(1, 4))
def test_wrapper_credits_a_shift_that_failed_over_equal_values(k: int) -> None:
    """Regression (found by ``swagkit verify``, two_stacks × geomean): a ⊗ failing in the query of a ``shift``
    over equal values leaves a shifted window that no check can tell from the old one; the wrapper must still
    credit the two steps, or the element's later flip is billed against nothing (a false BudgetExceeded)."""
    m = _Faulty()
    monoid = Monoid(identity="", combine=m.combine, lift=m.lift, lower=m.lower, name="faulty_concat")
    w = checked(ref.TwoStacks(monoid), monoid=string_concat())  # the model's ⊗ must not fail with the structure's
    assert "budget" in w.active_checks
    w.insert_many("aaaaaa")
    w.evict_many(3)  # the flip is done: the front stack holds the three
    m.calls, m.fail_at = 0, k
    with contextlib.suppress(ArithmeticError):  # k may fall in the eviction, the insertion, the query, or past them
        w.shift("a")
    m.fail_at = -1
    while len(w):
        w.evict()
        assert w.query() == "a" * len(w)
