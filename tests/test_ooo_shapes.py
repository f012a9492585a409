"""Issue 14 §1: the out-of-order machine's defaults find bugs that need specific shapes -- a bulk whose key sits in
an internal node (at any level, and two levels up in a tree three levels deep), a time repeated inside one bulk,
a size counter the bulk operations forget, a second query that answers differently from the first -- each within
a few seconds of ``verify_aggregator(..., kind="ooo")`` at its defaults, shrunk to a short trace. And a FiBA whose
answers are right but whose in-order inserts cost O(log n) instead of O(1) (003 §1) is found by the ⊗ meter's
in-order guard (:mod:`swagkit.spec.fiba_budgets`) when the run names the budget, while every correct FiBA --
each registered μ, reference and optimized, bulk or looped -- stays within it."""

from __future__ import annotations

import time
from typing import Any

import pytest
from planted_ooo_bugs import PLANTED_OOO, PLANTED_OOO_BUDGET, SpineRecomputedInOrder

from swagkit import optimized, reference
from swagkit.reference import FiBA
from swagkit.spec.errors import BudgetExceeded
from swagkit.spec.fiba_budgets import inorder_credit
from swagkit.spec.library import string_concat
from swagkit.verify.impl import run_monoids
from swagkit.verify.kinds.out_of_order import checked_ooo
from swagkit.verify.runner import Outcome

#: verify_aggregator's defaults
EXAMPLES, STEPS, SEED = 12, 40, 0
#: operations that read (the machine's invariant queries twice after every step)
_READS = frozenset({"query", "range_query", "oldest", "youngest"})


class _Stop(Exception):
    """Ends the run at the first failing monoid (the later ones would only add their own shrinks)."""


def _first_failure(cls: type, **options: Any) -> tuple[Outcome, float]:
    """The first failing monoid's result at the defaults (the monoids in their default order) and the seconds
    until it was reported, shrinking included."""
    start = time.perf_counter()
    failed: list[Outcome] = []

    def stop_at_failure(result: Outcome) -> None:
        if result.status != "PASS":
            failed.append(result)
            raise _Stop

    with pytest.raises(_Stop):
        run_monoids(
            cls, "ooo", examples=EXAMPLES, steps=STEPS, seed=SEED, replay_dir=None, on_result=stop_at_failure, **options
        )
    return failed[0], time.perf_counter() - start


@pytest.mark.once  # independent of swagkit.optimized: run once (tools/check.sh's compiled pass)
@pytest.mark.parametrize("name", list(PLANTED_OOO))
def test_each_shape_bug_is_caught_fast_at_the_defaults(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    result, seconds = _first_failure(PLANTED_OOO[name])
    assert result.status == "FAIL"  # a verdict on the implementation, never an error of swagkit
    trace = result.findings[0].trace
    updates = [step.name for step in trace if step.name not in _READS]
    # the shrunk trace: a handful of updates (a bulk counts as one); a tree three levels deep needs ~45 entries,
    # which the shrinker sometimes leaves as single inserts
    assert len(updates) <= (60 if name == "DeepKeyBulkNewFirst" else 10), result.findings[0].describe()
    assert seconds < 30  # a few seconds on an idle machine; the bound leaves room for a shared CI runner
    with capsys.disabled():
        print(f"\n  {name}: {result.name} FAIL after {seconds:.1f} s, {len(updates)} updates", end="")


@pytest.mark.once
@pytest.mark.parametrize("budget", [None, "fiba"])
def test_the_correct_fiba_passes_the_defaults(budget: str | None) -> None:
    report = run_monoids(FiBA, "ooo", examples=EXAMPLES, steps=STEPS, seed=SEED, replay_dir=None, combine_budget=budget)
    assert report.passed, [r.headline for r in report.results]


@pytest.mark.once
@pytest.mark.parametrize("name", list(PLANTED_OOO_BUDGET))
def test_a_spine_recomputing_fiba_is_caught_by_the_inorder_guard(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    result, seconds = _first_failure(PLANTED_OOO_BUDGET[name], combine_budget="fiba")
    failure = result.findings[0].failure
    assert result.status == "FAIL" and "in-order inserts" in failure, failure
    assert seconds < 30  # about a second on an idle machine
    with capsys.disabled():
        print(f"\n  {name}: {result.name} FAIL after {seconds:.1f} s ({len(result.findings[0].trace)} steps)", end="")


def _sliding(w: Any, n: int, steps: int) -> None:
    """In-order inserts into a window of ``n`` entries, then a sliding window: insert the youngest, evict."""
    for t in range(n):
        w.insert(t, "a")
    for t in range(n, n + steps):
        w.insert(t, "b")
        w.evict()


@pytest.mark.parametrize("mu", [2, 3, 4, 8])
@pytest.mark.parametrize("cls", ["FiBA", "FiBALoop"])
@pytest.mark.parametrize("impl", [reference, optimized], ids=["reference", "optimized"])
def test_every_correct_fiba_keeps_the_inorder_guard(impl: Any, cls: str, mu: int) -> None:
    # the optimized twin appends through its in-order C kernel: its ⊗ must count alike
    for n in (2 * mu + 1, 40, 150):
        w = checked_ooo(getattr(impl, cls)(string_concat(), min_arity=mu), algorithm="fiba")
        _sliding(w, n, 200)
        m = w.meter
        assert m.inorder_inserts >= 100  # the guard ran (inserts that change the root are left out)
        assert m.inorder_combines <= m.inorder_allowed == pytest.approx(m.inorder_inserts * inorder_credit(mu))


@pytest.mark.once
@pytest.mark.parametrize("mu", [2, 3, 4, 8])
def test_the_guard_separates_the_spine_recomputing_fiba(mu: int) -> None:
    # at the first in-order insert into a two-level tree that does not split: 1 ⊗ against e ⊗ (e >= μ)
    w = checked_ooo(SpineRecomputedInOrder(string_concat(), min_arity=mu), algorithm="fiba")
    with pytest.raises(BudgetExceeded, match="in-order inserts"):
        _sliding(w, 4 * mu, 10)
    assert len(w.model) <= 2 * mu + 2
