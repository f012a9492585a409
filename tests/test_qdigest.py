"""q-digest (paper 004 §3.1 box): the rank guarantee and the size bound on random and adversarial streams,
the checker's hard and soft properties, errata as regression tests (closure versus the size bound, 3k versus
4k + 1, P2 after the paper's one-pass compress), bad input that changes nothing, compiled-vs-reference parity,
and the q-digest as a monoid inside SWAG algorithms (in-order ones by algorithm id, and FiBA out of order)."""

from __future__ import annotations

import math
import random
from fractions import Fraction
from typing import Any

import pytest
from decay_helpers import IMPL_IDS, impl_class, refuses_and_keeps

from swagkit.reference.qdigest import QDigest as RefQDigest
from swagkit.reference.qdigest import qdigests_equivalent
from swagkit.spec.checkers.qdigest import check_qdigest, closure_gap, family_deficits
from swagkit.spec.decay.bounds import qdigest_size_bound
from swagkit.spec.decay.errors import (
    IncompatibleSummaryError,
    InputTypeError,
    InvalidParameterError,
    NegativeWeightError,
    OutOfUniverseError,
    WeightOverflowError,
)
from swagkit.spec.decay.oracle import RankProfile, quantile_violation
from swagkit.spec.decay.snapshots import node_range
from swagkit.spec.errors import InvariantViolation, SwagkitError
from swagkit.spec.monoid import check_laws
from swagkit.verify import registry

#: in-order SWAG algorithms that must keep a sliding window of q-digests correctly (FiBA: its own test below)
SWAG_ALGORITHMS = ["daba_lite", "two_stacks_lite", "daba"]


