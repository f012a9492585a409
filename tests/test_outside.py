"""Outside code verified through small adapters (issue 14 §4): PyPI ``rolling`` and ``river``'s rolling statistics,
each within its own contract (:class:`~swagkit.verify.kinds.fifo.Contract`), with :func:`verify_aggregator`.

Where the library is right the run passes; where swagkit finds something the finding is asserted precisely, and
the shrunk counterexample is replayed on the library directly (without swagkit), so it is a property of the
library, not of the harness.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import strategies as st

from swagkit.verify.impl import VerificationFailed, verify_aggregator
from swagkit.verify.kinds.fifo import Contract

pytest.importorskip("rolling")
pytest.importorskip("river")

sys.path.insert(0, str(Path(__file__).parent))
try:
    from outside import river_adapter, rolling_adapter
finally:
    sys.path.pop(0)

pytestmark = pytest.mark.once
ONCE_PASS = "pure"  # tests/conftest.py: this module runs in the pure-Python pass (it balances the two)

#: rolling's iterator: grow by ``_add_new`` to W, slide, drain at the input's end (never below one value), and
#: grow again after ``extend()``
ROLLING = f"capacity={rolling_adapter.W},no-evict-before-full,no-empty-ops"
#: river's ``utils.Rolling``: updates only, a full window reverts its oldest input first
RIVER = f"capacity={river_adapter.W},static"


def _updates(calls: list[tuple[str, tuple[Any, ...]]]) -> list[tuple[str, tuple[Any, ...]]]:
    return [c for c in calls if c[0] in ("insert", "evict")]


@pytest.mark.parametrize("monoid", ["sum", "sum_f64"])
def test_rolling_sum_is_right_within_its_contract(monoid: str) -> None:
    report = verify_aggregator(rolling_adapter.rolling_sum, "fifo", monoid, contract=ROLLING, replay_dir=None)
    assert report.passed


def test_rolling_max_without_its_contract_fails_outside_it() -> None:
    """Unrestricted, the first query of an empty window raises (rolling never answers one): outside rolling's
    contract, which is why ``--contract`` exists."""
    with pytest.raises(VerificationFailed, match="IndexError"):
        verify_aggregator(rolling_adapter.rolling_max, "fifo", "max", replay_dir=None)


@pytest.mark.parametrize(
    ("factory", "monoid", "pick"), [("rolling_max", "max", max), ("rolling_min", "min", min)], ids=["max", "min"]
)
def test_rolling_max_min_drop_an_element_after_a_drain_and_a_refill(
    factory: str, monoid: str, pick: Any, tmp_path: Path
) -> None:
    """A real bug of rolling 0.5.0's ``Max``/``Min`` variable windows, inside rolling's own contract: after the
    window drained by one (the input ended) and grew back to full (``extend()``), the next drain removes two
    candidates -- elements carry a "death" index counted in ``_i``, which inserts *and* removals advance, so after
    the refill the deaths are one step early. Shrunk by swagkit (W = 3, queries left out)::

        insert 0; insert 0; insert 0; evict; insert -1; evict; query -> -1   (Max; the window [0, -1] has max 0)
        insert 0; insert 0; insert 0; evict; insert 1;  evict; query -> 1    (Min; the window [0, 1] has min 0)

    Through rolling's public API: ``r = rolling.Max([0, 0, 1], 3, window_type="variable")``, four ``next(r)``
    (the last drains [0, 0, 1] to [0, 1]), ``r.extend([0])``, then ``next(r)`` answers 1 ([0, 1, 0]) and the next
    ``next(r)`` answers 0 for the window [1, 0]."""
    made = getattr(rolling_adapter, factory)
    with pytest.raises(VerificationFailed) as failed:
        verify_aggregator(made, "fifo", monoid, contract=ROLLING, steps=15, replay_dir=str(tmp_path))
    result = failed.value.report.results[0]
    finding = result.findings[0]
    assert result.status == "FAIL" and "ModelMismatchAt" in finding.failure and "query() returned" in finding.failure
    updates = _updates([(s.name, s.args) for s in finding.trace])
    assert Contract.of(ROLLING).admits(updates) and len(updates) <= 10
    # replayed on rolling itself: the last answer is not the extreme of the window a list model holds
    agg, window = made(None), list[Any]()
    for name, args in updates:
        if name == "insert":
            agg.insert(*args)
            window = [*window, *args][-rolling_adapter.W :]  # a full window's oldest leaves
        else:
            agg.evict()
            window.pop(0)
    assert agg.query() != pick(window)
    import rolling

    r = getattr(rolling, monoid.title())([0, 0, 1 if monoid == "max" else -1], 3, window_type="variable")
    assert [next(r) for _ in range(4)][-1] == (1 if monoid == "max" else -1)
    r.extend([0])
    assert next(r) == (1 if monoid == "max" else -1) and next(r) == 0  # the window [±1, 0]: should be ±1


@pytest.mark.parametrize("monoid", ["sum", "sum_f64"])
def test_river_rolling_sum_is_right_within_its_contract(monoid: str) -> None:
    report = verify_aggregator(river_adapter.river_sum, "fifo", monoid, contract=RIVER, replay_dir=None)
    assert report.passed


def test_river_rolling_variance_is_right_on_small_values() -> None:
    """``stats.Var`` in ``utils.Rolling`` against the exact sample variance, within 1e-9, over ints and Fractions
    in [-50, 50]: Welford's update and revert stay within the tolerance there."""
    report = verify_aggregator(
        river_adapter.river_var,
        "fifo",
        river_adapter.VARIANCE,
        contract=RIVER,
        values=river_adapter.VARIANCE_VALUES,
        tolerance=1e-9,
        replay_dir=None,
    )
    assert report.passed


def test_river_rolling_variance_keeps_a_revert_residue(tmp_path: Path) -> None:
    """Subtract-on-evict residue in river 0.26's rolling ``stats.Var``: reverting a large input leaves float
    residue in Welford's ``_S``. Shrunk by swagkit (W = 4; the exact variance of [10⁶] * 4 is 0)::

        insert 0; insert 1000000 (×4); query -> 4.0690104166666664e-05

    ``utils.Rolling(stats.Var, window_size=4, ddof=1)`` updated with 0, then 10⁶ four times, answers 4.07e-05."""
    with pytest.raises(VerificationFailed) as failed:
        verify_aggregator(
            river_adapter.river_var,
            "fifo",
            river_adapter.VARIANCE,
            contract=RIVER,
            values=st.sampled_from([0, 1, 2, 10**6]),
            tolerance=1e-9,
            replay_dir=str(tmp_path),
        )
    result = failed.value.report.results[0]
    finding = result.findings[0]
    assert "ModelMismatchAt" in finding.failure and "query() returned" in finding.failure
    assert all(
        name == "insert" for name, _ in _updates([(s.name, s.args) for s in finding.trace])
    )  # static: river's updates only
    from river import stats, utils

    rvar = utils.Rolling(stats.Var, window_size=4, ddof=1)
    for x in (0, 10**6, 10**6, 10**6, 10**6):
        rvar.update(x)
    assert rvar.get() == pytest.approx(4.0690104166666664e-05) and rvar.get() > 1e-9
