"""FlatFAT (paper 002 §4): the paper's fixtures, the update bound in its ceiling form (and a counterexample to the
proof's floor form), prefix/suffix/aggregate against brute force with non-commutative and non-invertible
monoids, last-write-wins bulk updates, validation that changes nothing, a Hypothesis state machine against a
brute-force leaf list (the registered ``tree`` machine), debug mode, and compiled-vs-reference differential runs
(same answers bit for bit, snapshots, counts).
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable
from typing import Any

import pytest

import swagkit.optimized as opt
import swagkit.reference as ref
from swagkit.optimized import _fallback
from swagkit.spec.checkers import check_flatfat
from swagkit.spec.errors import InvariantViolation
from swagkit.spec.library import matrix2x2, max_count, string_concat, sum_f64, sum_i64
from swagkit.spec.monoid import Monoid
from swagkit.spec.snapshots import FlatFATState
from swagkit.verify import checked, registry, run_machine
from swagkit.verify.errors import BudgetExceededAt, InvariantViolationAt, ModelMismatchAt
from swagkit.verify.kinds.tree import CheckedTree

IMPLS = {"reference": ref.FlatFAT, "optimized": opt.FlatFAT, "fallback": _fallback.FlatFAT}


def brute(monoid: Monoid[Any, Any, Any], leaves: list[Any], i: int, j: int) -> Any:
    """``a[i] ⊕ … ⊕ a[j]`` by a left fold (identity when empty)."""
    acc = monoid.identity
    for k in range(i, j + 1):
        acc = monoid.combine(acc, leaves[k])
    return acc


def ceil_bound(n: int, m: int) -> int:
    """Theorem 4.2(ii) with the ceiling (notes P1): ``m·(1 + ⌈log2(n/m)⌉)``."""
    return m * (1 + math.ceil(math.log2(n / m)))


def floor_bound(n: int, m: int) -> int:
    """The proof's final line, ``m + ⌊log2(n/m)⌋·m`` -- false."""
    return m + math.floor(math.log2(n / m)) * m


def update_cost(cls: Any, n: int, locs: list[int]) -> int:
    f = cls(sum_i64(), list(range(n)))
    f.combine_count = 0
    f.update([(i, 100 + i) for i in locs])
    return int(f.combine_count)


# ------------------------------------------------------------------------------------------------ fixtures


@pytest.mark.parametrize("impl", list(IMPLS))
def test_new_costs_n_minus_1_and_figure_3_4_update_touches_6_nodes(impl: str) -> None:
    cls = IMPLS[impl]
    f = cls(string_concat(), list("abcdefgh"))
    assert f.combine_count == 7  # notes §7.2: new on 8 leaves
    before = f.snapshot().nodes
    f.combine_count = 0
    f.update([(0, "A"), (1, "B"), (3, "D"), (6, "G")])  # the paper's leaves {1, 2, 4, 7}
    after = f.snapshot().nodes
    assert f.combine_count == 6
    changed = {h for h in range(1, 8) if before[h] != after[h]}
    assert changed == {4, 5, 7, 2, 3, 1}
    assert f.aggregate() == "ABcDefGh"
    check_flatfat(f.snapshot(), string_concat(), list("ABcDefGh"))


@pytest.mark.parametrize("impl", list(IMPLS))
def test_prefix_7_of_figure_3(impl: str) -> None:
    f = IMPLS[impl](string_concat(), list("abcdefgh"))
    T = f.snapshot().nodes
    f.combine_count = 0
    assert f.prefix(6) == T[2] + T[6] + "g" == "abcdefg"  # the paper's prefix(7) = T[2] ⊕ T[6] ⊕ a[7]
    assert f.combine_count == 2


