"""What every kind's Hypothesis state machine shares: the statistics, the settings, the run.

A kind's ``make_machine(subject, monoid_id, max_window)`` returns a subclass of :class:`KindMachine` bound to
one :class:`~.base.Subject` (:func:`bind`); :func:`run_machine_class` runs it under :func:`machine_settings`.
:func:`swagkit.verify.machine.run_machine` does both for a registered algorithm of any kind.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

import hypothesis
from hypothesis import HealthCheck, Phase, settings
from hypothesis.stateful import RuleBasedStateMachine, run_state_machine_as_test

from swagkit.spec.library import LIBRARY
from swagkit.spec.monoid import Monoid

from ..faults import FaultInjector, InjectedFault, with_faults
from ..trace import Trace, Traced
from .base import Operation, Subject

__all__ = [
    "DEFAULT_MAX_WINDOW",
    "DEFAULT_SHRINK_SECONDS",
    "MachineStats",
    "KindMachine",
    "WindowMachine",
    "bind",
    "machine_settings",
    "run_machine_class",
    "shrink_deadline",
]

#: Largest window the machines build (above the reference ChunkedDeque's 64-slot chunks).
DEFAULT_MAX_WINDOW = 80

#: Seconds Hypothesis may spend shrinking one failure (``--shrink-budget``); the smallest failing example found by
#: then is the one reported (a shrink through a slow implementation could otherwise take minutes: issue 25 §4).
DEFAULT_SHRINK_SECONDS = 20.0


@dataclass
class MachineStats:
    """What a machine class did over all its runs (for progress and summary displays)."""

    examples: int = 0
    steps: int = 0
    operations: int = 0
    max_window: int = 0


class KindMachine(RuleBasedStateMachine):
    """Base of every kind's machines: the bound :class:`~.base.Subject`, the library monoid, the window cap and
    the statistics (``stats``, one :class:`MachineStats` per bound class)."""

    subject: ClassVar[Subject]
    monoid_id: ClassVar[str] = ""
    max_window: ClassVar[int] = DEFAULT_MAX_WINDOW
    stats: ClassVar[MachineStats] = MachineStats()
    #: True: every step is one operation (the wrapper's own count is not read at teardown)
    one_operation_per_step: ClassVar[bool] = False
    #: the monoid's constructor when it is not the library's ``monoid_id`` (a user's own monoid, ``--impl``)
    monoid_factory: ClassVar[Callable[[], Monoid[Any, Any, Any]] | None] = None
    #: the misuse rules run (an implementation may document undefined behaviour instead of swagkit's errors)
    misuse_rules: ClassVar[bool] = True
    #: the ``combine_raises`` rules run (a transient ⊗ fault must leave the structure as it was)
    inject_faults: ClassVar[bool] = True
    #: faults also for a monoid with a typed fast path: a user's own class calls ``combine`` whatever the monoid
    #: (swagkit's compiled structures run a typed ⊗ in C, which cannot raise: their runs leave it off)
    faults_on_typed: ClassVar[bool] = False
    #: records each example's calls while a run may need a replay file (:func:`swagkit.verify.recording.recorded`)
    replay_recorder: ClassVar[Any] = None
    #: the kind's traced operations (:meth:`~.kind.Kind.traced`; empty: the kind's runs are not traced)
    trace_operations: ClassVar[Mapping[str, Operation]] = {}
    #: seconds a failure of this machine may be shrunk (:data:`DEFAULT_SHRINK_SECONDS`)
    shrink_seconds: ClassVar[float] = DEFAULT_SHRINK_SECONDS
    #: the trace of the latest example: after a failure, the shrunk counterexample (Hypothesis runs it last)
    last_trace: ClassVar[Trace | None] = None
    #: the kind's name (replay files of its traces)
    kind_name: ClassVar[str] = ""
    #: the header facts of this machine's replay files when it is not over a registered algorithm (a user's
    #: aggregator: ``impl``/``exec``, ``monoid``, the options; see :func:`swagkit.verify.recording.replay_header`)
    replay_facts: ClassVar[dict[str, Any] | None] = None
    #: where its replay files go (``""``: ``$SWAGKIT_REPLAY_DIR`` or ``.swagkit/replays``; ``None``: nowhere)
    replay_directory: ClassVar[str | None] = ""
    #: what a replay of its files runs on when that is not a registered algorithm (a
    #: :class:`swagkit.verify.replay.Target`: the user's factory, guarded as in the run)
    replay_target: ClassVar[Any] = None

    def __init__(self) -> None:
        super().__init__()
        type(self).stats.examples += 1
        if self.replay_recorder is not None:
            self.replay_recorder.start()  # a new example: the last one recorded is the shrunk failing one
        self.faults: FaultInjector | None = None
        #: this example's steps (one numbering for the printed counterexample, its replay file, explain)
        self.trace = Trace(self.trace_operations)
        type(self).last_trace = self.trace

    def _traced(self, checked: Any) -> Traced:
        """``checked`` (the debug wrapper of the structure) with every operation recorded in ``self.trace``."""
        self.trace.faults = self.faults
        return self.trace.wrap(checked)

    def _monoids(self) -> tuple[Monoid[Any, Any, Any], Monoid[Any, Any, Any]]:
        """``(plain, faulty)``: the library monoid, and the one the structure gets. A generic monoid's combine
        can be told to raise once (``self.faults``, the ``combine_raises`` rules); the model and the checkers keep
        the plain monoid, so only the structure ever sees the fault."""
        factory = type(self).monoid_factory or LIBRARY[self.monoid_id].factory
        plain = factory()
        if (plain.fast_path is not None and not self.faults_on_typed) or not self.inject_faults:
            return plain, plain
        faulty, self.faults = with_faults(plain)
        return plain, faulty

    def _under_fault(self, k: int, run: Callable[[], None]) -> None:
        """Run ``run`` while the k-th ⊗ from now raises once (the ``combine_raises`` rules): the operation it hits
        surfaces the :class:`~swagkit.verify.faults.InjectedFault`, which ends ``run``; the checked wrapper has
        judged the state it left."""
        assert self.faults is not None
        self.faults.arm(k)
        try:
            with self.trace.under("faults"):
                run()
        except InjectedFault:
            pass  # the planted failure; the checked wrapper has verified the structure's guarantee
        finally:
            self.faults.disarm()

    def _step(self, window: int | None = None) -> None:
        """Count one rule; ``window``: the window size after it."""
        stats = type(self).stats
        stats.steps += 1
        if self.one_operation_per_step:
            stats.operations += 1
        if window is not None:
            stats.max_window = max(stats.max_window, window)


class WindowMachine(KindMachine):
    """A machine over one checked window aggregator (``swag``) of at most ``max_window`` elements: steps record
    the window size, and the wrapper's operation count is read at teardown."""

    swag: Any

    checked: Any

    def _check(self, wrap: Callable[..., Any], **options: Any) -> Any:
        """A new structure of the subject (its monoid armed for faults) in its kind's debug wrapper ``wrap``:
        ``self.checked`` judges every operation, ``self.swag`` is it with every operation traced; the structure
        itself is returned."""
        plain, monoid = self._monoids()
        aggregator = self.subject.new(monoid)
        facts = self.subject.facts
        self.checked = wrap(aggregator, monoid=plain, algorithm=self.subject.name, facts=facts, **options)
        self.swag = self._traced(self.checked)
        return aggregator

    def _step(self, window: int | None = None) -> None:
        super()._step(len(self.swag))

    def _room(self) -> int:
        return max(self.max_window - len(self.swag), 0)

    def teardown(self) -> None:
        type(self).stats.operations += self.swag.operations


