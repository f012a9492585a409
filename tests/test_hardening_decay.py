"""Issue 12's hardening of paper 004's structures -- QDigest (and ``qdigest_monoid``), SlidingWindowCount,
SlidingWindowQuantiles, ValueDivision -- in both implementations (``swagkit.reference`` and
``swagkit.optimized``: compiled, or the pure-Python fallback under ``SWAGKIT_PUREPYTHON=1``).

They take no monoid, so ``tests/hardening.py`` does not drive them; this file does:

* copy, deepcopy and pickle keep the state, the snapshot and the hidden schedule (pending compress, pending
  maintenance), copies are independent, a malformed snapshot is refused (``TypeError``/``ValueError``, never a
  crash), pickles are flat;
* sizes at the limits of their universes raise the documented ``WeightOverflowError`` (never a raw
  ``OverflowError``), windows and decays of any size answer like the reference;
* merging a reference and a compiled q-digest is exact, anything else is a documented ``TypeError``;
* bad input is refused alike in both twins before anything changes; numpy scalars and arrays are accepted;
* re-entrant and concurrent use (an integer's ``__index__``, a user decay, a second thread) raises
  ``ReentrantCallError`` before any change; a decay that raises (or is interrupted) mid-operation leaves the
  structure exactly as it was (``exception_safety == "strong"``), with the same decay calls in both twins.
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import numbers
import pickle
import random
import sys
import threading
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import swagkit.optimized as opt
import swagkit.reference as ref
from swagkit.reference._guard import restore
from swagkit.spec.decay import Decay, NoDecay, PolynomialDecay, SlidingWindowDecay
from swagkit.spec.decay.errors import (
    FutureTimestampError,
    IncompatibleSummaryError,
    InputTypeError,
    InvalidParameterError,
    NegativeWeightError,
    OutOfUniverseError,
    WeightOverflowError,
)
from swagkit.spec.errors import ReentrantCallError, SwagkitError
from swagkit.spec.library import string_concat
from swagkit.spec.monoid import Monoid

IMPLS = {"reference": ref, "optimized": opt}
IMPL_IDS = list(IMPLS)
NAMES = ["QDigest", "SlidingWindowCount", "SlidingWindowQuantiles", "ValueDivision"]


class InjectedFault(Exception):
    """What a faulty decay raises."""


class HookDecay(Decay):
    """``g(a) = (a + 1)^-1`` (smooth, positive) as *user code*: not a built-in type, so the compiled layer calls it
    through Python. Records every age it is asked for; ``hook`` (if set) runs inside the k-th call from arming."""

    name = "hook_polynomial"
    smooth = True
    positive = True

    def __init__(self) -> None:
        self.ages: list[int] = []
        self.hook: Callable[[], Any] | None = None
        self.countdown = 0
        self.value: float | None = None  # when set: the weight returned at the armed call

    def arm(self, k: int, hook: Callable[[], Any] | None = None, value: float | None = None) -> None:
        self.countdown, self.hook, self.value = k, hook, value

    def weight(self, age: int) -> float:
        self.ages.append(age)
        if self.countdown:
            self.countdown -= 1
            if self.countdown == 0:
                hook, self.hook = self.hook, None
                if hook is not None:
                    hook()
                if self.value is not None:
                    return self.value
        return float((age + 1.0) ** -1.0)


# -- the four structures and a workload for each ---------------------------------------------------------------


def build(impl: str, name: str, decay: Decay | None = None) -> Any:
    m = IMPLS[impl]
    if name == "QDigest":
        return m.QDigest(6, 0.2)
    if name == "SlidingWindowCount":
        return m.SlidingWindowCount(8, 0.5, 12)  # a small α: several levels soon
    if name == "SlidingWindowQuantiles":
        return m.SlidingWindowQuantiles(8, 4, 0.5, 10)
    return m.ValueDivision(8, 4, decay if decay is not None else PolynomialDecay(1.0), 0.1, 0.1)


Op = tuple[Any, ...]


def workload(name: str, n: int, seed: int, start: int = 0) -> list[Op]:
    """Updates (out of order) and queries; ``start`` is the clock the script starts from."""
    rng = random.Random(seed)
    ops: list[Op] = []
    now = start
    for i in range(n):
        if name == "QDigest":
            ops.append(("insert", rng.randrange(64), rng.choice((1, 1, 2, 5))))
            if i % 17 == 0:
                ops.append(("rank", rng.randrange(65)))
            continue
        if i % 3 == 0 and now < 250:
            now += 1
            ops.append(("advance", now))
        t = max(0, now - rng.randrange(25))
        if name == "SlidingWindowCount":
            ops.append(("insert", t, rng.choice((1, 1, 3))))
            if i % 11 == 0:
                ops.append(("count", rng.randrange(1, 60)))
        else:
            ops.append(("insert", rng.randrange(16), t, rng.choice((1, 1, 2))))
            if i % 11 == 0:
                ops.append(
                    ("rank" if name == "SlidingWindowQuantiles" else "decayed_rank",)
                    + (
                        (rng.randrange(17), rng.randrange(1, 60))
                        if name == "SlidingWindowQuantiles"
                        else (rng.randrange(17),)
                    )
                )
    return ops


def apply(s: Any, op: Op) -> Any:
    return getattr(s, op[0])(*op[1:])


def answers(s: Any, name: str) -> tuple[Any, ...]:
    if name == "QDigest":
        return (s.total, s.rank(20), s.quantile(0.5), s.ranges(), s.node_count())
    if name == "SlidingWindowCount":
        return (s.total, s.count(10), s.count(1000), s.cutoffs(), s.level_count())
    if name == "SlidingWindowQuantiles":
        return (
            s.total,
            s.rank(8, 30),
            s.quantile(0.5, 30),
            s.heavy_hitters(0.2, 300),
            s.decayed_count(PolynomialDecay(1.0)),
            s.cutoffs(),
        )
    return (s.total, s.decayed_count(), s.decayed_rank(8), s.decayed_quantile(0.5), s.intervals())


def loaded(impl: str, name: str, n: int = 300, seed: int = 5) -> Any:
    s = build(impl, name)
    for op in workload(name, n, seed):
        apply(s, op)
    return s


ROUND_TRIPS: dict[str, Callable[[Any], Any]] = {
    "pickle": lambda a: pickle.loads(pickle.dumps(a, protocol=pickle.HIGHEST_PROTOCOL)),
    "copy": copy.copy,
    "deepcopy": copy.deepcopy,
}


# -- 5. copy and pickle ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("how", sorted(ROUND_TRIPS))
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("impl", IMPL_IDS)
def test_round_trip_keeps_state_schedule_and_independence(impl: str, name: str, how: str) -> None:
    s = loaded(impl, name)
    state, before = s.snapshot(), answers(s, name)
    twin = ROUND_TRIPS[how](s)
    assert type(twin) is type(s)
    assert twin.snapshot() == state and answers(twin, name) == before
    # the same future: the hidden schedule (pending compress, maintenance) came along
    more = workload(name, 200, seed=9, start=s.now if name != "QDigest" else 0)
    for op in more:
        assert apply(twin, op) == apply(s, op), op
    assert twin.snapshot() == s.snapshot() and answers(twin, name) == answers(s, name)
    # independence both ways
    frozen = s.snapshot()
    for op in workload(name, 60, seed=11, start=twin.now if name != "QDigest" else 0):
        apply(twin, op)
    assert s.snapshot() == frozen and twin.snapshot() != frozen
    again = ROUND_TRIPS[how](twin)
    for op in workload(name, 60, seed=12, start=twin.now if name != "QDigest" else 0):
        apply(again, op)
    assert twin.snapshot() != again.snapshot()


@pytest.mark.parametrize("impl", IMPL_IDS)
def test_value_division_copy_shares_the_decay_deepcopy_copies_it(impl: str) -> None:
    vd = loaded(impl, "ValueDivision", 100)
    assert copy.copy(vd).decay is vd.decay
    deep = copy.deepcopy(vd)
    assert deep.decay is not vd.decay and deep.decay.name == vd.decay.name
    assert pickle.loads(pickle.dumps(vd)).snapshot() == vd.snapshot()


@pytest.mark.parametrize("name", NAMES)
def test_copies_agree_across_twins(name: str) -> None:
    """Both implementations restore each other's snapshots to the same state (same save format)."""
    r, o = loaded("reference", name), loaded("optimized", name)
    assert r.snapshot() == o.snapshot()
    rr = type(o)._from_snapshot(None, r.snapshot(), **r._params())
    oo = type(r)._from_snapshot(None, o.snapshot(), **o._params())
    for op in workload(name, 150, seed=3, start=r.now if name != "QDigest" else 0):
        assert apply(rr, op) == apply(oo, op)
    assert rr.snapshot() == oo.snapshot()


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("impl", IMPL_IDS)
def test_large_structures_pickle_flat(impl: str, name: str) -> None:
    """Pickling needs no recursion proportional to the size: it works with little stack to spare."""
    s = loaded(impl, name, n=3000, seed=2)
    depth = len(inspect.stack(0))
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(depth + 80)
    try:
        data = pickle.dumps(s, protocol=pickle.HIGHEST_PROTOCOL)
        twin = pickle.loads(data)
    finally:
        sys.setrecursionlimit(old)
    assert twin.snapshot() == s.snapshot()


