"""Hypothesis state machines of paper 004's structures (kinds ``sketch`` and ``time_decayed``).

Each machine drives a checked structure (:mod:`.debug`), so after **every** step the
structure's checker runs against the exact oracle (invariants, error and space bounds, cutoffs only rising) and
every query answer is compared with the spec's answer on the snapshot and with the oracle's bound. The machine
only chooses operations:

* ``sketch`` (q-digest): parameters (universe 1-8 bits, ε), weighted inserts, bulk inserts, compress, merge with
  another digest (also with one of other parameters, which must be refused), rank / frequency / quantile, and
  the whole universe at once. A bulk of n values is laid out by three drawn integers (:func:`laid_out`), not
  drawn value by value, so a failure that needs many distinct values shrinks in a few steps;
* ``time_decayed`` (window count, window quantiles, value division): parameters (time and value universes, ε or
  θ/β and the decay, often a small user-chosen level budget α so that ladders of several levels appear within a
  few steps, sometimes the provable default), clock advances, single and weighted inserts at any age, bursts on
  one timestamp, chunks of the paper-like and adversarial streams of :mod:`swagkit.spec.decay.streams`,
  compress / maintain, and every query (windows and decays chosen at query time);
* misuse in both: out-of-universe values and timestamps, future timestamps, negative weights, non-int input,
  the clock moved back, ε outside (0, 1) -- each must raise the documented error and change nothing (checked by
  the wrapper against the spec's own validation).

The machines ignore the monoid id (these structures take none; the registry lists them under ``count``). What
differs between time-decayed structures is read off the registered parameters (:class:`~.common.Capabilities`).
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import strategies as st
from hypothesis.stateful import initialize, invariant, rule

from swagkit.spec.decay import ExponentialDecay, NoDecay, PolynomialDecay, SlidingWindowDecay
from swagkit.spec.decay.errors import InvalidParameterError
from swagkit.spec.decay.streams import GENERATORS, Arrival, generate
from swagkit.spec.errors import SwagkitError

from ..base import Subject, expect_raises
from ..machines import DEFAULT_MAX_WINDOW, KindMachine, bind
from .common import Capabilities
from .debug import CheckedQDigest, CheckedWindowStructure, checked_sketch, checked_time_decayed

__all__ = [
    "LAYOUTS",
    "SketchMachine",
    "TimeDecayedMachine",
    "laid_out",
    "make_sketch_machine",
    "make_time_decayed_machine",
]

#: largest first: shrinking goes to the first, whose compress period and space bound are the smallest, so that a
#: space bug's counterexample is a short bulk
_EPS = st.sampled_from([0.9, 0.5, 0.2, 0.05])
_BAD_EPS = st.sampled_from([0.0, 1.0, -0.1, 1.5, float("nan")])
_PHI = st.sampled_from([0.0, 0.1, 0.3, 0.5, 0.9, 1.0])
_HH_PHI = st.sampled_from([0.05, 0.2, 0.5, 1.0])
#: how a bulk's values are laid out (:func:`laid_out`); the first is where shrinking goes
LAYOUTS = ("distinct", "skewed", "uniform")
_LAYOUT = st.sampled_from(LAYOUTS)
_LAYOUT_SEED = st.integers(0, 2**16 - 1)


def laid_out(layout: str, n: int, bits: int, seed: int) -> list[int]:
    """``n`` values of a ``bits``-bit universe, fixed by ``(layout, n, seed)``: ``distinct`` -- the progression
    ``start + i·stride`` with an odd stride (mod 2^b: n distinct values while n <= 2^b; seed 0 gives 0, 1, 2, ...),
    ``skewed`` -- values in 0..3 (families that merge, repeated leaves), ``uniform`` -- anywhere in the universe.

    Why not a list of drawn values: a q-digest that loses its compressions shows only once it holds more distinct
    values than ``⌊4N/⌈γ⌉⌋ + 1`` (about 20, :func:`~swagkit.spec.decay.bounds.space_findings`), and Hypothesis
    shrinks such a list by minimizing each value in turn while they must stay distinct: thousands of re-runs
    (20-40 s) for one report. Three integers shrink within a second (issue 14 §1)."""
    m = 1 << bits
    if layout == "distinct":
        start, stride = seed % m, 2 * (seed // m) + 1
        return [(start + i * stride) % m for i in range(n)]
    rng = random.Random(seed)
    if layout == "skewed":
        return [min(m - 1, rng.randrange(4)) for _ in range(n)]
    return [rng.randrange(m) for _ in range(n)]


def _expect_refusal(action: Any, error: type[SwagkitError] = SwagkitError, what: str = "bad input") -> None:
    """``action`` must raise ``error``, a documented SwagkitError (the checked wrapper verified that nothing
    changed)."""
    expect_raises(action, error, what)


# ----------------------------------------------------------------------------------------------------------------
# q-digest


class SketchMachine(KindMachine):
    """A mergeable sketch over a ``universe_bits``-bit universe with error ``eps`` (the q-digest's face)."""

    one_operation_per_step = True
    kind_name = "sketch"

    def __init__(self) -> None:
        super().__init__()
        self.d: CheckedQDigest | None = None

    def _new(self, bits: int, eps: float) -> CheckedQDigest:
        raw = self.subject.new(universe_bits=bits, eps=eps)
        wrapped = checked_sketch(raw, algorithm=self.subject.name, facts=self.subject.facts)
        assert isinstance(wrapped, CheckedQDigest)
        return wrapped

    @initialize(bits=st.integers(1, 8), eps=_EPS)
    def setup(self, bits: int, eps: float) -> None:
        self.d = self._new(bits, eps)
        self.bits, self.eps = bits, eps

    def _value(self, data: st.DataObject) -> int:
        return data.draw(st.integers(0, (1 << self.bits) - 1))

    @rule(data=st.data(), weight=st.sampled_from([1, 1, 1, 2, 5, 40]))
    def insert(self, data: st.DataObject, weight: int) -> None:
        assert self.d is not None
        self.d.insert(self._value(data), weight)
        self._step()

    @rule(n=st.integers(0, 60), layout=_LAYOUT, seed=_LAYOUT_SEED)
    def insert_many(self, n: int, layout: str, seed: int) -> None:
        assert self.d is not None
        self.d.insert_many(laid_out(layout, n, self.bits, seed))
        self._step()

    @rule(seed=_LAYOUT_SEED)
    def insert_universe(self, seed: int) -> None:
        """Every value of the universe once (in a strided order): the most distinct values a digest can hold, so
        a compression that was lost or comes too late shows at any universe where the space bound is below 2^b."""
        assert self.d is not None
        self.d.insert_many(laid_out("distinct", 1 << self.bits, self.bits, seed))
        self._step()

    @rule()
    def compress(self) -> None:
        assert self.d is not None
        self.d.compress()
        self._step()

    @rule(n=st.integers(0, 30), layout=_LAYOUT, seed=_LAYOUT_SEED)
    def merge(self, n: int, layout: str, seed: int) -> None:
        assert self.d is not None
        other = self._new(self.bits, self.eps)
        other.insert_many(laid_out(layout, n, self.bits, seed))
        self.d.merge(other)
        self._step()

    @rule(other_eps=_EPS)
    def merge_incompatible(self, other_eps: float) -> None:
        assert self.d is not None
        other = self._new(self.bits % 8 + 1, other_eps)
        d = self.d
        _expect_refusal(lambda: d.merge(other))
        self._step()

    @rule(data=st.data())
    def bad_insert(self, data: st.DataObject) -> None:
        assert self.d is not None
        bad: tuple[Any, Any] = data.draw(
            st.sampled_from([(-1, 1), (1 << self.bits, 1), (0, -1), ("x", 1), (0, 1.5), (True, 1), (0, 2**62)])
        )
        d = self.d
        _expect_refusal(lambda: d.insert(*bad))
        self._step()

    @rule(eps=_BAD_EPS)
    def bad_parameters(self, eps: float) -> None:
        _expect_refusal(lambda: self._new(self.bits, eps))
        self._step()

    @rule(data=st.data(), phi=_PHI)
    def queries(self, data: st.DataObject, phi: float) -> None:
        assert self.d is not None
        x = data.draw(st.integers(0, 1 << self.bits))
        self.d.rank(x)
        self.d.frequency(min(x, (1 << self.bits) - 1))
        self.d.quantile(phi)
        self._step()


def make_sketch_machine(subject: Subject, monoid_id: str, max_window: int = DEFAULT_MAX_WINDOW) -> type[SketchMachine]:
    """The sketch machine bound to ``subject`` (``monoid_id`` and ``max_window`` are not used)."""
    return bind(SketchMachine, subject, monoid_id, max_window, monoid_in_name=False)


# ----------------------------------------------------------------------------------------------------------------
# out-of-order windows and value division


class TimeDecayedMachine(KindMachine):
    """A time-decayed structure over a ``time_bits`` clock: a count, values of a ``value_bits`` universe, or
    values under a fixed decay (read off the registered parameters, :class:`~.common.Capabilities`)."""

    one_operation_per_step = True
    kind_name = "time_decayed"

    def __init__(self) -> None:
        super().__init__()
        self.s: CheckedWindowStructure | None = None
        self.can = Capabilities.of_params(self.subject.params)

    def _create(self, **params: Any) -> Any:
        return self.subject.new(**params)

    @initialize(data=st.data())
    def setup(self, data: st.DataObject) -> None:
        self.tbits = data.draw(st.integers(3, 11), label="time_bits")
        self.vbits = data.draw(st.integers(1, 5), label="value_bits")
        params: dict[str, Any] = {"time_bits": self.tbits}
        if self.can.fixed_decay:
            params.update(
                value_bits=self.vbits,
                decay=data.draw(
                    st.sampled_from([PolynomialDecay(0.5), PolynomialDecay(2.0), ExponentialDecay(0.2), NoDecay()])
                ),
                theta=data.draw(st.sampled_from([0.05, 0.3, 0.9])),
                beta=data.draw(st.sampled_from([0.05, 0.3, 0.9])),
            )
        else:
            params["eps"] = data.draw(st.sampled_from([0.3, 0.6, 0.9]), label="eps")
            params["alpha"] = data.draw(st.one_of(st.none(), st.integers(1, 24)), label="alpha")
            if self.can.values:
                params["value_bits"] = self.vbits
        raw = self._create(**params)
        wrapped = checked_time_decayed(raw, algorithm=self.subject.name, facts=self.subject.facts)
        assert isinstance(wrapped, CheckedWindowStructure)
        self.s = wrapped

    @property
    def _top(self) -> int:
        return (1 << self.tbits) - 1

    def _insert(self, value: int, ts: int, weight: int = 1) -> None:
        assert self.s is not None
        if self.can.values:
            self.s.insert(value, ts, weight)
        else:
            self.s.insert(ts, weight)

    @rule(data=st.data())
    def advance(self, data: st.DataObject) -> None:
        assert self.s is not None
        step = data.draw(st.sampled_from([0, 1, 1, 2, 5, max(1, self._top // 8)]))
        self.s.advance(min(self._top, self.s.now + step))
        self._step()

    @rule(data=st.data(), weight=st.sampled_from([0, 1, 1, 1, 3, 17]))
    def insert(self, data: st.DataObject, weight: int) -> None:
        assert self.s is not None
        age = min(self.s.now, data.draw(st.one_of(st.integers(0, 3), st.integers(0, self.s.now))))
        self._insert(data.draw(st.integers(0, (1 << self.vbits) - 1)), self.s.now - age, weight)
        self._step()

    @rule(data=st.data(), n=st.integers(2, 40))
    def burst(self, data: st.DataObject, n: int) -> None:
        """Many tuples on one timestamp (uncapped leaves)."""
        assert self.s is not None
        ts = data.draw(st.integers(0, self.s.now))
        values = data.draw(st.lists(st.integers(0, (1 << self.vbits) - 1), min_size=n, max_size=n))
        self.s.replay([Arrival(v, ts, self.s.now) for v in values])
        self._step()

    @rule(kind=st.sampled_from(sorted(GENERATORS)), n=st.integers(10, 400), seed=st.integers(0, 2**16))
    def stream_chunk(self, kind: str, n: int, seed: int) -> None:
        """A chunk of a paper-like or adversarial stream, shifted to start at the current time."""
        assert self.s is not None
        chunk = generate(kind, n, time_bits=self.tbits, value_bits=self.vbits, seed=seed, weighted=seed % 3 == 0)
        now = self.s.now
        shifted = []
        for a in chunk:
            now = max(now, a.now)
            shifted.append(Arrival(a.value, a.timestamp, now, a.weight))
        self.s.replay(shifted)
        self._step()

    @rule(kind=st.sampled_from(sorted(GENERATORS)), seed=st.integers(0, 2**16))
    def fill(self, kind: str, seed: int) -> None:
        """Three level budgets' worth of a stream at once, so that ladders whose lower levels have discarded
        (the regime the error proofs are about) are reached within a few steps even with the provable α."""
        assert self.s is not None
        n = 3 * getattr(self.s, "alpha", 100)
        self.stream_chunk(kind, min(n, 6000), seed)

    @rule(data=st.data())
    def insert_many(self, data: st.DataObject) -> None:
        assert self.s is not None
        n = data.draw(st.integers(0, 12))
        ts = [data.draw(st.integers(0, self.s.now)) for _ in range(n)]
        if self.can.values:
            self.s.insert_many([(data.draw(st.integers(0, (1 << self.vbits) - 1)), t) for t in ts])
        else:
            self.s.insert_many(ts)
        self._step()

    @rule()
    def compress(self) -> None:
        assert self.s is not None
        getattr(self.s, self.can.maintenance)()
        self._step()

    @rule(data=st.data())
    def misuse(self, data: st.DataObject) -> None:
        assert self.s is not None
        s = self.s
        top, now = self._top, s.now
        v = 0
        cases: list[Any] = [
            lambda: self._insert(v, top + 1),  # outside the time universe
            lambda: self._insert(v, -1),
            lambda: self._insert(v, now, -2),  # negative weight
            lambda: self._insert(v, now, 2**62),  # total weight overflow
            lambda: self._insert(v, str(now)),  # type: ignore[arg-type]
            lambda: s.advance(top + 1),
        ]
        if now < top:
            cases.append(lambda: self._insert(v, now + 1))  # a future timestamp
        if now > 0:
            cases.append(lambda: s.advance(now - 1))  # the clock moved back
        if self.can.values:
            cases.append(lambda: s.insert(1 << self.vbits, now))  # outside the value universe
            cases.append(lambda: s.insert(-1, now))
        _expect_refusal(data.draw(st.sampled_from(cases)))
        self._step()

    @rule(eps=_BAD_EPS)
    def bad_parameters(self, eps: float) -> None:
        params: dict[str, Any] = {"time_bits": self.tbits}
        if self.can.fixed_decay:
            params.update(value_bits=self.vbits, decay=PolynomialDecay(1.0), theta=0.1, beta=eps)
        else:
            params["eps"] = eps
            if self.can.values:
                params["value_bits"] = self.vbits
        _expect_refusal(lambda: self._create(**params))
        if self.can.fixed_decay:  # the sliding window is not smooth
            params.update(theta=0.1, decay=SlidingWindowDecay(4))
            _expect_refusal(lambda: self._create(**params), InvalidParameterError, "a fixed decay that is not smooth")
        self._step()

    @rule(data=st.data(), phi=_PHI, hh=_HH_PHI)
    def queries(self, data: st.DataObject, phi: float, hh: float) -> None:
        assert self.s is not None
        s = self.s
        if self.can.fixed_decay:
            x = data.draw(st.integers(0, 1 << self.vbits))
            s.decayed_count()
            s.decayed_rank(x)
            s.decayed_quantile(phi)
            s.decayed_heavy_hitters(hh)
            self._step()
            return
        w = data.draw(st.one_of(st.integers(0, 4), st.integers(0, s.now + 2)), label="window")
        s.count(w)
        if self.can.values:
            x = data.draw(st.integers(0, 1 << self.vbits))
            s.rank(x, w)
            lo = data.draw(st.integers(0, (1 << self.vbits) - 1))
            s.range_count(lo, data.draw(st.integers(0, (1 << self.vbits) - 1)), w)
            s.quantile(phi, w)
            s.heavy_hitters(hh, w)
            decay = data.draw(
                st.sampled_from([PolynomialDecay(1.0), ExponentialDecay(0.3), SlidingWindowDecay(max(1, w)), NoDecay()])
            )
            s.decayed_count(decay)
            s.decayed_rank(x, decay)
            s.decayed_quantile(phi, decay)
            s.decayed_heavy_hitters(hh, decay)
        self._step()

    @invariant()
    def clock_consistent(self) -> None:
        if self.s is not None:
            assert self.s.now == self.s.oracle.now


def make_time_decayed_machine(
    subject: Subject, monoid_id: str, max_window: int = DEFAULT_MAX_WINDOW
) -> type[TimeDecayedMachine]:
    """The time-decayed machine bound to ``subject`` (``monoid_id`` and ``max_window`` are not used)."""
    return bind(TimeDecayedMachine, subject, monoid_id, max_window, monoid_in_name=False)
