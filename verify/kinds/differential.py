"""What every kind's differential run shares: the task, the result, the lock-step setup.

A :class:`DiffTask` is one seeded random run of one algorithm over one library monoid; a kind's ``diff_runner``
drives its reference and optimized :class:`~.base.Subject` and the model in lock-step and returns a
:class:`DiffResult` with the first difference. :mod:`swagkit.verify.spark` picks the runner by the algorithm's
kind and fans the tasks out on Spark.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from swagkit.spec.library import LIBRARY

from .base import Subject

__all__ = ["DiffTask", "DiffResult", "MODEL_EVERY", "Lockstep", "compiled"]

#: how often (in steps) the O(n) model fold and the snapshots are compared
MODEL_EVERY = 16


@dataclass(frozen=True)
class DiffTask:
    """One seeded differential run: ``steps`` random operations on ``algorithm`` over ``monoid``."""

    algorithm: str
    monoid: str
    seed: int
    steps: int = 2000
    max_window: int = 300


@dataclass(frozen=True)
class DiffResult:
    """Outcome of a :class:`DiffTask`: ``ok``, the first difference (``detail``, at ``step``), and totals."""

    task: DiffTask
    ok: bool
    step: int
    detail: str
    operations: int
    combines: int
    compiled: bool
    #: soft findings of the spec checkers (paper 004 runs): (invariant, how many checks reported it)
    soft: tuple[tuple[str, int], ...] = ()


def compiled() -> bool:
    """Whether ``swagkit.optimized`` runs compiled code (not the pure-Python fallback)."""
    import swagkit.optimized as optimized

    return bool(getattr(optimized, "COMPILED", False))


@dataclass
class Lockstep:
    """The two implementations of a monoid-generic task, built over the task's library monoid, with the
    monoid's example values (what the runs insert)."""

    monoid: Any
    examples: list[Any]
    ref: Any
    opt: Any
    compiled: bool

    @classmethod
    def of(cls, task: DiffTask, reference: Subject, optimized: Subject) -> Lockstep:
        entry = LIBRARY[task.monoid]
        monoid = entry.factory()
        return cls(monoid, list(entry.examples), reference.new(monoid), optimized.new(monoid), compiled())

    def result(self, task: DiffTask, ok: bool, step: int, detail: str, operations: int) -> DiffResult:
        return DiffResult(task, ok, step, detail, operations, self.ref.combine_count, self.compiled)
