"""Debug mode: check an aggregator against its specification after every single operation.

``checked(aggregator)`` returns a :class:`CheckedAggregator` that forwards ``insert``/``evict``/``query``/
``insert_many``/``evict_many``/``len`` to the aggregator and keeps the executable ADT model
(:class:`~swagkit.spec.adt.FifoSwag`) in step with it. After every operation it checks

* **model** -- ``len()`` and every ``query()`` answer agree with the model (``monoid.eq``), and misuse raises
  the documented error (``evict()`` on an empty window must raise :class:`EmptyWindowError`);
* **invariants** -- the paper's invariants on ``snapshot()`` against the model's lifted window, with the checker
  registered for the aggregator's ``algorithm`` id (or the ``checker`` argument);
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

Debug mode costs O(n) ``⊗`` per operation (the invariant checkers recompute the window's partial aggregates).
``SWAGKIT_CHECK=1`` turns it on for every aggregator built by :func:`swagkit.verify.registry.create`.

The wrapper must know the window's contents: it accepts an empty aggregator, or a non-empty one together with
``seed``, the input values it holds (oldest first) -- they are checked against the aggregator at once.
"""

from __future__ import annotations

import math
import os
import reprlib
from collections import deque
from typing import Any, Callable, Iterable, Sequence

from swagkit.spec.adt import FifoSwag
from swagkit.spec.budgets import BUDGETS, Budget, BudgetMeter, stored_aggregates
from swagkit.spec.checkers import CHECKERS
from swagkit.spec.errors import BrokenAggregatorError, BudgetExceeded, EmptyWindowError, InvariantViolation, ModelMismatch
from swagkit.spec.monoid import Monoid, fold
from swagkit.spec.nonfifo import Handle, InvalidHandleError, OrderedMultisetWindow

from . import registry
from .errors import BudgetExceededAt, InvariantViolationAt, ModelMismatchAt

__all__ = [
    "ENV_VAR",
    "CHECKED_KINDS",
    "register_checked",
    "check_enabled",
    "checked",
    "CheckedAggregator",
    "CheckedNonFifoAggregator",
    "record_bulk",
    "record_batch",
    "outputs_close",
    "same_output",
]

#: Environment variable that turns debug mode on for aggregators built by :func:`registry.create`.
ENV_VAR = "SWAGKIT_CHECK"

#: Tolerance for lowered query outputs of monoids whose ``tolerance`` is not ``"exact"`` (see ``_same``).
OUTPUT_REL_TOL = 1e-6
OUTPUT_ABS_TOL = 1e-6

CheckerFn = Callable[[Any, Monoid[Any, Any, Any], Sequence[Any]], None]

_repr = reprlib.Repr()
_repr.maxstring = 40
_repr.maxother = 40
_repr.maxlist = 8
_repr.maxtuple = 8


#: Debug-mode wrappers of the non-FIFO kinds (registry ``kind`` -> ``wrapper(aggregator, monoid=, algorithm=)``);
#: each kind's module registers its own, and :func:`checked` dispatches on the algorithm's kind.
CHECKED_KINDS: dict[str, Callable[..., Any]] = {}


def register_checked(kind: str, wrapper: Callable[..., Any]) -> None:
    """Make ``wrapper`` the debug mode of algorithms registered with ``kind``."""
    CHECKED_KINDS[kind] = wrapper


def check_enabled() -> bool:
    """Whether ``SWAGKIT_CHECK`` asks for debug mode (any value except empty, ``0``, ``false``, ``no``, ``off``)."""
    return os.environ.get(ENV_VAR, "").strip().lower() not in ("", "0", "false", "no", "off")


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


def outputs_close(got: Any, want: Any, rel: float = OUTPUT_REL_TOL, abs_tol: float = OUTPUT_ABS_TOL) -> bool:
    """Approximate equality of lowered outputs: floats by ``math.isclose``, containers element-wise."""
    if isinstance(got, (int, float)) and isinstance(want, (int, float)):
        return got == want or math.isclose(got, want, rel_tol=rel, abs_tol=abs_tol)
    if isinstance(got, (tuple, list)) and isinstance(want, (tuple, list)):
        return (
            type(got) is type(want)
            and len(got) == len(want)
            and all(outputs_close(g, w, rel, abs_tol) for g, w in zip(got, want))
        )
    try:
        return bool(got == want)
    except Exception:
        return False


