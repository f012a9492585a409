"""One entry point for the Hypothesis state machines of every kind.

:func:`run_machine` runs the machine of ``algorithm_id``'s kind (:mod:`swagkit.verify.kinds`) for one
(algorithm, monoid, implementation) combination; :func:`make_machine` returns the machine class. Each kind's
machine drives a structure through its kind's debug wrapper, which does the judging (model, invariants, budgets),
so debug mode and the stateful tests can never disagree about what "correct" means. Hypothesis prints a failing
run as a replayable program (``state = …Machine(); state.insert(value='a'); …``).
"""

from __future__ import annotations

from swagkit.spec.library import LIBRARY

from . import registry
from .kinds.machines import DEFAULT_MAX_WINDOW, KindMachine, MachineStats, machine_settings, run_machine_class

__all__ = [
    "DEFAULT_MAX_WINDOW",
    "MachineStats",
    "make_machine",
    "machine_settings",
    "run_machine",
    "run_machine_class",
    "examples_for",
]


def make_machine(
    algorithm_id: str, monoid_id: str, implementation: str = "reference", *, max_window: int = DEFAULT_MAX_WINDOW
) -> type[KindMachine]:
    """The state machine class of ``algorithm_id``'s kind over library monoid ``monoid_id`` in ``implementation``.

    Raises :class:`~swagkit.verify.registry.RegistryError` (unknown id / implementation lacks the algorithm),
    :class:`~swagkit.spec.errors.UnsupportedMonoidError` or ``KeyError`` (no input strategy for the monoid) up
    front rather than inside Hypothesis.
    """
    info = registry.algorithm(algorithm_id)
    subject = registry.subject(algorithm_id, implementation)
    if info.takes_monoid:
        registry.require_monoid(info, LIBRARY[monoid_id].factory())
    return info.kind.make_machine(subject, monoid_id, max_window)


def examples_for(algorithm_id: str, max_examples: int) -> int:
    """How many examples ``algorithm_id`` runs of ``max_examples``: a card with ``verify_share`` > 1 (FiBA's
    other μ and its looped bulk operations: all of FiBA's code is shared) runs that share, at least 3, which keeps
    ``swagkit verify`` within its time budget."""
    share = registry.algorithm(algorithm_id).verify_share
    return max_examples if share == 1 else max(3, max_examples // share)


def run_machine(
    algorithm_id: str,
    monoid_id: str,
    implementation: str = "reference",
    *,
    max_examples: int = 40,
    steps: int = 50,
    seed: int | None = None,
    max_window: int = DEFAULT_MAX_WINDOW,
) -> MachineStats:
    """Run the state machine of ``algorithm_id``'s kind for one combination; raises the (shrunk) failure,
    returns statistics on success. With ``seed`` the run is reproducible (Hypothesis' ``@seed``); without it the
    active profile decides."""
    machine = make_machine(algorithm_id, monoid_id, implementation, max_window=max_window)
    run_machine_class(machine, examples_for(algorithm_id, max_examples), steps, seed)
    return machine.stats
