"""Debug mode for out-of-order aggregators (FiBA): check the aggregator after every single operation.

``checked_ooo(aggregator)`` (also reached through :func:`swagkit.verify.checked` and
``registry.create(..., check=True)`` / ``SWAGKIT_CHECK=1`` for algorithms of kind ``"out_of_order"``) returns a
:class:`CheckedOutOfOrder` that forwards ``insert``/``evict``/``remove``/``bulk_evict``/``bulk_insert``/
``query``/``range_query``/``oldest``/``youngest``/``len`` to the aggregator and keeps the executable model
(:class:`~swagkit.spec.ooo.TimedWindow`) in step. After every operation it checks

* **model** -- answers (``query``, ``range_query``, ``oldest``, ``youngest``, the count ``bulk_evict``
  returns) and ``len()`` agree with the model, and misuse raises the documented error *and changes nothing*
  (``evict()``/``oldest()``/``youngest()`` on an empty window: :class:`EmptyWindowError`; ``remove`` of an
  absent time: :class:`~swagkit.spec.ooo.MissingTimeError`; an unordered bulk:
  :class:`~swagkit.spec.ooo.UnorderedBulkError` -- the snapshot before and after must be equal);
* **invariants** -- every FiBA invariant (:func:`swagkit.spec.checkers.fiba.check_fiba`), locally and globally,
  on ``snapshot()`` against the model's ``(time, value)`` pairs;
* **budget** -- ⊗ calls and node visits against the worst-case and amortized contracts of
  :mod:`swagkit.spec.fiba_budgets` (with the operation's m and d read off the model).

Failures raise the same errors as the FIFO debug mode (:mod:`swagkit.verify.errors`), naming the operation.
Cost: O(n) ⊗ per operation.
"""

from __future__ import annotations

import bisect
import reprlib
from collections import deque
from typing import Any, Callable, Iterable, Sequence

from swagkit.spec.checkers import CHECKERS
from swagkit.spec.errors import BrokenAggregatorError, BudgetExceeded, EmptyWindowError, InvariantViolation, ModelMismatch
from swagkit.spec.fiba_budgets import FiBABudgetMeter
from swagkit.spec.monoid import Monoid
from swagkit.spec.ooo import MissingTimeError, TimedWindow, UnorderedBulkError

from . import registry
from .debug import register_checked, same_output
from .errors import BudgetExceededAt, InvariantViolationAt, ModelMismatchAt

__all__ = ["CheckedOutOfOrder", "checked_ooo", "KIND"]

#: the registry kind this wrapper checks
KIND = "out_of_order"

CheckerFn = Callable[[Any, Monoid[Any, Any, Any], Sequence[Any]], None]

_repr = reprlib.Repr()
_repr.maxstring = 40
_repr.maxother = 40
_repr.maxlist = 6
_repr.maxtuple = 6


