"""The Hypothesis state machine of the FIFO kind, for every (algorithm, monoid, implementation) combination.

:func:`make_fifo_machine` builds a :class:`~hypothesis.stateful.RuleBasedStateMachine` whose state is a
:func:`~.debug.checked_fifo` aggregator built by the :class:`~swagkit.verify.kinds.base.Subject`. The checked
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
size); where the aggregator offers ``shift`` (evict, insert, query in one call), ``shifts`` and ``shift_empty``.
After each step an invariant queries the window. The window is capped at ``max_window`` elements to keep the
O(n) checks cheap; the cap exceeds the reference deque's chunk size (64) so chunk boundaries are crossed.

Generic monoids (no typed ``kind``) also get ``combine_raises``: the k-th ⊗ of an operation raises once
(:mod:`swagkit.verify.faults`), and the aggregator must be as before the operation, never answer wrong.

Aggregators that also remove any live element by handle (the Reactive Aggregator's non-FIFO windows, 002
§2.2) get :class:`~.debug.CheckedNonFifoAggregator` and the rules ``insert_with_handle``,
``remove`` (a live handle), ``remove_dead_handle`` (must raise and change nothing), ``remove_many`` and
``batch`` (mixed events propagated once).

A :class:`~.contract.Contract` (the card's ``contract``, or ``contract`` of :func:`make_fifo_machine`) restricts
the operations: every rule asks the checked wrapper which evicts and queries the contract allows now, inserts into
a full fixed-capacity window are valid (the oldest leaves), the misuse rules run only where the contract defines
misuse, and with registered ``ranges`` (001 §4's multi-query mode) ``query_range`` is asked for those ranges and
``query_all()`` is checked range by range.

Hypothesis prints a failing run as a replayable program (``state = …; state.insert(value='a'); …``).
"""

from __future__ import annotations

from typing import Any, ClassVar

from hypothesis import strategies as st
from hypothesis.stateful import invariant, precondition, rule

from swagkit.spec.errors import EmptyWindowError
from swagkit.spec.nonfifo import InvalidHandleError

from ...strategies import strategy_for
from ..base import Subject, expect_raises, traced_operations
from ..machines import DEFAULT_MAX_WINDOW, WindowMachine, bind
from .contract import Contract
from .debug import CheckedAggregator, CheckedNonFifoAggregator, checked_fifo
from .face import OPERATIONS

__all__ = ["SwagMachine", "make_fifo_machine"]


class SwagMachine(WindowMachine):
    """Base of the generated machines; :func:`make_fifo_machine` binds it and adds the rules."""

    #: the declared contract (``None``: the card's, else unrestricted)
    contract: ClassVar[Contract | None] = None
    trace_operations = traced_operations(OPERATIONS)
    kind_name = "fifo"

    checked: CheckedAggregator

    def __init__(self) -> None:
        super().__init__()
        aggregator = self._check(checked_fifo, contract=self.contract)
        #: what the aggregator promises (the rules stay inside it)
        self.promise: Contract = self.checked.contract
        #: the registered ranges of a multi-query window (001 §4), longest first; () when none are declared
        self.ranges: tuple[int, ...] = self.promise.ranges or ()
        #: the aggregator also removes any live element by handle (002 §2.2): the non-FIFO rules apply
        self.nonfifo = isinstance(self.checked, CheckedNonFifoAggregator)
        #: the aggregator answers any range of the newest r elements too (``query_range``; SlickDeque Inv answers
        #: only its registered ranges, none in plain mode, and says so with ValueError on the empty aggregator)
        self.ranged = (
            not self.ranges and callable(getattr(aggregator, "query_range", None)) and _answers_any_range(aggregator)
        )
        self.answers_all = bool(self.ranges) and callable(getattr(aggregator, "query_all", None))
        #: optional handle operations the aggregator offers (a user's class may lack some: their rules are off)
        self.offers = frozenset(n for n in _OPTIONAL_OPS if callable(getattr(aggregator, n, None)))

    # helpers shared by the rules ------------------------------------------------------------------------------

    def _expect_empty_window_error(self, action: str, count: int | None) -> None:
        """Misuse must raise EmptyWindowError and leave the state exactly as it was."""
        call = self.swag.evict if count is None else lambda: self.swag.evict_many(count)
        with self.trace.under("misuse"):
            expect_raises(call, EmptyWindowError, action, self.checked._snapshot)

    def _insert_many(self, values: list[Any]) -> None:
        """``insert_many`` where the aggregator offers it, else one ``insert`` per value (a trace step is one
        call the aggregator gets)."""
        if "insert_many" in self.offers:
            self.swag.insert_many(values)
        else:
            for v in values:
                self.swag.insert(v)

    def _evict_many(self, count: int) -> None:
        """``evict_many`` where the aggregator offers it, else ``count`` evicts."""
        if "evict_many" in self.offers:
            self.swag.evict_many(count)
        else:
            for _ in range(count):
                self.swag.evict()

    def _room(self) -> int:
        """Inserts allowed now: into a fixed capacity within the cap any insert is valid (the oldest leaves)."""
        cap = self.promise.capacity
        if cap is not None and cap <= self.max_window:
            return self.max_window
        return super()._room()

    def _evictable(self) -> int:
        return self.checked.evictable()

    def _query(self) -> None:
        """A query when the contract allows one now."""
        if self.checked.queryable():
            self.swag.query()

    def _live(self) -> Any:
        """The non-FIFO model (:class:`~swagkit.spec.nonfifo.OrderedMultisetWindow`) of a non-FIFO aggregator."""
        assert isinstance(self.checked, CheckedNonFifoAggregator)
        return self.checked.model


