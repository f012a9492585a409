"""Debug mode (``checked`` / ``SWAGKIT_CHECK=1``) catches broken state and names the invariant and operation."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from swagkit.reference import DABA, TwoStacks, TwoStacksLite
from swagkit.spec.checkers import CHECKERS
from swagkit.spec.errors import BudgetExceeded, EmptyWindowError, InvariantViolation, ModelMismatch
from swagkit.spec.library import max_i64, string_concat, sum_i64, sum_monoid
from swagkit.spec.snapshots import RecalcState
from swagkit.verify import CheckedAggregator, checked, registry
from swagkit.verify.errors import BudgetExceededAt, InvariantViolationAt, ModelMismatchAt
from swagkit.verify.registry import ENV_VAR, check_enabled

BUILTIN = ["recalc", "two_stacks", "two_stacks_lite", "daba", "daba_lite"]


def _set(obj: Any, name: str, value: Any) -> None:
    setattr(obj, name, value)


# Per algorithm: how to corrupt a reference instance's internals (after insert_many("abcdef"); evict()), and the
# invariant that must then be reported. A new algorithm must add an entry (see test_every_algorithm_is_covered).
CORRUPTIONS: dict[str, list[tuple[str, Callable[[Any], None], str | None]]] = {
    "recalc": [("stored value", lambda a: a._values.__setitem__(0, "X"), "values")],
    "two_stacks": [
        ("F agg", lambda a: _set(a.F[-1], "agg", "X"), "F.agg"),
        ("B val", lambda a: a.B.append(type(a.F[0])("q", "q")), "size"),
    ],
    "two_stacks_lite": [
        ("aggB", lambda a: _set(a, "aggB", "X"), "aggB"),
        ("pointer B", lambda a: _set(a, "B", a.F), None),
    ],
    "daba": [
        ("val", lambda a: _set(a.deque.get(a.F), "val", "X"), "values"),
        ("pointer L", lambda a: _set(a, "L", a.F), None),
    ],
    "daba_lite": [
        ("aggB", lambda a: _set(a, "aggB", "X"), None),
        ("deque slot", lambda a: a.deque.set(a.F, "X"), "lF"),
        ("pointer B", lambda a: _set(a, "B", a.B + 1), None),
    ],
}


def test_every_algorithm_is_covered() -> None:
    assert set(BUILTIN) <= set(registry.algorithm_ids())
    assert set(CORRUPTIONS) == set(BUILTIN)


@pytest.mark.parametrize(
    ("algorithm", "what", "corrupt", "invariant"),
    [pytest.param(a, w, c, i, id=f"{a}-{w}") for a, cases in CORRUPTIONS.items() for w, c, i in cases],
)
def test_corrupted_state_is_caught_at_the_next_operation(
    algorithm: str, what: str, corrupt: Callable[[Any], None], invariant: str | None
) -> None:
    w = checked(registry.create(algorithm, string_concat(), "reference", check=False))
    w.insert_many("abcdef")
    w.evict()
    corrupt(w.inner)
    with pytest.raises(InvariantViolation) as info:
        w.insert("z")
    err = info.value
    assert isinstance(err, InvariantViolationAt)
    if invariant is not None:
        assert err.invariant == invariant
    message = str(err)
    assert message.startswith("after insert('z') (operation #3): ")
    assert f"invariant '{err.invariant}' violated" in message
    assert "paper:" in message and "recent operations: #1 insert_many" in message
    assert (err.operation, err.op_index) == ("insert('z')", 3)


class _BadFlip(TwoStacks):
    """Two-Stacks whose flip combines in the wrong order (a bug only non-commutative monoids expose)."""

    algorithm = "two_stacks"

    def evict(self) -> None:
        self._require_nonempty()
        if not self.F:
            while self.B:
                top = self.B.pop()
                self.F.append(type(top)(top.val, self._otimes(self._pi_F(), top.val)))
        self.F.pop()


def test_bug_is_reported_at_the_operation_that_introduced_it() -> None:
    w = checked(_BadFlip(string_concat()))
    for ch in "abc":
        w.insert(ch)
        w.query()
    with pytest.raises(InvariantViolation, match=re.escape("after evict() (operation #7)")) as info:
        w.evict()
    assert info.value.invariant == "F.agg"


class _WastefulDABA(DABA):
    def query(self) -> Any:
        self._otimes(self._one, self._one)
        return super().query()


def test_budget_exceeded_names_the_operation() -> None:
    w = checked(_WastefulDABA(sum_monoid()))
    w.insert(3)
    with pytest.raises(BudgetExceeded) as info:
        w.query()
    assert isinstance(info.value, BudgetExceededAt)
    assert str(info.value).startswith("after query() (operation #2): daba: query (n=1) used 2 combine calls")
    assert "Theorem 5.2" in str(info.value)


class _AmortizedCheat(TwoStacksLite):
    """Every evict that does not flip wastes n combines: each within the worst case n, but not amortized O(1)."""

    def evict(self) -> None:
        if self.F != self.B:
            for _ in range(len(self)):
                self._otimes(self._one, self._one)
        super().evict()


def test_amortized_budget_is_checked() -> None:
    w = checked(_AmortizedCheat(sum_monoid()))
    w.insert_many(range(20))
    with pytest.raises(BudgetExceeded, match="amortized"):
        for _ in range(20):
            w.evict()


class _ListSum:
    """A user's own aggregator: sums a list; exposes a Recalc-style snapshot. Bug: evict drops the youngest."""

    algorithm = "my_list_sum"

    def __init__(self) -> None:
        self.items: list[int] = []
        self.monoid = sum_monoid()

    def insert(self, v: int) -> None:
        self.items.append(v)

    def evict(self) -> None:
        if not self.items:
            raise EmptyWindowError("empty")
        self.items.pop()  # bug: should be pop(0)

    def query(self) -> int:
        return sum(self.items)

    def __len__(self) -> int:
        return len(self.items)

    def snapshot(self) -> RecalcState:
        return RecalcState(tuple(self.items))


