"""FiBA's spec layer: the checker names every invariant it finds broken (and the node), its global check catches
what the local one tolerates, the budgets are contracts that an inefficient variant breaks, and the registry
entries match the spec."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest

from swagkit.reference import FiBA
from swagkit.spec.checkers import CHECKERS
from swagkit.spec.checkers.fiba import WORDING, check_fiba
from swagkit.spec.errors import BudgetExceeded, InvariantViolation
from swagkit.spec.fiba_budgets import FiBABudgetMeter, levels, unit, worst_combines
from swagkit.spec.library import string_concat, sum_f64, sum_monoid
from swagkit.spec.snapshots import FiBANodeState, FiBAState
from swagkit.verify import registry

Path = tuple[int, ...]


def base() -> tuple[FiBAState, list[tuple[Any, Any]]]:
    """A valid μ = 2 tree of 3 levels over string_concat (root with 3+ children)."""
    for seed in range(100):  # the first shuffled insertion order giving the wanted shape (deterministic)
        f = FiBA(string_concat(), 2)
        order = list(range(0, 80, 2))
        random.Random(seed).shuffle(order)
        for t in order:
            f.insert(t, "abcdefgh"[t % 8])
        state = f.snapshot()
        mid = state.root.children[1] if len(state.root.children) >= 3 else None
        if (
            mid is not None
            and all(len(c.children) >= 3 for c in state.root.children)
            and any(len(c.times) > 1 for c in mid.children[1:])
        ):
            return state, f.items()
    raise AssertionError("no seed gives the wanted shape")  # pragma: no cover


def node_at(state: FiBAState, path: Path) -> FiBANodeState:
    node = state.root
    for i in path:
        node = node.children[i]
    return node


def replace_at(state: FiBAState, path: Path, **changes: Any) -> FiBAState:
    def rec(node: FiBANodeState, rest: Path) -> FiBANodeState:
        if not rest:
            return dataclasses.replace(node, **changes)
        kids = list(node.children)
        kids[rest[0]] = rec(kids[rest[0]], rest[1:])
        return dataclasses.replace(node, children=tuple(kids))

    return dataclasses.replace(state, root=rec(state.root, path))


def corruptions(state: FiBAState) -> list[tuple[str, str, FiBAState]]:
    mid = (1,)  # the root's middle child: an up-aggregate node
    leaf = next((1, i) for i, c in enumerate(node_at(state, mid).children) if len(c.times) > 1 and i > 0)
    left, right = (0,), (len(state.root.children) - 1,)
    lt = node_at(state, leaf).times
    out = [
        ("O1 swapped times", "O1 order", replace_at(state, leaf, times=lt[::-1])),
        (
            "O2 leaf time above its separator",
            "O2 order",
            replace_at(state, (1, 0), times=node_at(state, (1, 0)).times[:-1] + (node_at(state, mid).times[0] + 1,)),
        ),
        ("A1 underfull node", "A1 arity", replace_at(state, leaf, times=lt[:0], values=())),
        ("A3 values missing", "A3 entries", replace_at(state, leaf, values=node_at(state, leaf).values[1:])),
        ("S1 wrong parent", "S1 parent", replace_at(state, leaf, parent=0)),
        ("S2 spine flag", "S2 spine flags", replace_at(state, mid, left_spine=True)),
        ("S3 left finger", "S3 fingers", dataclasses.replace(state, left_finger=node_at(state, leaf).id)),
        ("S3 dangling finger", "S3 fingers", dataclasses.replace(state, right_finger=-1)),
        ("size", "size", dataclasses.replace(state, size=state.size + 1)),
        ("value", "Q contents", replace_at(state, leaf, values=("X",) + node_at(state, leaf).values[1:])),
        ("up agg", "G1 up", replace_at(state, leaf, agg="X")),
        ("left agg", "G2 left", replace_at(state, left, agg="X")),
        ("right agg", "G3 right", replace_at(state, right, agg="X")),
        ("inner agg", "G4 inner", replace_at(state, (), agg="X")),
        ("count", "C counts", replace_at(state, leaf, count=node_at(state, leaf).count + 1)),
    ]
    deeper = node_at(state, (2, 0))  # a leaf that is not the leftmost gets children: leaves at two depths
    twin = dataclasses.replace(deeper, id=10_000, parent=deeper.id)
    out.append(
        (
            "H1 leaves at two depths",
            "H1 height",
            replace_at(
                state,
                (2, 0),
                times=deeper.times[:1],
                values=deeper.values[:1],
                children=(dataclasses.replace(twin, times=(), values=()), twin),
            ),
        )
    )
    return out


@pytest.mark.parametrize("name,invariant,state", [pytest.param(n, i, s, id=n) for n, i, s in corruptions(base()[0])])
def test_checker_names_the_invariant_and_the_node(name: str, invariant: str, state: FiBAState) -> None:
    window = base()[1]
    check_fiba(base()[0], string_concat(), window)  # the uncorrupted state passes
    with pytest.raises(InvariantViolation) as err:
        check_fiba(state, string_concat(), window)
    assert err.value.invariant == invariant, str(err.value)[:300]
    assert err.value.wording == WORDING[invariant] and err.value.algorithm == "fiba"
    if invariant.startswith(("G", "A1", "O1", "C")):
        assert "root" in err.value.detail and "[times" in err.value.detail  # the node is named


def test_every_invariant_has_a_corruption() -> None:
    caught = {i for _, i, _ in corruptions(base()[0])} | {"A2 root arity"}  # A2: tests/test_fiba.py
    assert caught == set(WORDING)


def test_global_check_catches_errors_the_local_one_tolerates() -> None:
    """sum_f64 compares with a relative tolerance of 1e-9: an error of 0.9e-9 per level passes every local
    check, but accumulates -- recomputed from the entries, the aggregates are wrong."""
    for seed in range(100):
        f = FiBA(sum_f64(), 2)
        order = list(range(400))
        random.Random(seed).shuffle(order)
        for t in order:
            f.insert(t, 0.0)
        state = f.snapshot()
        if len(state.root.children) >= 3:
            break
    path = [1]  # a chain of up aggregates: the root's middle child down its first children to a leaf
    while node_at(state, tuple(path)).children:
        path.append(0)
    big = 1e9
    f.insert(node_at(state, tuple(path)).times[0], big)  # 0.0 ⊗ big: one big value in that leaf
    state = f.snapshot()
    assert len(path) >= 3
    delta = 0.9e-9 * big
    corrupted = state
    for depth in range(len(path), -1, -1):  # leaf first: each level one delta more than its child
        p = tuple(path[:depth])
        corrupted = replace_at(corrupted, p, agg=node_at(corrupted, p).agg + delta * (len(path) - depth + 1))
    with pytest.raises(InvariantViolation) as err:
        CHECKERS["fiba"](corrupted, sum_f64(), f.items())
    assert "(global)" in err.value.detail


# ---------------------------------------------------------------------------------------------- budgets


def test_worst_case_bounds_reject_an_expensive_operation() -> None:
    meter = FiBABudgetMeter(2)
    meter.record("insert", 10, 11, combines=5, touched=5)
    with pytest.raises(BudgetExceeded):
        meter.record("insert", 10, 11, combines=int(worst_combines("insert", 2, 11)) + 1, touched=5)
    with pytest.raises(BudgetExceeded):
        meter.record("query", 10, 10, combines=3, touched=0)


def test_amortized_bound_rejects_log_n_evictions() -> None:
    """Each evict within its O(log n) worst case, but at that cost every time: the amortized O(1) claim fails."""
    mu, n = 2, 5000
    meter = FiBABudgetMeter(mu)
    per = unit(mu) * (levels(n, mu) + 2)
    with pytest.raises(BudgetExceeded, match="amortized"):
        for k in range(n):
            meter.record("evict", n - k, n - k - 1, combines=per, touched=4)


class _RootWalker(FiBA):
    """An inefficient FiBA: every repair passes down both whole spines from the root (O(log n) per operation,
    correct but not FiBA)."""

    def _repair_aggs(self, node: Any, hit_left: bool, hit_right: bool, climb: int = 0) -> None:
        super()._repair_aggs(node, hit_left, hit_right, climb)
        self._recompute(self.root)
        self._walk_spine(self.root, 0)
        self._walk_spine(self.root, -1)


def test_budgets_catch_an_inefficient_variant() -> None:
    """The same sliding in-order workload meets the amortized budget with FiBA and breaks it with the root
    walker (metered like debug mode does, without the O(n) invariant checks)."""
    for cls, ok in ((FiBA, True), (_RootWalker, False)):
        f = cls(sum_monoid(), 2)
        f.bulk_insert([(t, 1) for t in range(3000)])
        meter = FiBABudgetMeter(2)
        try:
            for t in range(3000, 7000):
                for op, args in (("evict", ()), ("insert", (t, 1))):
                    n, c, v = len(f), f.combine_count, f.touched_count
                    getattr(f, op)(*args)
                    meter.record(op, n, len(f), f.combine_count - c, f.touched_count - v)
        except BudgetExceeded as exc:
            assert not ok, exc
            assert "amortized" in str(exc)
        else:
            assert ok, "the root walker met the amortized budget"


# ---------------------------------------------------------------------------------------------- registry


@pytest.mark.parametrize(
    ("algorithm_id", "mu", "cls"),
    [("fiba", 4, "FiBA"), ("fiba_mu2", 2, "FiBA"), ("fiba_mu8", 8, "FiBA"), ("fiba_loop", 4, "FiBALoop")],
)
def test_registry_entries(algorithm_id: str, mu: int, cls: str) -> None:
    info = registry.algorithm(algorithm_id)
    assert info.kind.name == "out_of_order" and info.checker == "fiba" and info.class_name == cls
    assert info.params == {"min_arity": mu} and info.supports(string_concat())
    for impl in registry.available_implementations(algorithm_id):
        agg = registry.create(algorithm_id, "sum", impl, check=False)
        assert agg.min_arity == mu and agg.algorithm == ("fiba_loop" if cls == "FiBALoop" else "fiba")
    assert f"`{algorithm_id}`" in registry.guarantees_markdown()
