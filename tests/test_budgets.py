"""Operation budgets of 000 Theorems 3.2, 4.2, 5.2 and 6.2, counted two ways.

``combine_count`` (the aggregator's own counter) must agree with an external count taken by wrapping the
monoid (:func:`swagkit.spec.counted`), so neither can lie. Averages over complete flip cycles are checked
*exactly* (2.5 and 1.5 for DABA, 2 and 1 for DABA Lite), worst cases as tight bounds that are reached.
"""

from __future__ import annotations

import random
import types
from fractions import Fraction
from typing import Any

import pytest

import swagkit.optimized
import swagkit.reference
from swagkit.spec import BUDGETS, BudgetExceeded, BudgetMeter, counted, stored_aggregates
from swagkit.spec.library import matrix2x2, max_count, string_concat, sum_monoid

IMPLEMENTATIONS = [pytest.param(swagkit.reference, id="reference"), pytest.param(swagkit.optimized, id="optimized")]
ALGORITHMS = {"two_stacks": "TwoStacks", "two_stacks_lite": "TwoStacksLite", "daba": "DABA", "daba_lite": "DABALite"}


def _random_run(agg: Any, counter: Any, rng: random.Random, steps: int, meter: BudgetMeter) -> None:
    for _ in range(steps):
        n = len(agg)
        before_own, before_ext = agg.combine_count, counter.calls
        if n == 0 or rng.random() < 0.52:
            agg.insert(rng.choice("abcdefgh"))
            op = "insert"
        else:
            agg.evict()
            op = "evict"
        used = agg.combine_count - before_own
        assert used == counter.calls - before_ext, "combine_count disagrees with the wrapped monoid's count"
        meter.record(op, n, used)
        meter.check_space(agg.snapshot(), len(agg))
        before_own = agg.combine_count
        agg.query()
        meter.record("query", len(agg), agg.combine_count - before_own)


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
@pytest.mark.parametrize("algorithm", sorted(ALGORITHMS))
def test_budgets_hold_and_counts_agree(impl: types.ModuleType, algorithm: str) -> None:
    monoid, counter = counted(string_concat())
    agg = getattr(impl, ALGORITHMS[algorithm])(monoid)
    meter = BudgetMeter(BUDGETS[algorithm])
    _random_run(agg, counter, random.Random(algorithm), 4000, meter)
    worst = {"two_stacks": (1, 1), "two_stacks_lite": (1, 1), "daba": (1, 4, 3), "daba_lite": (1, 3, 2)}[algorithm]
    # the theorems' worst cases are tight: a random run reaches them
    assert meter.max_seen["query"] == worst[0]
    assert meter.max_seen["insert"] == worst[1]
    if len(worst) == 3:
        assert meter.max_seen["evict"] == worst[2]


def _fixup_cost_per_cycle(cls: type, pattern: str, seed: int = 0) -> list[Fraction]:
    """Average ⊗ per fixup over each *complete* flip cycle (the ``ΠB ⊗ v`` of an insert is not a fixup
    cost and is subtracted). ``pattern`` is ``insert`` (insert only), ``static`` (evict+insert rounds after
    a fill) or ``random``."""
    agg = cls(sum_monoid())
    rng = random.Random(seed)
    if pattern == "static":
        for i in range(300):
            agg.insert(i)
    averages: list[Fraction] = []
    spent = fixups = 0
    for step in range(4000):
        if pattern == "insert":
            ops = ["insert"]
        elif pattern == "static":
            ops = ["evict", "insert"]
        else:
            ops = ["insert" if len(agg) == 0 or rng.random() < 0.55 else "evict"]
        for op in ops:
            before = agg.combine_count
            if op == "insert":
                agg.insert(step)
            else:
                agg.evict()
            used = agg.combine_count - before - (1 if op == "insert" else 0)
            if agg.last_case.startswith("flip"):
                if fixups:
                    averages.append(Fraction(spent, fixups))
                spent = fixups = 0
            if agg.last_case != "singleton":
                spent += used
                fixups += 1
    return averages[1:]  # the first cycle may have started mid-way


@pytest.mark.parametrize(
    ("cls", "per_fixup"), [(swagkit.reference.DABA, Fraction(3, 2)), (swagkit.reference.DABALite, 1)]
)
@pytest.mark.parametrize("pattern", ["insert", "static", "random"])
def test_average_per_flip_cycle_is_exact(cls: type, per_fixup: Fraction, pattern: str) -> None:
    """000 Theorems 5.2/6.2: over a flip cycle, shrink and shift steps are equally many, so a fixup costs
    exactly 1.5 (DABA) or 1 (DABA Lite) ⊗ on average: 2.5/1.5 (DABA) and 2/1 (DABA Lite) per insert/evict."""
    averages = _fixup_cost_per_cycle(cls, pattern)
    assert len(averages) >= 5
    assert set(averages) == {Fraction(per_fixup)}


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
@pytest.mark.parametrize("cls", ["TwoStacks", "TwoStacksLite"])
def test_two_stacks_evict_is_amortized_one(impl: types.ModuleType, cls: str) -> None:
    """000 Theorems 3.2/4.2: a flip costs up to n, but evict combines never exceed the number of inserts."""
    agg = getattr(impl, cls)(max_count())
    rng = random.Random(7)
    inserts = evict_cost = worst = 0
    for _ in range(5000):
        if len(agg) == 0 or rng.random() < 0.5:
            agg.insert(rng.randint(0, 9))
            inserts += 1
        else:
            n = len(agg)
            before = agg.combine_count
            agg.evict()
            used = agg.combine_count - before
            assert used <= n
            evict_cost += used
            worst = max(worst, used)
        assert evict_cost <= inserts
    assert worst > 20  # flips really are expensive in the worst case


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
@pytest.mark.parametrize("algorithm", sorted(ALGORITHMS))
def test_space_claims(impl: types.ModuleType, algorithm: str) -> None:
    """Stored partial aggregates: 2n, n+1, 2n, n+2."""
    agg = getattr(impl, ALGORITHMS[algorithm])(matrix2x2())
    formula = {
        "two_stacks": lambda n: 2 * n,
        "two_stacks_lite": lambda n: n + 1,
        "daba": lambda n: 2 * n,
        "daba_lite": lambda n: n + 2,
    }[algorithm]
    for i in range(50):
        agg.insert((1, i, 0, 1))
        assert stored_aggregates(agg.snapshot()) == formula(len(agg))
    for _ in range(30):
        agg.evict()
        assert stored_aggregates(agg.snapshot()) == formula(len(agg))


def test_meter_rejects_an_operation_over_budget() -> None:
    meter = BudgetMeter(BUDGETS["daba_lite"])
    meter.record("insert", 0, 3)
    with pytest.raises(BudgetExceeded, match="Theorem 6.2"):
        meter.record("evict", 1, 3)


def test_meter_rejects_amortized_overspend() -> None:
    """Two-Stacks evicts that cost more than all inserts so far break the banker's bound."""
    meter = BudgetMeter(BUDGETS["two_stacks"])
    for n in range(4):
        meter.record("insert", n, 1)
    meter.record("evict", 4, 4)
    with pytest.raises(BudgetExceeded, match="amortized"):
        meter.record("evict", 3, 3)