def streams(bits: int, n: int, seed: int) -> dict[str, list[tuple[int, int]]]:
    """(value, weight) streams: uniform, heavy-tailed, one value, a few hot values, sorted, reversed."""
    rng = random.Random(seed)
    top = (1 << bits) - 1
    uni = [(rng.randrange(top + 1), 1) for _ in range(n)]
    return {
        "uniform": uni,
        "pareto_weighted": [(min(top, int(rng.paretovariate(1.1)) - 1), rng.choice((1, 1, 3, 40))) for _ in range(n)],
        "one_value": [(top // 3, 1)] * n,
        "hot": [(rng.choice((0, 1, top, top // 2)), rng.choice((1, 5))) for _ in range(n)],
        "sorted": sorted(uni),
        "reversed": sorted(uni, reverse=True),
    }


@pytest.mark.parametrize("impl", IMPL_IDS)
@pytest.mark.parametrize("bits,eps", [(1, 0.5), (4, 0.3), (8, 0.1), (12, 0.05)])
def test_guarantee_and_size_on_all_streams(impl: str, bits: int, eps: float) -> None:
    cls = impl_class(impl, "QDigest")
    worst = 0.0
    for name, stream in streams(bits, 1500, seed=bits).items():
        d = cls(bits, eps)
        truth: dict[int, int] = {}
        for i, (x, w) in enumerate(stream):
            d.insert(x, w)
            truth[x] = truth.get(x, 0) + w
            if i % 500 == 499:
                check_qdigest(d.snapshot(), truth.items())
        d.compress()
        report = check_qdigest(d.snapshot(), truth.items())
        assert {"node cap", "soundness", "rank error", "monotone rank", "size"} <= set(report.hard), name
        assert d.node_count() <= qdigest_size_bound(bits, eps)
        assert not family_deficits(d.snapshot().nodes, Fraction(eps) * d.total / bits)  # P2 after compress
        worst = max(worst, report.measures["qdigest rank error / εN"])
        profile = RankProfile.of(truth.items())
        for phi in (0.0, 0.01, 0.25, 0.5, 0.75, 0.99, 1.0):
            assert quantile_violation(profile, d.quantile(phi), phi, eps) is None, (name, phi)
        for x in range(0, 1 << bits, max(1, (1 << bits) // 64)):
            assert abs(d.frequency(x) - truth.get(x, 0)) <= eps * d.total
    assert worst <= 1.0


@pytest.mark.parametrize("impl", IMPL_IDS)
def test_small_example_is_exact_until_merges(impl: str) -> None:
    d = impl_class(impl, "QDigest")(4, 0.25)
    for x in (3, 3, 7, 9, 12, 12, 12, 15):
        d.insert(x)
    assert (d.rank(12), d.rank(16), d.frequency(12), d.total, d.node_count()) == (4, 8, 3, 8, 5)
    assert d.quantile(0.5) == 9 and d.quantile(0.0) == 0 and d.quantile(1.0) == 15  # rank_le(9) = 4 = N/2
    assert d.ranges()[0] == (3, 3, 2)


def test_erratum_closure_conflicts_with_the_size_bound() -> None:
    """Notes §2.4/§9 item 4 ask for size <= 4b/ε + 1 *and* closure (P3). Both cannot hold: b/ε - 1 leaves of
    count γ + 1 (leaves are uncapped) force their whole root paths under closure. swagkit keeps the size bound
    (the checker reports the closure gap as soft)."""
    bits, eps = 16, 0.25
    leaves = int(bits / eps) - 1  # 63
    gamma = leaves  # γ = εN/b with N = leaves·(γ + 1)  =>  γ = leaves
    rng = random.Random(5)
    values = rng.sample(range(1 << bits), leaves)
    d = RefQDigest(bits, eps)
    for x in values:
        d.insert(x, gamma + 1)
    d.compress()
    state = d.snapshot()
    assert Fraction(eps) * d.total / bits == gamma
    bound = qdigest_size_bound(bits, eps)
    assert d.node_count() <= bound
    closed = d.node_count() + closure_gap(state.nodes)
    assert closed > bound, (closed, bound)
    report = check_qdigest(state, [(x, gamma + 1) for x in values])
    assert any(f.invariant == "closure" for f in report.soft)


def _paper_one_pass_compress(nodes: dict[int, int], limit: int) -> None:
    """The paper's QDCOMPRESS: one bottom-up pass (deepest first), merging families below the threshold."""
    for v in sorted(nodes, reverse=True):
        if v == 1 or v not in nodes:
            continue
        fam = nodes.get(v >> 1, 0) + nodes[v] + nodes.get(v ^ 1, 0)
        if fam < limit:
            nodes[v >> 1] = fam
            nodes.pop(v, None)
            nodes.pop(v ^ 1, None)


def test_erratum_one_pass_compress_breaks_p2_and_fixed_point_restores_it() -> None:
    """Notes §2.3: moving a count up lowers its children's family sum, so the paper's one-pass QDCOMPRESS can
    leave P2 broken below a merged range. swagkit's compress runs to a fixed point: P2 holds everywhere."""
    from swagkit.reference.window_count import compress_fixed_cap

    v = 5  # depth 2 of a 4-bit universe
    nodes = {v: 1, 2 * v: 4, 2 * v + 1: 5}  # F(v) = 10 >= 10, F(par v) = 1 < 10
    one_pass = dict(nodes)
    _paper_one_pass_compress(one_pass, 10)
    assert family_deficits(tuple(sorted(one_pass.items())), Fraction(10))  # the children now sum to 9 < 10
    fixed = dict(nodes)
    merges = compress_fixed_cap(fixed, 10)
    assert not family_deficits(tuple(sorted(fixed.items())), Fraction(10))
    assert sum(fixed.values()) == 10 and len(merges) >= 2


def test_size_constant_is_4k_plus_1_not_3k() -> None:
    """Notes §2.4: the paper's sources claim 3k ranges (k = b/ε); the provable count is 4k + 1, which the
    checker enforces. The bound is exact arithmetic on the float's value."""
    # the float 0.1 is slightly above 1/10, so 4b/ε + 1 is just below 801: exactly 800 ranges are allowed
    assert Fraction(0.1) > Fraction(1, 10)
    assert qdigest_size_bound(20, 0.1) == 800 and qdigest_size_bound(20, 0.125) == 641
    assert qdigest_size_bound(20, 0.01) == 8000
    assert qdigest_size_bound(3, 0.7) == math.floor(12 / Fraction(0.7) + 1)
    # all 15 ranges of a 3-bit tree with count 1: caps hold (γ = 0.9·15/3 = 4.5) but 15 > ⌊12/0.9 + 1⌋ = 14
    state = RefQDigest(3, 0.9).snapshot()
    full = type(state)(3, 0.9, 15, tuple((n, 1) for n in range(1, 16)), True, 0, 14)
    with pytest.raises(InvariantViolation) as info:
        check_qdigest(full)
    assert info.value.invariant == "size"
    check_qdigest(type(state)(3, 0.9, 15, full.nodes, False, 1, 14))  # between compressions: bound + pending


@pytest.mark.parametrize("impl", IMPL_IDS)
def test_checker_catches_corrupted_states(impl: str) -> None:
    d = impl_class(impl, "QDigest")(6, 0.2)
    truth = [(x % 64, 1) for x in range(0, 300, 7)]
    for x, _ in truth:
        d.insert(x)
    d.compress()
    s = d.snapshot()
    check_qdigest(s, truth)

    def variant(nodes: Any, total: int) -> Any:
        return type(s)(s.universe_bits, s.eps, total, tuple(sorted(nodes)), True, 0, s.compress_period)

    internal = next(n for n, c in s.nodes if n < 64)
    heavy = [(n, c + 10**6 if n == internal else c) for n, c in s.nodes]
    with pytest.raises(InvariantViolation) as info:
        check_qdigest(variant(heavy, s.total + 10**6))
    assert info.value.invariant == "node cap"
    with pytest.raises(InvariantViolation) as info:
        check_qdigest(variant(s.nodes, s.total + 1))
    assert info.value.invariant == "conservation"
    leaf, count = next((n, c) for n, c in s.nodes if n >= 64)
    empty_value = next(x for x in range(64) if x not in {v for v, _ in truth})
    moved = [(n, c - 1) for n, c in s.nodes if n == leaf and c > 1] + [(n, c) for n, c in s.nodes if n != leaf]
    moved.append((64 + empty_value, 1))
    merged: dict[int, int] = {}
    for n, c in moved:
        merged[n] = merged.get(n, 0) + c
    with pytest.raises(InvariantViolation) as info:
        check_qdigest(variant(merged.items(), s.total), truth)
    assert info.value.invariant == "soundness"


@pytest.mark.parametrize("impl", IMPL_IDS)
def test_bad_input_changes_nothing(impl: str) -> None:
    cls = impl_class(impl, "QDigest")
    d = cls(5, 0.1)
    for x in range(0, 32, 3):
        d.insert(x)
    for action, error, builtin in [
        (lambda: d.insert(32), OutOfUniverseError, ValueError),
        (lambda: d.insert(-1), OutOfUniverseError, ValueError),
        (lambda: d.insert(3, -1), NegativeWeightError, ValueError),
        (lambda: d.insert(1.0), InputTypeError, TypeError),
        (lambda: d.insert(True), InputTypeError, TypeError),
        (lambda: d.insert(3, 2.0), InputTypeError, TypeError),
        (lambda: d.insert(3, 2**62), WeightOverflowError, OverflowError),
        (lambda: d.insert_many([1, 2, 99]), OutOfUniverseError, ValueError),
        (lambda: d.merge(cls(6, 0.1)), IncompatibleSummaryError, ValueError),
        (lambda: d.merge(cls(5, 0.2)), IncompatibleSummaryError, ValueError),
        (lambda: d.rank(33), OutOfUniverseError, ValueError),
        (lambda: d.quantile(1.5), InvalidParameterError, ValueError),
    ]:
        refuses_and_keeps(d, action, error, builtin)
    d.insert(4, 0)  # weight 0: accepted, nothing changes
    assert d.total == 11
    for bad in (0.0, 1.0, -0.5, 2, float("nan"), "0.1"):
        with pytest.raises(InvalidParameterError):
            cls(5, bad)
    for bits in (0, 63, -1):
        with pytest.raises(InvalidParameterError):
            cls(bits, 0.1)
    with pytest.raises(SwagkitError):
        cls(2.5, 0.1)


def test_compiled_matches_reference_exactly() -> None:
    import swagkit.optimized as opt

    rng = random.Random(8)
    for bits, eps in [(3, 0.5), (10, 0.05), (20, 0.01), (30, 0.3)]:
        r, c = RefQDigest(bits, eps), opt.QDigest(bits, eps)
        for i in range(4000):
            x, w = rng.randrange(1 << bits), rng.choice((1, 1, 2, 17))
            r.insert(x, w)
            c.insert(x, w)
            if i % 333 == 0:
                assert r.snapshot() == c.snapshot()
                q = rng.randrange((1 << bits) + 1)
                assert (r.rank(q), r.quantile(q / (1 << bits))) == (c.rank(q), c.quantile(q / (1 << bits)))
                assert r.ranges() == c.ranges() and r.node_count() == c.node_count() and repr(r) == repr(c)
        r2, c2 = RefQDigest(bits, eps), opt.QDigest(bits, eps)
        more = [rng.randrange(1 << bits) for _ in range(300)]
        r2.insert_many(more)
        c2.insert_many(more)
        r.merge(r2)
        c.merge(c2)
        assert r.snapshot() == c.snapshot()
        r.merge(r)
        c.merge(c)
        assert r.snapshot() == c.snapshot()
        rc, cc = r.copy(), c.copy()
        rc.insert(0)
        cc.insert(0)
        assert rc.snapshot() == cc.snapshot() and r.snapshot() == c.snapshot()


# ------------------------------------------------------------------------------------------------------------
# the q-digest as a monoid


@pytest.mark.parametrize("impl", ["reference", "optimized"])
def test_monoid_laws_up_to_tolerance(impl: str) -> None:
    m = impl_class(impl, "qdigest_monoid")(6, 0.2)
    rng = random.Random(3)
    samples = [m.lift(rng.randrange(64)) for _ in range(5)]
    big = m.identity
    for _ in range(200):
        big = m.combine(big, m.lift(rng.randrange(64)))
    violations = check_laws(m, [rng.randrange(64) for _ in range(6)])
    assert violations == []
    assert m.commutative
    for a in samples + [big]:
        for b in samples + [big]:
            ab, ba = m.combine(a, b), m.combine(b, a)
            assert ab.snapshot() == ba.snapshot()  # commutative exactly
    assert m.combine(m.identity, big) is big and m.combine(big, m.identity) is big
    assert m.identity.total == 0  # never modified


@pytest.mark.parametrize("implementation", ["reference", "optimized"])
@pytest.mark.parametrize("algorithm", SWAG_ALGORITHMS)
def test_swag_over_qdigests_answers_window_ranks(algorithm: str, implementation: str) -> None:
    """A sliding window of q-digests kept by a SWAG algorithm: every query is a correct ε-digest of the window
    (rank error <= ε·n, size bound), and equivalent to the model's fold."""
    assert algorithm in registry.ALGORITHMS
    bits, eps = 8, 0.1
    m = impl_class(implementation, "qdigest_monoid")(bits, eps)
    agg = registry.create(algorithm, m, implementation, check=False)
    rng = random.Random(algorithm.__len__())
    window: list[int] = []
    for step in range(600):
        if window and (len(window) > 120 or rng.random() < 0.45):
            agg.evict()
            window.pop(0)
        else:
            x = min(255, int(rng.paretovariate(0.8))) if step % 2 else rng.randrange(256)
            agg.insert(x)
            window.append(x)
        if step % 37 == 0 or step == 599:
            digest = agg.query()
            truth = [(x, 1) for x in window]
            check_qdigest(digest.snapshot(), truth)
            assert digest.total == len(window)
    checked = registry.create(algorithm, m, implementation, check=True)  # the model uses the monoid's eq
    for x in window[:60]:
        checked.insert(x)
    for _ in range(30):
        checked.evict()
        checked.query()


@pytest.mark.parametrize("implementation", ["reference", "optimized"])
@pytest.mark.parametrize("algorithm", ["fiba", "fiba_mu2"])
def test_fiba_over_qdigests_out_of_order(algorithm: str, implementation: str) -> None:
    """FiBA keeps a time-ordered window of q-digests under out-of-order inserts, bulk eviction by time and
    range queries: every answer is an ε-digest (rank error <= ε·n, size bound) of exactly the values whose
    times the query covers."""
    bits, eps = 8, 0.1
    m = impl_class(implementation, "qdigest_monoid")(bits, eps)
    agg = registry.create(algorithm, m, implementation, check=False)
    rng = random.Random(len(algorithm))
    window: dict[int, int] = {}  # time -> value, the oracle
    now = 0
    for step in range(500):
        now += 1
        if rng.random() < 0.08 and window:  # bulk evict everything up to a time inside the window
            cut = rng.choice(sorted(window))
            evicted = agg.bulk_evict(cut)
            gone = [t for t in window if t <= cut]
            assert evicted == len(gone)
            for t in gone:
                del window[t]
        else:  # out of order: up to 40 ticks late, never a repeated time
            t = (now - rng.randrange(min(now, 40))) * 64 + rng.randrange(64)
            while t in window:
                t += 1
            x = min(255, int(rng.paretovariate(0.8))) if step % 2 else rng.randrange(256)
            agg.insert(t, x)
            window[t] = x
        if step % 23 == 0 or step == 499:
            digest = agg.query()
            check_qdigest(digest.snapshot(), [(x, 1) for x in window.values()])
            assert digest.total == len(window)
            if len(window) >= 2:
                lo, hi = sorted(rng.sample(sorted(window), 2))
                part = agg.range_query(lo, hi)
                inside = [(x, 1) for t, x in window.items() if lo <= t <= hi]
                check_qdigest(part.snapshot(), inside)
                assert part.total == len(inside)


def test_equivalence_is_the_stated_tolerance() -> None:
    a, b = RefQDigest(6, 0.25), RefQDigest(6, 0.25)
    for x in range(64):
        a.insert(x)
        b.insert(63 - x)
    assert qdigests_equivalent(a, b)
    c = RefQDigest(6, 0.25)
    for _ in range(64):
        c.insert(0)
    assert not qdigests_equivalent(a, c)  # same total, ranks far apart
    assert not qdigests_equivalent(a, RefQDigest(6, 0.5))


def test_node_ranges() -> None:
    assert node_range(1, 3) == (0, 7) and node_range(8, 3) == (0, 0) and node_range(15, 3) == (7, 7)
    assert node_range(3, 3) == (4, 7) and node_range(5, 3) == (2, 3)
    d: Any = RefQDigest(3, 0.5)
    d.insert(5)
    assert d.snapshot().nodes == ((13, 1),)
