"""Check failures that also say *which operation* broke the aggregator.

They subclass the spec's errors (so ``except InvariantViolation`` still works) and add ``operation`` (e.g.
``"insert('c')"``), ``op_index`` (1-based count of operations on the checked aggregator) and ``recent`` (the
last few operations, oldest first), which is usually enough to replay the failure by hand.
"""

from __future__ import annotations

from collections.abc import Sequence

from swagkit.spec.errors import BudgetExceeded, InvariantViolation, ModelMismatch

__all__ = ["OperationContext", "InvariantViolationAt", "BudgetExceededAt", "ModelMismatchAt"]


class OperationContext:
    """Mixin: where in the operation sequence a check failed."""

    operation: str
    op_index: int
    recent: tuple[str, ...]

    def _set_context(self, operation: str, op_index: int, recent: Sequence[str], body: str) -> None:
        self.operation = operation
        self.op_index = op_index
        self.recent = tuple(recent)
        where = f"after {operation} (operation #{op_index})"
        history = "\n  recent operations: " + "; ".join(self.recent) if self.recent else ""
        message = f"{where}: {body}{history}"
        # Exception.__str__ shows args; keep the spec error's attributes but replace the text.
        self.args = (message,)


class InvariantViolationAt(InvariantViolation, OperationContext):
    """An invariant of the algorithm's paper fails after ``operation``."""

    @classmethod
    def wrap(
        cls, err: InvariantViolation, operation: str, op_index: int, recent: Sequence[str]
    ) -> InvariantViolationAt:
        new = cls(err.algorithm, err.invariant, err.wording, err.detail, err.state)
        new._set_context(operation, op_index, recent, str(err))
        return new


class BudgetExceededAt(BudgetExceeded, OperationContext):
    """``operation`` used more ``⊗`` invocations (or space) than the theorem allows."""

    @classmethod
    def wrap(cls, err: BudgetExceeded, operation: str, op_index: int, recent: Sequence[str]) -> BudgetExceededAt:
        new = cls(err.algorithm, err.operation, err.used, err.allowed, err.source)
        new._set_context(operation, op_index, recent, str(err))
        return new


class ModelMismatchAt(ModelMismatch, OperationContext):
    """The aggregator disagrees with the executable ADT model after ``operation``."""

    def __init__(self, detail: str, operation: str, op_index: int, recent: Sequence[str]) -> None:
        super().__init__(detail)
        self.detail = detail
        self._set_context(operation, op_index, recent, detail)