def _malformed(name: str, s: Any) -> list[tuple[str, Any]]:
    """(label, snapshot) pairs that must be refused."""
    st = s.snapshot()
    R = dataclasses.replace
    if name == "QDigest":
        first = st.nodes[0]
        return [
            ("node id 0", R(st, nodes=((0, first[1]),) + st.nodes[1:])),
            ("node id beyond the tree", R(st, nodes=st.nodes[:-1] + ((2**7, st.nodes[-1][1]),))),
            ("unsorted", R(st, nodes=tuple(reversed(st.nodes)))),
            ("count 0", R(st, nodes=((first[0], 0),) + st.nodes[1:], total=st.total - first[1])),
            ("bool count", R(st, nodes=((first[0], True),) + st.nodes[1:])),
            ("count 2**63", R(st, nodes=((first[0], 2**63),) + st.nodes[1:])),
            ("total differs", R(st, total=st.total + 1)),
            ("negative total", R(st, total=-1)),
            ("list of nodes", R(st, nodes=list(st.nodes))),
            ("pair of three", R(st, nodes=((first[0], first[1], 0),) + st.nodes[1:])),
            ("pending too large", R(st, pending=st.compress_period, compressed=False)),
            ("compressed flag", R(st, compressed=not st.compressed)),
            ("other universe", R(st, universe_bits=7)),
            ("other eps", R(st, eps=0.3)),
            ("not a state", st.nodes),
        ]
    if name in ("SlidingWindowCount", "SlidingWindowQuantiles"):
        lv0 = st.levels[0]
        top = st.levels[-1]
        out = [
            ("now beyond the universe", R(st, now=2**8)),
            ("buffer in the future", R(st, buffer=st.buffer[:-1] + ((st.now + 1,) + st.buffer[-1][1:],))),
            ("buffer unsorted", R(st, buffer=tuple(reversed(st.buffer)))),
            ("buffer over alpha", R(st, buffer=st.buffer[:-1] + (st.buffer[-1][:-1] + (st.alpha + 1,),))),
            ("top level discarded", R(st, levels=st.levels[:-1] + (R(top, tau=3),))),
            ("level cap", R(st, levels=(R(lv0, gamma=lv0.gamma * 2),) + st.levels[1:])),
            (
                "too many levels",
                R(
                    st,
                    levels=tuple(
                        R(top, level=j, gamma=2 ** (j + (0 if name == "SlidingWindowCount" else -1)))
                        for j in range(1, 70)
                    ),
                ),
            ),
            ("no levels", R(st, levels=())),
            ("other alpha", R(st, alpha=st.alpha + 1)),
            ("pending", R(st, pending=-1)),
            ("total", R(st, total=2**62)),
            ("tau0", R(st, tau0=-2)),
        ]
        if name == "SlidingWindowCount":
            out.append(("level node id 0", R(st, levels=(R(lv0, nodes=((0, 1),) + lv0.nodes),) + st.levels[1:])))
        else:
            node = lv0.nodes[0]
            out += [
                (
                    "digest total differs from count",
                    R(st, levels=(R(lv0, nodes=(R(node, count=node.count + 1),) + lv0.nodes[1:]),) + st.levels[1:]),
                ),
                (
                    "digest over other bits",
                    R(
                        st,
                        levels=(R(lv0, nodes=(R(node, digest=R(node.digest, universe_bits=5)),) + lv0.nodes[1:]),)
                        + st.levels[1:],
                    ),
                ),
                (
                    "node not a RangeNodeState",
                    R(st, levels=(R(lv0, nodes=((node.node, node.count),) + lv0.nodes[1:]),) + st.levels[1:]),
                ),
                ("buffer value beyond the universe", R(st, buffer=((0, 16, 1),))),
            ]
        return out
    s0, s1 = st.summaries[0], st.summaries[1]
    return [
        ("overlapping", R(st, summaries=(R(s0, lo=s1.hi),) + st.summaries[1:])),
        ("oldest first", R(st, summaries=tuple(reversed(st.summaries)))),
        ("hi after now", R(st, summaries=(R(s0, hi=st.now + 1),) + st.summaries[1:])),
        ("lo after hi", R(st, summaries=(R(s0, lo=s0.hi + 1),) + st.summaries[1:])),
        ("total differs", R(st, total=st.total + 1)),
        ("other decay", R(st, decay="exponential(1.0)")),
        ("other beta", R(st, beta=0.2)),
        ("maintained not a bool", R(st, maintained=1)),
        ("digest over other eps", R(st, summaries=(R(s0, digest=R(s0.digest, eps=0.5)),) + st.summaries[1:])),
        (
            "empty summary",
            R(
                st,
                summaries=(R(s0, digest=R(s0.digest, nodes=(), total=0)),) + st.summaries[1:],
                total=st.total - s0.digest.total,
            ),
        ),
    ]