class CheckedOutOfOrder:
    """An out-of-order aggregator plus its :class:`~swagkit.spec.ooo.TimedWindow` model, checked after every
    operation (see the module docstring). Attributes: ``inner``, ``model``, ``monoid``, ``algorithm``,
    ``active_checks``, ``operations``, ``meter``; anything else is forwarded to ``inner``."""

    def __init__(
        self,
        aggregator: Any,
        *,
        monoid: Monoid[Any, Any, Any] | None = None,
        algorithm: str | None = None,
        checker: CheckerFn | None = None,
        seed: Iterable[tuple[Any, Any]] | None = None,
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
        self._checker: CheckerFn | None = checker if checker is not None else CHECKERS.get(checker_id or "")
        if not callable(getattr(aggregator, "snapshot", None)):
            self._checker = None
        mu = getattr(aggregator, "min_arity", None)
        counted = isinstance(getattr(aggregator, "combine_count", None), int) and isinstance(
            getattr(aggregator, "touched_count", None), int)
        budget_id = info.budget if info is not None else self.algorithm
        self.meter: FiBABudgetMeter | None = None
        if isinstance(mu, int) and counted and budget_id in ("fiba", "fiba_loop"):
            self.meter = FiBABudgetMeter(mu, self.algorithm or "fiba", loop=budget_id == "fiba_loop")
        self.model: TimedWindow[Any, Any, Any] = TimedWindow(m)
        self._verified: Any = None  # the last snapshot that passed the invariant check
        self.operations = 0
        self._recent: deque[str] = deque(maxlen=history)
        pairs = list(seed) if seed is not None else []
        if len(aggregator) != len(pairs):
            raise ValueError(
                f"checked() needs an empty aggregator or seed= with its (time, value) pairs: it holds "
                f"{len(aggregator)} entries, seed gives {len(pairs)}"
            )
        self.model.bulk_insert(pairs)
        self._verify("checked()")

    @property
    def active_checks(self) -> tuple[str, ...]:
        """Which checks run after each operation."""
        names = ["model"]
        if self._checker is not None:
            names.append("invariants")
        if self.meter is not None:
            names.append("budget")
        return tuple(names)

    # ------------------------------------------------------------------------------------------ bookkeeping

    def _begin(self, name: str, *args: Any) -> str:
        self.operations += 1
        op = f"{name}({', '.join(_repr.repr(a) for a in args)})"
        self._recent.append(f"#{self.operations} {op}")
        return op

    def _counts(self) -> tuple[int, int]:
        c = getattr(self.inner, "combine_count", 0)
        t = getattr(self.inner, "touched_count", 0)
        return (c if isinstance(c, int) else 0), (t if isinstance(t, int) else 0)

    def _mismatch(self, op: str, detail: str) -> ModelMismatchAt:
        name = self.algorithm or type(self.inner).__name__
        return ModelMismatchAt(f"{name}: {detail}", op, self.operations, self._recent)

    def _snapshot(self) -> Any:
        snap = getattr(self.inner, "snapshot", None)
        return snap() if callable(snap) else None

    def _verify(self, op: str, read_only: bool = False) -> None:
        """Invariants and length against the model. After a read-only operation a snapshot equal to the last
        verified one needs no new invariant check (the state is the one that passed)."""
        if self._checker is not None:
            state = self.inner.snapshot()
            if not (read_only and self._verified is not None and state == self._verified):
                try:
                    self._checker(state, self.monoid, self.model.items())
                except InvariantViolation as err:
                    raise InvariantViolationAt.wrap(err, op, self.operations, self._recent) from None
                self._verified = state
        n = len(self.inner)
        if n != len(self.model):
            raise self._mismatch(op, f"len() is {n}, the model window holds {len(self.model)}")

    def _record(self, op: str, name: str, n_before: int, c0: tuple[int, int], m: int = 1, d: int = 0,
                m_raw: int | None = None) -> None:
        if self.meter is None:
            return
        c, t = self._counts()
        try:
            self.meter.record(name, n_before, len(self.model), c - c0[0], t - c0[1], m=m, d=d, m_raw=m_raw)
        except BudgetExceeded as err:
            raise BudgetExceededAt.wrap(err, op, self.operations, self._recent) from None

    def _expect_error(self, op: str, error: type[Exception], call: Callable[[], Any]) -> None:
        """Misuse: ``call`` must raise ``error`` and leave the state exactly as it was."""
        before = self._snapshot()
        try:
            call()
        except error as exc:
            after = self._snapshot()
            if after != before:
                raise self._mismatch(op, f"raised {type(exc).__name__} but changed the state") from exc
            self._verify(f"{op} raising {type(exc).__name__}")
            raise
        except Exception as exc:
            raise self._mismatch(op, f"raised {exc!r}, not {error.__name__}") from exc
        raise self._mismatch(op, f"returned instead of raising {error.__name__}")

    def _after_failure(self, op: str, exc: BaseException, apply: Callable[[], Any] | None = None) -> None:
        """The aggregator raised: it must agree with the (unchanged) model -- or, if it declares the *refuse*
        guarantee and now raises :class:`BrokenAggregatorError`, it must refuse queries too, ``salvage()`` the
        entries before or after the operation (``apply`` applies it to the model), and ``repair()`` to a state
        that agrees with the model again."""
        try:
            self._snapshot()
        except BrokenAggregatorError:
            self._recover(op, exc, apply)
            return
        try:
            self._verify(f"{op} raising {type(exc).__name__}")
        except (InvariantViolation, BudgetExceeded, ModelMismatch) as err:
            raise err from exc

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
        if not self._same_entries(held):
            if apply is not None:
                try:
                    apply()
                except Exception:  # the model refuses the input: the aggregator should have too
                    pass
            if not self._same_entries(held):
                raise self._mismatch(label, "salvage() holds neither the entries before nor after the operation")
        repair()
        self._verified = None
        self._verify(f"{label}, then repair()")

    def _same_entries(self, held: list[Any]) -> bool:
        """``held`` (salvaged ``(time, value)`` pairs) against the model's entries: the same times, and values
        equal by the monoid's ``eq`` (tolerant for float monoids: a bulk folds equal times in another order)."""
        want = list(self.model.items())
        return len(held) == len(want) and all(
            t == u and (v == w or self.monoid.eq(v, w)) for (t, v), (u, w) in zip(held, want)
        )

    def _distance(self, time: Any) -> int:
        """FiBA 2019's d of a single operation: entries between ``time`` and the nearer end of the window."""
        ts = self.model._times
        return min(bisect.bisect_left(ts, time), len(ts) - bisect.bisect_right(ts, time))

    # --------------------------------------------------------------------------------------- operations

    def insert(self, time: Any, value: Any) -> None:
        """``inner.insert(time, value)``; a raising insert must leave the aggregator unchanged."""
        op = self._begin("insert", time, value)
        n, c0 = len(self.model), self._counts()
        d = self._distance(time) if time == time else 0
        try:
            self.inner.insert(time, value)
        except Exception as exc:
            self._after_failure(op, exc, lambda: self.model.insert(time, value))
            raise
        try:
            self.model.insert(time, value)
        except Exception as exc:
            raise self._mismatch(op, f"the aggregator accepted input the model rejects ({exc!r})") from exc
        self._verify(op)
        self._record(op, "insert", n, c0, d=d)

    def evict(self) -> None:
        """``inner.evict()``; on an empty window :class:`EmptyWindowError` and no change."""
        op = self._begin("evict")
        n, c0 = len(self.model), self._counts()
        if n == 0:
            self._expect_error(op, EmptyWindowError, self.inner.evict)
        try:
            self.inner.evict()
        except Exception as exc:
            self._after_failure(op, exc, self.model.evict)
            raise
        self.model.evict()
        self._verify(op)
        self._record(op, "evict", n, c0)

    def remove(self, time: Any) -> None:
        """``inner.remove(time)``; an absent time raises :class:`MissingTimeError` and changes nothing."""
        op = self._begin("remove", time)
        n, c0 = len(self.model), self._counts()
        if time not in self.model:
            self._expect_error(op, MissingTimeError, lambda: self.inner.remove(time))
        d = self._distance(time)
        try:
            self.inner.remove(time)
        except Exception as exc:
            self._after_failure(op, exc, lambda: self.model.remove(time))
            raise
        self.model.remove(time)
        self._verify(op)
        self._record(op, "remove", n, c0, d=d)

    def bulk_evict(self, time: Any) -> int:
        """``inner.bulk_evict(time)``; the count it returns must be the model's."""
        op = self._begin("bulk_evict", time)
        n, c0 = len(self.model), self._counts()
        try:
            got = self.inner.bulk_evict(time)
        except Exception as exc:
            self._after_failure(op, exc, lambda: self.model.bulk_evict(time))
            raise
        want = self.model.bulk_evict(time)
        if got != want:
            raise self._mismatch(op, f"bulk_evict returned {got!r}, the model evicted {want}")
        self._verify(op)
        self._record(op, "bulk_evict", n, c0, m=want)
        return got  # type: ignore[no-any-return]

    def bulk_insert(self, pairs: Iterable[tuple[Any, Any]]) -> None:
        """``inner.bulk_insert(pairs)``; pairs out of time order raise :class:`UnorderedBulkError` and change
        nothing."""
        items = list(pairs)
        op = self._begin("bulk_insert", items)
        n, c0 = len(self.model), self._counts()
        times = [t for t, _ in items]
        ordered = all(not b < a for a, b in zip(times, times[1:]))
        if not ordered:
            self._expect_error(op, UnorderedBulkError, lambda: self.inner.bulk_insert(items))
        # d (003 §1.3): entries of the window before the bulk that are younger than its first time
        ts = self.model._times
        d = len(ts) - bisect.bisect_right(ts, times[0]) if times and times[0] == times[0] else 0
        try:
            self.inner.bulk_insert(items)
        except Exception as exc:
            self._after_failure(op, exc, lambda: self.model.bulk_insert(items))
            raise
        try:
            self.model.bulk_insert(items)
        except Exception as exc:
            raise self._mismatch(op, f"the aggregator accepted input the model rejects ({exc!r})") from exc
        self._verify(op)
        if items:
            distinct = sum(1 for k, t in enumerate(times) if k == 0 or not t == times[k - 1])
            self._record(op, "bulk_insert", n, c0, m=distinct, d=d, m_raw=len(items))

    def query(self) -> Any:
        """``inner.query()``, compared with the model's answer."""
        op = self._begin("query")
        n, c0 = len(self.model), self._counts()
        try:
            got = self.inner.query()
        except Exception as exc:
            self._after_failure(op, exc)
            raise
        want = self.model.query()
        if not same_output(self.monoid, got, want):
            raise self._mismatch(op, f"query() returned {got!r}, the model's answer is {want!r} (n={n})")
        self._verify(op, read_only=True)
        self._record(op, "query", n, c0)
        return got

    def range_query(self, t_from: Any, t_to: Any) -> Any:
        """``inner.range_query(t_from, t_to)``, compared with the model's answer."""
        op = self._begin("range_query", t_from, t_to)
        try:
            got = self.inner.range_query(t_from, t_to)
        except Exception as exc:
            self._after_failure(op, exc)
            raise
        want = self.model.range_query(t_from, t_to)
        if not same_output(self.monoid, got, want):
            raise self._mismatch(op, f"range_query({t_from!r}, {t_to!r}) returned {got!r}, the model's answer "
                                     f"is {want!r}")
        self._verify(op, read_only=True)
        return got

    def oldest(self) -> Any:
        """``inner.oldest()``; :class:`EmptyWindowError` on an empty window."""
        return self._end("oldest")

    def youngest(self) -> Any:
        """``inner.youngest()``; :class:`EmptyWindowError` on an empty window."""
        return self._end("youngest")

    def _end(self, name: str) -> Any:
        op = self._begin(name)
        call = getattr(self.inner, name)
        if len(self.model) == 0:
            self._expect_error(op, EmptyWindowError, call)
        got = call()
        want = getattr(self.model, name)()
        if not (got == want):
            raise self._mismatch(op, f"{name}() returned {got!r}, the model's is {want!r}")
        return got

    def __len__(self) -> int:
        return len(self.inner)

    def __getattr__(self, name: str) -> Any:
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)

    def __repr__(self) -> str:
        return f"checked({self.inner!r})"


def checked_ooo(
    aggregator: Any,
    *,
    monoid: Monoid[Any, Any, Any] | None = None,
    algorithm: str | None = None,
    checker: CheckerFn | None = None,
    seed: Iterable[Any] | None = None,
    **_: Any,
) -> CheckedOutOfOrder:
    """Wrap an out-of-order ``aggregator`` so every operation is checked (model, invariants, budgets). ``seed``
    lists the ``(time, value)`` pairs a non-empty aggregator holds. An already checked one is returned as is.

    >>> from swagkit.reference import FiBA
    >>> from swagkit.spec.library import string_concat
    >>> w = checked_ooo(FiBA(string_concat(), min_arity=2))
    >>> w.bulk_insert([(1, "a"), (3, "c"), (4, "d")]); w.insert(2, "b"); w.bulk_evict(1)
    1
    >>> w.query(), w.range_query(2, 3)
    ('bcd', 'bc')
    """
    if isinstance(aggregator, CheckedOutOfOrder):
        return aggregator
    return CheckedOutOfOrder(aggregator, monoid=monoid, algorithm=algorithm, checker=checker, seed=seed)


register_checked(KIND, checked_ooo)
