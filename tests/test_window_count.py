"""Sliding-window count with out-of-order arrivals (paper 004 §3.1): relative error ε on every paper-like and
adversarial stream with the provable level budget, the checker's invariants (levels, cutoffs only rising,
fullness), the errata as regression tests (the buffer dropped by the paper's query, the estimator direction,
the α constant, ties at τ_0, t - w < 0), bad input that changes nothing, compiled-vs-reference parity."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import pytest
from decay_helpers import IMPL_IDS, drive, impl_class, refuses_and_keeps

from swagkit.reference.window_count import SlidingWindowCount as RefCount
from swagkit.spec.checkers.window_count import check_window_count, estimate_count
from swagkit.spec.decay.bounds import window_count_alpha_min
from swagkit.spec.decay.errors import (
    ClockError,
    FutureTimestampError,
    InputTypeError,
    InvalidParameterError,
    NegativeWeightError,
    OutOfUniverseError,
    WeightOverflowError,
)
from swagkit.spec.decay.oracle import ExactStream
from swagkit.spec.decay.streams import GENERATORS, generate
from swagkit.spec.errors import InvariantViolation


@pytest.mark.parametrize("impl", IMPL_IDS)
@pytest.mark.parametrize("kind", sorted(GENERATORS))
def test_relative_error_on_every_stream(impl: str, kind: str) -> None:
    T, eps = 9, 0.5
    c = impl_class(impl, "SlidingWindowCount")(T, eps)
    o = ExactStream(value_bits=8, time_bits=T)
    state: dict[str, Any] = {"prev": None, "worst": 0.0}

    def check(_: int) -> None:
        s = c.snapshot()
        report = check_window_count(s, o, state["prev"])
        state["prev"] = s
        state["worst"] = max(state["worst"], report.measures.get("window_count error / (ε·D_w)", 0.0))
        assert not [f for f in report.soft if f.invariant != "family lower bound"]

    drive(
        c,
        generate(kind, 1800, time_bits=T, value_bits=8, seed=21, weighted=kind in ("flow", "bursts")),
        o,
        values=False,
        every=300,
        on_check=check,
    )
    c.compress()
    check(0)
    assert state["worst"] <= 1.0
    for w in (0, 1, 2, 17, 100, c.now + 1, c.now + 50):
        d = o.count_window(w)
        assert c.count(w) <= d and d - c.count(w) <= eps * d


@pytest.mark.parametrize("impl", IMPL_IDS)
def test_ladder_grows_and_top_level_never_discards(impl: str) -> None:
    c = impl_class(impl, "SlidingWindowCount")(10, 0.9, 12)  # a tiny budget: many levels quickly
    o = ExactStream(1, 10)
    drive(c, generate("permutation", 3000, time_bits=10, value_bits=1, seed=4), o, values=False)
    c.compress()
    s = c.snapshot()
    assert c.level_count() >= 4
    assert s.levels[-1].tau == -1 and all(lv.gamma == 2**lv.level for lv in s.levels)
    assert all(len(lv.nodes) <= 12 for lv in s.levels)
    assert c.cutoffs() == [s.tau0] + [lv.tau for lv in s.levels]
    report = check_window_count(s, o)
    assert "level error" in report.hard  # per-level bound I7 holds whatever α
    for w in (1, 10, 100, 1000):
        assert c.count(w) == estimate_count(s, w) and 0 <= c.level_for(w) <= c.level_count()


class PaperLiteral(RefCount):
    """Alg. 3.1 / 3.3 as printed: only items evicted from Q_0 go to the levels, and the query answers from Q_ℓ
    alone (the buffer is dropped, notes §9 item 1)."""

    def insert(self, timestamp: int, weight: int = 1) -> None:
        before = dict(self._q0)
        self._total += weight
        self._buffer_insert(timestamp, weight)
        evicted = dict(before)
        evicted[timestamp] = evicted.get(timestamp, 0) + weight
        for t, w in self._q0.items():
            evicted[t] -= w
        leaf = 1 << self._tbits
        for t, w in evicted.items():
            if w > 0:
                for level in self._levels:
                    if t > level.tau:
                        level.nodes[leaf + t] = level.nodes.get(leaf + t, 0) + w
        self._pending += 1
        if self._pending >= self.compress_period:
            self.compress()


def test_erratum_paper_query_drops_the_buffer() -> None:
    """With the printed algorithms a window older than τ_0 misses every item still in Q_0 (α of them), far
    beyond ε·D_w; swagkit's variant (every item in every level) stays within it."""
    T, eps = 10, 0.5
    ours, paper = RefCount(T, eps), PaperLiteral(T, eps)
    o = ExactStream(1, T)
    arrivals = generate("permutation", 1200, time_bits=T, value_bits=1, seed=2)
    drive(ours, arrivals, o, values=False)
    drive(paper, arrivals, values=False)
    w = ours.now - ours.cutoffs()[0] + 1  # reaches just past τ_0: answered by a level
    d = o.count_window(w)
    assert ours.level_for(w) >= 1
    assert d - ours.count(w) <= eps * d
    assert d - paper.count(w) > eps * d  # the buffer's α items are lost
    assert d - paper.count(w) >= paper.alpha - 2 * T * 2


