"""Debug mode of paper 004's structures (kinds ``sketch`` and ``time_decayed``): check after every operation.

:func:`checked_sketch` wraps a q-digest-like sketch (:class:`~swagkit.reference.qdigest.QDigest`; kind
``sketch``), :func:`checked_time_decayed` a sliding-window / value-division structure (kind ``time_decayed``) --
reference, optimized, or your own with the same API and ``snapshot()``. The wrapper keeps the exact oracle
(:class:`~swagkit.spec.decay.oracle.ExactStream`, or the value multiset for a q-digest) in step and after every
operation

* runs the checker of the structure's card (:mod:`swagkit.spec.checkers.qdigest` and siblings) on
  ``snapshot()`` against the oracle and the previous snapshot (cutoffs only rise): invariants, error bounds,
  space bounds (an unknown structure: no checker);
* compares every query answer with the spec's answer computed from the snapshot (exactly; decayed float
  answers within 1e-9 relative) **and** with the oracle's bound (a two-sided quantile test, Definition 4 for
  heavy hitters);
* on bad input, checks that the spec refuses the same input with the same exception class and that the
  snapshot did not change (nothing lost).

Failures raise the spec's errors with the operation attached (:mod:`swagkit.verify.errors`). The cost is that
of the checkers: linear in the stream so far per operation -- a debugging and testing tool.

What differs between the structures is read off their capabilities, not their ids: a structure with a fixed
``decay`` (value division) answers decayed queries without a decay argument and is checked against it; one with
a ``value_bits`` universe takes ``insert(value, timestamp, weight)`` (else ``insert(timestamp, weight)``).

:func:`swagkit.verify.checked` and :func:`swagkit.verify.registry.create` (``check=True`` or
``SWAGKIT_CHECK=1``) dispatch here for algorithms of these kinds.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Iterable
from typing import Any, NoReturn

from swagkit.spec.checkers._decay_common import CheckReport
from swagkit.spec.checkers.qdigest import estimated_rank
from swagkit.spec.checkers.value_division import estimate_value_division
from swagkit.spec.checkers.window_count import estimate_count
from swagkit.spec.checkers.window_quantiles import (
    estimate_decayed,
    estimate_window,
    heavy_from,
    quantile_from,
    rank_from,
)
from swagkit.spec.decay import Decay
from swagkit.spec.decay.bounds import qdigest_compressed_size_bound, space_findings
from swagkit.spec.decay.input import check_phi, check_rank_point, check_total, check_value, check_weight
from swagkit.spec.decay.oracle import ExactStream, RankProfile, heavy_hitters_violation, quantile_violation
from swagkit.spec.decay.snapshots import QDigestState, node_range
from swagkit.spec.errors import InvariantViolation, SwagkitError

from ..base import SHORT_REPR, AlgorithmFacts, CheckedBase, checked_ids
from .common import Capabilities, run_checker

__all__ = ["CheckedQDigest", "CheckedWindowStructure", "checked_sketch", "checked_time_decayed"]


class _Checked(CheckedBase):
    """Shared bookkeeping: the checker of the structure's card, the soft-findings report, refusals."""

    labels = SHORT_REPR

    def __init__(self, inner: Any, algorithm: str | None, facts: AlgorithmFacts | None) -> None:
        super().__init__(inner, algorithm)
        _, _, card = checked_ids(self.algorithm, facts)
        #: the card's checker (``None`` for an unknown structure: answers are checked, invariants are not)
        self.checker: Callable[..., Any] | None = card.checker if card is not None else None
        self.report = CheckReport()

    def _refused(self, op: str, err: BaseException, spec: Callable[[], Any], before: Any) -> None:
        """The structure raised ``err``: the spec must refuse the same input alike, and nothing may change."""
        if not isinstance(err, SwagkitError):
            raise self._mismatch(op, f"raised {type(err).__name__}: {err} (not a documented SwagkitError)") from err
        try:
            spec()
        except SwagkitError as spec_err:
            if type(spec_err) is not type(err):
                raise self._mismatch(
                    op, f"raised {type(err).__name__}, the spec raises {type(spec_err).__name__}"
                ) from err
        else:
            raise self._mismatch(op, f"raised {type(err).__name__}: {err}, but the spec accepts this input") from err
        after = self.inner.snapshot()
        if after != before:
            raise self._mismatch(op, f"raised {type(err).__name__} but changed the state") from err

    def snapshot(self) -> Any:
        return self.inner.snapshot()

    def _check_space(self, state: Any) -> None:
        """The space contracts of :func:`~swagkit.spec.decay.bounds.space_findings` (the size a compress must
        reach, with the data's N; how often it must run): a lost or too rare compression."""
        for what, detail in space_findings(state):
            self._space_violation(state, what, detail)

    def _space_violation(self, state: Any, what: str, detail: str) -> NoReturn:
        raise InvariantViolation(
            self._name(),
            what,
            "004 space: ≤ ⌊4N/⌈γ⌉⌋ + 1 ranges after compress, compress every ⌊4b/ε + 1⌋ "
            "inserts (α updates for a ladder) (swagkit.spec.decay.bounds)",
            detail,
            state,
        )


