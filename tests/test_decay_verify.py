"""Verification of paper 004's structures: the Hypothesis state machines (every structure × implementation),
debug mode catching planted bugs at the operation that exposes them, registry/CLI integration (ids, kinds,
``swagkit list``, the README table), and the optimized layer's API against the reference's."""

from __future__ import annotations

import inspect
import os
from pathlib import Path
from typing import Any

import pytest
from decay_helpers import drive

import swagkit.optimized as opt
import swagkit.reference as ref
from swagkit.reference.qdigest import QDigest
from swagkit.reference.value_division import ValueDivision
from swagkit.reference.window_count import SlidingWindowCount
from swagkit.reference.window_quantiles import SlidingWindowQuantiles
from swagkit.spec.decay import PolynomialDecay
from swagkit.spec.decay.streams import generate
from swagkit.verify import checked, registry
from swagkit.verify.cli import main
from swagkit.verify.errors import InvariantViolationAt, ModelMismatchAt
from swagkit.verify.kinds.sketch import CheckedQDigest
from swagkit.verify.kinds.time_decayed import CheckedWindowStructure
from swagkit.verify.machine import run_machine

DECAY_IDS = ["qdigest", "window_count", "window_quantiles", "value_division"]
CLASSES = {
    "qdigest": "QDigest",
    "window_count": "SlidingWindowCount",
    "window_quantiles": "SlidingWindowQuantiles",
    "value_division": "ValueDivision",
}


@pytest.mark.parametrize("implementation", ["reference", "optimized"])
@pytest.mark.parametrize("algorithm", DECAY_IDS)
def test_state_machine(algorithm: str, implementation: str) -> None:
    stats = run_machine(algorithm, "count", implementation, max_examples=8, steps=25, seed=7)
    assert stats.examples >= 1 and stats.steps > 0


def test_registry_entries_and_kinds() -> None:
    for aid in DECAY_IDS:
        info = registry.algorithm(aid)
        assert not info.takes_monoid and info.monoids == ("count",) and info.error
        assert info.kind.name == ("sketch" if aid == "qdigest" else "time_decayed")
        assert info.class_name == CLASSES[aid]
        for impl in ("reference", "optimized"):
            s = registry.create(aid, None, impl, check=False)
            assert type(s).__name__ == CLASSES[aid] and s.total == 0
    combos = [c for c in registry.combos(DECAY_IDS) if c.skip is None]
    assert {(c.algorithm, c.monoid) for c in combos} == {(a, "count") for a in DECAY_IDS}
    skipped = [c for c in registry.combos(["qdigest"], ["sum"]) if c.skip]
    assert skipped and all("takes no monoid" in c.skip for c in skipped if c.skip)


def test_create_with_check_and_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    w = registry.create("window_count", None, "optimized", check=True, time_bits=6, eps=0.5)
    assert isinstance(w, CheckedWindowStructure)
    w.advance(10)
    w.insert(9)
    assert w.count(2) == 1
    q = registry.create("qdigest", "count", check=True, universe_bits=4, eps=0.5)
    assert isinstance(q, CheckedQDigest)
    monkeypatch.setenv("SWAGKIT_CHECK", "1")
    assert isinstance(registry.create("value_division", None), CheckedWindowStructure)
    assert isinstance(checked(SlidingWindowQuantiles(5, 3, 0.5)), CheckedWindowStructure)
    assert checked(q) is q


class NoCutoffCount(SlidingWindowCount):
    """Planted bug: truncation forgets to raise τ_j."""

    def _truncate(self, level: Any) -> None:
        tau = level.tau
        super()._truncate(level)
        level.tau = tau


class GreedyQDigest(QDigest):
    """Planted bug: compress merges families up to twice the cap."""

    def _merge_limit(self) -> int:
        return 2 * super()._merge_limit() + 2