@pytest.mark.parametrize("name", NAMES)
def test_malformed_snapshots_are_refused_alike(name: str) -> None:
    results: dict[str, list[tuple[str, type]]] = {}
    for impl in IMPL_IDS:
        s = loaded(impl, name)
        out = []
        for label, bad in _malformed(name, s):
            with pytest.raises((TypeError, ValueError)) as info:
                restore(type(s), None, s._params(), bad, None)
            out.append((label, type(info.value)))
        results[impl] = out
        if name == "ValueDivision":  # a schedule that is overdue already is refused too
            st = s.snapshot()
            assert len(st.summaries) >= 8
            with pytest.raises(ValueError, match="maintenance overdue"):
                restore(type(s), None, {**s._params(), "maintained_len": 0}, st, None)
    assert results["reference"] == results["optimized"]


# -- sizes at the limits ---------------------------------------------------------------------------------------


def _insert(s: Any, name: str, value: int, t: int, weight: Any) -> None:
    if name == "QDigest":
        s.insert(value, weight)
    elif name == "SlidingWindowCount":
        s.insert(t, weight)
    else:
        s.insert(value, t, weight)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("impl", IMPL_IDS)
def test_weights_and_totals_overflow_with_the_documented_error(impl: str, name: str) -> None:
    s = build(impl, name)
    if name != "QDigest":
        s.advance(5)
    for w in (2**62, 2**63, 2**64, 2**200, np.uint64(2**63), np.uint64(2**64 - 1)):
        before = s.snapshot()
        with pytest.raises(WeightOverflowError):
            _insert(s, name, 3, 4, w)
        assert s.snapshot() == before
    _insert(s, name, 3, 4, 2**62 - 2)
    _insert(s, name, 3, 4, 1)
    before = s.snapshot()
    for w in (1, 2**63, np.int64(1)):
        with pytest.raises(WeightOverflowError):
            _insert(s, name, 3, 4, w)
    with pytest.raises(WeightOverflowError):
        s.insert_many([3] if name != "ValueDivision" and name != "SlidingWindowQuantiles" else [(3, 4)])
    assert s.snapshot() == before and s.total == 2**62 - 1
    answers(s, name)  # queries still work at the limit