class CheckedQDigest(_Checked):
    """A q-digest checked after every operation against the multiset of inserted values.

    Besides the snapshot's own contracts it checks the size *between* compressions against the N of the last
    compress (:meth:`_check_growth`), which only the wrapper knows: a compress the digest ran by itself inside a
    bulk insert is judged at the end of that bulk, whatever the bulk's length."""

    def __init__(
        self,
        inner: Any,
        algorithm: str | None = None,
        seed: Iterable[tuple[int, int]] | None = None,
        facts: AlgorithmFacts | None = None,
    ) -> None:
        super().__init__(inner, algorithm, facts)
        #: N before each insert of positive weight since the last snapshot with ``pending == 0`` (``None``: the
        #: history is unknown -- a seeded digest, a merge -- until the next such snapshot)
        self._totals_before: list[int] | None = None
        self.truth: dict[int, int] | None = {}
        for x, w in seed or ():
            self.truth[x] = self.truth.get(x, 0) + w
        if sum(self.truth.values()) != inner.total:
            raise ValueError("checked() needs an empty q-digest or seed= with its (value, weight) contents")
        self._verify("checked()")

    def _profile(self) -> RankProfile | None:
        return None if self.truth is None else RankProfile.of(self.truth.items())

    def _verify(self, op: str) -> None:
        if self.checker is None:
            return
        state = self.inner.snapshot()
        try:
            self.checker(state, self._profile(), structure=self._name(), report=self.report)
            self._check_space(state)
            self._check_growth(state)
        except InvariantViolation as err:
            raise self._invariant_at(err, op) from None

    def _check_growth(self, state: QDigestState) -> None:
        """Between compressions a digest holds at most ``⌊4N₀/⌈γ₀⌉⌋ + 1`` ranges plus one per insert since
        (:mod:`swagkit.spec.decay.bounds`: the size a compress reaches at the N₀ it ran with, and an insert adds
        at most its leaf). The snapshot says how many inserts ago that compress was (``pending``), the wrapper
        knows N before each of them: ``N₀`` is the N before the ``pending``-th last insert. Without this, a
        digest whose compressions do nothing is caught only by a snapshot taken right at a compress, so a bulk
        insert shows it only when it happens to end there -- hard to find, and harder to shrink."""
        totals, pending = self._totals_before, state.pending
        if pending == 0:
            self._totals_before = []
            return
        if totals is None or pending > len(totals):
            return
        n0 = totals[-pending]
        allowed = qdigest_compressed_size_bound(state.universe_bits, state.eps, n0) + pending
        if len(state.nodes) > allowed:
            self._space_violation(
                state,
                "size since compress",
                f"{len(state.nodes)} ranges > ⌊4N₀/⌈γ₀⌉⌋ + 1 + pending = {allowed - pending} + {pending} "
                f"(N₀ = {n0} at the last compress, {pending} inserts ago)",
            )

    def insert(self, x: int, weight: int = 1) -> None:
        op = self._begin("insert", x, weight)
        before = self.inner.snapshot()
        total_before = self.inner.total
        try:
            self.inner.insert(x, weight)
        except Exception as err:
            bits, total = self.inner.universe_bits, self.inner.total

            def spec() -> None:
                check_value(x, bits)
                check_total(total, check_weight(weight))

            self._refused(op, err, spec, before)
            raise
        if self.truth is not None and weight:
            self.truth[x] = self.truth.get(x, 0) + weight
        if self._totals_before is not None and weight:
            self._totals_before.append(total_before)
        self._verify(op)

    def insert_many(self, values: Iterable[int]) -> None:
        vs = list(values)
        op = self._begin("insert_many", vs)
        before = self.inner.snapshot()
        total_before = self.inner.total
        try:
            self.inner.insert_many(vs)
        except Exception as err:
            bits, total = self.inner.universe_bits, self.inner.total
            self._refused(op, err, lambda: check_total(total, len([check_value(x, bits) for x in vs])), before)
            raise
        if self.truth is not None:
            for x in vs:
                self.truth[x] = self.truth.get(x, 0) + 1
        if self._totals_before is not None:
            self._totals_before += range(total_before, total_before + len(vs))
        self._verify(op)

    def compress(self) -> None:
        op = self._begin("compress")
        self.inner.compress()
        self._verify(op)

    def merge(self, other: Any) -> None:
        op = self._begin("merge", other)
        raw = other.inner if isinstance(other, CheckedQDigest) else other
        before = self.inner.snapshot()
        try:
            self.inner.merge(raw)
        except SwagkitError as err:
            if self.inner.snapshot() != before:
                raise self._mismatch(op, f"raised {type(err).__name__} but changed the state") from err
            raise
        self._totals_before = None  # a merge adds ranges that are no inserts: unknown until it compressed
        other_truth = other.truth if isinstance(other, CheckedQDigest) else None
        if self.truth is not None and other_truth is not None:
            for x, w in list(other_truth.items()):
                self.truth[x] = self.truth.get(x, 0) + w
        else:
            self.truth = None  # merged content of unknown composition: structural checks only
        self._verify(op)

    def _estimate_rank(self, q: int) -> int:
        s: QDigestState = self.inner.snapshot()
        his, prefix = estimated_rank(s.nodes, s.universe_bits)
        return int(prefix[bisect.bisect_left(his, q)])

    def rank(self, x: int) -> int:
        op = self._begin("rank", x)
        got = self.inner.rank(x)
        q = check_rank_point(x, self.inner.universe_bits)
        want = self._estimate_rank(q)
        if got != want:
            raise self._mismatch(op, f"rank({x}) = {got}, the snapshot gives {want}")
        prof = self._profile()
        if prof is not None and not (got <= prof.rank_lt(q) <= got + self.inner.eps * self.inner.total):
            raise self._mismatch(
                op, f"rank({x}) = {got} but r = {prof.rank_lt(q)}, εN = {self.inner.eps * self.inner.total}"
            )
        return int(got)

    def frequency(self, x: int) -> int:
        op = self._begin("frequency", x)
        got = self.inner.frequency(x)
        v = check_value(x, self.inner.universe_bits)
        want = self._estimate_rank(v + 1) - self._estimate_rank(v)
        if got != want:
            raise self._mismatch(op, f"frequency({x}) = {got}, the snapshot gives {want}")
        return int(got)

    def quantile(self, phi: float) -> int | None:
        op = self._begin("quantile", phi)
        got = self.inner.quantile(phi)
        p = check_phi(phi)
        s: QDigestState = self.inner.snapshot()
        ranges = [(node_range(n, s.universe_bits)[1], c) for n, c in s.nodes]
        want = quantile_from(s.total, ranges, p)
        if got != want:
            raise self._mismatch(op, f"quantile({phi}) = {got}, the snapshot gives {want}")
        prof = self._profile()
        if prof is not None:
            v = quantile_violation(prof, got, p, self.inner.eps)
            if v is not None:
                raise self._mismatch(op, f"quantile({phi}) = {got}: {v}")
        return got  # type: ignore[no-any-return]


