"""FlatFIT's ⊗ budget (spec/budgets.py ``"flatfit"``): the worst case n − 1 is reached, paper 001 §4's
single-query cycle is reproduced exactly, the amortized inequality ``combines ≤ #inserts + #evicts + #queries``
holds on every path of the exhaustively enumerated state graph (small windows) and at every step of long random
runs, billing queries is necessary, and the space claim is 2n with a buffer of at most max(2, 4n) slots."""

from __future__ import annotations

import random
from typing import Any

import pytest

import swagkit.optimized as opt
import swagkit.reference as ref
from swagkit.spec.budgets import BUDGETS, BudgetMeter, stored_aggregates
from swagkit.spec.errors import BudgetExceeded
from swagkit.spec.library import string_concat, sum_i64
from swagkit.verify import checked

BUDGET = BUDGETS["flatfit"]
CLASSES = [ref.FlatFIT, opt.FlatFIT]


def test_budget_entry() -> None:
    assert BUDGET.avg_query == 1.0 and BUDGET.avg_insert == 1.0 and BUDGET.avg_evict == 1.0
    assert [BUDGET.query(n) for n in range(5)] == [0, 0, 1, 2, 3]
    assert BUDGET.insert(100) == 0 and BUDGET.evict(100) == 0 and BUDGET.slack(100) == 0


@pytest.mark.parametrize("cls", CLASSES)
@pytest.mark.parametrize("n", [1, 2, 5, 64, 300])
def test_worst_case_query_is_reached(cls: Any, n: int) -> None:
    """n inserts without a query leave n single-element ranges: the query stitches them with exactly n − 1 ⊗,
    and the next query (nothing changed) needs none."""
    a = cls(sum_i64())
    a.insert_many(range(n))
    before = a.combine_count
    assert a.query() == n * (n - 1) // 2
    assert a.combine_count - before == BUDGET.query(n) == n - 1
    before = a.combine_count
    a.query()
    assert a.combine_count == before


@pytest.mark.parametrize("cls", CLASSES)
@pytest.mark.parametrize("n", [3, 6, 17])
def test_paper_single_query_cycle(cls: Any, n: int) -> None:
    """001 §4: "The execution of FlatFIT follows a cyclical pattern which repeats every n + 1 slides … the window
    reset … in n − 1 steps … surrounded by two slides that require just one operation, and the rest of the slides
    in a period require two operations each." A slide is evict, insert, query."""
    a = cls(string_concat())
    a.insert_many("x" * n)
    costs = []
    for _ in range(4 * (n + 1)):
        a.evict()
        a.insert("y")
        before = a.combine_count
        a.query()
        costs.append(a.combine_count - before)
    start = costs.index(n - 1)
    period = costs[start : start + n + 1]
    assert period == [n - 1, 1] + [2] * (n - 2) + [1]
    assert costs[start + n + 1 : start + 2 * (n + 1)] == period
    assert sum(period) == 3 * (n - 1)  # the paper's sum (n − 1) + 2(n − 2) + 2


# ------------------------------------------------------------------------------- exhaustive amortization check


def _shape(a: Any) -> tuple[int, ...]:
    """The pointer structure relative to the window: for each offset, the offset just past its range (this is
    all that determines the ⊗ counts of future operations)."""
    s = a.snapshot()
    out = []
    for k in range(s.size):
        i = (s.head + k) % s.capacity
        out.append(k + (s.pointers[i] - i - 1) % s.capacity + 1)
    return tuple(out)


def _replay(ops: tuple[str, ...]) -> Any:
    a = ref.FlatFIT(sum_i64())
    for op in ops:
        if op == "I":
            a.insert(1)
        elif op == "E":
            a.evict()
        else:
            a.query()
    return a


def _state_graph(n_max: int) -> dict[tuple[int, ...], list[tuple[str, tuple[int, ...], int]]]:
    """Every pointer structure reachable on windows of at most ``n_max`` elements, with its transitions
    (operation, successor, ⊗ used), computed by running the reference implementation."""
    paths: dict[tuple[int, ...], tuple[str, ...]] = {(): ()}
    graph: dict[tuple[int, ...], list[tuple[str, tuple[int, ...], int]]] = {}
    todo = [()]
    while todo:
        shape = todo.pop()
        edges = []
        for op in "IEQ":
            if (op == "I" and len(shape) >= n_max) or (op == "E" and not shape):
                continue
            a = _replay(paths[shape])
            before = a.combine_count
            _replay_step(a, op)
            nxt = _shape(a)
            edges.append((op, nxt, a.combine_count - before))
            if nxt not in paths:
                paths[nxt] = paths[shape] + (op,)
                todo.append(nxt)
        graph[shape] = edges
    return graph


