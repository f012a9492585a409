"""``swagkit bench --only engines`` (verify/bench/engine_peers.py): the window engines beside swagkit's array
drivers, with a correctness column. The exact machinery behind that column is held to independent definitions
(brute-force maxima, :func:`~swagkit.verify.bench.sum_accuracy.worst_share_of_bound`); timings are not asserted."""

from __future__ import annotations

import io
import random
from typing import Any

import pytest

from swagkit.verify.bench import engine_peers
from swagkit.verify.bench.sum_accuracy import spiked_floats, worst_share_of_bound
from swagkit.verify.bench.timing import Progress

np: Any = pytest.importorskip("numpy")

pytestmark = pytest.mark.once
ONCE_PASS = "pure"  # tests/conftest.py: this module runs in the pure-Python pass (it balances the two)


@pytest.mark.parametrize("w", [1, 2, 3, 7, 64, 300])
def test_window_max_is_the_max_of_each_frame(w: int) -> None:
    rng = random.Random(w)
    values = np.array([rng.choice([rng.gauss(0, 1), -1e300, 5.0]) for _ in range(211)])
    got = engine_peers.window_max(np, values, w)
    assert got.tolist() == [max(values[max(0, i - w + 1) : i + 1]) for i in range(len(values))]


def _subtract_on_evict(values: list[float], w: int) -> list[float]:
    out, s = [], 0.0
    for i, v in enumerate(values):
        s += v
        if i >= w:
            s -= values[i - w]
        out.append(s)
    return out


@pytest.mark.parametrize("w", [2, 5, 16, 100])
def test_screened_worst_share_equals_the_exact_definition(w: int) -> None:
    """Answers with large errors (a subtract-on-evict sum across ±1e17 spikes), tiny ones (one ulp away) and
    exact ones: the screened-then-rechecked figure is the exact maximum over every frame."""
    values = spiked_floats(1500, spikes=12)
    exact = engine_peers.exact_sums(np, values, w)
    rng = random.Random(w)
    near = [float(np.nextafter(x, np.inf)) if rng.random() < 0.3 else float(x) for x in exact.rounded]
    for answers in (_subtract_on_evict(values, w), near, exact.rounded.tolist()):
        truth = worst_share_of_bound(values, answers, w)
        share, complete = engine_peers.worst_share(np, exact, answers, recheck=50)
        # a figure said to be exact is; one said to be a lower bound is one (and rechecking every frame is exact)
        assert share == truth if complete else share <= truth
        assert engine_peers.worst_share(np, exact, answers, recheck=len(values)) == (truth, True)
    assert engine_peers.worst_share(np, exact, _subtract_on_evict(values, w), recheck=50)[1]  # large errors stand out


def test_a_tiny_run_finds_the_subtracting_engines_and_passes_swagkit() -> None:
    outcome = engine_peers.run(engine_peers.TINY, Progress(io.StringIO()))
    table = outcome.tables[0]
    assert table.startswith("| contender | op | W = 16 | W = 64 |")
    assert {c.claim for c in outcome.checks} == {
        f"{what}, W={w}"
        for w in engine_peers.TINY.windows
        for what in ("window_sum within the any-order bound", "window_array max exact")
    }
    assert all(c.ok for c in outcome.checks), outcome.checks
    shares = {(r.contender, r.x): r.value for r in outcome.rows if r.metric == "worst_error_share_of_bound"}
    wrong = {(r.contender, r.x): r.value for r in outcome.rows if r.metric == "wrong_answers"}
    assert all(v == 0 for v in wrong.values())  # every engine's max is exact on this input
    # SQLite's sum subtracts on evict: the spikes' residue is far beyond the frames' own bound
    assert shares["sqlite", 16] > 1e6
    assert {r.contender for r in outcome.ratios} == {"swagkit"}
