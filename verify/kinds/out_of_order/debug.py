"""Debug mode of the out-of-order kind (FiBA): check the aggregator after every single operation.

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
  :mod:`swagkit.spec.fiba_budgets` (with the operation's m and d read off the model), through the meter the
  algorithm's card names (``AlgorithmCard.meter``); a meter that ``reads_states`` also gets the snapshots around
  every in-order insert (FiBA's in-order regression guard, :func:`swagkit.spec.fiba_budgets.inorder_potential`).

Failures raise the same errors as the FIFO debug mode (:mod:`swagkit.verify.errors`), naming the operation.
Cost: O(n) ⊗ per operation.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from swagkit.spec.algorithms import CARDS
from swagkit.spec.checkers import CHECKERS
from swagkit.spec.errors import BudgetExceeded, EmptyWindowError, InvariantViolation
from swagkit.spec.monoid import Monoid
from swagkit.spec.ooo import MissingTimeError, TimedWindow, UnorderedBulkError

from ..base import SHORT_REPR, AlgorithmFacts, RefuseGuarantee, checked_ids, monoid_of, same_output

__all__ = ["CheckedOutOfOrder", "checked_ooo", "METERS"]

CheckerFn = Callable[[Any, Monoid[Any, Any, Any], Sequence[Any]], None]

#: ⊗ and node-visit meters by budget id (``meter(min_arity, algorithm)``), from the cards that name one
METERS: dict[str, Callable[..., Any]] = {c.budget_id: c.meter for c in CARDS if c.budget_id and c.meter is not None}


class CheckedOutOfOrder(RefuseGuarantee):
    """An out-of-order aggregator plus its :class:`~swagkit.spec.ooo.TimedWindow` model, checked after every
    operation (see the module docstring). Attributes: ``inner``, ``model``, ``monoid``, ``algorithm``,
    ``active_checks``, ``operations``, ``meter``; anything else is forwarded to ``inner``."""

    labels = SHORT_REPR

    def __init__(
        self,
        aggregator: Any,
        *,
        monoid: Monoid[Any, Any, Any] | None = None,
        algorithm: str | None = None,
        checker: CheckerFn | None = None,
        seed: Iterable[tuple[Any, Any]] | None = None,
        history: int = 8,
        facts: AlgorithmFacts | None = None,
    ) -> None:
        super().__init__(aggregator, algorithm, history)
        m = monoid_of(aggregator, monoid)
        self.monoid: Monoid[Any, Any, Any] = m
        checker_id, budget_id, _ = checked_ids(self.algorithm, facts)
        self._checker: CheckerFn | None = checker if checker is not None else CHECKERS.get(checker_id or "")
        if not callable(getattr(aggregator, "snapshot", None)):
            self._checker = None
        mu = getattr(aggregator, "min_arity", None)
        counted = isinstance(getattr(aggregator, "combine_count", None), int) and isinstance(
            getattr(aggregator, "touched_count", None), int
        )
        meter = METERS.get(budget_id or "")
        self.meter: Any = None
        if isinstance(mu, int) and counted and meter is not None:
            self.meter = meter(mu, self.algorithm or budget_id)
        self.model: TimedWindow[Any, Any, Any] = TimedWindow(m)
        self._verified: Any = None  # the last snapshot that passed the invariant check
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
        return self._checks(invariants=self._checker is not None, budget=self.meter is not None)

    # ------------------------------------------------------------------------------------------ bookkeeping

    def _counts(self) -> tuple[int, int]:
        """``(combine_count, touched_count)`` where a budget is metered (else zeros: a read costs a request of an
        ``--exec`` program)."""
        if self.meter is None:
            return 0, 0
        c = getattr(self.inner, "combine_count", 0)
        t = getattr(self.inner, "touched_count", 0)
        return (c if isinstance(c, int) else 0), (t if isinstance(t, int) else 0)

    def _verify(self, op: str, read_only: bool = False) -> None:
        """Invariants and length against the model. After a read-only operation a snapshot equal to the last
        verified one needs no new invariant check (the state is the one that passed)."""
        if self._checker is not None:
            state = self.inner.snapshot()
            if not (read_only and self._verified is not None and state == self._verified):
                try:
                    self._checker(state, self.monoid, self.model.items())
                except InvariantViolation as err:
                    raise self._invariant_at(err, op) from None
                self._verified = state
        n = len(self.inner)
        if n != len(self.model):
            raise self._mismatch(op, f"len() is {n}, the model window holds {len(self.model)}")

    def _states(self) -> Any:
        """The aggregator's snapshot for a meter that reads states (``reads_states``), else ``None``."""
        if self.meter is None or not getattr(self.meter, "reads_states", False):
            return None
        snapshot = getattr(self.inner, "snapshot", None)
        return snapshot() if callable(snapshot) else None

    def _record(
        self,
        op: str,
        name: str,
        n_before: int,
        c0: tuple[int, int],
        m: int = 1,
        d: int = 0,
        m_raw: int | None = None,
        before: Any = None,
    ) -> None:
        if self.meter is None:
            return
        c, t = self._counts()
        # an in-order insert (younger than every entry): its state before and after, for a meter's in-order guard
        extra = {} if before is None else {"in_order": True, "before": before, "after": self._states()}
        try:
            self.meter.record(name, n_before, len(self.model), c - c0[0], t - c0[1], m=m, d=d, m_raw=m_raw, **extra)
        except BudgetExceeded as err:
            raise self._budget_at(err, op) from None

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

    def _recheck(self, label: str) -> None:
        self._verified = None
        self._verify(label)

    def _holds(self, held: list[Any]) -> bool:
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
        ts = self.model._times
        before = self._states() if time == time and (not ts or ts[-1] < time) else None
        self._guarded(op, lambda: self.inner.insert(time, value), lambda: self.model.insert(time, value))
        try:
            self.model.insert(time, value)
        except Exception as exc:
            raise self._mismatch(op, f"the aggregator accepted input the model rejects ({exc!r})") from exc
        self._verify(op)
        self._record(op, "insert", n, c0, d=d, before=before)

    def evict(self) -> None:
        """``inner.evict()``; on an empty window :class:`EmptyWindowError` and no change."""
        op = self._begin("evict")
        n, c0 = len(self.model), self._counts()
        if n == 0:
            self._expect_error(op, EmptyWindowError, self.inner.evict)
        self._guarded(op, self.inner.evict, self.model.evict)
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
        self._guarded(op, lambda: self.inner.remove(time), lambda: self.model.remove(time))
        self.model.remove(time)
        self._verify(op)
        self._record(op, "remove", n, c0, d=d)

    def bulk_evict(self, time: Any) -> int:
        """``inner.bulk_evict(time)``; the count it returns must be the model's."""
        op = self._begin("bulk_evict", time)
        n, c0 = len(self.model), self._counts()
        got = self._guarded(op, lambda: self.inner.bulk_evict(time), lambda: self.model.bulk_evict(time))
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
        self._guarded(op, lambda: self.inner.bulk_insert(items), lambda: self.model.bulk_insert(items))
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
        got = self._guarded(op, self.inner.query)
        want = self.model.query()
        self.model_answer = want
        if not same_output(self.monoid, got, want):
            raise self._mismatch(op, f"query() returned {got!r}, the model's answer is {want!r} (n={n})")
        self._verify(op, read_only=True)
        self._record(op, "query", n, c0)
        return got

    def range_query(self, t_from: Any, t_to: Any) -> Any:
        """``inner.range_query(t_from, t_to)``, compared with the model's answer."""
        op = self._begin("range_query", t_from, t_to)
        got = self._guarded(op, lambda: self.inner.range_query(t_from, t_to))
        want = self.model.range_query(t_from, t_to)
        self.model_answer = want
        if not same_output(self.monoid, got, want):
            raise self._mismatch(
                op, f"range_query({t_from!r}, {t_to!r}) returned {got!r}, the model's answer is {want!r}"
            )
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


def checked_ooo(
    aggregator: Any,
    *,
    monoid: Monoid[Any, Any, Any] | None = None,
    algorithm: str | None = None,
    facts: AlgorithmFacts | None = None,
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
    return CheckedOutOfOrder(aggregator, monoid=monoid, algorithm=algorithm, checker=checker, seed=seed, facts=facts)
