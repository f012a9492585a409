"""One entry point for the Hypothesis state machines of every kind.

:func:`run_machine` runs the machine of ``algorithm_id``'s kind (:mod:`swagkit.verify.kinds`) for one
(algorithm, monoid, implementation) combination; :func:`~swagkit.verify.registry.make_machine` returns the machine
class. Each kind's machine drives a structure through its kind's debug wrapper, which does the judging (model,
invariants, budgets), so debug mode and the stateful tests can never disagree about what "correct" means.
:func:`run_machine_class` runs any machine class and, when it fails, writes the counterexample as a replay file
(:mod:`swagkit.verify.recording`) and checks that the file reproduces the failure.
"""

from __future__ import annotations

from hypothesis.stateful import RuleBasedStateMachine

from . import recording, replay
from .kinds.machines import DEFAULT_MAX_WINDOW, MachineStats, machine_settings
from .kinds.machines import run_machine_class as run_plain
from .registry import examples_for, make_machine

__all__ = [
    "DEFAULT_MAX_WINDOW",
    "MachineStats",
    "make_machine",
    "machine_settings",
    "run_machine",
    "run_machine_class",
    "examples_for",
]


def run_machine_class(machine: type[RuleBasedStateMachine], max_examples: int, steps: int, seed: int | None) -> None:
    """Run one state-machine class (:func:`swagkit.verify.kinds.machines.run_machine_class`); a failure over a
    registered algorithm or a user's aggregator is written as a replay file whose path the exception names
    (``exc.swagkit_replay``), checked to reproduce it (``exc.swagkit_reproduces``)."""
    run = {"examples": max_examples, "steps": steps, "seed": seed}
    with recording.recorded(machine, run, lambda path: replay.reproduces(path, machine), _trace_shrinker(machine)):
        run_plain(machine, max_examples, steps, seed)


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


def _trace_shrinker(machine: type[RuleBasedStateMachine]) -> recording.TraceShrinker:
    """Delta debugging of a failing trace after Hypothesis' shrink (:func:`swagkit.verify.replay.shrunk_trace`),
    for a part of the machine's shrink budget."""
    seconds = min(replay.TRACE_SHRINK_SECONDS, getattr(machine, "shrink_seconds", 20.0) / 2)
    return lambda steps, header: replay.shrunk_trace(machine, header, steps, seconds)