_M = TypeVar("_M", bound=KindMachine)


def bind(
    machine: type[_M],
    subject: Subject,
    monoid_id: str,
    max_window: int,
    *,
    suffix: str = "Machine",
    monoid_in_name: bool = True,
) -> type[_M]:
    """A subclass of ``machine`` bound to one combination and named after it: ``DabaStringConcatReferenceMachine``
    (Hypothesis prints the name in failing programs)."""
    parts = (
        [subject.name, monoid_id, subject.implementation] if monoid_in_name else [subject.name, subject.implementation]
    )
    name = "".join(part.title() for part in "_".join(parts).split("_")) + suffix
    bound: type[_M] = type(name, (machine,), {"__qualname__": name})
    bound.subject = subject
    bound.monoid_id = monoid_id
    bound.max_window = max_window
    bound.stats = MachineStats()
    return bound


def machine_settings(
    max_examples: int, steps: int = 50, *, derandomize: bool | None = None, print_blob: bool = False
) -> settings:
    """Settings for a reproducible machine run: no example database, no deadline, no speed health checks.

    Unset options come from the active Hypothesis profile (``tests/conftest.py`` registers ``ci``/``dev``).
    """
    extra: dict[str, Any] = {} if derandomize is None else {"derandomize": derandomize}
    return settings(
        max_examples=max_examples,
        stateful_step_count=steps,
        database=None,
        deadline=None,
        print_blob=print_blob,
        phases=[p for p in Phase if p is not Phase.explain],  # its "lines run only by failing cases" is noise
        # one failure, shrunk once: each further distinct failure would cost a whole shrink of its own (issue 14
        # §3 -- three failures of one planted bug took three times as long to report)
        report_multiple_bugs=False,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
        **extra,
    )


