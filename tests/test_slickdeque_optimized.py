"""SlickDeque: ``swagkit.optimized`` against ``swagkit.reference`` (bit-identical answers, equal snapshots,
``combine_count`` and ``inverse_count`` after every step), typed validation, ``window_array``, and the FIFO state
machine of ``swagkit verify`` over both ids. Runs on whichever implementation ``swagkit.optimized`` resolved to.
"""

from __future__ import annotations

import array
import math
import random
import struct
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

import swagkit.optimized as opt
import swagkit.reference as ref
from swagkit.spec.errors import EmptyWindowError
from swagkit.spec.library import (
    INT64_MAX,
    INT64_MIN,
    argmax,
    first,
    max_f64,
    max_i64,
    max_monoid,
    min_f64,
    min_i64,
    sum_f64,
    sum_i64,
    sum_monoid,
)
from swagkit.spec.monoid import Monoid
from swagkit.verify import registry
from swagkit.verify.machine import run_machine

INV: dict[str, Callable[[], Monoid[Any, Any, Any]]] = {
    "sum_f64": sum_f64,
    "sum_i64": sum_i64,
    "sum": sum_monoid,
    # generic path over floats: a user declaring float sum invertible (no typed kind, no recomputation)
    "generic_sum_f64": lambda: replace(sum_f64(), fast_path=None, invertible=True, inverse=lambda x: -x),
}
NONINV: dict[str, Callable[[], Monoid[Any, Any, Any]]] = {
    "max_f64": max_f64,
    "min_f64": min_f64,
    "max_i64": max_i64,
    "min_i64": min_i64,
    "max": max_monoid,
    "argmax": argmax,
    "first": first,
    "max_f64_neg_lower": lambda: replace(max_f64(), lower=lambda x: -x),
}


def _bits(x: Any) -> Any:
    if isinstance(x, float):
        return ("f", struct.pack("<d", x))
    if isinstance(x, dict):
        return {k: _bits(v) for k, v in x.items()}
    if isinstance(x, tuple):
        return tuple(_bits(v) for v in x)
    return x


def gen(name: str, rng: random.Random, i: int) -> Any:
    if "i64" in name:
        return rng.choice([0, 1, -5, 7, INT64_MAX, INT64_MIN, rng.randint(-(10**6), 10**6)])
    if "f64" in name:
        return rng.choice([0.0, -0.0, 1.5, -2.25, 1e16, -1e16, 0.1, math.inf, -math.inf, 3, rng.random()])
    if name == "argmax":
        return (rng.randint(0, 4), i)
    if name == "first":
        return rng.choice([1, 2, "x"])
    return rng.randint(-20, 20)


def _same_state(a: Any, b: Any) -> None:
    assert _bits(a.snapshot()) == _bits(b.snapshot())
    assert a.combine_count == b.combine_count
    assert len(a) == len(b)
    assert getattr(a, "inverse_count", 0) == getattr(b, "inverse_count", 0)


def _drive(cls_name: str, name: str, factory: Callable[[], Monoid[Any, Any, Any]], ranges: Any, seed: int) -> None:
    rng = random.Random(seed)
    m = factory()
    r_agg = getattr(ref, cls_name)(m, ranges)
    o_agg = getattr(opt, cls_name)(m, ranges)
    for i in range(300):
        op = rng.random()
        if op < 0.25:
            if len(r_agg) == 0:
                for agg in (r_agg, o_agg):
                    with pytest.raises(EmptyWindowError):
                        agg.evict()
            else:
                r_agg.evict()
                o_agg.evict()
        elif op < 0.3:
            k = rng.randint(0, 3)
            if k > len(r_agg):
                for agg in (r_agg, o_agg):
                    with pytest.raises(EmptyWindowError):
                        agg.evict_many(k)
            else:
                r_agg.evict_many(k)
                o_agg.evict_many(k)
        elif op < 0.35:
            xs = [gen(name, rng, i * 10 + j) for j in range(rng.randint(0, 5))]
            if "sum" in name and "f64" in name:
                xs = [x for x in xs if not math.isinf(x)]
            r_agg.insert_many(xs)
            o_agg.insert_many(xs)
        else:
            x = gen(name, rng, i)
            if "sum" in name and isinstance(x, float) and math.isinf(x):
                continue
            r_agg.insert(x)
            o_agg.insert(x)
        _same_state(r_agg, o_agg)
        assert _bits(r_agg.query()) == _bits(o_agg.query())
        assert _bits(r_agg.query_all()) == _bits(o_agg.query_all())
        if cls_name == "SlickDequeNonInv":
            for r in (1, 2, 5, 40):
                assert _bits(r_agg.query_range(r)) == _bits(o_agg.query_range(r))


@pytest.mark.parametrize("ranges", [None, (1,), (3, 7), (1, 2, 5, 9, 16)], ids=str)
@pytest.mark.parametrize("name", sorted(INV))
def test_inv_differential(name: str, ranges: Any) -> None:
    for seed in range(4):
        _drive("SlickDequeInv", name, INV[name], ranges, seed)