def same_output(monoid: Monoid[Any, Any, Any], got: Any, want: Any) -> bool:
    """Whether two *lowered* query answers agree.

    Exact ``==`` first, then the monoid's equality (it is defined on aggregates but often applies to outputs
    too), then an ``out_eq`` the monoid may provide for outputs. For monoids with a stated tolerance the output
    is compared approximately (:func:`outputs_close`): ``lower`` can amplify rounding that ``eq`` accepts on
    aggregates (a square root near zero), and the invariant checkers already compare every stored partial
    aggregate with ``eq``.
    """
    try:
        if got == want:
            return True
    except Exception:  # e.g. numpy arrays; fall through to the monoid's equalities
        pass
    for eq in (getattr(monoid, "out_eq", None), monoid.eq):
        if callable(eq):
            try:
                if eq(got, want):
                    return True
            except Exception:
                pass
    return monoid.tolerance != "exact" and outputs_close(got, want)


class CheckedAggregator:
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
    ) -> None:
        self.inner = aggregator
        m = monoid if monoid is not None else getattr(aggregator, "monoid", None)
        if not isinstance(m, Monoid):
            raise TypeError("checked() needs the aggregator's monoid: pass monoid=... or expose a .monoid attribute")
        self.monoid: Monoid[Any, Any, Any] = m
        algo = algorithm if algorithm is not None else getattr(aggregator, "algorithm", None)
        self.algorithm: str | None = algo if isinstance(algo, str) else None
        info = registry.ALGORITHMS.get(self.algorithm or "")
        checker_id = info.checker if info is not None else self.algorithm
        budget_id = info.budget if info is not None else self.algorithm
        self._has_snapshot = callable(getattr(aggregator, "snapshot", None))
        self._checker: CheckerFn | None = checker if checker is not None else CHECKERS.get(checker_id or "")
        if not self._has_snapshot:
            self._checker = None
        budget = budget if budget is not None else BUDGETS.get(budget_id or "")
        has_count = isinstance(getattr(aggregator, "combine_count", None), int)
        self._meter: BudgetMeter | None = BudgetMeter(budget) if budget is not None and has_count else None
        self._space = self._meter is not None and self._has_snapshot and self._knows_space()
        self.model: FifoSwag[Any, Any, Any] | OrderedMultisetWindow[Any, Any, Any] = self._new_model(m)
        self.operations = 0
        self._recent: deque[str] = deque(maxlen=history)
        values = list(seed) if seed is not None else []
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
        names = ["model"]
        if self._checker is not None:
            names.append("invariants")
        if self._meter is not None:
            names.append("budget")
        if self._space:
            names.append("space")
        return tuple(names)

    # ----------------------------------------------------------------------------------------------------------
    # bookkeeping

    def _begin(self, name: str, *args: Any) -> str:
        self.operations += 1
        op = f"{name}({', '.join(_repr.repr(a) for a in args)})"
        self._recent.append(f"#{self.operations} {op}")
        return op

    def _count(self) -> int:
        count = getattr(self.inner, "combine_count", 0)
        return count if isinstance(count, int) else 0

    def _mismatch(self, op: str, detail: str) -> ModelMismatchAt:
        return ModelMismatchAt(f"{self._name()}: {detail}", op, self.operations, self._recent)

    def _name(self) -> str:
        return self.algorithm or type(self.inner).__name__

    def _verify_state(self, op: str) -> None:
        """Invariants (first: they name what is wrong most precisely), length and space against the model."""
        state = self.inner.snapshot() if self._checker is not None or self._space else None
        if self._checker is not None:
            try:
                self._checker(state, self.monoid, self.model.values())
            except InvariantViolation as err:
                raise InvariantViolationAt.wrap(err, op, self.operations, self._recent) from None
        n = len(self.inner)
        if n != len(self.model):
            raise self._mismatch(op, f"len() is {n}, the model window holds {len(self.model)}")
        if self._space and self._meter is not None:
            try:
                self._meter.check_space(state, n)
            except BudgetExceeded as err:
                raise BudgetExceededAt.wrap(err, op, self.operations, self._recent) from None

    def _record(self, op: str, operation: str, n_before: int, used: int, count: int | None = None) -> None:
        if self._meter is None:
            return
        try:
            if count is None:
                self._meter.record(operation, n_before, used)
            else:
                record_bulk(self._meter, operation, n_before, count, used)
        except BudgetExceeded as err:
            raise BudgetExceededAt.wrap(err, op, self.operations, self._recent) from None

    def _credit(self, operation: str, count: int) -> None:
        """A bulk call failed part-way after ``count`` complete operations: they count towards the amortized
        claim, their ⊗ calls (mixed with the failed one's) do not -- a ⊗ that raised and an operation rolled
        back are outside the theorems' model, so failed operations are never billed."""
        if self._meter is not None:
            if operation == "insert":
                self._meter.inserts += count
            else:
                self._meter.evicts += count

    def _after_failure(self, op: str, exc: BaseException, apply: Callable[[], Any] | None = None) -> None:
        """The aggregator raised: it must still agree with the (unchanged) model -- or, if it declares the
        *refuse* guarantee and now raises :class:`BrokenAggregatorError`, refuse queries too, ``salvage()`` the
        contents before or after the operation (``apply`` applies it to the model), and ``repair()`` to a state
        that agrees with the model again. (A bulk call that took a prefix has already added it to the model.)"""
        if self._refuses():
            self._recover(op, exc, apply)
            return
        try:
            self._verify_state(f"{op} raising {type(exc).__name__}")
        except (InvariantViolation, BudgetExceeded, ModelMismatch) as err:
            raise err from exc

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

    def _recover(self, op: str, exc: BaseException, apply: Callable[[], Any] | None) -> None:
        label = f"{op} raising {type(exc).__name__}"
        try:
            self.inner.query()
        except BrokenAggregatorError:
            pass
        else:
            raise self._mismatch(label, "the aggregator refuses snapshot() but still answers query()") from exc
        salvage, repair = getattr(self.inner, "salvage", None), getattr(self.inner, "repair", None)
        if not callable(salvage) or not callable(repair):
            raise self._mismatch(label, "the aggregator refuses (BrokenAggregatorError) but has no salvage()/repair()")
        held = list(salvage())
        if not self._holds(held) and apply is not None:
            apply()  # not the state before: it must be the one after the operation
        if not self._holds(held):
            raise self._mismatch(label, f"salvage() holds {_repr.repr(held)}: neither the model's contents before "
                                        "nor after the operation")
        repair()
        self._verify_state(f"{label}, then repair()")

    def _same(self, got: Any, want: Any) -> bool:
        """Whether a query answer matches the model's (see :func:`same_output`)."""
        return same_output(self.monoid, got, want)

    # ----------------------------------------------------------------------------------------------------------
    # the FIFO SWAG operations

    def insert(self, value: Any) -> None:
        """``inner.insert(value)``, then the model; a raising insert must leave the aggregator unchanged."""
        op = self._begin("insert", value)
        n, c0 = len(self.model), self._count()
        try:
            self.inner.insert(value)
        except Exception as exc:
            self._after_failure(op, exc, lambda: self.model.insert(value))
            raise
        used = self._count() - c0
        try:
            self.model.insert(value)
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
        except EmptyWindowError as exc:
            if n != 0:
                raise self._mismatch(op, f"evict() raised EmptyWindowError on a window of {n}") from exc
            self._after_failure(op, exc)
            raise
        except Exception as exc:
            if n == 0:
                raise self._mismatch(op, f"evict() on an empty window raised {exc!r}, not EmptyWindowError") from exc
            self._after_failure(op, exc, self.model.evict)
            raise
        if n == 0:
            raise self._mismatch(op, "evict() on an empty window returned instead of raising EmptyWindowError")
        used = self._count() - c0
        self.model.evict()
        self._verify_state(op)
        self._record(op, "evict", n, used)

    def query(self) -> Any:
        """``inner.query()``, compared with the model's answer."""
        op = self._begin("query")
        n, c0 = len(self.model), self._count()
        try:
            got = self.inner.query()
        except Exception as exc:
            self._after_failure(op, exc)
            raise
        used = self._count() - c0
        want = self.model.query()
        if not self._same(got, want):
            raise self._mismatch(op, f"query() returned {got!r}, the model's answer is {want!r} (n={n})")
        self._verify_state(op)
        self._record(op, "query", n, used)
        return got

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
            if 0 < taken <= len(vals):
                self.model.insert_many(vals[:taken])
                self._credit("insert", taken)
            self._after_failure(op, exc)
            raise
        used = self._count() - c0
        self.model.insert_many(vals)
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
        self._verify_state(op)
        self._record(op, "evict", n, used, count=count)

    def _query_range(self, r: int) -> Any:
        """``inner.query_range(r)`` (SlickDeque, FlatFIT: the newest ``min(r, n)`` elements), compared with the
        model's fold of those elements and billed like a query."""
        op = self._begin("query_range", r)
        n, c0 = len(self.model), self._count()
        try:
            got = self.inner.query_range(r)
        except Exception as exc:
            self._after_failure(op, exc)
            raise
        used = self._count() - c0
        values = self.model.values()
        want = self.monoid.lower(fold(self.monoid, values[len(values) - min(r, n):]))
        if not self._same(got, want):
            raise self._mismatch(op, f"query_range({r}) returned {got!r}, the model's answer is {want!r} (n={n})")
        self._verify_state(op)
        self._record(op, "query", n, used)
        return got

    def __len__(self) -> int:
        return len(self.inner)

    def __getattr__(self, name: str) -> Any:
        if name == "inner":  # not yet set (during __init__ or unpickling)
            raise AttributeError(name)
        attr = getattr(self.inner, name)
        if name == "query_range" and callable(attr):  # checked only where the aggregator offers it
            return self._query_range
        return attr

    def __repr__(self) -> str:
        return f"checked({self.inner!r})"


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
        try:
            h: Handle = self.inner.insert_with_handle(value)
        except Exception as exc:
            self._after_failure(op, exc)
            raise
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
        try:
            hs = list(self.inner.insert_many_with_handles(vals))
        except Exception as exc:
            self._after_failure(op, exc)
            raise
        used = self._count() - c0
        want = [self.model.insert_with_handle(v) for v in vals]
        if hs != want:
            raise self._mismatch(op, f"insert_many_with_handles returned {_repr.repr(hs)}, the model's {_repr.repr(want)}")
        self._verify_state(op)
        self._record(op, "insert", n, used, count=len(vals))
        return hs

    def remove(self, handle: Handle) -> None:
        """Non-FIFO eviction of a live element; a handle that is not live must raise InvalidHandleError."""
        op = self._begin("remove", handle)
        n, c0 = len(self.model), self._count()
        live = handle in self.model.handles()
        try:
            self.inner.remove(handle)
        except InvalidHandleError as exc:
            if live:
                raise self._mismatch(op, f"remove({handle!r}) of a live element raised {exc!r}") from exc
            self._after_failure(op, exc)
            raise
        except Exception as exc:
            if not live:
                raise self._mismatch(op, f"remove({handle!r}) of a dead handle raised {exc!r}, not InvalidHandleError") from exc
            self._after_failure(op, exc)
            raise
        if not live:
            raise self._mismatch(op, f"remove({handle!r}) of a handle that is not live returned instead of raising")
        used = self._count() - c0
        self.model.remove(handle)
        self._verify_state(op)
        self._record(op, "evict", n, used)

    def remove_many(self, handles: Iterable[Handle]) -> None:
        """Remove several live elements as one batch; any dead or repeated handle: InvalidHandleError, no change."""
        hs = list(handles)
        op = self._begin("remove_many", hs)
        n, c0 = len(self.model), self._count()
        live = set(self.model.handles())
        valid = len(set(hs)) == len(hs) and all(h in live for h in hs)
        try:
            self.inner.remove_many(hs)
        except InvalidHandleError as exc:
            if valid:
                raise self._mismatch(op, f"remove_many of live handles raised {exc!r}") from exc
            self._after_failure(op, exc)
            raise
        except Exception as exc:
            self._after_failure(op, exc)
            raise
        if not valid:
            raise self._mismatch(op, "remove_many with a dead or repeated handle returned instead of raising")
        used = self._count() - c0
        for h in hs:
            self.model.remove(h)
        self._verify_state(op)
        self._record(op, "evict", n, used, count=len(hs))

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
                    raise BudgetExceededAt.wrap(err, op, self.operations, self._recent) from exc
            raise
        used = self._count() - c0
        want: list[Handle | None] = []
        for ev in evs:
            want.append(self._apply(ev))
        if out != want:
            raise self._mismatch(op, f"batch returned {_repr.repr(out)}, the model's results are {_repr.repr(want)}")
        self._verify_state(op)
        if self._meter is not None:
            try:
                record_batch(self._meter, n, self._kinds(evs), used)
            except BudgetExceeded as err:
                raise BudgetExceededAt.wrap(err, op, self.operations, self._recent) from None
        return out

    def handles(self) -> list[Handle]:
        """The live handles, oldest first, compared with the model's."""
        op = self._begin("handles")
        got = list(self.inner.handles())
        if got != self.model.handles():
            raise self._mismatch(op, f"handles() = {_repr.repr(got)}, the model's {_repr.repr(self.model.handles())}")
        return got

    # helpers --------------------------------------------------------------------------------------------------

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


