"""The runtime features -- :func:`swagkit.optimized.create` and :func:`swagkit.optimized.spark.sliding_aggregate` --
import and work without the verification machinery (project rule: runtime features never import Hypothesis).

A fresh interpreter blocks Hypothesis (a meta-path finder that refuses it), imports the runtime API, builds and uses
an aggregator, and reports which modules got loaded: neither Hypothesis nor any ``swagkit.verify`` module, and none
of pyspark, pyarrow, numpy (``sliding_aggregate`` imports them when called). Measured when this test was written
(compiled build, a warm file cache): the runtime API loads about 100 modules (some 60 of them swagkit's) in about
0.1 s; ``import swagkit.verify`` loads about 370 (Hypothesis included) in about 0.3 s. The assertion messages print
the current numbers.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest

from swagkit.optimized import create
from swagkit.spec.errors import RegistryError, SwagkitError, UnsupportedMonoidError

_PROBE = r"""
import importlib.abc, json, sys, time

class _NoHypothesis(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "hypothesis" or name.startswith("hypothesis."):
            raise ImportError(f"{name} is blocked: the runtime must not import it")
        return None

sys.meta_path.insert(0, _NoHypothesis())
before = set(sys.modules)
start = time.perf_counter()
from swagkit.optimized import create
from swagkit.optimized.spark import sliding_aggregate
seconds = time.perf_counter() - start
loaded = sorted(set(sys.modules) - before)

answers = {}
for implementation in ("optimized", "reference"):
    agg = create("daba_lite", "sum_i64", implementation)
    agg.insert_many([1, 2, 3])  # window 1 2 3
    agg.evict()  # 2 3
    agg.insert(10)  # 2 3 10
    first = agg.query()
    agg.evict()
    agg.evict()  # 10
    answers[implementation] = [first, agg.query(), len(agg), type(agg).__module__]
print(json.dumps({"seconds": seconds, "loaded": loaded, "answers": answers, "after": sorted(sys.modules),
                  "callable": callable(sliding_aggregate)}))
"""


def _probe() -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k != "SWAGKIT_CHECK"}
    done = subprocess.run(
        [sys.executable, "-c", _PROBE], env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_runtime_api_imports_without_hypothesis() -> None:
    probe = _probe()
    loaded, after = probe["loaded"], probe["after"]
    swagkit_loaded = [m for m in loaded if m.startswith("swagkit")]
    numbers = (
        f"importing the runtime API took {probe['seconds']:.3f} s and loaded {len(loaded)} modules "
        f"({len(swagkit_loaded)} of swagkit's)"
    )
    print(numbers)
    forbidden = [
        m
        for m in after
        if m.split(".")[0] in ("hypothesis", "pyspark", "pyarrow", "numpy") or m.startswith("swagkit.verify")
    ]
    assert not forbidden, f"{numbers}; loaded what the runtime must not: {forbidden}"
    assert probe["callable"]
    for implementation, (first, last, size, module) in probe["answers"].items():
        assert (first, last, size) == (15, 10, 1), (implementation, numbers)
        assert module.startswith(f"swagkit.{implementation}"), (implementation, module)


def test_create_builds_the_cards_classes() -> None:
    import swagkit.optimized as opt
    import swagkit.reference as ref
    from swagkit.spec.algorithms import card

    assert type(create("daba_lite", "sum_i64", check=False)) is opt.DABALite
    assert type(create("daba_lite", "sum_i64", "reference", check=False)) is ref.DABALite
    fiba = create("fiba_mu2", "sum", check=False)  # a card's registered parameters ...
    assert fiba.min_arity == card("fiba_mu2").params["min_arity"] == 2
    assert create("fiba_mu2", "sum", check=False, min_arity=8).min_arity == 8  # ... overridden by the caller's
    window = create("window_count", None, check=False)  # paper 004's structures take no monoid
    assert type(window) is opt.SlidingWindowCount


def test_create_errors() -> None:
    for call in (
        lambda: create("nope", "sum"),
        lambda: create("daba", "nope"),
        lambda: create("daba", "sum", "nope"),
        lambda: create("daba", None),
    ):
        with pytest.raises(RegistryError) as info:
            call()
        assert isinstance(info.value, LookupError) and isinstance(info.value, SwagkitError)
    with pytest.raises(UnsupportedMonoidError, match="slickdeque_noninv needs a selective monoid; sum does not"):
        create("slickdeque_noninv", "sum")


def test_debug_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    """``check=True`` (or ``SWAGKIT_CHECK``) wraps the aggregator in its kind's debug wrapper, imported from
    swagkit.verify at call time."""
    from swagkit.verify.debug import CheckedAggregator
    from swagkit.verify.registry import ENV_VAR

    checked = create("daba_lite", "string_concat", check=True)
    assert isinstance(checked, CheckedAggregator)
    checked.insert_many("abc")
    checked.evict()
    assert checked.query() == "bc"
    monkeypatch.setenv(ENV_VAR, "1")
    assert isinstance(create("two_stacks", "sum"), CheckedAggregator)
    assert not isinstance(create("two_stacks", "sum", check=False), CheckedAggregator)
    monkeypatch.setenv(ENV_VAR, "0")
    assert not isinstance(create("two_stacks", "sum"), CheckedAggregator)


def test_verify_registry_shares_the_runtime_pieces() -> None:
    """``swagkit.verify.registry`` keeps its names (``RegistryError``, ``create`` with ``"reference"`` as default)
    and builds the built-in algorithms through the runtime factory."""
    import swagkit.reference as ref
    from swagkit.spec import errors
    from swagkit.verify import registry

    assert registry.RegistryError is errors.RegistryError
    assert type(registry.create("daba_lite", "sum_i64", check=False)) is ref.DABALite
    with pytest.raises(registry.RegistryError, match="unknown implementation 'nope'"):
        registry.create("daba", "sum", "nope")
