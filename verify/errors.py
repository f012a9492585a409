"""Check failures that also say *which operation* broke the aggregator.

They subclass the spec's errors (so ``except InvariantViolation`` still works) and add ``operation`` (e.g.
``"insert('c')"``), ``op_index`` (1-based count of operations on the checked aggregator) and ``recent`` (the
last few operations, oldest first), which is usually enough to replay the failure by hand.
"""

from __future__ import annotations

import re
import traceback
from collections.abc import Sequence

from swagkit.spec.errors import BudgetExceeded, InvariantViolation, ModelMismatch

__all__ = [
    "OperationContext",
    "InvariantViolationAt",
    "BudgetExceededAt",
    "ModelMismatchAt",
    "contains",
    "describe_exception",
    "first_line",
    "is_failure",
    "without_history",
]


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


def describe_exception(exc: BaseException, *, notes: bool = True) -> str:
    """The exception text (with its notes unless ``notes`` is False), flattening exception groups (Hypothesis
    reports distinct bugs so)."""
    if isinstance(exc, BaseExceptionGroup):
        parts = [f"{len(exc.exceptions)} distinct failures:"]
        parts += [describe_exception(e, notes=notes) for e in exc.exceptions]
        return "\n".join(parts)
    if not notes:
        return f"{type(exc).__qualname__}: {exc}"
    return "".join(traceback.format_exception_only(exc)).rstrip()


def contains(exc: BaseException, kind: type[BaseException]) -> bool:
    """Whether ``exc`` is a ``kind``, or an exception group holding one (at any depth)."""
    if isinstance(exc, BaseExceptionGroup):
        return any(contains(e, kind) for e in exc.exceptions)
    return isinstance(exc, kind)


def is_failure(exc: BaseException) -> bool:
    """Whether ``exc`` is a verdict on the code under test (a failed check: :class:`AssertionError`, every
    exception group member one too) rather than swagkit itself breaking: the one classifier of every run."""
    if isinstance(exc, BaseExceptionGroup):
        return all(is_failure(e) for e in exc.exceptions)
    return isinstance(exc, AssertionError)


def first_line(text: str, width: int = 100) -> str:
    """The line of ``text`` that says what failed (the error line, not Hypothesis' "N distinct failures"),
    shortened to ``width`` with the package path of the exception's name dropped."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    line = lines[0] if lines else ""
    for candidate in lines:
        if "Error" in candidate or "Violation" in candidate or "Exceeded" in candidate or "Mismatch" in candidate:
            line = candidate
            break
    line = re.sub(r"^[\w.]+\.(\w+): ", r"\1: ", line)  # swagkit.verify.errors.X: -> X:
    return line if len(line) <= width else line[: width - 1] + "…"


def without_history(text: str) -> str:
    """A failure's text without the wrapper's "recent operations" line (where the whole trace is shown)."""
    return "\n".join(ln for ln in text.splitlines() if not ln.lstrip().startswith("recent operations:"))