def test_user_aggregator_with_user_checker() -> None:
    w = checked(_ListSum(), checker=CHECKERS["recalc"])
    assert w.active_checks == ("model", "invariants")  # no combine_count, unknown id: no budget
    w.insert_many([1, 2, 3])
    with pytest.raises(InvariantViolation, match=re.escape("after evict() (operation #2)")):
        w.evict()


def test_user_aggregator_without_checker_is_checked_on_queries() -> None:
    w = checked(_ListSum())
    assert w.active_checks == ("model",)
    w.insert_many([1, 2, 3])
    w.evict()  # the state is wrong now, but only a query can tell
    with pytest.raises(ModelMismatch) as info:
        w.query()
    assert isinstance(info.value, ModelMismatchAt)
    assert "after query() (operation #3)" in str(info.value)
    assert "query() returned 3, the model's answer is 5" in str(info.value)


class _NoEmptyCheck(_ListSum):
    def evict(self) -> None:
        if self.items:
            self.items.pop(0)


def test_evict_on_empty_must_raise_empty_window_error() -> None:
    w = checked(_NoEmptyCheck())
    with pytest.raises(ModelMismatch, match="did not raise|returned instead of raising EmptyWindowError"):
        w.evict()


@pytest.mark.parametrize("implementation", registry.available_implementations("daba"))
def test_misuse_raises_documented_errors_and_leaves_state(implementation: str) -> None:
    w = checked(registry.create("daba", string_concat(), implementation, check=False))
    with pytest.raises(EmptyWindowError):
        w.evict()
    w.insert_many("ab")
    with pytest.raises(EmptyWindowError):
        w.evict_many(3)
    with pytest.raises(ValueError):
        w.evict_many(-1)
    assert w.query() == "ab"


@pytest.mark.parametrize("algorithm", BUILTIN)
@pytest.mark.parametrize("implementation", ["reference", "optimized"])
def test_bad_value_leaves_checked_usable(algorithm: str, implementation: str) -> None:
    if registry.resolve_class(algorithm, implementation) is None:
        pytest.skip(f"{implementation} does not provide {algorithm}")
    w = checked(registry.create(algorithm, sum_i64(), implementation, check=False))
    w.insert(1)
    with pytest.raises(TypeError):
        w.insert("x")
    with pytest.raises(OverflowError):
        w.insert(2**70)
    with pytest.raises(TypeError):
        w.insert_many([2, 3, "x", 4])  # a prefix may or may not have been taken: the model follows
    w.insert(5)
    assert w.query() == sum(w.model.values())
    assert len(w) == len(w.model)
    while len(w):
        w.evict()
        w.query()


def test_seeded_wrapper() -> None:
    agg = DABA(string_concat())
    agg.insert_many("abc")
    with pytest.raises(ValueError, match="seed"):
        checked(agg)
    with pytest.raises(InvariantViolation):
        checked(agg, seed="abd")
    w = checked(agg, seed="abc")
    w.evict()
    assert w.query() == "bc"


def test_checked_forwards_attributes_and_is_idempotent() -> None:
    w = checked(DABA(string_concat()))
    assert checked(w) is w
    w.insert("a")
    assert w.algorithm == "daba" and w.combine_count == w.inner.combine_count
    assert w.snapshot() == w.inner.snapshot()
    assert w.active_checks == ("model", "invariants", "budget", "space")
    assert repr(w).startswith("checked(DABA(")


def test_swagkit_check_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_VAR, "1")
    assert check_enabled()
    w = registry.create("two_stacks", "string_concat")
    assert isinstance(w, CheckedAggregator)
    w.insert("a")
    assert w.query() == "a"
    assert not isinstance(registry.create("two_stacks", "string_concat", check=False), CheckedAggregator)
    for off in ("0", "", "false"):
        monkeypatch.setenv(ENV_VAR, off)
        assert not check_enabled()
        assert not isinstance(registry.create("two_stacks", "string_concat"), CheckedAggregator)
    monkeypatch.delenv(ENV_VAR)
    assert isinstance(registry.create("two_stacks", "string_concat", check=True), CheckedAggregator)


def test_docstring_examples() -> None:
    import doctest

    import swagkit.verify.debug

    assert doctest.testmod(swagkit.verify.debug).failed == 0


# issue 23: debug mode infers what it can from the object


@pytest.mark.parametrize("impl", ["reference", "optimized"])
def test_checked_takes_a_multi_query_slickdeque_as_it_was_built(impl: str) -> None:
    import importlib

    cls = importlib.import_module(f"swagkit.{impl}").SlickDequeNonInv
    for contract in (None, "capacity=5,ranges=3/5", {"capacity": 5, "ranges": [3, 5]}):
        w = checked(cls(max_i64(), ranges=(3, 5)), contract=contract)
        for x in (6, 5, 0, 1, 3, 4, 2, 7):  # past the capacity: the oldest leaves by itself
            w.insert(x)
        assert w.query_all() == {5: 7, 3: 7} and len(w) == 5
    w = checked(cls(max_i64(), ranges=(3, 5)), algorithm="slickdeque_noninv_ranges")  # the card's id, own ranges
    for x in (6, 5, 0, 1, 3, 4):
        w.insert(x)
    assert w.query_all() == {5: 5, 3: 4}
