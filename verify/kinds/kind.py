"""The :class:`Kind`: one ADT and every face of its verification, in one object (see :mod:`.base` for the pieces
it is made of). Kept apart from :mod:`.base` because a kind names its state machine and differential run, which
themselves build on :mod:`.base`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .base import NotImplementedOperations, Operation, Subject, has_operation, traced_operations
from .differential import DiffResult, DiffTask
from .machines import KindMachine

__all__ = ["Kind", "MachineFactory", "DiffRunner"]


#: ``make_machine(subject, monoid_id, max_window)``: a state machine class (see :mod:`.machines`)
MachineFactory = Callable[[Subject, str, int], type[KindMachine]]
#: ``runner(task, reference, optimized)``: one seeded differential run, never raising (see :mod:`.differential`)
DiffRunner = Callable[[DiffTask, Subject, Subject], DiffResult]


@dataclass(frozen=True, eq=False)  # one object per kind: compared and hashed by identity
class Kind:
    """One ADT kind and every face of its verification (see the module docstring). ``name`` is the cards'
    ``kind`` string (:attr:`~swagkit.spec.algorithms.card.AlgorithmCard.kind`)."""

    name: str
    title: str
    model: type
    operations: tuple[Operation, ...]
    checked: Callable[..., Any]
    make_machine: MachineFactory
    diff_runner: DiffRunner | None = None
    #: further Spark runs: ``stage(session, algorithms, args, out, err) -> exit status`` (see ``swagkit verify``)
    spark_stages: tuple[Callable[..., int], ...] = ()
    #: the models of extension groups (``{"handles": OrderedMultisetWindow}``); other operations: ``model``
    group_models: Mapping[str, type] = field(default_factory=dict)
    #: fast oracles of the scale run (:mod:`swagkit.verify.spark.scale`), best first: verified optimized
    #: implementations of this kind as ``("MODULE:FACTORY", params)``; a target is never its own oracle
    oracles: tuple[tuple[str, Mapping[str, Any]], ...] = ()

    def __str__(self) -> str:
        return self.name

    def operation(self, name: str) -> Operation:
        """The operation called ``name`` (:class:`KeyError` when the kind has none)."""
        for op in self.operations:
            if op.name == name:
                return op
        raise KeyError(f"the {self.name} kind has no operation {name!r}")

    def required(self) -> tuple[str, ...]:
        """Names of the required operations."""
        return tuple(op.name for op in self.operations if op.required)

    def group(self, group: str) -> tuple[str, ...]:
        """Names of the operations of extension ``group``."""
        return tuple(op.name for op in self.operations if op.group == group)

    def traced(self) -> dict[str, Operation]:
        """The operations of a trace by their trace name (``insert``, ``size`` ...): what a replay file, the
        protocol and :class:`~swagkit.verify.trace.Trace` know about each."""
        return traced_operations(self.operations)

    def model_of(self, operation: Operation) -> type:
        """The model that offers ``operation`` (its group's, else the kind's)."""
        return self.group_models.get(operation.group, self.model)

    def check_implements(self, obj: Any) -> list[str]:
        """The required operations ``obj`` (an instance or a class) lacks, in the kind's order (empty: it meets
        the face)."""
        return [op.name for op in self.operations if op.required and not has_operation(obj, op.name)]

    def require(self, obj: Any) -> None:
        """Raise :class:`NotImplementedOperations` naming each required operation ``obj`` lacks."""
        missing = self.check_implements(obj)
        if missing:
            what = obj.__name__ if isinstance(obj, type) else type(obj).__name__
            lines = "\n".join(f"  {name}: {self.operation(name).doc}" for name in missing)
            raise NotImplementedOperations(
                f"{what} is not a {self.title}: it lacks the required operation(s) {', '.join(missing)}\n{lines}"
            )