def run_machine_class(machine: type[RuleBasedStateMachine], max_examples: int, steps: int, seed: int | None) -> None:
    """Run one state-machine class under :func:`machine_settings`; with ``seed`` the run is reproducible
    (Hypothesis' ``@seed``, which marks the class itself), without it the active profile decides. (A failure's
    replay file is written by :func:`swagkit.verify.machine.run_machine_class`, which wraps this one.)"""
    if seed is not None:
        hypothesis.seed(seed)(machine)
    shrink = getattr(machine, "shrink_seconds", DEFAULT_SHRINK_SECONDS)
    with no_local_constants(), shrink_deadline(shrink):
        run_state_machine_as_test(machine, settings=machine_settings(max_examples, steps))


@contextmanager
def shrink_deadline(seconds: float) -> Iterator[None]:
    """Stop shrinking a failure after ``seconds`` (Hypothesis' ``MAX_SHRINKING_SECONDS``, documented as
    monkeypatchable; its default is five minutes). The failing example reported is the smallest found by then;
    it is still re-run last, so its trace and replay file are a failing run's. A Hypothesis without the knob is
    left alone."""
    try:
        from hypothesis.internal.conjecture import engine
    except ImportError:  # pragma: no cover - Hypothesis moved its internals
        yield
        return
    if not hasattr(engine, "MAX_SHRINKING_SECONDS"):  # pragma: no cover - another Hypothesis
        yield
        return
    before = engine.MAX_SHRINKING_SECONDS
    engine.MAX_SHRINKING_SECONDS = seconds  # type: ignore[assignment]
    try:
        yield
    finally:
        engine.MAX_SHRINKING_SECONDS = before


@contextmanager
def no_local_constants() -> Iterator[None]:
    """Draw without the literals Hypothesis collects from the source of every "local" module imported so far.

    Hypothesis (≥ 6.131) now and then draws a constant found in the source of the modules loaded from outside
    site-packages -- swagkit itself in an editable install, the user's code -- so the same seed explored other
    examples, and shrank to another counterexample, depending on which modules the process happened to have
    imported (importing ``swagkit.verify.cli`` turned a 2-operation counterexample into 16). A seed must mean one
    run, and a replay's re-run must find the same example: the pool is emptied for the run and restored after.
    A Hypothesis without the pool (older, or renamed) is left alone."""
    try:
        from hypothesis.internal.conjecture import providers
    except ImportError:  # pragma: no cover - Hypothesis moved its internals
        yield
        return
    get = getattr(providers, "_get_local_constants", None)
    cache = getattr(providers, "CONSTANTS_CACHE", None)
    make = getattr(providers, "Constants", None)
    if get is None or make is None or not hasattr(cache, "cache"):  # pragma: no cover - another Hypothesis
        yield
        return
    empty = make()
    providers._get_local_constants = lambda: empty
    cache.cache.clear()  # type: ignore[union-attr]  # permitted constants computed with the local pool
    try:
        yield
    finally:
        providers._get_local_constants = get
        cache.cache.clear()  # type: ignore[union-attr]
