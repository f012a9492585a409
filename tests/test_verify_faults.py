"""``swagkit verify`` and ``checked()`` judge what a raising ⊗ leaves behind in *any* aggregator (issue 12): one
that rolls back (strong) or refuses until ``repair()`` (``BrokenAggregatorError``, ``salvage()`` holding the
contents before or after the operation) passes; one that carries on from a half-done operation, or salvages the
wrong contents, fails. The aggregators here are written as a user would, on top of swagkit's Two-Stacks."""

from __future__ import annotations

from typing import Any

import pytest

from swagkit.reference import TwoStacks
from swagkit.spec.errors import BrokenAggregatorError
from swagkit.spec.library import string_concat
from swagkit.verify import checked, registry
from swagkit.verify.faults import InjectedFault, with_faults
from swagkit.verify.machine import run_machine


class RefusingStacks(TwoStacks):
    """A user's aggregator with the *refuse* guarantee: a ⊗ failing in a flip leaves it broken until repair()."""

    algorithm = "refusing_stacks"
    exception_safety = "refuse"
    lie_in_salvage = False

    def __init__(self, monoid: Any) -> None:
        super().__init__(monoid)
        self.broken = False

    def _usable(self) -> None:
        if self.broken:
            raise BrokenAggregatorError("refusing_stacks: broken")

    def _query(self) -> Any:
        self._usable()
        return super()._query()

    def _insert(self, v: Any) -> None:
        self._usable()
        super()._insert(v)

    def _evict(self) -> None:
        self._usable()
        if not self.F:
            values = [e.val for e in self.B]
            try:
                super()._evict()
            except BaseException:
                self.broken = True
                self._held = values
                raise
            return
        super()._evict()

    def snapshot(self) -> Any:
        self._usable()
        return super().snapshot()

    def salvage(self) -> list[Any]:
        held = list(self._held)
        return held[:-1] if self.lie_in_salvage else held  # the lie drops the youngest value

    def repair(self) -> None:
        vals = self.salvage()
        self.F, self.B, self.broken = [], [], False
        for v in vals:
            super()._insert(v)


class LyingStacks(RefusingStacks):
    algorithm = "lying_stacks"
    lie_in_salvage = True


def test_checked_accepts_refuse_and_repair() -> None:
    m, faults = with_faults(string_concat())
    agg = checked(RefusingStacks(m), monoid=string_concat(), algorithm="two_stacks")
    agg.insert_many("abcd")
    faults.arm(2)
    with pytest.raises(InjectedFault):
        agg.evict()  # the flip fails: refused, salvaged (before), repaired, and the model agrees again
    assert agg.query() == "abcd"
    agg.evict()
    assert agg.query() == "bcd"


def test_checked_catches_a_wrong_salvage() -> None:
    m, faults = with_faults(string_concat())
    agg = checked(LyingStacks(m), monoid=string_concat(), algorithm="two_stacks")
    agg.insert_many("abcd")
    faults.arm(2)
    with pytest.raises(AssertionError, match="salvage"):
        agg.evict()


@pytest.mark.parametrize("cls, passes", [(RefusingStacks, True), (LyingStacks, False)])
def test_the_machine_judges_a_user_aggregator_with_the_refuse_guarantee(cls: type, passes: bool) -> None:
    info = registry.AlgorithmInfo(
        cls.algorithm, cls.__name__, "user's (test only)", "-", checker="two_stacks", budget="two_stacks"
    )
    with registry.registered(info, {"reference": cls}):
        if passes:
            run_machine(cls.algorithm, "string_concat", max_examples=30, steps=30, seed=0)
        else:
            with pytest.raises(AssertionError):
                run_machine(cls.algorithm, "string_concat", max_examples=30, steps=30, seed=0)