def test_erratum_estimator_underestimates() -> None:
    """Eq. (1) says r̂r(τ) >= rr(τ); the estimator Σ{c(r) : l > τ} never exceeds rr(τ) and is strictly below
    it when a range straddles τ (notes §9 item 2)."""
    c = RefCount(8, 0.9, 6)
    o = ExactStream(1, 8)
    drive(c, generate("permutation", 2000, time_bits=8, value_bits=1, seed=9), o, values=False)
    c.compress()
    s = c.snapshot()
    strictly_below = 0
    for lv in s.levels:
        for tau in range(max(lv.tau, 0), 256):
            est = sum(
                cnt for n, cnt in lv.nodes if ((n - (1 << (n.bit_length() - 1))) << (8 - n.bit_length() + 1)) > tau
            )
            true = o.right_rank(tau)
            assert est <= true
            strictly_below += est < true
    assert strictly_below > 0


def test_erratum_alpha_constant() -> None:
    """α = 9T/ε (the paper) is below the provable (8/ε + 7)T + 1 for ε > 1/7; the default is the latter,
    and a user-chosen smaller α makes the checker *report* (not fail) fullness and error."""
    for T in (1, 8, 20, 32):
        for eps in (0.01, 0.05, 0.1, 1 / 7, 0.15, 0.5, 0.9):
            need = window_count_alpha_min(T, eps)
            assert need == math.ceil(Fraction(8 * T) / Fraction(eps) + 7 * T + 1)
            assert RefCount(max(T, 1), eps).alpha == need
            if eps > 1 / 7 + 1e-9:
                assert 9 * T / eps < need
    assert window_count_alpha_min(20, 0.1) == 1741  # (80 + 7)·20 + 1
    small = RefCount(6, 0.9, 3)
    o = ExactStream(1, 6)
    drive(small, generate("reversed", 400, time_bits=6, value_bits=1, seed=1), o, values=False)
    report = check_window_count(small.snapshot(), o)
    assert all(f.invariant in ("level fullness", "window error", "family lower bound") for f in report.soft)


@pytest.mark.parametrize("impl", IMPL_IDS)
def test_ties_at_tau0_and_windows_before_time_zero(impl: str) -> None:
    """α + 5 items on one timestamp: Q_0 keeps α of them at τ_0 (ties), the rest is evicted; windows that start
    just before τ_0 still count them all; ``t - w < 0`` is clamped (notes §3.9 (d), (f))."""
    cls = impl_class(impl, "SlidingWindowCount")
    c = cls(6, 0.5, 10)
    c.advance(40)
    for _ in range(15):
        c.insert(30)
    c.insert(35)
    assert c.cutoffs()[0] == 30 and c.snapshot().buffer == ((30, 9), (35, 1))  # 6 of the 15 ties evicted
    assert c.count(10) == 1  # (30, 40]: exact from Q_0
    assert c.count(11) == 16  # (29, 40]: from level 1, all 15 tied items counted
    assert c.count(5) == 0 and c.count(6) == 1
    assert c.count(41) == 16 and c.count(10**6) == 16  # the whole history
    assert c.count(0) == 0


@pytest.mark.parametrize("impl", IMPL_IDS)
def test_windows_are_strict(impl: str) -> None:
    c = impl_class(impl, "SlidingWindowCount")(5, 0.5)
    c.advance(20)
    for t in (20, 19, 18, 18, 10):
        c.insert(t)
    assert [c.count(w) for w in (0, 1, 2, 3, 10, 11, 21)] == [0, 1, 2, 4, 4, 5, 5]


