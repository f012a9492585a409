"""The compiled FiBA's array driver (``FiBA.slide`` for typed kinds and 'd'/'q' time buffers runs a C kernel with
its own fast paths for the in-order cases: evict without underflow, move/merge with the sibling under a left-spine
parent or the root, append, split under a right-spine parent or the root, and out-of-line cascades) against the
reference, step by step in effect: answers, snapshots, ``combine_count`` and ``touched_count`` after each run.

The runs cover every typed kind, int64 and float64 times, minimum arities 2, 3, 4 and 8, windows from 1 (every
item empties the tree) to larger than the run, starting trees built by other operations (bulk and out-of-order
inserts, removals, bulk evictions: shapes the kernel's in-order runs never make), and inputs whose times are out
of order or repeated mid-run (the kernel hands those steps to the general code and resumes). After each run the
structure must stay fully usable: further single and bulk operations agree with the reference too (the kernel
moves a left finger's entries in place while it runs and must put them back)."""

from __future__ import annotations

import array
import random
from collections.abc import Callable
from typing import Any

import pytest

import swagkit.optimized as opt
import swagkit.reference as ref
from swagkit.spec.library import max_f64, max_i64, min_f64, min_i64, sum_f64, sum_i64
from swagkit.spec.ooo import InvalidTimeError

FLOAT_KINDS: list[Callable[[], Any]] = [sum_f64, max_f64, min_f64]
INT_KINDS: list[Callable[[], Any]] = [sum_i64, max_i64, min_i64]


def _values(monoid: Callable[[], Any], rng: random.Random, n: int) -> array.array[Any]:
    if monoid in FLOAT_KINDS:
        # binary fractions keep float sums exact enough to be order-sensitive only through rounding of large
        # magnitudes: mix in large and tiny values so that a different fold order would show
        return array.array(
            "d", [rng.choice((1e16, -1e16, 0.5, 3.25, -7.0, 1e-3)) * rng.randrange(1, 9) for _ in range(n)]
        )
    return array.array("q", [rng.randrange(-(1 << 40), 1 << 40) for _ in range(n)])


def _agree(r: Any, o: Any) -> None:
    assert r.snapshot() == o.snapshot()
    assert (r.combine_count, r.touched_count) == (o.combine_count, o.touched_count)
    assert len(r) == len(o)


def _slide_both(r: Any, o: Any, times: array.array[Any], values: array.array[Any], window: int) -> None:
    want = r.slide(list(times), list(values), window)
    got = o.slide(times, values, window)
    assert list(got) == list(want)
    _agree(r, o)


@pytest.mark.parametrize("mu", [2, 3, 4, 8])
@pytest.mark.parametrize("monoid", FLOAT_KINDS + INT_KINDS, ids=lambda m: m.__name__)
def test_in_order_runs_every_window(monoid: Callable[[], Any], mu: int) -> None:
    rng = random.Random(mu * 31 + (FLOAT_KINDS + INT_KINDS).index(monoid))
    code = "d" if mu % 2 else "q"  # both time kinds over the grid
    for window in (1, 2, 3, 2 * mu, 2 * mu + 1, 37, 300):
        n = 700 if window < 300 else 900
        r, o = ref.FiBA(monoid(), mu), opt.FiBA(monoid(), mu)
        t0 = rng.randrange(-50, 50)
        times = array.array(code, [t0 + 3 * k for k in range(n)])
        _slide_both(r, o, times, _values(monoid, rng, n), window)
        # a second run continues from the tree the first one left
        times2 = array.array(code, [t0 + 3 * n + k for k in range(200)])
        _slide_both(r, o, times2, _values(monoid, rng, 200), window)


@pytest.mark.parametrize("mu", [2, 3, 4])
def test_runs_from_trees_other_operations_built(mu: int) -> None:
    """Start from trees with shapes bulk and out-of-order operations make, then slide in order and out of order;
    afterwards every other operation still agrees."""
    rng = random.Random(100 + mu)
    for trial in range(6):
        monoid = [sum_f64, max_i64, min_f64, sum_i64][trial % 4]
        code = "d" if monoid in FLOAT_KINDS else "q"
        r, o = ref.FiBA(monoid(), mu), opt.FiBA(monoid(), mu)
        conv = float if code == "d" else int
        keys = sorted(rng.sample(range(0, 4000, 2), rng.randrange(1, 400)))
        vals = _values(monoid, rng, len(keys))
        bulk = [(conv(k), v) for k, v in zip(keys, vals)]
        for agg in (r, o):
            agg.bulk_insert(bulk)
        for _ in range(rng.randrange(0, 40)):  # out-of-order single inserts, removals and a bulk evict
            t = conv(rng.randrange(0, 4000))
            v = _values(monoid, rng, 1)[0]
            for agg in (r, o):
                agg.insert(t, v)
            if rng.random() < 0.3 and len(r):
                victim = r.oldest() if rng.random() < 0.5 else r.youngest()
                for agg in (r, o):
                    agg.remove(victim)
        if rng.random() < 0.5 and len(r):
            cut = r.oldest() + conv(rng.randrange(0, 600))
            for agg in (r, o):
                agg.bulk_evict(cut)
        _agree(r, o)
        window = rng.choice([1, 5, 50, 200, 1000])
        start = 5000
        times = array.array(code, [start + k for k in range(600)])
        _slide_both(r, o, times, _values(monoid, rng, 600), window)
        # out-of-order and repeated times mid-run: the kernel returns those steps to the general code
        mixed = [start + 600 + k for k in range(400)]
        for k in rng.sample(range(1, 400), 25):
            mixed[k] = mixed[k - 1] if rng.random() < 0.5 else mixed[k] - rng.randrange(1, 300)
        _slide_both(r, o, array.array(code, mixed), _values(monoid, rng, 400), window)
        # the structure stays usable: single and bulk operations after the runs
        _same_ops(r, o, rng, monoid, conv)