@pytest.mark.parametrize("ranges", [None, (1,), (3, 7), (1, 2, 5, 9, 16)], ids=str)
@pytest.mark.parametrize("name", sorted(NONINV))
def test_noninv_differential(name: str, ranges: Any) -> None:
    for seed in range(4):
        _drive("SlickDequeNonInv", name, NONINV[name], ranges, seed)


def test_noninv_large_window_grows_its_ring() -> None:
    r_agg, o_agg = ref.SlickDequeNonInv(max_i64()), opt.SlickDequeNonInv(max_i64())
    xs = list(range(5000, 0, -1))  # decreasing: every node survives (worst space)
    r_agg.insert_many(xs)
    o_agg.insert_many(xs)
    _same_state(r_agg, o_agg)
    assert len(o_agg.snapshot().nodes) == 5000
    r_agg.insert(10**6)
    o_agg.insert(10**6)  # pops 5000 nodes in one insert: worst case n
    _same_state(r_agg, o_agg)
    assert len(o_agg.snapshot().nodes) == 1


@pytest.mark.parametrize("cls", ["SlickDequeInv", "SlickDequeNonInv"])
def test_typed_validation_leaves_structure_intact(cls: str) -> None:
    m = sum_f64() if cls == "SlickDequeInv" else max_f64()
    mi = sum_i64() if cls == "SlickDequeInv" else max_i64()
    for impl in (ref, opt):
        agg = getattr(impl, cls)(m, (2, 4))
        agg.insert_many([1.0, 2.0])
        before = agg.snapshot(), agg.combine_count
        for bad, exc in ((float("nan"), ValueError), ("x", TypeError), (True, TypeError), (2**60, TypeError)):
            with pytest.raises(exc):
                agg.insert(bad)
            assert (agg.snapshot(), agg.combine_count) == before
        ai = getattr(impl, cls)(mi)
        with pytest.raises(OverflowError):
            ai.insert(2**63)
        with pytest.raises(TypeError):
            ai.insert(1.0)
        assert len(ai) == 0


@pytest.mark.parametrize("window", [1, 2, 7, 64, 300])
def test_window_array_matches_reference(window: int) -> None:
    rng = random.Random(window)
    xs = [rng.uniform(-1e3, 1e3) for _ in range(2000)]
    ints = [rng.randint(-(10**9), 10**9) for _ in range(2000)]
    for cls, m, data in (
        ("SlickDequeNonInv", max_f64(), xs),
        ("SlickDequeNonInv", min_f64(), xs),
        ("SlickDequeNonInv", max_i64(), ints),
        ("SlickDequeNonInv", min_i64(), ints),
        ("SlickDequeInv", sum_i64(), ints),
        ("SlickDequeInv", sum_f64(), xs),
        ("SlickDequeNonInv", max_monoid(), ints),
    ):
        want = ref.window_array(getattr(ref, cls), m, data, window)
        got = opt.window_array(getattr(opt, cls), m, data, window)
        assert _bits(list(got)) == _bits(list(want))
        if m.fast_path is not None:
            assert isinstance(got, array.array)


@pytest.mark.parametrize("implementation", ["reference", "optimized"])
@pytest.mark.parametrize(
    ("algorithm", "monoid"),
    [
        ("slickdeque_inv", "sum"),
        ("slickdeque_inv", "count_min"),
        ("slickdeque_inv", "sum_i64"),
        ("slickdeque_noninv", "max_f64"),
        ("slickdeque_noninv", "argmax"),
        ("slickdeque_noninv", "argmin_first"),
        ("slickdeque_noninv", "first"),
        ("slickdeque_noninv", "last"),
    ],
)
def test_fifo_machine(algorithm: str, monoid: str, implementation: str) -> None:
    assert implementation in registry.available_implementations(algorithm)
    stats = run_machine(algorithm, monoid, implementation, max_examples=20, steps=40)
    assert stats.examples >= 20 and stats.steps > 0


def test_registry_requirements() -> None:
    inv, non = registry.algorithm("slickdeque_inv"), registry.algorithm("slickdeque_noninv")
    assert inv.requires == ("invertible",) and non.requires == ("selective",)
    assert non.supports(argmax()) and not non.supports(sum_monoid()) and inv.supports(sum_monoid())


@pytest.mark.parametrize("cls", ["SlickDequeInv", "SlickDequeNonInv"])
def test_insert_many_refuses_an_invalid_item_before_inserting_like_the_reference(cls: str) -> None:
    m = sum_f64() if cls == "SlickDequeInv" else max_f64()
    for data in ([1.0, 5.0, 2.0, float("nan"), 3.0], array.array("d", [1.0, 5.0, 2.0, float("nan"), 3.0])):
        aggs = [getattr(impl, cls)(m, (2, 3)) for impl in (ref, opt)]
        for agg in aggs:
            agg.insert(4.0)
            with pytest.raises(ValueError):
                agg.insert_many(data)
            assert len(agg) == 1  # every value is validated first: nothing goes in (issue 12)
        _same_state(*aggs)