class ForgetfulQuantiles(SlidingWindowQuantiles):
    """Planted bug: a time-wise merge drops the children's value digests instead of merging them."""

    def _compress_level(self, level: Any) -> None:
        from swagkit.reference.window_count import compress_fixed_cap

        for parent, left, right in compress_fixed_cap(level.nodes, level.gamma):
            d = level.digests.setdefault(parent, self._new_digest())
            level.digests.pop(left, None)  # the bug: dropped instead of merged into the parent's digest
            level.digests.pop(right, None)
            d.compress()


class StretchingDivision(ValueDivision):
    """Planted bug: maintenance merges every adjacent pair, whatever the spread."""

    def _spread_ok(self, newer_hi: int, older_lo: int) -> bool:
        return True


@pytest.mark.parametrize(
    "factory,values,invariants",
    [
        (lambda: NoCutoffCount(8, 0.9, 6), False, {"cutoff", "level error", "level size", "soundness"}),
        (lambda: GreedyQDigest(8, 0.2), None, {"node cap"}),
        (lambda: ForgetfulQuantiles(8, 4, 0.9, 6), True, {"value digests"}),
        (lambda: StretchingDivision(8, 4, PolynomialDecay(1.0), 0.1, 0.1), True, {"spread", "error"}),
    ],
)
def test_debug_mode_catches_planted_bugs(factory: Any, values: bool | None, invariants: set[str]) -> None:
    s = checked(factory())
    with pytest.raises((InvariantViolationAt, ModelMismatchAt)) as info:
        if values is None:
            for i in range(5000):
                s.insert((i * 37) % 256)
        else:
            drive(s, generate("permutation", 3000, time_bits=8, value_bits=4, seed=1), values=values)
            if hasattr(s, "maintain"):
                s.maintain()
    err = info.value
    if isinstance(err, InvariantViolationAt):
        assert err.invariant in invariants, err
        assert err.op_index >= 1 and err.recent


def test_debug_mode_reports_a_wrong_answer() -> None:
    class LyingCount(SlidingWindowCount):
        def count(self, w: int) -> int:
            return super().count(w) + 1

    s = checked(LyingCount(6, 0.5))
    s.advance(5)
    s.insert(4)
    with pytest.raises(ModelMismatchAt, match="the snapshot gives"):
        s.count(3)


def test_swagkit_list_and_the_docs_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for aid in DECAY_IDS:
        assert f"\n  {aid} (" in out
    page = (Path(__file__).resolve().parent.parent / "docs" / "algorithms.md").read_text(encoding="utf-8")
    assert registry.decayed_markdown().strip() in page
    assert registry.decayed_markdown().count("\n") == 1 + len(DECAY_IDS)


def _public(cls: type) -> dict[str, Any]:
    return {n: getattr(cls, n) for n in dir(cls) if not n.startswith("_") and callable(getattr(cls, n))}


@pytest.mark.parametrize("name", list(CLASSES.values()) + ["qdigest_monoid"])
def test_optimized_api_matches_reference(name: str) -> None:
    r, o = getattr(ref, name), getattr(opt, name)
    if name == "qdigest_monoid":
        assert list(inspect.signature(o).parameters) == list(inspect.signature(r).parameters)
        return
    assert o.algorithm == r.algorithm
    assert sorted(_public(o)) == sorted(_public(r)), set(_public(o)) ^ set(_public(r))
    for meth, f in _public(r).items():
        assert list(inspect.signature(getattr(o, meth)).parameters) == list(inspect.signature(f).parameters), meth
    assert [p.name for p in inspect.signature(o).parameters.values()] == [
        p.name for p in inspect.signature(r).parameters.values()
    ]
    props = {n for n in dir(r) if isinstance(getattr(r, n, None), property)}
    assert props <= set(dir(o))
    doc = inspect.getdoc(o) or ""
    assert "§" in doc
    mod_doc = inspect.getmodule(o).__doc__ or ""  # type: ignore[union-attr]
    assert "Complexity" in mod_doc
    if os.environ.get("SWAGKIT_EXPECT_COMPILED") == "1" and not os.environ.get("SWAGKIT_PUREPYTHON"):
        assert o.__module__.startswith("swagkit.optimized._") and "fallback" not in o.__module__