def test_floor_form_of_the_update_bound_is_false() -> None:
    # n = 8, m = 5 distinct leaves {0, 2, 4, 6, 7}: parents {4,5,6,7}, then {2,3}, then {1}: 7 recomputations
    for cls in IMPLS.values():
        assert update_cost(cls, 8, [0, 2, 4, 6, 7]) == 7
    assert floor_bound(8, 5) == 5 < 7 <= ceil_bound(8, 5) == 10


def test_update_bound_ceiling_form_exhaustive_small_trees() -> None:
    """Every subset of leaves for n ≤ 16 (reference): cost = distinct ancestors ≤ m(1 + ⌈log2(n/m)⌉); and the
    floor form fails for some subset of every n ≥ 8."""
    for n in (1, 2, 4, 8, 16):
        f = ref.FlatFAT(sum_i64(), list(range(n)))
        floor_broken = False
        for mask in range(1, 1 << n):
            locs = [i for i in range(n) if mask >> i & 1]
            f.combine_count = 0
            f.update([(i, mask) for i in locs])
            m = len(locs)
            ancestors = {(n + i) >> k for i in locs for k in range(1, n.bit_length())} - {0}
            assert f.combine_count == len(ancestors) <= ceil_bound(n, m), (n, locs)
            floor_broken |= f.combine_count > floor_bound(n, m)
        assert floor_broken == (n >= 8), n