@pytest.mark.parametrize("impl", IMPL_IDS)
def test_universes_at_62_bits_and_windows_of_any_size(impl: str) -> None:
    m = IMPLS[impl]
    top = 2**62 - 1
    q = m.QDigest(62, 0.1)
    q.insert(top, 5)
    q.insert(0, 2)
    assert (q.rank(2**62), q.rank(top), q.frequency(top), q.quantile(1.0)) == (7, 2, 5, top)
    wc = m.SlidingWindowCount(62, 0.5)
    wq = m.SlidingWindowQuantiles(62, 62, 0.5)
    vd = m.ValueDivision(62, 62, PolynomialDecay(1.0), 0.1, 0.1)
    for s in (wc, wq, vd):
        s.advance(top)
        with pytest.raises(OutOfUniverseError):
            s.advance(2**62)
    wc.insert(top, 3)
    wc.insert(0, 4)
    wq.insert(top, top, 3)
    wq.insert(0, 0, 4)
    vd.insert(top, top, 3)
    vd.insert(0, 0, 4)
    for w in (2**62, 2**63, 2**100, np.uint64(2**64 - 1)):
        assert wc.count(w) == 7 and wq.count(w) == 7 and wq.rank(top, w) == 4 and wq.rank(2**62, w) == 7
        assert wc.level_for(w) == 0
    assert wc.count(1) == 3 and wq.quantile(1.0, 2**80) == top
    for window in (2**62, 2**63, 2**100):
        assert wq.decayed_count(SlidingWindowDecay(window)) == 7.0
    assert vd.decayed_count() == pytest.approx(3 + 4 / 2**62)
    assert vd.decayed_rank(2**62) == vd.decayed_count()


@pytest.mark.parametrize("impl", IMPL_IDS)
def test_parameters_that_would_overflow_sizes_are_refused(impl: str) -> None:
    m = IMPLS[impl]
    for eps in (1e-300, 5e-324, 2.0**-70):
        with pytest.raises(InvalidParameterError):
            m.QDigest(10, eps)
        with pytest.raises(InvalidParameterError):
            m.SlidingWindowCount(10, eps)
        with pytest.raises(InvalidParameterError):
            m.SlidingWindowQuantiles(10, 10, eps, alpha=50)  # the value digests' period
        with pytest.raises(InvalidParameterError):
            m.ValueDivision(10, 10, PolynomialDecay(1.0), 0.1, eps)
    for alpha in (2**62, 2**63, 2**100, np.uint64(2**63)):
        with pytest.raises(InvalidParameterError):
            m.SlidingWindowCount(10, 0.5, alpha)
        with pytest.raises(InvalidParameterError):
            m.SlidingWindowQuantiles(10, 4, 0.5, alpha)
    big = m.SlidingWindowCount(10, 0.5, 2**62 - 1)  # accepted: α is a budget, nothing is allocated for it
    big.advance(3)
    big.insert(2, 5)
    assert big.count(2) == 5
    for bits in (63, 10**6, 2**64, -1, 0, True, 10.0, np.int64(63)):
        with pytest.raises((InvalidParameterError, InputTypeError)):
            m.QDigest(bits, 0.1)
        with pytest.raises((InvalidParameterError, InputTypeError)):
            m.SlidingWindowQuantiles(10, bits, 0.5)
        with pytest.raises((InvalidParameterError, InputTypeError)):
            m.ValueDivision(bits, 4, PolynomialDecay(1.0), 0.1, 0.1)


# -- merging across implementations ----------------------------------------------------------------------------


def test_merge_across_implementations_is_exact() -> None:
    rng = random.Random(4)
    values = [(rng.randrange(64), rng.choice((1, 3))) for _ in range(400)]
    more = [(rng.randrange(64), 1) for _ in range(150)]
    r, o = ref.QDigest(6, 0.2), opt.QDigest(6, 0.2)
    r_more, o_more = ref.QDigest(6, 0.2), opt.QDigest(6, 0.2)
    for x, w in values:
        r.insert(x, w)
        o.insert(x, w)
    for x, w in more:
        r_more.insert(x, w)
        o_more.insert(x, w)
    expected = copy.copy(r)
    expected.merge(r_more)  # the reference merging a reference digest
    mixed_r = copy.copy(r)
    mixed_r.merge(o_more)  # the reference merging a compiled one
    mixed_o = copy.copy(o)
    mixed_o.merge(r_more)  # the compiled merging a reference one
    assert mixed_r.snapshot() == expected.snapshot() == mixed_o.snapshot()
    assert o_more.snapshot() == r_more.snapshot()  # the operand is untouched
    for a, b in ((r, opt.QDigest(7, 0.2)), (o, ref.QDigest(6, 0.1))):
        before = a.snapshot()
        with pytest.raises(IncompatibleSummaryError):
            a.merge(b)
        assert a.snapshot() == before


@pytest.mark.parametrize("impl", IMPL_IDS)
def test_merging_something_else_is_a_clear_type_error(impl: str) -> None:
    d = loaded(impl, "QDigest", 50)
    before = d.snapshot()
    for other in (5, "qdigest", None, d.snapshot(), opt.SlidingWindowCount(5, 0.5), [1, 2]):
        with pytest.raises(TypeError, match="merge\\(\\) takes a q-digest") as info:
            d.merge(other)
        assert isinstance(info.value, InputTypeError) and isinstance(info.value, SwagkitError)
        assert d.snapshot() == before


