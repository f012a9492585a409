"""Issue 12 regressions outside the algorithms: the library monoids declare only the laws they have (no inverse
over floats, one NaN policy), typed monoids take numpy scalars and arrays, constructors name a wrong monoid
argument, the array driver refuses a window that is not an integer, every library monoid pickles, and a
compiler-less install says so."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

import swagkit.optimized as opt
import swagkit.reference as ref
from swagkit.spec.library import (
    LIBRARY,
    argmax,
    as_f64,
    as_i64,
    max_count,
    max_f64,
    max_i64,
    max_monoid,
    mean_monoid,
    min_monoid,
    sum_f64,
    sum_i64,
    sum_monoid,
)
from swagkit.verify import registry

IMPLS = [ref, opt]
#: every class that takes a monoid as its first argument, in both implementations
MONOID_CLASSES = [
    "TwoStacks",
    "TwoStacksLite",
    "DABA",
    "DABALite",
    "FlatFIT",
    "SlickDequeInv",
    "SlickDequeNonInv",
    "FlatFAT",
    "ReactiveAggregator",
    "FiBA",
    "FiBALoop",
]
FIFO = ["TwoStacks", "TwoStacksLite", "DABA", "DABALite", "FlatFIT", "ReactiveAggregator"]


# ---------------------------------------------------------------------------------------- laws of the library


def test_generic_sum_refuses_floats_because_it_declares_an_inverse() -> None:
    m = sum_monoid()
    assert m.invertible
    for bad in (1.5, float("inf"), np.float64(2.0), True):
        with pytest.raises(TypeError):
            m.lift(bad)
    assert m.lift(np.int64(7)) == 7 and type(m.lift(np.int64(7))) is int
    assert m.lift(Fraction(1, 3)) == Fraction(1, 3)
    with pytest.raises(TypeError, match="sum_f64"):
        m.lift(0.5)


@pytest.mark.parametrize("impl", IMPLS, ids=lambda m: m.__name__)
def test_slickdeque_inv_on_float_sums_is_refused_not_drifting(impl: Any) -> None:
    """The issue's reproductions: inf leaving the window left NaN forever; 1e16 in the window answered 0.0 for
    2.0. Floats are now refused by the invertible sum (state unchanged), and sum_f64 is not invertible."""
    sd = impl.SlickDequeInv(sum_monoid())
    sd.insert(1)
    with pytest.raises(TypeError):
        sd.insert(float("inf"))
    with pytest.raises(TypeError):
        sd.insert(1e16)
    assert len(sd) == 1 and sd.query() == 1
    assert not sum_f64().invertible and mean_monoid().invertible  # the mean stays an exact group
    with pytest.raises(TypeError):
        mean_monoid().lift(0.5)


@pytest.mark.parametrize("factory", [max_monoid, min_monoid, max_count, argmax])
def test_order_based_monoids_refuse_nan(factory: Any) -> None:
    m = factory()
    nan_inputs = [float("nan"), np.float32("nan")]
    for x in nan_inputs:
        with pytest.raises(ValueError, match="NaN"):
            m.lift((x, "p") if factory is argmax else x)
    assert m.lift((3, "p") if factory is argmax else 3) is not None


@pytest.mark.parametrize("impl", IMPLS, ids=lambda m: m.__name__)
@pytest.mark.parametrize("name", FIFO + ["SlickDequeNonInv"])
@pytest.mark.parametrize("monoid", [max_monoid, max_f64], ids=["max", "max_f64"])
def test_every_algorithm_follows_the_nan_policy(impl: Any, name: str, monoid: Any) -> None:
    """Before: the generic max with a NaN answered -inf in DABA and nan in Two-Stacks. Now every structure of
    both implementations refuses it with ValueError and keeps its window."""
    agg = getattr(impl, name)(monoid())
    agg.insert_many([3, 1, 4])
    with pytest.raises(ValueError, match="NaN"):
        agg.insert(float("nan"))
    with pytest.raises(ValueError, match="NaN"):
        agg.insert_many([5, float("nan")])  # refused before anything is inserted
    assert len(agg) == 3 and agg.query() == 4
    agg.evict()
    assert agg.query() == 4


def test_every_library_monoid_pickles() -> None:
    """Structures ship to Spark workers and checkpoints with their monoid: no closures or lambdas inside."""
    for mid, entry in LIBRARY.items():
        m = entry.factory()
        twin = pickle.loads(pickle.dumps(m))
        for x in entry.examples:
            try:
                want = m.lift(x)
            except (TypeError, ValueError):
                continue
            assert twin.lift(x) == want, mid
            assert twin.lower(twin.combine(want, want)) == m.lower(m.combine(want, want)), mid


# ------------------------------------------------------------------------------------------- numpy and typed


def test_validators_take_numpy_scalars_exactly() -> None:
    assert as_f64(np.float32(0.5)) == 0.5 and type(as_f64(np.float32(0.5))) is float
    assert as_f64(np.int64(3)) == 3.0 and as_f64(Fraction(1, 4)) == 0.25
    assert as_i64(np.int64(-5)) == -5 and as_i64(np.uint8(200)) == 200 and type(as_i64(np.int32(1))) is int
    for bad, err in [
        (np.bool_(True), TypeError),
        (Fraction(1, 3), TypeError),
        (np.float64("nan"), ValueError),
        (np.float32(0.1), None),
    ]:
        if err is None:
            assert as_f64(bad) == float(bad)
            continue
        with pytest.raises(err):
            as_f64(bad)
    with pytest.raises(OverflowError):
        as_i64(np.uint64(2**63))
    with pytest.raises(TypeError):
        as_i64(np.float64(1.0))


@pytest.mark.parametrize("impl", IMPLS, ids=lambda m: m.__name__)
@pytest.mark.parametrize("name", FIFO)
def test_typed_monoids_take_numpy_scalars_and_arrays(impl: Any, name: str) -> None:
    f = getattr(impl, name)(sum_f64())
    f.insert(np.float32(0.5))
    f.insert(np.int64(2))
    f.insert_many(np.array([1.0, 2.0]))
    f.insert_many(np.arange(3, dtype=np.int64))
    f.insert_many(np.arange(2, dtype=np.float32))
    assert len(f) == 9 and f.query() == 0.5 + 2 + 3 + 3 + 1
    i = getattr(impl, name)(sum_i64())
    i.insert(np.int64(7))
    i.insert_many(np.arange(4, dtype=np.int64))
    i.insert_many(np.arange(3, dtype=np.uint8))
    assert i.query() == 7 + 6 + 3
    before = len(i)
    with pytest.raises(TypeError):
        i.insert_many([np.int64(1), np.float64(2.0)])
    assert len(i) == before
    m = getattr(impl, name)(max_i64())
    m.insert_many(np.array([3, 9, 2], dtype=np.int32))
    assert m.query() == 9


@pytest.mark.parametrize("impl", IMPLS, ids=lambda m: m.__name__)
def test_window_array_takes_numpy_and_refuses_a_fractional_window(impl: Any) -> None:
    values = np.arange(6, dtype=np.float64)
    out = impl.window_array(impl.DABALite, sum_f64(), values, np.int64(2))
    assert list(out) == [0.0, 1.0, 3.0, 5.0, 7.0, 9.0]
    for bad in (2.5, True, "2"):
        with pytest.raises(TypeError, match="window must be an int"):
            impl.window_array(impl.DABALite, sum_f64(), values, bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        impl.window_array(impl.DABALite, sum_f64(), values, 0)


# ----------------------------------------------------------------------------------------- constructor misuse


@pytest.mark.parametrize("impl", IMPLS, ids=lambda m: m.__name__)
@pytest.mark.parametrize("name", MONOID_CLASSES + ["Recalc"])
def test_constructors_name_a_library_id_or_an_uncalled_factory(impl: Any, name: str) -> None:
    cls = getattr(impl, name)
    with pytest.raises(TypeError, match=r"expected a Monoid, got the string 'max_f64'; pass swagkit.spec.library"):
        cls("max_f64")
    with pytest.raises(TypeError, match=r"max_f64 looks like a factory: call it, max_f64\(\)"):
        cls(max_f64)
    with pytest.raises(TypeError, match="expected a Monoid"):
        cls(42)


# -------------------------------------------------------------------------------------- the compiler-less install


_BLOCK = """
import importlib.abc, sys, warnings
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == "swagkit.optimized._fiba":
            raise ImportError("simulated: built without a C compiler")
        return None