def _replay_step(a: Any, op: str) -> None:
    if op == "I":
        a.insert(1)
    elif op == "E":
        a.evict()
    else:
        a.query()


def _max_excess(
    graph: dict[tuple[int, ...], list[tuple[str, tuple[int, ...], int]]], credit: dict[str, float]
) -> float | None:
    """Longest path weight from the empty window (weight: ⊗ used − credit), or None when a cycle of positive
    weight exists (then the excess is unbounded). Bellman-Ford."""
    best: dict[tuple[int, ...], float] = {s: float("-inf") for s in graph}
    best[()] = 0.0
    for _ in range(len(graph) + 1):
        changed = False
        for s, edges in graph.items():
            if best[s] == float("-inf"):
                continue
            for op, t, used in edges:
                w = best[s] + used - credit[op]
                if w > best[t] + 1e-9:
                    best[t] = w
                    changed = True
        if not changed:
            return max(best.values())
    return None


@pytest.fixture(scope="module")
def graph() -> dict[tuple[int, ...], list[tuple[str, tuple[int, ...], int]]]:
    return _state_graph(8)


def test_amortized_inequality_holds_on_every_path(graph: Any) -> None:
    """With 1 credit per insert, evict and query, no operation sequence on windows of ≤ 8 elements ever spends
    more ⊗ than its credits (the graph is finite, so this covers sequences of any length)."""
    assert len(graph) > 1400
    excess = _max_excess(graph, {"I": BUDGET.avg_insert, "E": BUDGET.avg_evict, "Q": BUDGET.avg_query or 0.0})
    assert excess is not None and excess <= BUDGET.slack(8)


def test_evictions_must_be_billed() -> None:
    """Credits (1, 0, 1) or (1, 1, ½): some cycle of operations gains ⊗ without bound, so both evictions and
    (about one per) queries must be billed."""
    graph = _state_graph(7)  # enough to contain such cycles, and much faster to refute on
    assert _max_excess(graph, {"I": 1.0, "E": 0.0, "Q": 1.0}) is None
    assert _max_excess(graph, {"I": 1.0, "E": 1.0, "Q": 0.5}) is None


@pytest.mark.parametrize("cls", CLASSES)
def test_meter_on_long_random_runs(cls: Any) -> None:
    """The meter (every operation, queries included) never raises on long runs with varied query rates."""
    for seed in range(20):
        rng = random.Random(seed)
        a = cls(sum_i64())
        meter = BudgetMeter(BUDGET)
        p_query, p_insert = rng.random(), rng.random()
        for _ in range(3000):
            n, before = len(a), a.combine_count
            if rng.random() < p_query:
                a.query()
                op = "query"
            elif not n or (rng.random() < p_insert and n < 500):
                a.insert(rng.randint(-9, 9))
                op = "insert"
            else:
                a.evict()
                op = "evict"
            meter.record(op, n, a.combine_count - before)
        assert meter.queries > 0 or p_query < 0.01


def test_meter_catches_an_overspending_query() -> None:
    meter = BudgetMeter(BUDGET)
    meter.record("insert", 0, 0)
    meter.record("insert", 1, 0)
    with pytest.raises(BudgetExceeded):
        meter.record("query", 2, 2)  # worst case is n − 1 = 1
    meter = BudgetMeter(BUDGET)
    for n in range(3):
        meter.record("insert", n, 0)
    for _ in range(3):
        meter.record("query", 3, 2)  # within the worst case, and 2k ⊗ ≤ 3 inserts + k queries for k ≤ 3
    with pytest.raises(BudgetExceeded) as info:
        meter.record("query", 3, 2)  # 8 ⊗ > 3 + 4: only the amortized claim is broken
    assert "amortized" in str(info.value)


@pytest.mark.parametrize("cls", CLASSES)
def test_space_claim_and_capacity(cls: Any) -> None:
    w = checked(cls(string_concat()))  # checks the space claim 2n after every operation
    caps = []
    for _i in range(100):
        w.insert("a")
        s = w.snapshot()
        assert stored_aggregates(s) == 2 * len(w) and s.capacity <= max(2, 4 * len(w))
        caps.append(s.capacity)
    w.query()
    for _ in range(100):
        w.evict()
        s = w.snapshot()
        assert stored_aggregates(s) == 2 * len(w) and len(w) <= s.capacity <= max(2, 4 * len(w))
        caps.append(s.capacity)
    assert max(caps) == 128 and caps[-1] == 2