# -- bad input, numpy input --------------------------------------------------------------------------------------


BAD_VALUES: list[tuple[Any, type[BaseException]]] = [
    (True, InputTypeError),
    (np.True_, InputTypeError),
    (3.0, InputTypeError),
    (np.float64(3.0), InputTypeError),
    (float("nan"), InputTypeError),
    ("3", InputTypeError),
    (None, InputTypeError),
    (-1, OutOfUniverseError),
    (np.int64(-1), OutOfUniverseError),
    (2**70, OutOfUniverseError),
]


def _refused_alike(action: Callable[[Any], Any], name: str) -> list[tuple[str, str]]:
    out = []
    for impl in IMPL_IDS:
        s = loaded(impl, name, 120)
        before = s.snapshot()
        try:
            action(s)
        except SwagkitError as err:
            out.append((impl, type(err).__name__))
        else:
            out.append((impl, "accepted"))
        assert s.snapshot() == before, (impl, name)
    return out


@pytest.mark.parametrize("name", NAMES)
def test_bad_input_is_refused_alike_and_changes_nothing(name: str) -> None:
    def ins(value: Any = 3, t: Any = None, weight: Any = 1) -> Callable[[Any], Any]:
        return lambda s: _insert(s, name, value, s.now - 1 if t is None and name != "QDigest" else (t or 0), weight)

    cases: list[tuple[Callable[[Any], Any], type[BaseException]]] = []
    if name != "SlidingWindowCount":
        cases += [(ins(value=v), e) for v, e in BAD_VALUES]
    cases += [
        (ins(weight=w), e)
        for w, e in [
            (-1, NegativeWeightError),
            (np.int8(-3), NegativeWeightError),
            (1.0, InputTypeError),
            (True, InputTypeError),
            ("1", InputTypeError),
        ]
    ]
    if name == "QDigest":
        cases += [
            (lambda s: s.rank(65), OutOfUniverseError),
            (lambda s: s.quantile(float("nan")), InvalidParameterError),
            (lambda s: s.quantile(np.float32(1.5)), InvalidParameterError),
            (lambda s: s.insert_many([1, 2, True]), InputTypeError),
            (lambda s: s.insert_many(np.array([1, 2, 64])), OutOfUniverseError),
        ]
    else:
        cases += [
            (ins(t=t), e)
            for t, e in [
                (True, InputTypeError),
                (2.0, InputTypeError),
                (-1, OutOfUniverseError),
                (2**8, OutOfUniverseError),
                (np.int64(10**9), OutOfUniverseError),
            ]
        ]
        cases += [
            (lambda s: _insert(s, name, 3, s.now + 1, 1), FutureTimestampError),
            (lambda s: s.advance(s.now - 1), SwagkitError),
            (lambda s: s.advance(np.float64(300.0)), InputTypeError),
            (lambda s: s.advance(2**8), OutOfUniverseError),
        ]
        if name == "SlidingWindowCount":
            cases += [
                (lambda s: s.count(-1), InvalidParameterError),
                (lambda s: s.count(True), InputTypeError),
                (lambda s: s.insert_many([1, 2, s.now + 1]), FutureTimestampError),
            ]
        elif name == "SlidingWindowQuantiles":
            cases += [
                (lambda s: s.quantile(float("nan"), 5), InvalidParameterError),
                (lambda s: s.rank(17, 5), OutOfUniverseError),
                (lambda s: s.decayed_count(lambda a: 1.0), InvalidParameterError),
                (lambda s: s.insert_many([(1, 1), (16, 1)]), OutOfUniverseError),
            ]
        else:
            cases += [
                (lambda s: s.decayed_quantile(float("nan")), InvalidParameterError),
                (lambda s: s.decayed_rank(17), OutOfUniverseError),
                (lambda s: s.insert_many([(1, 1), (1, s.now + 1)]), FutureTimestampError),
            ]
    for action, error in cases:
        got = _refused_alike(action, name)
        assert got[0][1] != "accepted" and got[0][1] == got[1][1], got
        assert issubclass(getattr(sys.modules["swagkit.spec.decay.errors"], got[0][1], SwagkitError), error), (
            got,
            error,
        )


@pytest.mark.parametrize("impl", IMPL_IDS)
def test_bad_parameters_are_refused(impl: str) -> None:
    m = IMPLS[impl]
    for eps in (0.0, 1.0, -0.5, float("nan"), np.float64("nan"), np.float32(1.5), "0.1", None, True):
        with pytest.raises(InvalidParameterError):
            m.QDigest(6, eps)
        with pytest.raises(InvalidParameterError):
            m.SlidingWindowCount(6, eps)
        with pytest.raises(InvalidParameterError):
            m.SlidingWindowQuantiles(6, 4, eps)
        with pytest.raises(InvalidParameterError):
            m.ValueDivision(6, 4, PolynomialDecay(1.0), 0.1, eps)
    for theta in (0.0, -1, float("nan"), float("inf"), np.float64("inf"), "1", None, True):
        with pytest.raises(InvalidParameterError):
            m.ValueDivision(6, 4, PolynomialDecay(1.0), theta, 0.1)
    for alpha in (0, -3, 1.5, True, "12"):
        with pytest.raises((InvalidParameterError, InputTypeError)):
            m.SlidingWindowCount(6, 0.5, alpha)
    for decay in (None, SlidingWindowDecay(4), "polynomial", PolynomialDecay):
        with pytest.raises(InvalidParameterError):
            m.ValueDivision(6, 4, decay, 0.1, 0.1)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("impl", IMPL_IDS)
