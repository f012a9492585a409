"""One Hypothesis state machine for every (algorithm, monoid, implementation) combination.

:func:`make_machine` builds a :class:`~hypothesis.stateful.RuleBasedStateMachine` whose state is a
:func:`~swagkit.verify.debug.checked` aggregator from :func:`~swagkit.verify.registry.create`. The checked
wrapper does the judging -- after every operation it compares with the :class:`~swagkit.spec.adt.FifoSwag`
model, runs the algorithm's invariant checker on ``snapshot()``, meters ``⊗`` against the budget and checks the
space claim -- so the machine only has to choose operations, and debug mode and the stateful tests can never
disagree about what "correct" means.

Rules: single ``insert``/``evict``/``query``, ``insert_many``/``evict_many``, ``grow_to`` (fill up to a drawn
size, so windows spanning several deque chunks are common), misuse (``evict`` on an empty
window and ``evict_many`` beyond the size must raise :class:`EmptyWindowError` and leave the snapshot
identical), and the window shapes of paper 000 §7.1–7.2 as whole patterns: ``static_rounds`` (evict, insert,
query at a fixed size), ``fill_and_drain`` (insert+query up to a size, then evict to empty) and ``seesaw``
(repeatedly grow by ``up`` and shrink by ``down``, so the window drifts up or down while flips happen at every
size). After each step an invariant queries the window. The window is capped at ``max_window`` elements to keep
the O(n) checks cheap; the cap exceeds the reference deque's chunk size (64) so chunk boundaries are crossed.

Generic monoids (no typed ``kind``) also get ``combine_raises``: the k-th ⊗ of an operation raises once
(:mod:`swagkit.verify.faults`), and the aggregator must be as before the operation, never answer wrong.

Aggregators that also remove any live element by handle (the Reactive Aggregator's non-FIFO windows, 002
§2.2) get :class:`~swagkit.verify.debug.CheckedNonFifoAggregator` and the rules ``insert_with_handle``,
``remove`` (a live handle), ``remove_dead_handle`` (must raise and change nothing), ``remove_many`` and
``batch`` (mixed events propagated once).

Hypothesis prints a failing run as a replayable program (``state = …; state.insert(value='a'); …``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import hypothesis
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule, run_state_machine_as_test

from swagkit.spec.errors import EmptyWindowError
from swagkit.spec.library import LIBRARY

from . import registry
from swagkit.spec.nonfifo import InvalidHandleError

from .debug import CheckedAggregator, CheckedNonFifoAggregator, checked
from .faults import FaultInjector, InjectedFault, with_faults
from .strategies import strategy_for

__all__ = [
    "MachineStats",
    "SwagMachine",
    "MachineRunner",
    "MACHINES",
    "register_machine",
    "make_machine",
    "machine_settings",
    "run_machine_class",
    "run_machine",
    "DEFAULT_MAX_WINDOW",
]

#: Largest window the machine builds (above the reference ChunkedDeque's 64-slot chunks).
DEFAULT_MAX_WINDOW = 80


@dataclass
class MachineStats:
    """What a machine class did over all its runs (for progress and summary displays)."""

    examples: int = 0
    steps: int = 0
    operations: int = 0
    max_window: int = 0


class SwagMachine(RuleBasedStateMachine):
    """Base of the generated machines; :func:`make_machine` fills in the class attributes and the rules."""

    algorithm_id = ""
    monoid_id = ""
    implementation = "reference"
    max_window = DEFAULT_MAX_WINDOW
    stats = MachineStats()

    def __init__(self) -> None:
        super().__init__()
        plain = LIBRARY[self.monoid_id].factory()
        #: generic monoids get a combine that can be told to raise once (the ``combine_raises`` rule); the model
        #: and the checkers use the plain monoid, so only the aggregator ever sees the fault
        self.faults: FaultInjector | None = None
        monoid = plain
        if plain.fast_path is None:
            monoid, self.faults = with_faults(plain)
        aggregator = registry.create(self.algorithm_id, monoid, self.implementation, check=False)
        self.swag: CheckedAggregator = checked(aggregator, monoid=plain, algorithm=self.algorithm_id)
        #: the aggregator also removes any live element by handle (002 §2.2): the non-FIFO rules apply
        self.nonfifo = isinstance(self.swag, CheckedNonFifoAggregator)
        #: the aggregator answers any range of the newest r elements too (``query_range``; SlickDeque Inv answers
        #: only its registered ranges, none in plain mode, and says so with ValueError on the empty aggregator)
        self.ranged = callable(getattr(aggregator, "query_range", None)) and _answers_any_range(aggregator)
        type(self).stats.examples += 1

    # helpers shared by the rules ------------------------------------------------------------------------------

    def _step(self) -> None:
        stats = type(self).stats
        stats.steps += 1
        stats.max_window = max(stats.max_window, len(self.swag))

    def _room(self) -> int:
        return max(self.max_window - len(self.swag), 0)

    def _snapshot(self) -> Any:
        snap = getattr(self.swag.inner, "snapshot", None)
        return snap() if callable(snap) else None

    def _expect_empty_window_error(self, action: str, count: int | None) -> None:
        """Misuse must raise EmptyWindowError and leave the state exactly as it was."""
        before = self._snapshot()
        try:
            if count is None:
                self.swag.evict()
            else:
                self.swag.evict_many(count)
        except EmptyWindowError:
            pass
        else:  # pragma: no cover - the checked wrapper raises ModelMismatch first
            raise AssertionError(f"{action} did not raise EmptyWindowError")
        after = self._snapshot()
        assert after == before, f"{action} raised but changed the state:\n  before {before!r}\n  after  {after!r}"

    def _live(self) -> Any:
        """The non-FIFO model (:class:`~swagkit.spec.nonfifo.OrderedMultisetWindow`) of a non-FIFO aggregator."""
        assert isinstance(self.swag, CheckedNonFifoAggregator)
        return self.swag.model

    def teardown(self) -> None:
        type(self).stats.operations += self.swag.operations


def _answers_any_range(aggregator: Any) -> bool:
    try:
        aggregator.query_range(1)
    except ValueError:
        return False
    return True


def make_machine(
    algorithm_id: str,
    monoid_id: str,
    implementation: str = "reference",
    *,
    max_window: int = DEFAULT_MAX_WINDOW,
) -> type[SwagMachine]:
    """A state machine class checking ``algorithm_id`` over library monoid ``monoid_id`` in ``implementation``.

    Raises :class:`~swagkit.verify.registry.RegistryError` (unknown id / implementation lacks the algorithm),
    :class:`~swagkit.spec.errors.UnsupportedMonoidError` or ``KeyError`` (no input strategy for the monoid)
    up front rather than inside Hypothesis.
    """
    info = registry.algorithm(algorithm_id)
    if info.kind != "fifo":
        raise registry.RegistryError(f"{algorithm_id} is a {info.kind!r} algorithm; this machine checks FIFO SWAGs")
    registry.create(algorithm_id, LIBRARY[monoid_id].factory(), implementation, check=False)  # fail fast
    values = strategy_for(monoid_id)
    chunk = st.lists(values, min_size=1, max_size=24)

    class Machine(SwagMachine):
        @precondition(lambda self: self._room() > 0)
        @rule(value=values)
        def insert(self, value: Any) -> None:
            self.swag.insert(value)
            self._step()

        @precondition(lambda self: len(self.swag) > 0)
        @rule()
        def evict(self) -> None:
            self.swag.evict()
            self._step()

        @precondition(lambda self: len(self.swag) == 0)
        @rule()
        def evict_empty(self) -> None:
            self._expect_empty_window_error("evict() on an empty window", None)
            self._step()

        @rule()
        def query(self) -> None:
            self.swag.query()
            self._step()

        @rule(vs=st.lists(values, max_size=8))
        def insert_many(self, vs: list[Any]) -> None:
            self.swag.insert_many(vs[: self._room()])
            self._step()

        @rule(k=st.integers(min_value=0, max_value=8))
        def evict_many(self, k: int) -> None:
            self.swag.evict_many(min(k, len(self.swag)))
            self._step()

        @rule(extra=st.integers(min_value=1, max_value=3))
        def evict_many_too_many(self, extra: int) -> None:
            n = len(self.swag)
            self._expect_empty_window_error(f"evict_many({n + extra}) on a window of {n}", n + extra)
            self._step()

        @rule(size=st.integers(min_value=0, max_value=max_window), vs=st.lists(values, min_size=1, max_size=6))
        def grow_to(self, size: int, vs: list[Any]) -> None:
            """Insert ``vs`` cyclically until the window holds ``size`` values: big windows (several chunks)
            are reached often, not only by long insert streaks."""
            need = max(size - len(self.swag), 0)
            self.swag.insert_many([vs[i % len(vs)] for i in range(need)])
            self._step()

        @rule(vs=chunk)
        def static_rounds(self, vs: list[Any]) -> None:
            """000 §7.1: rounds of evict, insert, query at a fixed window size (from an empty window: grow by 1)."""
            for v in vs:
                if len(self.swag) > 0:
                    self.swag.evict()
                self.swag.insert(v)
                self.swag.query()
            self._step()

        @rule(vs=chunk)
        def fill_and_drain(self, vs: list[Any]) -> None:
            """000 §7.2: insert and query up to a size, then evict down to 0 (no queries while draining)."""
            for v in vs[: self._room()]:
                self.swag.insert(v)
                self.swag.query()
            while len(self.swag) > 0:
                self.swag.evict()
            self._step()

        @rule(vs=chunk, up=st.integers(min_value=1, max_value=6), down=st.integers(min_value=1, max_value=6))
        def seesaw(self, vs: list[Any], up: int, down: int) -> None:
            """Grow by ``up`` (one insert+query each), shrink by ``down`` (one evict+query each), repeatedly."""
            for start in range(0, len(vs), up):
                for v in vs[start : start + up][: self._room()]:
                    self.swag.insert(v)
                    self.swag.query()
                for _ in range(min(down, len(self.swag))):
                    self.swag.evict()
                    self.swag.query()
            self._step()

        @precondition(lambda self: self.ranged)
        @rule(r=st.integers(min_value=1, max_value=max_window + 2))
        def query_range(self, r: int) -> None:
            """The newest ``min(r, n)`` elements (SlickDeque, FlatFIT: several ranges on one structure)."""
            self.swag.query_range(r)
            self._step()

        @precondition(lambda self: self.ranged)
        @rule(longest=st.integers(min_value=1, max_value=max_window + 2))
        def query_ranges_longest_first(self, longest: int) -> None:
            """Every range ``longest, …, 1`` in one step, longest first (001's max-multi pattern)."""
            for r in range(longest, 0, -1):
                self.swag.query_range(r)
            self._step()

        # non-FIFO windows (002 §2.2): any live element can leave, by the handle its insertion returned ------

        @precondition(lambda self: self.nonfifo and self._room() > 0)
        @rule(value=values)
        def insert_with_handle(self, value: Any) -> None:
            self.swag.insert_with_handle(value)
            self._step()

        @precondition(lambda self: self.nonfifo and len(self.swag) > 0)
        @rule(data=st.data())
        def remove(self, data: st.DataObject) -> None:
            handle = data.draw(st.sampled_from(self._live().handles()), label="handle")
            self.swag.remove(handle)
            self._step()

        @precondition(lambda self: self.nonfifo)
        @rule(data=st.data())
        def remove_dead_handle(self, data: st.DataObject) -> None:
            """A handle that is not live (evicted, removed, never issued, not an int) raises InvalidHandleError
            and changes nothing."""
            live = set(self._live().handles())
            handle = data.draw(st.one_of(st.integers(-2, len(live) + 8).filter(lambda h: h not in live),
                                         st.just("0")), label="dead")
            before = self._snapshot()
            try:
                self.swag.remove(handle)
            except InvalidHandleError:
                pass
            else:  # pragma: no cover - the checked wrapper raises ModelMismatch first
                raise AssertionError(f"remove({handle!r}) of a dead handle did not raise InvalidHandleError")
            assert self._snapshot() == before, f"remove({handle!r}) raised but changed the state"
            self._step()

        @precondition(lambda self: self.nonfifo and len(self.swag) > 0)
        @rule(data=st.data())
        def remove_many(self, data: st.DataObject) -> None:
            live = self._live().handles()
            chosen = data.draw(st.lists(st.sampled_from(live), unique=True, max_size=min(6, len(live))), label="hs")
            self.swag.remove_many(chosen)
            self._step()

        @precondition(lambda self: self.nonfifo)
        @rule(data=st.data())
        def batch(self, data: st.DataObject) -> None:
            """Mixed insert/evict/remove events propagated once (002 §2.3), valid ones only."""
            model = self._live()
            sim = list(model.handles())
            nxt = model.next_handle
            events: list[tuple[Any, ...]] = []
            for _ in range(data.draw(st.integers(0, 8), label="events")):
                choice = data.draw(st.sampled_from(["insert", "evict", "remove"]), label="kind")
                if choice == "insert" and len(sim) < self.max_window:
                    events.append(("insert", data.draw(values, label="value")))
                    sim.append(nxt)
                    nxt += 1
                elif choice == "evict" and sim:
                    events.append(("evict",))
                    sim.pop(0)
                elif choice == "remove" and sim:
                    h = data.draw(st.sampled_from(sim), label="handle")
                    events.append(("remove", h))
                    sim.remove(h)
            self.swag.batch(events)
            self._step()

        @precondition(lambda self: self.faults is not None)
        @rule(k=st.integers(min_value=1, max_value=12), ops=st.lists(st.sampled_from(_FAULT_OPS), min_size=1,
                                                                     max_size=10), value=values)
        def combine_raises(self, k: int, ops: list[str], value: Any) -> None:
            """The k-th ⊗ from now raises once (a transient fault) while ``ops`` run: the operation it hits must
            fail leaving the aggregator as before (``insert_many``/``evict_many``: as after a prefix of it),
            which the checked wrapper verifies against the model, and the next query must answer like the
            model. Never a silent wrong answer. (Several operations under one armed fault put it deep inside
            flips and fixups, whatever the algorithm.)"""
            assert self.faults is not None
            self.faults.arm(k)
            try:
                for op in ops:
                    if op == "insert" and self._room() > 0:
                        self.swag.insert(value)
                    elif op == "evict" and len(self.swag) > 0:
                        self.swag.evict()
                    elif op == "insert_many" and self._room() >= 3:
                        self.swag.insert_many([value, value, value])
                    elif op == "evict_many" and len(self.swag) > 0:
                        self.swag.evict_many(min(3, len(self.swag)))
                    else:
                        self.swag.query()
            except InjectedFault:
                pass
            finally:
                self.faults.disarm()
            self.swag.query()
            self._step()

        @invariant()
        def agrees_with_model(self) -> None:
            self.swag.query()
            if self.nonfifo:
                self.swag.handles()

    name = "".join(part.title() for part in f"{algorithm_id}_{monoid_id}_{implementation}".split("_"))
    Machine.__name__ = Machine.__qualname__ = f"{name}Machine"
    Machine.algorithm_id = algorithm_id
    Machine.monoid_id = monoid_id
    Machine.implementation = implementation
    Machine.max_window = max_window
    Machine.stats = MachineStats()
    return Machine


#: operations the ``combine_raises`` rule makes fail
_FAULT_OPS = ("insert", "insert", "evict", "evict", "query", "insert_many", "evict_many")


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
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
        **extra,
    )