sys.meta_path.insert(0, Block())
warnings.simplefilter("always")
import swagkit.optimized as o
print("COMPILED", o.COMPILED, sorted(o.FALLBACK_REASONS))
"""


def test_a_missing_extension_warns_loudly_at_import() -> None:
    env = {k: v for k, v in os.environ.items() if k != "SWAGKIT_PUREPYTHON"}
    done = subprocess.run([sys.executable, "-c", _BLOCK], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "PurePythonFallbackWarning" in done.stderr and "_fiba" in done.stderr and "100-700x slower" in done.stderr
    assert "COMPILED False ['_fiba']" in done.stdout


def test_asking_for_the_fallback_does_not_warn() -> None:
    env = {**os.environ, "SWAGKIT_PUREPYTHON": "1"}
    code = "import warnings; warnings.simplefilter('error'); import swagkit.optimized as o; print(o.COMPILED)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def test_registry_lists_what_each_structure_guarantees() -> None:
    """Every class that takes a monoid documents its exception guarantee (README table, fault tests)."""
    for info in registry.ALGORITHMS.values():
        for impl in registry.available_implementations(info.id):
            cls = registry.resolve_class(info.id, impl)
            if info.id == "recalc":
                continue
            assert getattr(cls, "exception_safety", None) in ("strong", "refuse"), (info.id, impl)


@pytest.mark.parametrize("impl", IMPLS, ids=lambda m: m.__name__)
def test_two_stacks_flip_interrupted_keeps_the_window(impl: Any) -> None:
    """The issue's reproduction: a combine raising once in the middle of Two-Stacks' flip (a transient fault, a
    Ctrl-C) made the window bcd answer 'dab'. The flip is now built aside and installed after its last ⊗."""
    from swagkit.spec.monoid import Monoid

    state = {"calls": 0, "fail_at": 0}

    def flaky(a: str, b: str) -> str:
        state["calls"] += 1
        if state["calls"] == state["fail_at"]:
            raise KeyboardInterrupt
        return a + b

    for k in (1, 2, 3):
        ts = impl.TwoStacks(Monoid(identity="", combine=flaky, name="flaky"))
        ts.insert_many("abcd")
        snap = ts.snapshot()
        state["fail_at"] = state["calls"] + k  # the k-th ⊗ of the flip
        with pytest.raises(KeyboardInterrupt):
            ts.evict()
        assert ts.snapshot() == snap and len(ts) == 4 and ts.query() == "abcd"
        ts.evict()
        assert ts.query() == "bcd"