def test_numpy_scalars_and_arrays_are_accepted_like_ints(impl: str, name: str) -> None:
    m = IMPLS[impl]
    plain, numpy_fed = build(impl, name), None
    if name == "QDigest":
        numpy_fed = m.QDigest(np.int64(6), np.float64(0.2))
    elif name == "SlidingWindowCount":
        numpy_fed = m.SlidingWindowCount(np.int32(8), np.float32(0.5), np.uint16(12))
    elif name == "SlidingWindowQuantiles":
        numpy_fed = m.SlidingWindowQuantiles(np.int8(8), np.uint8(4), np.float64(0.5), np.int64(10))
    else:
        numpy_fed = m.ValueDivision(np.int64(8), np.int16(4), PolynomialDecay(1.0), np.float64(0.1), np.float64(0.1))
    assert numpy_fed.snapshot() == plain.snapshot()
    kinds = (np.int64, np.uint32, np.int16, np.uint8)
    for i, op in enumerate(workload(name, 200, seed=8)):
        apply(plain, op)
        k = kinds[i % len(kinds)]
        apply(numpy_fed, (op[0],) + tuple(k(a) for a in op[1:]))
    assert numpy_fed.snapshot() == plain.snapshot()
    if name == "QDigest":
        arr = np.arange(64, dtype=np.int64)
        plain.insert_many(list(range(64)))
        numpy_fed.insert_many(arr)
        assert numpy_fed.quantile(np.float32(0.5)) == plain.quantile(0.5)
        assert numpy_fed.rank(np.uint8(30)) == plain.rank(30)
    elif name == "SlidingWindowCount":
        plain.insert_many([1, 2, 3])
        numpy_fed.insert_many(np.array([1, 2, 3]))
        assert numpy_fed.count(np.int64(40)) == plain.count(40)
    else:
        plain.insert_many([(1, 2), (3, 4)])
        numpy_fed.insert_many(np.array([[1, 2], [3, 4]]))
    assert numpy_fed.snapshot() == plain.snapshot()


# -- re-entry and threads ----------------------------------------------------------------------------------------


class CallBack:
    """An integer (registered as ``numbers.Integral``) whose ``__index__`` runs ``hook`` first: user code that
    runs inside a structure's own validation."""

    def __init__(self, value: int, hook: Callable[[], Any]) -> None:
        self.value, self.hook = value, hook

    def __index__(self) -> int:
        self.hook()
        return self.value


numbers.Integral.register(CallBack)


def _calls(name: str, s: Any) -> list[tuple[str, Callable[[], Any]]]:
    """Calls back into ``s`` (each must be refused while ``s`` runs an operation)."""
    out: list[tuple[str, Callable[[], Any]]] = [
        ("snapshot", s.snapshot),
        ("pickle", lambda: pickle.dumps(s)),
        ("copy", lambda: copy.copy(s)),
    ]
    if name == "QDigest":
        out += [
            ("insert", lambda: s.insert(1)),
            ("rank", lambda: s.rank(3)),
            ("compress", s.compress),
            ("merge", lambda: s.merge(s)),
            ("insert_many", lambda: s.insert_many([1])),
            ("copy()", s.copy),
        ]
    elif name == "SlidingWindowCount":
        out += [
            ("insert", lambda: s.insert(0)),
            ("count", lambda: s.count(3)),
            ("advance", lambda: s.advance(s.now)),
            ("compress", s.compress),
            ("cutoffs", s.cutoffs),
        ]
    elif name == "SlidingWindowQuantiles":
        out += [
            ("insert", lambda: s.insert(1, 0)),
            ("rank", lambda: s.rank(3, 3)),
            ("quantile", lambda: s.quantile(0.5, 9)),
            ("decayed_count", lambda: s.decayed_count(NoDecay())),
            ("compress", s.compress),
        ]
    else:
        out += [
            ("insert", lambda: s.insert(1, 0)),
            ("maintain", s.maintain),
            ("advance", lambda: s.advance(s.now)),
            ("decayed_count", s.decayed_count),
            ("intervals", s.intervals),
        ]
    return out


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("impl", IMPL_IDS)
def test_reentry_from_user_code_is_refused_before_any_change(impl: str, name: str) -> None:
    """A value whose ``__index__`` calls back into the structure: every call back is refused with
    ``ReentrantCallError``, and the operation that was running completes exactly as with a plain int."""
    s, twin = loaded(impl, name, 150), loaded(impl, name, 150)
    for label, call in _calls(name, s):
        refused: list[BaseException] = []

        def hook() -> None:
            try:
                call()
            except ReentrantCallError as err:
                refused.append(err)

        if name == "QDigest":
            s.insert(CallBack(5, hook), 2)
            twin.insert(5, 2)
        elif name == "SlidingWindowCount":
            s.insert(CallBack(s.now, hook), 2)
            twin.insert(twin.now, 2)
        else:
            s.insert(5, CallBack(s.now, hook), 2)
            twin.insert(5, twin.now, 2)
        assert len(refused) == 1, (label, refused)
        assert "called while another operation of this structure is running" in str(refused[0])
        assert s.snapshot() == twin.snapshot(), label
    # the refusal propagating out of the user code: the operation fails and changes nothing
    before = s.snapshot()
    with pytest.raises(ReentrantCallError):
        _insert(s, name, 5, 0, CallBack(1, lambda: _insert(s, name, 1, 0, 1)))
    assert s.snapshot() == before

    # a generator feeding insert_many that calls back
    def gen() -> Any:
        yield (1 if name in ("QDigest", "SlidingWindowCount") else (1, 0))
        _insert(s, name, 1, 0, 1)

    with pytest.raises(ReentrantCallError):
        s.insert_many(gen())
    assert s.snapshot() == before
    _insert(s, name, 1, 0, 1)  # usable afterwards


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("impl", IMPL_IDS)
def test_a_second_thread_is_refused_not_corrupting(impl: str, name: str) -> None:
    """While an operation runs (held inside user code), a second thread's calls are refused."""
    s, twin = loaded(impl, name, 150), loaded(impl, name, 150)
    seen: list[str] = []

    def other_thread() -> None:
        for label, call in _calls(name, s):
            try:
                call()
            except ReentrantCallError:
                seen.append(label)

    def hook() -> None:
        t = threading.Thread(target=other_thread)
        t.start()
        t.join()

    _insert(s, name, 5, s.now if name != "QDigest" else 0, CallBack(2, hook))
    _insert(twin, name, 5, twin.now if name != "QDigest" else 0, 2)
    assert seen == [label for label, _ in _calls(name, s)]
    assert s.snapshot() == twin.snapshot()