def run_machine_class(machine: type[RuleBasedStateMachine], max_examples: int, steps: int, seed: int | None) -> None:
    """Run one state-machine class under :func:`machine_settings`; with ``seed`` the run is reproducible
    (Hypothesis' ``@seed``, which marks the class itself), without it the active profile decides. Shared by the
    runners of every kind."""
    if seed is not None:
        hypothesis.seed(seed)(machine)
    run_state_machine_as_test(machine, settings=machine_settings(max_examples, steps))


def run_fifo_machine(
    algorithm_id: str,
    monoid_id: str,
    implementation: str = "reference",
    *,
    max_examples: int = 40,
    steps: int = 50,
    seed: int | None = None,
    max_window: int = DEFAULT_MAX_WINDOW,
) -> MachineStats:
    """Run the FIFO machine for one combination; raises the (shrunk) failure, returns statistics on success.

    With ``seed`` the run is reproducible (Hypothesis' ``@seed``); without it the active profile decides.
    """
    machine = make_machine(algorithm_id, monoid_id, implementation, max_window=max_window)
    run_machine_class(machine, max_examples, steps, seed)
    return machine.stats


class MachineRunner(Protocol):
    """Runs the state machine of one algorithm kind for one (algorithm, monoid, implementation) combination.

    Raises the (shrunk) failure; returns :class:`MachineStats` on success."""

    def __call__(
        self,
        algorithm_id: str,
        monoid_id: str,
        implementation: str = ...,
        *,
        max_examples: int = ...,
        steps: int = ...,
        seed: int | None = ...,
        max_window: int = ...,
    ) -> MachineStats: ...


#: State machine runners by :attr:`~swagkit.verify.registry.AlgorithmInfo.kind`. A new ADT (out-of-order
#: windows, sketches ...) registers its machine here, and ``swagkit verify`` and :func:`run_machine` pick it up.
MACHINES: dict[str, MachineRunner] = {}


def register_machine(kind: str, runner: MachineRunner) -> None:
    """Make ``runner`` the state machine of algorithms registered with ``kind``."""
    MACHINES[kind] = runner


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
    """Run the state machine of ``algorithm_id``'s kind for one combination (see :data:`MACHINES`).

    Raises the (shrunk) failure, returns statistics on success; :class:`~swagkit.verify.registry.RegistryError`
    when no machine is registered for the algorithm's kind.
    """
    kind = registry.algorithm(algorithm_id).kind
    runner = MACHINES.get(kind)
    if runner is None:
        raise registry.RegistryError(f"no state machine for {kind!r} algorithms (known: {', '.join(MACHINES)})")
    return runner(
        algorithm_id,
        monoid_id,
        implementation,
        max_examples=max_examples,
        steps=steps,
        seed=seed,
        max_window=max_window,
    )


register_machine("fifo", run_fifo_machine)