class CheckedWindowStructure(_Checked):
    """A sliding-window count, window-quantile or value-division structure checked against the exact oracle."""

    def __init__(self, inner: Any, algorithm: str | None = None, facts: AlgorithmFacts | None = None) -> None:
        super().__init__(inner, algorithm, facts)
        if inner.total != 0:
            raise ValueError("checked() needs an empty structure (the oracle must see every update)")
        self.can = Capabilities.of(inner)
        self.oracle = ExactStream(value_bits=getattr(inner, "value_bits", 1), time_bits=inner.time_bits)
        self.oracle.now = inner.now
        self._previous: Any = None
        self._decays: list[Decay] = []
        #: the error bounds are promised only with the provable level budget (a smaller α is an experiment)
        self.guaranteed = self.can.fixed_decay or inner.alpha >= inner.alpha_min
        self._verify("checked()")

    # -- checking ------------------------------------------------------------------------------------------------

    def _verify(self, op: str) -> None:
        state = self.inner.snapshot()
        try:
            run_checker(
                self.checker,
                self.can,
                state,
                self.oracle,
                self._previous,
                self.report,
                self._decays,
                getattr(self.inner, "decay", None),
            )
            self._check_space(state)
        except InvariantViolation as err:
            raise self._invariant_at(err, op) from None
        if state.now != self.oracle.now or state.total != self.oracle.total():
            raise self._mismatch(
                op, f"now/total {state.now}/{state.total}, oracle {self.oracle.now}/{self.oracle.total()}"
            )
        self._previous = state

    # -- updates -------------------------------------------------------------------------------------------------

    def advance(self, t: int) -> None:
        op = self._begin("advance", t)
        before = self.inner.snapshot()
        try:
            self.inner.advance(t)
        except Exception as err:
            probe = ExactStream(self.oracle.value_bits, self.oracle.time_bits)
            probe.now = self.oracle.now
            self._refused(op, err, lambda: probe.advance(t), before)
            raise
        self.oracle.advance(t)
        self._verify(op)

    def insert(self, *args: Any, **kwargs: Any) -> None:
        """``insert(timestamp, weight=1)`` (window count) or ``insert(value, timestamp, weight=1)``."""
        op = self._begin("insert", *args, *kwargs.values())
        names = ("value", "timestamp", "weight") if self.can.values else ("timestamp", "weight")
        bound: dict[str, Any] = {"value": 0, "weight": 1, **dict(zip(names, args)), **kwargs}
        value, ts, w = bound["value"], bound.get("timestamp", -1), bound["weight"]
        before = self.inner.snapshot()
        try:
            self.inner.insert(*args, **kwargs)
        except Exception as err:
            self._refused(op, err, lambda: self.oracle.validate_insert(value, ts, w), before)
            raise
        self.oracle.insert(value, ts, w)
        self._verify(op)

    def insert_many(self, items: Iterable[Any]) -> None:
        batch = list(items)
        op = self._begin("insert_many", batch)
        before = self.inner.snapshot()
        pairs = list(batch) if self.can.values else [(0, t) for t in batch]
        try:
            self.inner.insert_many(batch)
        except Exception as err:

            def spec() -> None:
                checked = [self.oracle.validate_insert(x, t, 1) for x, t in pairs]
                check_total(self.oracle.total(), len(checked))

            self._refused(op, err, spec, before)
            raise
        for x, t in pairs:
            self.oracle.insert(x, t)
        self._verify(op)

    def replay(self, arrivals: Iterable[Any]) -> None:
        """Apply a stream chunk (:class:`~swagkit.spec.decay.streams.Arrival` items: ``advance`` when the clock
        moves, then ``insert``) as **one** checked operation: the oracle follows every update, the checker runs
        once at the end (so long chunks stay affordable)."""
        chunk = list(arrivals)
        op = self._begin("replay", f"{len(chunk)} arrivals")
        for a in chunk:
            if a.now != self.inner.now:
                self.inner.advance(a.now)
                self.oracle.advance(a.now)
            self.inner.insert(*self.can.insert_args(a))
            self.oracle.insert(a.value if self.can.values else 0, a.timestamp, a.weight)
        self._verify(op)

    def compress(self) -> None:
        op = self._begin("compress")
        self.inner.compress()
        self._verify(op)

    def maintain(self) -> None:
        op = self._begin("maintain")
        self.inner.maintain()
        self._verify(op)

    # -- queries -------------------------------------------------------------------------------------------------

    def _same(self, op: str, what: str, got: Any, want: Any) -> None:
        ok = got == want
        if not ok and isinstance(got, float) and isinstance(want, float):
            ok = math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-12)
        if not ok:
            raise self._mismatch(op, f"{what} = {got!r}, the snapshot gives {want!r}")

    def count(self, w: int) -> int:
        op = self._begin("count", w)
        got = self.inner.count(w)
        state = self.inner.snapshot()
        want = estimate_window(state, w)[1] if self.can.values else estimate_count(state, w)
        self._same(op, f"count({w})", got, want)
        d = self.oracle.count_window(w)
        if self.guaranteed and not (got <= d and d - got <= self.inner.eps * d):
            raise self._mismatch(op, f"count({w}) = {got}, D_w = {d}, ε·D_w = {self.inner.eps * d}")
        return int(got)

    def rank(self, x: int, w: int) -> int:
        op = self._begin("rank", x, w)
        got = self.inner.rank(x, w)
        _, _, ranges = estimate_window(self.inner.snapshot(), w)
        his, prefix = rank_from(ranges)
        self._same(op, f"rank({x}, {w})", got, prefix[bisect.bisect_left(his, x)])
        r, d = self.oracle.rank(x, w), self.oracle.count_window(w)
        if self.guaranteed and not (got <= r and r - got <= self.inner.eps * d):
            raise self._mismatch(op, f"rank({x}, {w}) = {got}, r = {r}, ε·D_w = {self.inner.eps * d}")
        return int(got)

    def range_count(self, lo: int, hi: int, w: int) -> int:
        op = self._begin("range_count", lo, hi, w)
        got = self.inner.range_count(lo, hi, w)
        want = 0 if lo > hi else self.inner.rank(hi + 1, w) - self.inner.rank(lo, w)
        self._same(op, f"range_count({lo}, {hi}, {w})", got, want)
        return int(got)

    def quantile(self, phi: float, w: int) -> int | None:
        op = self._begin("quantile", phi, w)
        got = self.inner.quantile(phi, w)
        _, dhat, ranges = estimate_window(self.inner.snapshot(), w)
        self._same(op, f"quantile({phi}, {w})", got, quantile_from(dhat, ranges, phi))
        v = quantile_violation(self.oracle.window_profile(w), got, phi, self.inner.eps)
        if self.guaranteed and v is not None:
            raise self._mismatch(op, v)
        return got  # type: ignore[no-any-return]

    def heavy_hitters(self, phi: float, w: int) -> list[int]:
        op = self._begin("heavy_hitters", phi, w)
        got = list(self.inner.heavy_hitters(phi, w))
        _, dhat, ranges = estimate_window(self.inner.snapshot(), w)
        self._same(op, f"heavy_hitters({phi}, {w})", got, heavy_from(dhat, ranges, phi))
        v = heavy_hitters_violation(self.oracle.window_profile(w), got, phi, self.inner.eps)
        if self.guaranteed and v is not None:
            raise self._mismatch(op, v)
        return got

    def _decayed_spec(self, decay: Decay | None) -> tuple[float, list[tuple[int, float]]]:
        if self.can.fixed_decay:
            return estimate_value_division(self.inner.snapshot(), self.inner.decay)
        assert decay is not None
        return estimate_decayed(self.inner.snapshot(), decay)

    def _decay_of(self, args: tuple[Any, ...]) -> Decay:
        d = self.inner.decay if self.can.fixed_decay else args[-1]
        if not self.can.fixed_decay and d not in self._decays:
            self._decays.append(d)
        return d  # type: ignore[no-any-return]

    def decayed_count(self, *args: Any) -> float:
        op = self._begin("decayed_count", *args)
        got = self.inner.decayed_count(*args)
        decay = self._decay_of(args)
        self._same(op, "decayed_count", got, self._decayed_spec(decay)[0])
        return float(got)

    def decayed_rank(self, x: int, *args: Any) -> float:
        op = self._begin("decayed_rank", x, *args)
        got = self.inner.decayed_rank(x, *args)
        decay = self._decay_of(args)
        _, ranges = self._decayed_spec(decay)
        his, prefix = rank_from(ranges)
        self._same(op, f"decayed_rank({x})", float(got), float(prefix[bisect.bisect_left(his, x)]))
        return float(got)

    def decayed_quantile(self, phi: float, *args: Any) -> int | None:
        got = self._decayed_phi("decayed_quantile", phi, args, quantile_from, quantile_violation)
        return got  # type: ignore[no-any-return]

    def decayed_heavy_hitters(self, phi: float, *args: Any) -> list[int]:
        return list(self._decayed_phi("decayed_heavy_hitters", phi, args, heavy_from, heavy_hitters_violation))

    def _decayed_phi(
        self,
        name: str,
        phi: float,
        args: tuple[Any, ...],
        exact: Callable[[Any, Any, float], Any],
        violation: Callable[[Any, Any, float, float], str | None],
    ) -> Any:
        """``inner.name(phi, *args)`` under the decay ``args`` name: the spec's answer over the exact decayed
        ranges, and (where the structure guarantees it) within the ε bound of the oracle's profile."""
        op = self._begin(name, phi, *args)
        got = getattr(self.inner, name)(phi, *args)
        got = list(got) if name == "decayed_heavy_hitters" else got
        decay = self._decay_of(args)
        total, ranges = self._decayed_spec(decay)
        self._same(op, f"{name}({phi})", got, exact(total, ranges, phi))
        v = violation(self.oracle.decayed_profile(decay), got, phi, self.inner.eps)
        if self.guaranteed and v is not None:
            raise self._mismatch(op, v)
        return got


def checked_sketch(
    sketch: Any,
    *,
    algorithm: str | None = None,
    facts: AlgorithmFacts | None = None,
    seed: Iterable[tuple[int, int]] | None = None,
    **_: Any,
) -> Any:
    """The sketch kind's debug wrapper (module docstring). ``algorithm`` defaults to the structure's
    ``algorithm`` attribute; ``seed`` gives a non-empty sketch's ``(value, weight)`` contents. An already checked
    one is returned as is."""
    if isinstance(sketch, _Checked):
        return sketch
    return CheckedQDigest(sketch, algorithm, seed, facts)


def checked_time_decayed(
    structure: Any, *, algorithm: str | None = None, facts: AlgorithmFacts | None = None, **_: Any
) -> Any:
    """The time-decayed kind's debug wrapper (module docstring): the structure must be empty. An already
    checked one is returned as is."""
    if isinstance(structure, _Checked):
        return structure
    return CheckedWindowStructure(structure, algorithm, facts)