def checked(
    aggregator: Any,
    *,
    monoid: Monoid[Any, Any, Any] | None = None,
    algorithm: str | None = None,
    checker: CheckerFn | None = None,
    budget: Budget | None = None,
    seed: Iterable[Any] | None = None,
) -> Any:
    """Wrap ``aggregator`` so every operation is checked (model, invariants, budget, space).

    ``monoid``/``algorithm`` default to the aggregator's attributes of those names; ``checker`` and ``budget``
    default to the ones registered for the algorithm id. ``seed`` lists the input values a non-empty
    aggregator holds, oldest first. An already checked aggregator is returned as is. An algorithm of another
    kind than ``fifo`` (FlatFAT's ``tree`` …) gets its kind's wrapper from :data:`CHECKED_KINDS`.

    >>> from swagkit.reference import DABA
    >>> from swagkit.spec.library import string_concat
    >>> w = checked(DABA(string_concat()))
    >>> w.insert_many("abc"); w.evict(); w.query()
    'bc'
    """
    if isinstance(aggregator, CheckedAggregator):
        return aggregator
    algo = algorithm if algorithm is not None else getattr(aggregator, "algorithm", None)
    info = registry.ALGORITHMS.get(algo) if isinstance(algo, str) else None
    if info is not None and info.kind != "fifo":
        wrapper = CHECKED_KINDS.get(info.kind)
        if wrapper is None:
            raise registry.RegistryError(f"no debug mode for {info.kind!r} algorithms (known: {', '.join(CHECKED_KINDS)})")
        return wrapper(aggregator, monoid=monoid, algorithm=algo)
    nonfifo = callable(getattr(aggregator, "remove", None)) and callable(getattr(aggregator, "insert_with_handle", None))
    return (CheckedNonFifoAggregator if nonfifo else CheckedAggregator)(
        aggregator, monoid=monoid, algorithm=algorithm, checker=checker, budget=budget, seed=seed
    )


# create() wraps with this module's checked(); the registry cannot import it (this module reads the registry).
registry.install_debug_mode(checked, check_enabled)