def _answers_any_range(aggregator: Any) -> bool:
    try:
        aggregator.query_range(1)
    except ValueError:
        return False
    return True


def make_fifo_machine(
    subject: Subject,
    monoid_id: str,
    max_window: int = DEFAULT_MAX_WINDOW,
    *,
    strategy: st.SearchStrategy[Any] | None = None,
    contract: Contract | None = None,
) -> type[SwagMachine]:
    """A state machine class checking ``subject`` (a FIFO SWAG) over library monoid ``monoid_id``, with input
    values ``strategy`` (default: the library's strategy; ``KeyError`` when there is none), within ``contract``
    (default: the subject's card's, else unrestricted)."""
    values = strategy if strategy is not None else strategy_for(monoid_id)
    chunk = st.lists(values, min_size=1, max_size=24)

    class Machine(SwagMachine):
        @precondition(lambda self: self._room() > 0)
        @rule(value=values)
        def insert(self, value: Any) -> None:
            self.swag.insert(value)
            self._step()

        @precondition(lambda self: self._evictable() > 0)
        @rule()
        def evict(self) -> None:
            self.swag.evict()
            self._step()

        @precondition(lambda self: len(self.swag) == 0 and self.misuse_rules and self.promise.misuse)
        @rule()
        def evict_empty(self) -> None:
            self._expect_empty_window_error("evict() on an empty window", None)
            self._step()

        @precondition(lambda self: self.checked.queryable())
        @rule()
        def query(self) -> None:
            self.swag.query()
            self._step()

        @rule(vs=st.lists(values, max_size=8))
        def insert_many(self, vs: list[Any]) -> None:
            self._insert_many(vs[: self._room()])
            self._step()

        @rule(k=st.integers(min_value=0, max_value=8))
        def evict_many(self, k: int) -> None:
            self._evict_many(min(k, self._evictable()))
            self._step()

        @precondition(lambda self: self.misuse_rules and self.promise.misuse and "evict_many" in self.offers)
        @rule(extra=st.integers(min_value=1, max_value=3))
        def evict_many_too_many(self, extra: int) -> None:
            n = len(self.swag)
            self._expect_empty_window_error(f"evict_many({n + extra}) on a window of {n}", n + extra)
            self._step()

        @rule(size=st.integers(min_value=0, max_value=max_window), vs=st.lists(values, min_size=1, max_size=6))
        def grow_to(self, size: int, vs: list[Any]) -> None:
            """Insert ``vs`` cyclically until the window holds ``size`` values: big windows (several chunks)
            are reached often, not only by long insert streaks."""
            need = max(min(size, self.promise.capacity or size) - len(self.swag), 0)
            self._insert_many([vs[i % len(vs)] for i in range(need)])
            self._step()

        @rule(vs=chunk)
        def static_rounds(self, vs: list[Any]) -> None:
            """000 §7.1: rounds of evict, insert, query at a fixed window size (from an empty window: grow by 1)."""
            for v in vs:
                if not self.promise.full(len(self.swag)) and self._evictable() > 0:
                    self.swag.evict()  # a full fixed-capacity window evicts by itself
                self.swag.insert(v)
                self._query()
            self._step()

        @rule(vs=chunk)
        def fill_and_drain(self, vs: list[Any]) -> None:
            """000 §7.2: insert and query up to a size, then evict down to 0 (no queries while draining)."""
            for v in vs[: self._room()]:
                self.swag.insert(v)
                self._query()
            while self._evictable() > 0:
                self.swag.evict()
            self._step()

        @rule(vs=chunk, up=st.integers(min_value=1, max_value=6), down=st.integers(min_value=1, max_value=6))
        def seesaw(self, vs: list[Any], up: int, down: int) -> None:
            """Grow by ``up`` (one insert+query each), shrink by ``down`` (one evict+query each), repeatedly."""
            for start in range(0, len(vs), up):
                for v in vs[start : start + up][: self._room()]:
                    self.swag.insert(v)
                    self._query()
                for _ in range(min(down, self._evictable())):
                    self.swag.evict()
                    self._query()
            self._step()

        @precondition(lambda self: "shift" in self.offers and self._evictable() > 0 and self.checked.queryable())
        @rule(vs=chunk)
        def shifts(self, vs: list[Any]) -> None:
            """000 §7.1's static rounds through the one-call ``shift`` (evict, insert, query) where offered."""
            for v in vs:
                if self._evictable() == 0 or not self.checked.queryable():
                    break
                self.swag.shift(v)
            self._step()

        @precondition(
            lambda self: len(self.swag) == 0 and "shift" in self.offers and self.misuse_rules and self.promise.misuse
        )
        @rule(value=values)
        def shift_empty(self, value: Any) -> None:
            """``shift`` on an empty window must raise EmptyWindowError and change nothing."""
            shift = self.swag.shift
            with self.trace.under("misuse"):
                expect_raises(
                    lambda: shift(value), EmptyWindowError, "shift() on an empty window", self.checked._snapshot
                )
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

        @precondition(lambda self: bool(self.ranges) and self.checked.queryable())
        @rule(i=st.integers(min_value=0, max_value=15))
        def query_registered_range(self, i: int) -> None:
            """One registered range of a multi-query window (001 §4)."""
            self.swag.query_range(self.ranges[i % len(self.ranges)])
            self._step()

        @precondition(lambda self: self.answers_all and self.checked.queryable())
        @rule()
        def query_all(self) -> None:
            """Every registered range at once, longest first (001 Algorithm 2's answer loop, cursor carried)."""
            self.swag.query_all()
            self._step()

        @precondition(lambda self: self.answers_all)
        @rule(vs=chunk)
        def slide_and_answer(self, vs: list[Any]) -> None:
            """001's execution loop: each new partial, then every registered range answered (``query_all``)."""
            for v in vs:
                self.swag.insert(v)
                self.swag.query_all()
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

        @precondition(lambda self: self.nonfifo and self.misuse_rules)
        @rule(data=st.data())
        def remove_dead_handle(self, data: st.DataObject) -> None:
            """A handle that is not live (evicted, removed, never issued, not an int) raises InvalidHandleError
            and changes nothing."""
            live = set(self._live().handles())
            handle = data.draw(
                st.one_of(st.integers(-2, len(live) + 8).filter(lambda h: h not in live), st.just("0")), label="dead"
            )
            with self.trace.under("misuse"):
                expect_raises(
                    lambda: self.swag.remove(handle),
                    InvalidHandleError,
                    f"remove({handle!r}) of a dead handle",
                    self.checked._snapshot,
                )
            self._step()

        @precondition(lambda self: self.nonfifo and len(self.swag) > 0 and "remove_many" in self.offers)
        @rule(data=st.data())
        def remove_many(self, data: st.DataObject) -> None:
            live = self._live().handles()
            chosen = data.draw(st.lists(st.sampled_from(live), unique=True, max_size=min(6, len(live))), label="hs")
            self.swag.remove_many(chosen)
            self._step()

        @precondition(lambda self: self.nonfifo and "batch" in self.offers)
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
        @rule(
            k=st.integers(min_value=1, max_value=12),
            ops=st.lists(st.sampled_from(_FAULT_OPS), min_size=1, max_size=10),
            value=values,
        )
        def combine_raises(self, k: int, ops: list[str], value: Any) -> None:
            """The k-th ⊗ from now raises once (a transient fault) while ``ops`` run: the operation it hits must
            fail leaving the aggregator as before (``insert_many``/``evict_many``: as after a prefix of it),
            which the checked wrapper verifies against the model, and the next query must answer like the
            model. Never a silent wrong answer. (Several operations under one armed fault put it deep inside
            flips and fixups, whatever the algorithm.)"""

            def under_fault() -> None:
                for op in ops:
                    if op == "insert" and self._room() > 0:
                        self.swag.insert(value)
                    elif op == "evict" and self._evictable() > 0:
                        self.swag.evict()
                    elif op == "insert_many" and self._room() >= 3 and not self.promise.full(len(self.swag) + 3):
                        self._insert_many([value, value, value])
                    elif op == "evict_many" and self._evictable() > 0:
                        self._evict_many(min(3, self._evictable()))
                    elif (
                        op == "shift" and "shift" in self.offers and self._evictable() > 0 and self.checked.queryable()
                    ):
                        self.swag.shift(value)
                    else:
                        self._query()

            self._under_fault(k, under_fault)
            self._query()
            self._step()

        @invariant()
        def agrees_with_model(self) -> None:
            self._query()
            if self.nonfifo and "handles" in self.offers:
                self.swag.handles()

    bound = bind(Machine, subject, monoid_id, max_window)
    bound.contract = contract
    return bound


#: operations an aggregator may lack (their rules are off then, or the machine makes the single calls): the bulk
#: calls, the handle operations a ``handles`` aggregator may lack (every registered one has them) and the one-call
#: static-window step ``shift``
_OPTIONAL_OPS = ("insert_many", "evict_many", "remove_many", "batch", "handles", "shift")

#: operations the ``combine_raises`` rule makes fail
_FAULT_OPS = ("insert", "insert", "evict", "evict", "query", "insert_many", "evict_many", "shift")