@pytest.mark.parametrize("impl", IMPL_IDS)
def test_bad_input_changes_nothing(impl: str) -> None:
    cls = impl_class(impl, "SlidingWindowCount")
    c = cls(6, 0.3)
    c.advance(30)
    for t in range(0, 30, 2):
        c.insert(t)
    for action, error, builtin in [
        (lambda: c.insert(31), FutureTimestampError, ValueError),
        (lambda: c.insert(64), OutOfUniverseError, ValueError),
        (lambda: c.insert(-1), OutOfUniverseError, ValueError),
        (lambda: c.insert(5, -3), NegativeWeightError, ValueError),
        (lambda: c.insert(5.0), InputTypeError, TypeError),
        (lambda: c.insert(5, 2**62), WeightOverflowError, OverflowError),
        (lambda: c.insert_many([1, 2, 40]), FutureTimestampError, ValueError),
        (lambda: c.advance(29), ClockError, ValueError),
        (lambda: c.advance(64), OutOfUniverseError, ValueError),
        (lambda: c.count(-1), InvalidParameterError, ValueError),
        (lambda: c.count("3"), InputTypeError, TypeError),
    ]:
        refuses_and_keeps(c, action, error, builtin)
    for eps in (0.0, 1.0, 1.2):
        with pytest.raises(InvalidParameterError):
            cls(6, eps)
    with pytest.raises(InvalidParameterError):
        cls(6, 0.5, 0)
    with pytest.raises(InvalidParameterError):
        cls(0, 0.5)


def test_compiled_matches_reference_exactly() -> None:
    import swagkit.optimized as opt

    for kind in ("flow", "looping", "bursts", "reversed"):
        for T, eps, alpha in ((9, 0.5, None), (7, 0.3, 9), (12, 0.2, None)):
            arrivals = generate(kind, 2000, time_bits=T, value_bits=1, seed=3, weighted=True)
            r, c = RefCount(T, eps, alpha), opt.SlidingWindowCount(T, eps, alpha)
            for i, a in enumerate(arrivals):
                if a.now != r.now:
                    r.advance(a.now)
                    c.advance(a.now)
                r.insert(a.timestamp, a.weight)
                c.insert(a.timestamp, a.weight)
                if i % 250 == 0:
                    assert r.snapshot() == c.snapshot()
                    for w in (1, 7, 60, 600, r.now + 1):
                        assert r.count(w) == c.count(w)
            assert repr(r) == repr(c) and r.node_count() == c.node_count() and r.level_count() == c.level_count()


def test_checker_catches_broken_states() -> None:
    c = RefCount(8, 0.9, 8)
    o = ExactStream(1, 8)
    drive(c, generate("permutation", 800, time_bits=8, value_bits=1, seed=6), o, values=False)
    c.compress()
    s = c.snapshot()
    check_window_count(s, o)
    lowered = [lv for lv in s.levels if lv.tau >= 0][0]
    levels = tuple(type(lv)(lv.level, lv.gamma, lv.tau - 1 if lv is lowered else lv.tau, lv.nodes) for lv in s.levels)
    with pytest.raises(InvariantViolation) as info:
        check_window_count(type(s)(**{**s.__dict__, "levels": levels}), o, s)
    assert info.value.invariant == "cutoffs rise"
    buffer = s.buffer[1:]
    with pytest.raises(InvariantViolation) as info:
        check_window_count(type(s)(**{**s.__dict__, "buffer": buffer}), o)
    assert info.value.invariant == "buffer"
    k, lvk = next((k, lv) for k, lv in enumerate(s.levels) if any(n < 256 for n, _ in lv.nodes))
    internal = next(n for n, _ in lvk.nodes if n < 256)
    fat = tuple((n, cnt + 99 if n == internal else cnt) for n, cnt in lvk.nodes)
    levels = s.levels[:k] + (type(lvk)(lvk.level, lvk.gamma, lvk.tau, fat),) + s.levels[k + 1 :]
    with pytest.raises(InvariantViolation) as info:
        check_window_count(type(s)(**{**s.__dict__, "levels": levels}), o)
    assert info.value.invariant == "node cap"
    lv0 = s.levels[0]
    wrong_gamma = (type(lv0)(lv0.level, 4, lv0.tau, lv0.nodes),) + s.levels[1:]
    with pytest.raises(InvariantViolation) as info:
        check_window_count(type(s)(**{**s.__dict__, "levels": wrong_gamma}))
    assert info.value.invariant == "levels"