def _hook_vd(impl: str) -> tuple[Any, HookDecay]:
    g = HookDecay()
    vd = IMPLS[impl].ValueDivision(8, 4, g, 0.1, 0.1)
    for op in workload("ValueDivision", 120, seed=6):
        apply(vd, op)
    return vd, g


@pytest.mark.parametrize("impl", IMPL_IDS)
def test_value_division_decay_calling_back_is_refused(impl: str) -> None:
    vd, g = _hook_vd(impl)
    plain, _ = _hook_vd(impl)
    for label, call in _calls("ValueDivision", vd):
        refused: list[BaseException] = []

        def hook() -> None:
            try:
                call()
            except ReentrantCallError as err:
                refused.append(err)

        g.arm(1, hook)
        got = vd.decayed_count()
        assert got == plain.decayed_count() and len(refused) == 1, label
        g.arm(1, hook)
        vd.advance(vd.now + 1)
        plain.advance(plain.now + 1)
        vd.maintain()  # the decay is called while deciding the merges
        plain.maintain()
        assert len(refused) == 2 and vd.snapshot() == plain.snapshot(), label
    # propagating: the operation fails, nothing changed (strong)
    vd.advance(vd.now + 3)
    before = vd.snapshot()
    g.arm(2, lambda: vd.insert(1, 0))
    with pytest.raises(ReentrantCallError):
        vd.maintain()
    assert vd.snapshot() == before


@pytest.mark.parametrize("impl", IMPL_IDS)
def test_window_quantiles_decay_calling_back_is_refused(impl: str) -> None:
    s = loaded(impl, "SlidingWindowQuantiles", 300)
    before = s.snapshot()
    want = s.decayed_rank(8, PolynomialDecay(1.0))
    g = HookDecay()
    refused: list[BaseException] = []

    def hook() -> None:
        for _, call in _calls("SlidingWindowQuantiles", s):
            try:
                call()
            except ReentrantCallError as err:
                refused.append(err)

    g.arm(3, hook)
    assert s.decayed_rank(8, g) == want
    assert len(refused) == len(_calls("SlidingWindowQuantiles", s)) and s.snapshot() == before
    g.arm(2, lambda: (_ for _ in ()).throw(InjectedFault()))
    with pytest.raises(InjectedFault):
        s.decayed_quantile(0.5, g)
    assert s.snapshot() == before and s.decayed_rank(8, PolynomialDecay(1.0)) == want


# -- exception safety: a decay that raises mid-operation -----------------------------------------------------------


def _vd_script(n: int, start: int) -> list[Op]:
    """Updates that open summaries (maintenance due), explicit maintenance and queries, from the clock ``start``."""
    rng = random.Random(n)
    ops: list[Op] = []
    now = start
    for i in range(n):
        if i % 4 == 0:
            now += rng.choice((1, 2, 5))
            ops.append(("advance", now))
        ops.append(("insert", rng.randrange(16), max(0, now - rng.randrange(6)), 1))
        if i % 9 == 0:
            ops.append(("maintain",))
        if i % 7 == 0:
            ops.append(("decayed_quantile", 0.5))
        if i % 13 == 0:
            ops.append(("insert_many", [(rng.randrange(16), max(0, now - k)) for k in range(4)]))
    return ops


