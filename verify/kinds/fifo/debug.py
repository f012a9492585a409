"""Debug mode of the FIFO kind: check a FIFO SWAG against its specification after every single operation.

:class:`CheckedAggregator` forwards ``insert``/``evict``/``query``/``insert_many``/``evict_many``/``len`` (and
``query_range`` and ``shift`` where offered) to the aggregator and keeps the executable ADT model
(:class:`~swagkit.spec.adt.FifoSwag`) in step with it. After every operation it checks

* **model** -- ``len()`` and every ``query()`` answer agree with the model (``monoid.eq``), and misuse raises
  the documented error (``evict()`` on an empty window must raise :class:`EmptyWindowError`);
* **invariants** -- the paper's invariants on ``snapshot()`` against the model's lifted window, with the checker
  of the aggregator's algorithm (or the ``checker`` argument);
* **budget** -- the ``⊗`` count of the operation (``combine_count`` delta) against the theorem's worst-case and
  amortized bounds (:class:`~swagkit.spec.budgets.BudgetMeter`);
* **space** -- the number of stored partial aggregates in the snapshot against the space claim.

Checks that cannot apply are skipped and listed in ``active_checks`` (no ``snapshot()``: no invariants or space;
no ``combine_count`` or unknown algorithm: no budget). A failure raises a subclass of the spec's error
(:mod:`swagkit.verify.errors`) naming the invariant or bound *and* the operation, e.g. ``after insert('c')
(operation #17): daba: invariant 'lA' violated ...``.

The model is updated only after the aggregator's operation returned, so bad input (``insert('x')`` into an
int64 monoid) propagates the aggregator's own exception and leaves both in step; after any exception the
aggregator is re-checked against the unchanged model (the spec promises "nothing lost").

:class:`CheckedNonFifoAggregator` is the ``handles`` extension (the Reactive Aggregator, 002 §2.2): any live
element leaves by the handle its insertion returned. Debug mode costs O(n) ``⊗`` per operation (the invariant
checkers recompute the window's partial aggregates).

The wrapper must know the window's contents: it accepts an empty aggregator, or a non-empty one together with
``seed``, the input values it holds (oldest first) -- they are checked against the aggregator at once.

``contract`` (:class:`~.contract.Contract`) is what the aggregator promises: with a ``capacity`` the model evicts
the oldest element before an insert into a full window, as the aggregator must; with ``ranges``, ``query_all()``
must answer exactly the registered ranges. The wrapper also tells the machine which operations the contract
allows now (:meth:`CheckedAggregator.evictable`, :meth:`CheckedAggregator.queryable`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from swagkit.spec.adt import FifoSwag
from swagkit.spec.budgets import BUDGETS, Budget, BudgetMeter, stored_aggregates
from swagkit.spec.checkers import CHECKERS
from swagkit.spec.errors import BrokenAggregatorError, BudgetExceeded, EmptyWindowError, InvariantViolation
from swagkit.spec.monoid import Monoid, fold
from swagkit.spec.nonfifo import Handle, InvalidHandleError, OrderedMultisetWindow

from ..base import AlgorithmFacts, RefuseGuarantee, checked_ids, monoid_of, same_output
from .contract import Contract

__all__ = [
    "CheckedAggregator",
    "CheckedNonFifoAggregator",
    "checked_fifo",
    "record_bulk",
    "record_batch",
    "record_shift",
]

CheckerFn = Callable[[Any, Monoid[Any, Any, Any], Sequence[Any]], None]


def record_bulk(meter: BudgetMeter, operation: str, n_before: int, count: int, used: int) -> None:
    """Check ``count`` inserts or evicts done in one bulk call that used ``used`` combines in total.

    The worst-case bound is the sum of the single-operation bounds along the way; the amortized potential
    inequality is checked once, at the end (it holds at every step iff the aggregator's bulk call equals the
    single operations, which the invariant check confirms).
    """
    if count == 0:
        if used:
            raise BudgetExceeded(meter.budget.algorithm, f"{operation}_many of 0 values", used, 0, meter.budget.source)
        return
    b = meter.budget
    step = 1 if operation == "insert" else -1
    allowed = sum(b.bound(operation, n_before + step * i) for i in range(count))
    if used > allowed:
        raise BudgetExceeded(b.algorithm, f"{operation}_many of {count} (n={n_before})", used, allowed, b.source)
    if operation == "insert":
        meter.inserts += count
    else:
        meter.evicts += count
    meter.update_combines += used
    meter.check_amortized(max(n_before, n_before + step * count))


def record_batch(meter: BudgetMeter, n_before: int, kinds: Sequence[str], used: int) -> None:
    """Check one batch of mixed ``"insert"``/``"evict"`` events (``kinds``, in order) that used ``used``
    combines in total: at most the sum of the single events' bounds along the way, and the amortized potential
    inequality once at the end (as :func:`record_bulk`)."""
    b = meter.budget
    allowed = 0.0
    n = n_before
    for kind in kinds:
        allowed += b.bound(kind, n)
        n += 1 if kind == "insert" else -1
    if used > allowed:
        raise BudgetExceeded(b.algorithm, f"batch of {len(kinds)} events (n={n_before})", used, allowed, b.source)
    meter.inserts += sum(1 for k in kinds if k == "insert")
    meter.evicts += sum(1 for k in kinds if k != "insert")
    meter.update_combines += used
    meter.check_amortized(max(n, n_before))


def record_shift(meter: BudgetMeter, n_before: int, used: int) -> None:
    """Check one ``shift`` (evict, insert, query in one call on a window of ``n_before``) that used ``used``
    combines: at most the evict, insert and query bounds together. The amortized claims bill update ⊗ only; the
    call's split is not visible, so the query's worst-case bound is taken off (the amortized check loses at most
    that per shift: O(1) ⊗ for the papers' in-order algorithms; FlatFIT bills its queries, ``avg_query``)."""
    b = meter.budget
    query_bound = b.bound("query", n_before)
    allowed = b.bound("evict", n_before) + b.bound("insert", n_before - 1) + query_bound
    if used > allowed:
        raise BudgetExceeded(b.algorithm, f"shift (n={n_before})", used, allowed, b.source)
    meter.evicts += 1
    meter.inserts += 1
    if b.avg_query is not None:
        meter.queries += 1
        meter.update_combines += used
    else:
        meter.update_combines += max(0, used - int(query_bound))
    meter.check_amortized(n_before)


class CheckedAggregator(RefuseGuarantee):
    """An aggregator plus its model, checked after every operation (see the module docstring).

    Attributes: ``inner`` (the wrapped aggregator), ``model`` (the :class:`FifoSwag`), ``monoid``,
    ``algorithm``, ``active_checks`` and ``operations`` (how many operations were performed). Other attributes
    (``snapshot``, ``combine_count``, ``last_case`` …) are forwarded to ``inner``.
    """

    def __init__(
        self,
        aggregator: Any,
        *,
        monoid: Monoid[Any, Any, Any] | None = None,
        algorithm: str | None = None,
        checker: CheckerFn | None = None,
        budget: Budget | None = None,
        seed: Iterable[Any] | None = None,
        history: int = 8,
        facts: AlgorithmFacts | None = None,
        contract: Contract | str | Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(aggregator, algorithm, history)
        m = monoid_of(aggregator, monoid)
        self.monoid: Monoid[Any, Any, Any] = m
        checker_id, budget_id, card = checked_ids(self.algorithm, facts)
        #: what the aggregator promises: the given contract (a Contract, its fields or a ``--contract`` spec),
        #: else its card's, fitted to the capacity and ranges the object itself declares (default: unrestricted)
        self.contract: Contract = (
            Contract.of(contract)
            if contract is not None
            else Contract.of(getattr(card, "contract", None)).fitted(aggregator)
        )
        #: the last operation that changed the window was an evict (a drain may go on: Contract.evictable)
        self._draining = False
        self._has_snapshot = callable(getattr(aggregator, "snapshot", None))
        self._checker: CheckerFn | None = checker if checker is not None else CHECKERS.get(checker_id or "")
        if not self._has_snapshot:
            self._checker = None
        budget = budget if budget is not None else BUDGETS.get(budget_id or "")
        has_count = isinstance(getattr(aggregator, "combine_count", None), int)
        self._meter: BudgetMeter | None = BudgetMeter(budget) if budget is not None and has_count else None
        self._space = self._meter is not None and self._has_snapshot and self._knows_space()
        self.model: FifoSwag[Any, Any, Any] | OrderedMultisetWindow[Any, Any, Any] = self._new_model(m)
        values = list(seed) if seed is not None else []
        if self.contract.capacity is not None and len(values) > self.contract.capacity:
            raise ValueError(f"checked(): seed holds {len(values)} values, the capacity is {self.contract.capacity}")
        if len(aggregator) != len(values):
            raise ValueError(
                f"checked() needs an empty aggregator or seed= with its contents: it holds {len(aggregator)} "
                f"values, seed gives {len(values)}"
            )
        self.model.insert_many(values)
        if self._meter is not None:
            # Seeded elements arrived by inserts we did not see; credit them so amortized bounds stay fair.
            self._meter.inserts = len(values)
        self._verify_state("checked()")

    def _new_model(self, monoid: Monoid[Any, Any, Any]) -> Any:
        """The executable ADT model: the FIFO SWAG of 000 §2.1."""
        return FifoSwag(monoid)

    def _knows_space(self) -> bool:
        try:
            stored_aggregates(self.inner.snapshot())
        except TypeError:
            return False
        return True

    @property
    def active_checks(self) -> tuple[str, ...]:
        """Which checks run after each operation."""
        return self._checks(invariants=self._checker is not None, budget=self._meter is not None, space=self._space)

    # ----------------------------------------------------------------------------------------------------------
    # bookkeeping

    def evictable(self) -> int:
        """How many evicts in a row the contract allows now."""
        return self.contract.evictable(len(self.model), self._draining)

    def queryable(self) -> bool:
        """Whether the contract allows a query now."""
        return self.contract.queryable(len(self.model))

    def _model_insert(self, values: Sequence[Any]) -> None:
        """Insert into the model as the contract says: into a full window of a fixed capacity, the oldest element
        leaves first."""
        for v in values:
            if self.contract.full(len(self.model)):
                self.model.evict()
            self.model.insert(v)
        if values:
            self._draining = False

    def _count(self) -> int:
        """``combine_count`` where a budget is metered (else 0: a read costs a request of an ``--exec`` program)."""
        if self._meter is None:
            return 0
        count = getattr(self.inner, "combine_count", 0)
        return count if isinstance(count, int) else 0

    def _verify_state(self, op: str) -> None:
        """Invariants (first: they name what is wrong most precisely), length and space against the model."""
        state = self.inner.snapshot() if self._checker is not None or self._space else None
        if self._checker is not None:
            try:
                self._checker(state, self.monoid, self.model.values())
            except InvariantViolation as err:
                raise self._invariant_at(err, op) from None
        n = len(self.inner)
        if n != len(self.model):
            raise self._mismatch(op, f"len() is {n}, the model window holds {len(self.model)}")
        if self._space and self._meter is not None:
            try:
                self._meter.check_space(state, n)
            except BudgetExceeded as err:
                raise self._budget_at(err, op) from None

    def _record(self, op: str, operation: str, n_before: int, used: int, count: int | None = None) -> None:
        if self._meter is None:
            return
        try:
            if count is None:
                self._meter.record(operation, n_before, used)
            else:
                record_bulk(self._meter, operation, n_before, count, used)
        except BudgetExceeded as err:
            raise self._budget_at(err, op) from None

    def _credit(self, operation: str, count: int) -> None:
        """A bulk call failed part-way after ``count`` complete operations: they count towards the amortized
        claim, their ⊗ calls (mixed with the failed one's) do not -- a ⊗ that raised and an operation rolled
        back are outside the theorems' model, so failed operations are never billed."""
        if self._meter is not None:
            if operation == "insert":
                self._meter.inserts += count
            else:
                self._meter.evicts += count

    def _recheck(self, label: str) -> None:
        self._verify_state(label)

    def _refuses(self) -> bool:
        try:
            len(self.inner)
            if self._has_snapshot:
                self.inner.snapshot()
            else:
                self.inner.query()
        except BrokenAggregatorError:
            return True
        return False

    def _contents(self) -> list[Any]:
        """What ``salvage()`` must return: the model's lifted values, oldest first."""
        return list(self.model.values())

    def _holds(self, held: list[Any]) -> bool:
        want = self._contents()
        return len(held) == len(want) and all(a == b or self.monoid.eq(a, b) for a, b in zip(held, want))

    def _same(self, got: Any, want: Any) -> bool:
        """Whether a query answer matches the model's (see :func:`same_output`)."""
        return same_output(self.monoid, got, want)

    # ----------------------------------------------------------------------------------------------------------
    # the FIFO SWAG operations

    def insert(self, value: Any) -> None:
        """``inner.insert(value)``, then the model; a raising insert must leave the aggregator unchanged."""
        op = self._begin("insert", value)
        n, c0 = len(self.model), self._count()
        self._guarded(op, lambda: self.inner.insert(value), lambda: self._model_insert([value]))
        used = self._count() - c0
        try:
            self._model_insert([value])
        except Exception as exc:
            raise self._mismatch(op, f"the aggregator accepted a value the monoid's lift rejects ({exc!r})") from exc
        self._verify_state(op)
        self._record(op, "insert", n, used)

    def evict(self) -> None:
        """``inner.evict()``; on an empty window it must raise :class:`EmptyWindowError` and change nothing."""
        op = self._begin("evict")
        n, c0 = len(self.model), self._count()
        try:
            self.inner.evict()
        except Exception as exc:
            self._empty_rule(op, "evict", n, exc)
            self._after_failure(op, exc, None if isinstance(exc, EmptyWindowError) else self.model.evict)
            raise
        if n == 0:
            raise self._mismatch(op, "evict() on an empty window returned instead of raising EmptyWindowError")
        used = self._count() - c0
        self.model.evict()
        self._draining = True
        self._verify_state(op)
        self._record(op, "evict", n, used)

    def query(self) -> Any:
        """``inner.query()``, compared with the model's answer."""
        return self._compared(self._begin("query"), "query()", self.inner.query, self.model.query)

    def _compared(self, op: str, what: str, call: Callable[[], Any], answer: Callable[[], Any]) -> Any:
        """``call()``'s answer (a query of some range), compared with the model's ``answer()`` and billed like a
        query."""
        n, c0 = len(self.model), self._count()
        got = self._guarded(op, call)
        used = self._count() - c0
        want = self.model_answer = answer()
        if not self._same(got, want):
            raise self._mismatch(op, f"{what} returned {got!r}, the model's answer is {want!r} (n={n})")
        self._verify_state(op)
        self._record(op, "query", n, used)
        return got

    def _newest(self, r: int) -> Any:
        """The model's answer for the newest ``min(r, n)`` elements."""
        values = self.model.values()
        return self.monoid.lower(fold(self.monoid, values[len(values) - min(r, len(values)) :]))

    def shift(self, value: Any) -> Any:
        """``inner.shift(value)`` (evict the oldest, insert ``value``, answer the query, in one call), checked
        like those three operations: the answer against the model's, the ⊗ count against the sum of their
        bounds (:func:`record_shift`). It must raise :class:`EmptyWindowError` on an empty window and change
        nothing on a refused value; when it raises after its eviction (``combine`` failing in the insertion)
        the window must be one shorter and consistent. An aggregator without ``shift`` gets the three checked
        operations instead."""
        own = getattr(self.inner, "shift", None)
        if not callable(own):
            self.evict()
            self.insert(value)
            return self.query()
        op = self._begin("shift", value)
        n, c0 = len(self.model), self._count()
        try:
            got = own(value)
        except EmptyWindowError as exc:
            self._empty_rule(op, "shift", n, exc)
            self._after_failure(op, exc)
            raise
        except Exception as exc:
            self._empty_rule(op, "shift", n, exc)
            length = self._length()
            # completed steps count towards the amortized claim, their ⊗ do not (as for a failed bulk call)
            if length == n - 1:  # the eviction stayed done, the insertion failed
                self.model.evict()
                self._draining = True
                self._credit("evict", 1)
            elif length == n and self._shifted(value):  # ⊗ failed in the query: the window did shift
                self.model.evict()
                self._model_insert([value])
                self._credit("evict", 1)
                self._credit("insert", 1)
            self._after_failure(op, exc, lambda: self._model_shift(value))
            raise
        if n == 0:
            raise self._mismatch(op, "shift() on an empty window returned instead of raising EmptyWindowError")
        used = self._count() - c0
        self.model.evict()
        try:
            self._model_insert([value])
        except Exception as exc:
            raise self._mismatch(op, f"the aggregator accepted a value the monoid's lift rejects ({exc!r})") from exc
        want = self.model.query()
        self.model_answer = want
        if not self._same(got, want):
            raise self._mismatch(op, f"shift() returned {got!r}, the model's answer is {want!r} (n={n})")
        self._verify_state(op)
        if self._meter is not None:
            try:
                record_shift(self._meter, n, used)
            except BudgetExceeded as err:
                raise self._budget_at(err, op) from None
        return got

    def _model_shift(self, value: Any) -> None:
        """The model's shift (for ``salvage()`` after a refusal: the contents after the operation)."""
        if len(self.model):
            self.model.evict()
        self._model_insert([value])

    def _shifted(self, value: Any) -> bool:
        """After a ``shift`` that raised and kept the length: did the window shift (``combine`` failed in the
        query) rather than stay as it was (it failed in the eviction, or the value was refused)? Judged by the
        invariant checker on the snapshot where there is one, else by a query; when the two windows hold the same
        values, shifted; when only a query cannot tell them apart, as it was (the spec's default)."""
        try:
            lifted = self.monoid.lift(value)
        except Exception:
            return False
        before = list(self.model.values())
        after = [*before[1:], lifted]
        if self._holds(after):
            # the same values either way (e.g. all equal): the model is right both ways, and crediting the two
            # steps is the lenient side of the amortized check (not crediting a shift that happened would bill
            # its element's future flip against nothing)
            return True
        if self._checker is not None:
            try:
                state = self.inner.snapshot()
            except BrokenAggregatorError:  # it refuses: salvage() decides (RefuseGuarantee)
                return False
            for window in (before, after):
                try:
                    self._checker(state, self.monoid, window)
                except InvariantViolation:
                    continue
                return window is after
            return False
        try:
            got = self.inner.query()
        except Exception:
            return False
        m = self.monoid
        return self._same(got, m.lower(fold(m, after))) and not self._same(got, m.lower(fold(m, before)))

    def _empty_rule(self, op: str, name: str, n: int, exc: Exception) -> None:
        """``name`` (an operation that evicts the oldest) raised ``exc`` on a window of ``n``: it must be
        :class:`EmptyWindowError` exactly when the window is empty (a model mismatch otherwise)."""
        empty_error = isinstance(exc, EmptyWindowError)
        if empty_error and n != 0:
            raise self._mismatch(op, f"{name}() raised EmptyWindowError on a window of {n}") from exc
        if not empty_error and n == 0:
            raise self._mismatch(op, f"{name}() on an empty window raised {exc!r}, not EmptyWindowError") from exc

    def _length(self) -> int | None:
        """``len(inner)``, or None when the aggregator refuses to answer it."""
        try:
            return len(self.inner)
        except BrokenAggregatorError:
            return None

    def insert_many(self, values: Iterable[Any]) -> None:
        """Bulk insert (the aggregator's own ``insert_many`` when it has one). On an exception the values the
        aggregator did take (a prefix) are added to the model before the re-check."""
        vals = list(values)
        op = self._begin("insert_many", vals)
        n, c0 = len(self.model), self._count()
        bulk = getattr(self.inner, "insert_many", None)
        try:
            if callable(bulk):
                bulk(vals)
            else:
                for v in vals:
                    self.inner.insert(v)
        except Exception as exc:
            # a prefix may have been taken (each insertion is all-or-nothing); the budget of a failed bulk call
            # is not judged (its last ⊗ raised part-way)
            taken = len(self.inner) - n
            if self.contract.full(len(self.inner)):
                # a full window of a fixed capacity keeps its size, so len() cannot tell how many values were
                # taken: not judged (the machines never let a faulted bulk insert reach the capacity)
                raise
            if 0 < taken <= len(vals):
                self.model.insert_many(vals[:taken])
                self._credit("insert", taken)
            self._after_failure(op, exc)
            raise
        used = self._count() - c0
        self._model_insert(vals)
        self._verify_state(op)
        self._record(op, "insert", n, used, count=len(vals))

    def evict_many(self, count: int) -> None:
        """Bulk evict; ``count > len()`` must raise :class:`EmptyWindowError` evicting nothing, a negative
        ``count`` ``ValueError``."""
        op = self._begin("evict_many", count)
        n, c0 = len(self.model), self._count()
        expected: type[Exception] | None = ValueError if count < 0 else EmptyWindowError if count > n else None
        bulk = getattr(self.inner, "evict_many", None)
        try:
            if callable(bulk):
                bulk(count)
            elif expected is not None:
                raise expected(f"evict_many({count}) on a window of {n}")
            else:
                for _ in range(count):
                    self.inner.evict()
        except (ValueError, EmptyWindowError) as exc:
            if expected is None or not isinstance(exc, expected):
                raise self._mismatch(op, f"evict_many({count}) on a window of {n} raised {exc!r}") from exc
            self._after_failure(op, exc)
            raise
        except Exception as exc:
            taken = n - len(self.inner)  # a prefix of the evictions may have happened (each all-or-nothing)
            if expected is None and 0 < taken <= count:
                self.model.evict_many(taken)
                self._credit("evict", taken)
            self._after_failure(op, exc)
            raise
        if expected is not None:
            raise self._mismatch(op, f"evict_many({count}) on a window of {n} did not raise {expected.__name__}")
        used = self._count() - c0
        self.model.evict_many(count)
        self._draining = self._draining or count > 0
        self._verify_state(op)
        self._record(op, "evict", n, used, count=count)

    def _query_range(self, r: int) -> Any:
        """``inner.query_range(r)`` (SlickDeque, FlatFIT: the newest ``min(r, n)`` elements), compared with the
        model's fold of those elements and billed like a query."""
        op = self._begin("query_range", r)
        return self._compared(op, f"query_range({r})", lambda: self.inner.query_range(r), lambda: self._newest(r))

    def _query_all(self) -> dict[int, Any]:
        """``inner.query_all()`` (SlickDeque's multi-query mode, 001 §4): ``{r: answer}`` for every registered
        range -- exactly the contract's ``ranges`` when it names them -- each the model's fold of the newest
        ``min(r, n)`` elements; billed like a query."""
        op = self._begin("query_all")
        n, c0 = len(self.model), self._count()
        got = self._guarded(op, self.inner.query_all)
        used = self._count() - c0
        ranges = self.contract.ranges
        if not isinstance(got, dict) or (ranges is not None and set(got) != set(ranges)):
            raise self._mismatch(op, f"query_all() returned {self.labels.repr(got)}, not one answer per range {ranges}")
        wants: dict[int, Any] = {}
        for r, answer in got.items():
            want = wants[r] = self._newest(r)
            if not self._same(answer, want):
                raise self._mismatch(
                    op, f"query_all() answers {answer!r} for range {r}, the model's answer is {want!r} (n={n})"
                )
        self.model_answer = wants
        self._verify_state(op)
        self._record(op, "query", n, used)
        return got

    def __getattr__(self, name: str) -> Any:
        attr = super().__getattr__(name)
        if name == "query_range" and callable(attr):  # checked only where the aggregator offers it
            return self._query_range
        if name == "query_all" and callable(attr):
            return self._query_all
        return attr


class CheckedNonFifoAggregator(CheckedAggregator):
    """Debug mode of an aggregator that also evicts *any* live element (the Reactive Aggregator, 002 §2.2): the
    model is :class:`~swagkit.spec.nonfifo.OrderedMultisetWindow` (live elements in arrival order), and the
    handle operations ``insert_with_handle``, ``insert_many_with_handles``, ``remove``, ``remove_many``,
    ``batch`` and ``handles`` are checked like the FIFO ones: same handles as the model, the invariants against
    the model's window, removals billed like evictions, and a dead handle must raise
    :class:`~swagkit.spec.nonfifo.InvalidHandleError` changing nothing.
    """

    model: OrderedMultisetWindow[Any, Any, Any]

    def _new_model(self, monoid: Monoid[Any, Any, Any]) -> Any:
        return OrderedMultisetWindow(monoid)

    def _contents(self) -> list[Any]:
        """What ``salvage()`` must return: ``(handle, lifted value)`` pairs of the live elements, oldest first."""
        return list(zip(self.model.handles(), self.model.values()))

    def insert_with_handle(self, value: Any) -> Handle:
        """``inner.insert_with_handle(value)``; the handle must be the model's."""
        op = self._begin("insert_with_handle", value)
        n, c0 = len(self.model), self._count()
        h: Handle = self._guarded(op, lambda: self.inner.insert_with_handle(value))
        used = self._count() - c0
        want = self.model.insert_with_handle(value)
        if h != want:
            raise self._mismatch(op, f"insert_with_handle returned handle {h!r}, the model's is {want!r}")
        self._verify_state(op)
        self._record(op, "insert", n, used)
        return h

    def insert_many_with_handles(self, values: Iterable[Any]) -> list[Handle]:
        """Bulk insert returning the handles, which must be the model's (all-or-nothing on a bad value)."""
        vals = list(values)
        op = self._begin("insert_many_with_handles", vals)
        n, c0 = len(self.model), self._count()
        hs: list[Handle] = list(self._guarded(op, lambda: self.inner.insert_many_with_handles(vals)))
        used = self._count() - c0
        want = [self.model.insert_with_handle(v) for v in vals]
        if hs != want:
            raise self._mismatch(
                op, f"insert_many_with_handles returned {self.labels.repr(hs)}, the model's {self.labels.repr(want)}"
            )
        self._verify_state(op)
        self._record(op, "insert", n, used, count=len(vals))
        return hs

    def remove(self, handle: Handle) -> None:
        """Non-FIFO eviction of a live element; a handle that is not live must raise InvalidHandleError."""
        op = self._begin("remove", handle)
        self._removal(op, [handle], lambda: self.inner.remove(handle), f"remove({handle!r})")

    def remove_many(self, handles: Iterable[Handle]) -> None:
        """Remove several live elements as one batch; any dead or repeated handle: InvalidHandleError, no change."""
        hs = list(handles)
        op = self._begin("remove_many", hs)
        self._removal(op, hs, lambda: self.inner.remove_many(hs), f"remove_many({self.labels.repr(hs)})")

    def _removal(self, op: str, hs: list[Handle], call: Callable[[], Any], what: str) -> None:
        """``call()`` removes the elements of handles ``hs``: all live and distinct, or InvalidHandleError and
        nothing changes."""
        n, c0 = len(self.model), self._count()
        live = set(self.model.handles())
        valid = len(set(hs)) == len(hs) and all(h in live for h in hs)
        try:
            call()
        except InvalidHandleError as exc:
            if valid:
                raise self._mismatch(op, f"{what} of live handles raised {exc!r}") from exc
            self._after_failure(op, exc)
            raise
        except Exception as exc:
            if not valid:
                raise self._mismatch(op, f"{what} of a dead handle raised {exc!r}, not InvalidHandleError") from exc
            self._after_failure(op, exc)
            raise
        if not valid:
            raise self._mismatch(op, f"{what} with a dead or repeated handle returned instead of raising")
        used = self._count() - c0
        for h in hs:
            self.model.remove(h)
        self._verify_state(op)
        self._verify_handles(op)
        self._record(op, "evict", n, used, count=len(hs) if len(hs) != 1 or op.startswith("remove_many") else None)

    def batch(self, events: Iterable[tuple[Any, ...]]) -> list[Handle | None]:
        """Mixed insert/evict/remove events propagated once. A bad event raises after the events before it were
        applied: the model replays events until it raises too, then the states must agree."""
        evs = list(events)
        op = self._begin("batch", evs)
        n, c0 = len(self.model), self._count()
        try:
            out = list(self.inner.batch(evs))
        except Exception as exc:
            applied = self._replay(evs)
            if applied == len(evs):
                raise self._mismatch(op, f"batch raised {exc!r} but the model accepts every event") from exc
            self._after_failure(op, exc)
            if self._meter is not None and applied:
                try:
                    record_batch(self._meter, n, self._kinds(evs[:applied]), self._count() - c0)
                except BudgetExceeded as err:
                    raise self._budget_at(err, op) from exc
            raise
        used = self._count() - c0
        want: list[Handle | None] = []
        for ev in evs:
            want.append(self._apply(ev))
        if out != want:
            raise self._mismatch(
                op, f"batch returned {self.labels.repr(out)}, the model's results are {self.labels.repr(want)}"
            )
        self._verify_state(op)
        self._verify_handles(op)
        if self._meter is not None:
            try:
                record_batch(self._meter, n, self._kinds(evs), used)
            except BudgetExceeded as err:
                raise self._budget_at(err, op) from None
        return out

    def handles(self) -> list[Handle]:
        """The live handles, oldest first, compared with the model's."""
        return self._live_handles(self._begin("handles"))

    # helpers --------------------------------------------------------------------------------------------------

    def _verify_handles(self, op: str) -> None:
        """After a non-FIFO removal the live handles must be the model's: with equal values (every element "a")
        the aggregate cannot tell which element went, the handles can, and the failure names the removal."""
        if callable(getattr(self.inner, "handles", None)):
            self._live_handles(op)

    def _live_handles(self, op: str) -> list[Handle]:
        """The inner structure's live handles, which must be the model's (a mismatch names ``op``)."""
        got = list(self.inner.handles())
        if got != self.model.handles():
            raise self._mismatch(
                op, f"handles() = {self.labels.repr(got)}, the model's {self.labels.repr(self.model.handles())}"
            )
        return got

    def _apply(self, ev: tuple[Any, ...]) -> Handle | None:
        kind = ev[0] if isinstance(ev, tuple) and ev else None
        if kind == "insert" and len(ev) == 2:
            return self.model.insert_with_handle(ev[1])
        if kind == "evict" and len(ev) == 1:
            self.model.evict()
            return None
        if kind == "remove" and len(ev) == 2:
            self.model.remove(ev[1])
            return None
        raise ValueError(f"batch: bad event {ev!r}")

    def _replay(self, evs: list[tuple[Any, ...]]) -> int:
        """Apply events to the model until one raises; return how many were applied."""
        for k, ev in enumerate(evs):
            try:
                self._apply(ev)
            except Exception:
                return k
        return len(evs)

    @staticmethod
    def _kinds(evs: Sequence[tuple[Any, ...]]) -> list[str]:
        return ["insert" if ev[0] == "insert" else "evict" for ev in evs]


def checked_fifo(
    aggregator: Any,
    *,
    monoid: Monoid[Any, Any, Any] | None = None,
    algorithm: str | None = None,
    facts: AlgorithmFacts | None = None,
    checker: CheckerFn | None = None,
    budget: Budget | None = None,
    seed: Iterable[Any] | None = None,
    contract: Contract | str | Mapping[str, Any] | None = None,
) -> CheckedAggregator:
    """The FIFO kind's debug wrapper: :class:`CheckedNonFifoAggregator` for an algorithm of the ``handles`` ADT
    (or, when the card is unknown, an object offering the handle operations), else :class:`CheckedAggregator`.
    An already checked aggregator is returned as is. ``contract``: what the aggregator promises (default: its
    card's, else unrestricted; see :mod:`.contract`)."""
    if isinstance(aggregator, CheckedAggregator):
        return aggregator
    card = facts.card if facts is not None else None
    handles = (
        card.adt == "handles"
        if card is not None
        else all(callable(getattr(aggregator, name, None)) for name in HANDLE_OPERATIONS)
    )
    return (CheckedNonFifoAggregator if handles else CheckedAggregator)(
        aggregator,
        monoid=monoid,
        algorithm=algorithm,
        checker=checker,
        budget=budget,
        seed=seed,
        facts=facts,
        contract=contract,
    )


#: the operations that make a FIFO SWAG one of the ``handles`` ADT (what :func:`checked_fifo` looks for)
HANDLE_OPERATIONS = ("insert_with_handle", "remove")