@pytest.mark.parametrize("mu", [2, 3, 4])
def test_runs_stopping_after_a_move_from_the_sibling(mu: int) -> None:
    """A move from the sibling advances the sibling's arrays instead of shifting its entries; the kernel puts
    them back when it returns. Stop a run after every item of several move/merge cycles, then insert out of
    order into the sibling and the left finger (appends need the whole block), recycle freed nodes through
    bulk operations, and run on: everything agrees with the reference."""
    rng = random.Random(7 + mu)
    window, gap = 6 * mu, 4 * mu  # times gap apart leave room for 2 mu new keys after each entry
    for stop in range(window, window + 8 * mu):
        r, o = ref.FiBA(sum_i64(), mu), opt.FiBA(sum_i64(), mu)
        times = array.array("q", [gap * k for k in range(stop)])
        _slide_both(r, o, times, _values(sum_i64, rng, stop), window)
        oldest = r.oldest()
        for e in range(3 * mu):  # fill the leaves next to the left finger until they split
            for j in range(1, 2 * mu + 1):
                t, v = oldest + gap * e + j, rng.randrange(-99, 99)
                for agg in (r, o):
                    agg.insert(t, v)
                _agree(r, o)
        cut = oldest + gap
        assert r.bulk_evict(cut) == o.bulk_evict(cut)
        top = gap * stop
        for agg in (r, o):
            agg.bulk_insert([(top + gap * k, 1) for k in range(4 * mu)])
        more = array.array("q", [top + gap * (4 * mu + k) for k in range(5 * mu)])
        _slide_both(r, o, more, _values(sum_i64, rng, len(more)), window)
        _same_ops(r, o, rng, sum_i64, int)


def _same_ops(r: Any, o: Any, rng: random.Random, monoid: Callable[[], Any], conv: Any) -> None:
    """A random mix of every operation applied to both, comparing answers, snapshots and counters after each."""
    for _ in range(60):
        op = rng.randrange(6)
        if op == 0 or not len(r):
            t, v = conv(rng.randrange(4000, 7000)), _values(monoid, rng, 1)[0]
            for agg in (r, o):
                agg.insert(t, v)
        elif op == 1:
            assert r.evict() == o.evict()
        elif op == 2:
            victim = rng.choice([r.oldest(), r.youngest()])
            for agg in (r, o):
                agg.remove(victim)
        elif op == 3:
            cut = r.oldest() + conv(rng.randrange(0, 30))
            assert r.bulk_evict(cut) == o.bulk_evict(cut)
        elif op == 4:
            lo = rng.randrange(4000, 7000)
            keys = sorted(set(rng.randrange(lo, lo + 200) for _ in range(rng.randrange(1, 40))))
            vals = _values(monoid, rng, len(keys))
            for agg in (r, o):
                agg.bulk_insert([(conv(k), v) for k, v in zip(keys, vals)])
        else:
            a = conv(rng.randrange(4000, 7000))
            assert r.range_query(a, a + conv(500)) == o.range_query(a, a + conv(500))
        assert r.query() == o.query()
        _agree(r, o)


@pytest.mark.parametrize("mu", [2, 4])
def test_deep_trees(mu: int) -> None:
    """Windows large enough for cascades under non-root grandparents on both spines (several levels)."""
    rng = random.Random(7 + mu)
    r, o = ref.FiBA(sum_f64(), mu), opt.FiBA(sum_f64(), mu)
    n = 6000
    _slide_both(r, o, array.array("q", range(n)), _values(sum_f64, rng, n), 2500)
    height, node = 1, r.root
    while node.children is not None:
        height, node = height + 1, node.children[0]
    assert height >= (4 if mu == 4 else 6)


@pytest.mark.parametrize("mu", [2, 4])
def test_nan_time_mid_run_raises_like_the_method_loop(mu: int) -> None:
    """A NaN time is not screened by a pass of its own: the kernel stops at it (NaN is not above the youngest),
    and the driver raises ``InvalidTimeError`` after that item's evictions -- the state the loop of methods
    leaves (the reference's ``slide``). Both stay usable and agree afterwards."""
    rng = random.Random(50 + mu)
    for at in (0, 1, 5, 40, 399):
        window = 3 * mu + 1
        r, o = ref.FiBA(sum_f64(), mu), opt.FiBA(sum_f64(), mu)
        times = array.array("d", [float(k) for k in range(400)])
        times[at] = float("nan")
        values = _values(sum_f64, rng, 400)
        for agg, ts, vs in ((r, list(times), list(values)), (o, times, values)):
            with pytest.raises(InvalidTimeError):
                agg.slide(ts, vs, window)
        _agree(r, o)
        assert len(o) == min(at, window - 1)
        _same_ops(r, o, rng, sum_f64, float)