@pytest.mark.parametrize("fault", [InjectedFault, KeyboardInterrupt, "nan", "negative"])
@pytest.mark.parametrize("impl", IMPL_IDS)
def test_value_division_is_strongly_exception_safe(impl: str, fault: Any) -> None:
    """The decay misbehaves at its k-th call, for every k of every operation of the script: the operation raises
    and the structure is exactly as before -- state *and* schedule: afterwards it goes on exactly like a
    never-faulted copy. (``insert_many`` keeps its first j insertions, as documented.)"""
    vd, g = _hook_vd(impl)
    faults = 0
    for op in _vd_script(60, vd.now):
        probe = copy.copy(vd)
        calls = len(g.ages)
        expected = apply(probe, op)
        used = len(g.ages) - calls
        for k in range(1, used + 1):
            saved = copy.copy(vd)
            before = vd.snapshot()
            if isinstance(fault, str):
                g.arm(k, value=float("nan") if fault == "nan" else -0.5)
                error: Any = InvalidParameterError
            else:
                g.arm(k, lambda: (_ for _ in ()).throw(fault()))
                error = fault
            with pytest.raises(error) as info:
                apply(vd, op)
            faults += 1
            if op[0] == "insert_many":
                note = [n for n in getattr(info.value, "__notes__", []) if "insert_many inserted" in n]
                assert len(note) == 1, note
                j = int(note[0].split("inserted ")[1].split(" of")[0])
                partial = copy.copy(saved)
                partial.insert_many(op[1][:j])
                assert vd.snapshot() == partial.snapshot(), (op, k, j)
                vd = saved
            else:
                assert vd.snapshot() == before, (op, k)
        assert apply(vd, op) == expected
        assert vd.snapshot() == probe.snapshot(), op
    assert faults > 20
    # the structure goes on exactly like one that never saw a fault
    clean, _ = _hook_vd(impl)
    for op in _vd_script(60, clean.now):
        apply(clean, op)
    assert vd.snapshot() == clean.snapshot()
    for op in workload("ValueDivision", 150, seed=1, start=vd.now):
        assert apply(vd, op) == apply(clean, op)
    assert vd.snapshot() == clean.snapshot()


@pytest.mark.parametrize("impl", IMPL_IDS)
def test_value_division_insert_many_keeps_the_first_j(impl: str) -> None:
    vd, g = _hook_vd(impl)
    vd.advance(vd.now + 30)
    items = [(i % 16, vd.now - i) for i in range(20)]  # every item opens a summary: maintenance comes due
    start = copy.copy(vd)
    clean = copy.copy(vd)
    calls = len(g.ages)
    clean.insert_many(items)
    assert len(g.ages) > calls
    g.arm(1, lambda: (_ for _ in ()).throw(InjectedFault()))
    with pytest.raises(InjectedFault) as info:
        vd.insert_many(items)
    note = [n for n in info.value.__notes__ if "insert_many inserted" in n]
    assert len(note) == 1
    j = int(note[0].split("inserted ")[1].split(" of")[0])
    assert 0 <= j < len(items)
    start.insert_many(items[:j])
    assert vd.snapshot() == start.snapshot()
    vd.insert_many(items[j:])  # the rest goes in as if nothing happened
    assert vd.snapshot() == clean.snapshot()


@pytest.mark.parametrize("impl", IMPL_IDS)
def test_decay_calls_are_the_same_in_both_twins(impl: str) -> None:
    """Both implementations ask the (user) decay for the same ages in the same order."""
    runs = []
    for which in IMPL_IDS:
        vd, g = _hook_vd(which)
        for op in _vd_script(40, vd.now):
            apply(vd, op)
        runs.append(g.ages)
    assert runs[0] == runs[1] and len(runs[0]) > 100


# -- the documented guarantee, and q-digests as monoid values -------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("impl", IMPL_IDS)
def test_exception_safety_is_documented(impl: str, name: str) -> None:
    cls = getattr(IMPLS[impl], name)
    assert cls.exception_safety == "strong"
    doc = (cls.__doc__ or "") + (sys.modules[cls.__module__].__doc__ or "")
    assert "strong" in doc.lower() and "ReentrantCallError" in doc


@pytest.mark.parametrize("impl", IMPL_IDS)
def test_qdigest_monoid_values_round_trip_inside_a_swag(impl: str) -> None:
    """A sliding window of q-digests (a non-invertible monoid) kept by Two-Stacks: pickling and deep-copying the
    SWAG pickles the digests by snapshot; the copy answers alike and is independent."""
    m = IMPLS[impl]
    monoid: Monoid[Any, Any, Any] = m.qdigest_monoid(np.int64(6), 0.2)
    agg = m.TwoStacks(monoid)
    for x in range(40):
        agg.insert(np.int64(x % 64))
    agg.evict()
    for how in ROUND_TRIPS.values():
        twin = how(agg)
        assert twin.query().snapshot() == agg.query().snapshot()
        twin.insert(3)
        assert twin.query().total == agg.query().total + 1


@pytest.mark.parametrize("impl", IMPL_IDS)
def test_non_commutative_monoid_with_digest_sizes(impl: str) -> None:
    """Non-commutative control: string concatenation of q-digest reprs (order-sensitive) over Two-Stacks agrees
    before and after a pickle, i.e. the round trip keeps the window's order."""
    m = IMPLS[impl]
    agg = m.TwoStacks(string_concat())
    digests = [m.QDigest(4, 0.5) for _ in range(6)]
    for i, d in enumerate(digests):
        d.insert(i, i + 1)
        agg.insert(repr(d))
    twin = pickle.loads(pickle.dumps(agg))
    assert twin.query() == agg.query() == "".join(repr(d) for d in digests)
    twin.evict()
    agg.insert("x")
    assert twin.query() == "".join(repr(d) for d in digests[1:]) and agg.query().endswith("x")