@pytest.mark.parametrize("impl", list(IMPLS))
def test_update_bound_ceiling_form_random_many_sizes(impl: str) -> None:
    rng = random.Random(2)
    for n in (32, 64, 256, 1024):
        for m in sorted({1, 2, 3, 5, 7, n // 8, n // 4 + 1, n // 2 - 1, n - 1, n}):
            for _ in range(4):
                locs = rng.sample(range(n), m)
                assert update_cost(IMPLS[impl], n, locs) <= ceil_bound(n, m), (n, m)
        # one leaf: exactly one walk
        assert update_cost(IMPLS[impl], n, [rng.randrange(n)]) == int(math.log2(n))


MONOIDS: dict[str, Callable[[], Monoid[Any, Any, Any]]] = {
    "string_concat": string_concat,
    "matrix2x2": matrix2x2,
    "max_count": max_count,
}


def gen_agg(name: str, rng: random.Random) -> Any:
    if name == "string_concat":
        return rng.choice(["a", "b", "c", "de", ""])
    if name == "matrix2x2":
        return tuple(rng.randint(-2, 2) for _ in range(4))
    return (rng.randint(0, 3), rng.randint(1, 2))  # max_count aggregates (max, count)


@pytest.mark.parametrize("impl", list(IMPLS))
@pytest.mark.parametrize("mname", list(MONOIDS))
def test_prefix_suffix_aggregate_vs_brute_force(impl: str, mname: str) -> None:
    rng = random.Random(5)
    m = MONOIDS[mname]()
    for n in (1, 2, 4, 8, 16, 64):
        leaves = [gen_agg(mname, rng) for _ in range(rng.randint(0, n))]
        f = IMPLS[impl](m, leaves, n)
        full = leaves + [m.identity] * (n - len(leaves))
        assert m.eq(f.aggregate(), brute(m, full, 0, n - 1))
        for i in range(n):
            f.combine_count = 0
            assert m.eq(f.prefix(i), brute(m, full, 0, i)), (n, i)
            assert f.combine_count <= math.log2(n)
            f.combine_count = 0
            assert m.eq(f.suffix(i), brute(m, full, i, n - 1)), (n, i)
            assert f.combine_count <= math.log2(n)
            assert m.eq(f.leaf(i), full[i])
        check_flatfat(f.snapshot(), m, full)


@pytest.mark.parametrize("impl", list(IMPLS))
def test_duplicate_locations_last_write_wins(impl: str) -> None:
    f = IMPLS[impl](string_concat(), list("abcd"))
    f.combine_count = 0
    f.update([(1, "X"), (2, "Y"), (1, "Z"), (2, "W"), (1, "Q")])
    assert f.leaves() == ["a", "Q", "W", "d"] and f.aggregate() == "aQWd"
    assert f.combine_count == 3  # two distinct leaves: parents {2, 3}, root


@pytest.mark.parametrize("impl", list(IMPLS))
def test_bad_input_changes_nothing(impl: str) -> None:
    cls = IMPLS[impl]
    f = cls(sum_f64(), [1.0, 2.0, 3.0])
    assert f.capacity == 4 and len(f) == 4
    before, count = f.snapshot(), f.combine_count
    with pytest.raises(IndexError):
        f.update([(0, 5.0), (4, 1.0)])
    with pytest.raises(IndexError):
        f.prefix(-1)
    with pytest.raises(TypeError):
        f.update([(0, 5.0), (1, "x")])
    with pytest.raises(ValueError):
        f.update([(0, 5.0), (1, math.nan)])
    with pytest.raises(TypeError):
        f.update([(0, 2**60)])  # not exactly representable as float64
    assert f.snapshot() == before and f.combine_count == count
    with pytest.raises(ValueError):
        cls(sum_f64(), [1.0, 2.0, 3.0], 3)
    with pytest.raises(ValueError):
        cls(sum_f64(), [1.0, 2.0, 3.0], 2)
    with pytest.raises(TypeError):
        cls(sum_i64(), [1, "2"])


def test_checker_names_the_broken_invariant() -> None:
    f = ref.FlatFAT(string_concat(), list("abcd"))
    s = f.snapshot()
    nodes = list(s.nodes)
    nodes[2] = "ba"
    with pytest.raises(InvariantViolation) as err:
        check_flatfat(FlatFATState(4, tuple(nodes)), string_concat())
    assert err.value.invariant == "node" and "h=2" in err.value.detail
    with pytest.raises(InvariantViolation) as err:
        check_flatfat(FlatFATState(3, s.nodes[:6]), string_concat())
    assert err.value.invariant == "capacity"
    with pytest.raises(InvariantViolation) as err:
        check_flatfat(s, string_concat(), list("abcx"))
    assert err.value.invariant == "leaves"


def test_registered_as_a_tree_not_a_fifo_swag() -> None:
    info = registry.algorithm("flatfat")
    assert info.kind.name == "tree" and info.class_name == "FlatFAT"
    assert registry.resolve_class("flatfat", "reference") is ref.FlatFAT
    assert registry.resolve_class("flatfat", "optimized") is opt.FlatFAT


# --------------------------------------------------------------------------------- differential (compiled)

TYPED_VALUES: dict[str, Callable[[random.Random], Any]] = {
    "sum_f64": lambda r: r.choice([r.uniform(-1e6, 1e6), 0.1, -0.0, 1e308, float(r.randint(-3, 3))]),
    "max_f64": lambda r: r.choice([r.uniform(-1e6, 1e6), -0.0, 0.0, math.inf, -math.inf]),
    "min_f64": lambda r: r.choice([r.uniform(-1e6, 1e6), -0.0, 0.0, math.inf, -math.inf]),
    "sum_i64": lambda r: r.choice([r.randint(-(2**63), 2**63 - 1), r.randint(-5, 5)]),
    "max_i64": lambda r: r.choice([r.randint(-(2**63), 2**63 - 1), r.randint(-5, 5)]),
    "min_i64": lambda r: r.choice([r.randint(-(2**63), 2**63 - 1), r.randint(-5, 5)]),
}


def _canon(x: Any) -> Any:
    return repr(x)  # floats bit for bit up to repr (which distinguishes -0.0, inf, every double)


@pytest.mark.parametrize("mname", [*MONOIDS, *TYPED_VALUES])
def test_optimized_matches_reference(mname: str) -> None:
    from swagkit.spec.library import LIBRARY

    m = LIBRARY[mname].factory()
    rng = random.Random(11)
    gen: Callable[[random.Random], Any] = TYPED_VALUES.get(mname) or (lambda r: gen_agg(mname, r))
    for n in (1, 2, 8, 64):
        leaves = [gen(rng) for _ in range(rng.randint(0, n))]
        a, r = opt.FlatFAT(m, leaves, n), ref.FlatFAT(m, leaves, n)
        for _ in range(60):
            k = rng.randint(1, n)
            pairs = [(rng.randrange(n), gen(rng)) for _ in range(k)]
            a.update(pairs)
            r.update(pairs)
            i = rng.randrange(n)
            assert _canon(a.prefix(i)) == _canon(r.prefix(i))
            assert _canon(a.suffix(i)) == _canon(r.suffix(i))
            assert _canon(a.aggregate()) == _canon(r.aggregate())
            assert a.combine_count == r.combine_count
            assert _canon(a.snapshot()) == _canon(r.snapshot())


def test_same_public_api_as_reference() -> None:
    import inspect

    for cls in (opt.FlatFAT, _fallback.FlatFAT):
        names = {n for n in dir(ref.FlatFAT) if not n.startswith("_") and callable(getattr(ref.FlatFAT, n))}
        got = {n for n in dir(cls) if not n.startswith("_") and callable(getattr(cls, n))}
        assert names <= got
        for n in names:
            assert inspect.signature(getattr(cls, n)) == inspect.signature(getattr(ref.FlatFAT, n)), n
        assert cls.algorithm == "flatfat"


# ------------------------------------------------------------------------------------- stateful (Hypothesis)


@pytest.mark.parametrize("impl", ["reference", "optimized"])
@pytest.mark.parametrize("mname", ["string_concat", "matrix2x2", "max_count", "max_f64", "collect"])
def test_flatfat_machine(impl: str, mname: str) -> None:
    """The registered ``tree`` machine (also run by ``swagkit verify``): model, invariants, exact update counts."""
    stats = run_machine("flatfat", mname, impl, max_examples=25, steps=20, seed=3)
    assert stats.examples > 0 and stats.steps > stats.examples


def test_debug_mode_wraps_flatfat_and_catches_a_corrupted_node() -> None:
    tree = ref.FlatFAT(string_concat(), list("abcd"))
    w = checked(tree)
    assert isinstance(w, CheckedTree)
    w.update([(1, "x"), (3, "y"), (1, "z")])  # last write wins
    assert w.aggregate() == "azcy" and w.prefix(1) == "az" and w.suffix(2) == "cy"
    with pytest.raises(IndexError):
        w.update([(0, "q"), (4, "r")])
    assert w.leaves() == list("azcy")  # the failed batch wrote nothing
    tree.T[2] = "broken"  # corrupt an internal node behind the wrapper's back
    with pytest.raises(InvariantViolationAt) as err:
        w.update([(3, "w")])
    assert err.value.invariant == "node" and "update" in err.value.operation


def test_debug_mode_catches_a_wrong_answer_and_an_over_budget_update() -> None:
    class WrongPrefix(ref.FlatFAT):
        def prefix(self, i: int) -> Any:
            return super().prefix(max(0, i - 1))

    w = checked(WrongPrefix(string_concat(), list("abcd")), algorithm="flatfat")
    with pytest.raises(ModelMismatchAt):
        w.prefix(2)

    class Wasteful(ref.FlatFAT):
        def update(self, pairs: Any) -> None:
            super().update(pairs)
            self.combine_count += 1  # one combine more than Algorithm 2 needs

    w2 = checked(Wasteful(string_concat(), list("abcd")), algorithm="flatfat")
    with pytest.raises(BudgetExceededAt):
        w2.update([(0, "x")])


def test_exhaustive_helper_agrees_with_itertools() -> None:
    # the ancestor count used above equals the number of distinct internal nodes on the leaves' paths
    n = 8
    for locs in itertools.combinations(range(n), 3):
        anc = {(n + i) >> k for i in locs for k in range(1, 4)}
        assert update_cost(ref.FlatFAT, n, list(locs)) == len(anc)
