"""FiBA (paper 003): the notes' fixtures, the errata as regression tests, bad input and stateful runs, on both
implementations (reference and optimized; the optimized one is the compiled extension or, with
``SWAGKIT_PUREPYTHON=1``, the pure-Python fallback).

Every check compares with the executable model (:class:`swagkit.spec.ooo.TimedWindow`) and runs the full
invariant checker (:func:`swagkit.spec.checkers.fiba.check_fiba`: every invariant of the notes' §2.5, locally
and globally). Monoids: ``string_concat``/``collect``/``matrix2x2`` (non-commutative: operand order matters) and
``max_count``/``max``/``sum`` (non-invertible or plain).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

import swagkit.optimized as opt
import swagkit.reference as ref
from swagkit.spec.checkers.fiba import check_fiba
from swagkit.spec.errors import EmptyWindowError, InvariantViolation, SwagkitError
from swagkit.spec.fiba import split_pieces
from swagkit.spec.library import LIBRARY, collect, string_concat, sum_f64, sum_monoid
from swagkit.spec.ooo import InvalidTimeError, MissingTimeError, TimedWindow, UnorderedBulkError
from swagkit.spec.snapshots import FiBANodeState, FiBAState
from swagkit.verify import registry
from swagkit.verify.kinds.out_of_order import checked_ooo
from swagkit.verify.machine import run_machine

IMPLS = ["reference", "optimized"]


def make(impl: str, monoid: Any, mu: int, loop: bool = False) -> Any:
    module = ref if impl == "reference" else opt
    return getattr(module, "FiBALoop" if loop else "FiBA")(monoid, mu)


def check(agg: Any, model: TimedWindow[Any, Any, Any]) -> None:
    check_fiba(agg.snapshot(), agg.monoid, model.items())
    assert agg.query() == model.query()
    assert len(agg) == len(model)


def levels(state: FiBAState) -> int:
    node, n = state.root, 1
    while node.children:
        node, n = node.children[0], n + 1
    return n


def internal_times_by_level(state: FiBAState) -> dict[int, list[Any]]:
    """Times held by internal nodes, by distance from the root."""
    out: dict[int, list[Any]] = {}
    stack = [(state.root, 0)]
    while stack:
        node, depth = stack.pop()
        if node.children:
            out.setdefault(depth, []).extend(node.times)
            stack.extend((c, depth + 1) for c in node.children)
    return out


def leaves(state: FiBAState) -> list[FiBANodeState]:
    out: list[FiBANodeState] = []
    stack = [state.root]
    while stack:
        node = stack.pop()
        if node.children:
            stack.extend(reversed(node.children))
        else:
            out.append(node)
    return out


# ---------------------------------------------------------------------------------------------- the model


def test_model_duplicates_policy_and_semantics() -> None:
    """bulk_insert ≡ consecutive inserts: a collision combines old ⊗ new, in-bulk duplicates earlier ⊗ later."""
    w = TimedWindow(string_concat())
    w.insert(5, "e")
    w.bulk_insert([(1, "a"), (5, "X"), (5, "Y"), (7, "g"), (7, "h")])
    assert w.items() == [(1, "a"), (5, "eXY"), (7, "gh")]
    assert w.query() == "aeXYgh" and w.range_query(5, 7) == "eXYgh" and w.range_query(2, 4) == ""
    assert w.range_query(7, 5) == "" and w.bulk_evict(5) == 2 and w.oldest() == 7 == w.youngest()
    for bad in (lambda: w.remove(99), lambda: w.bulk_insert([(3, "c"), (2, "b")]), lambda: w.insert(float("nan"), "z")):
        with pytest.raises((MissingTimeError, UnorderedBulkError, InvalidTimeError)):
            bad()
    assert w.items() == [(7, "gh")]


# ---------------------------------------------------------------------------------------------- stateful runs


@pytest.fixture(scope="module")
def by_mu() -> Any:
    """Test ids for every μ (``swagkit verify``'s fiba_mu2/fiba_mu8 run a third of the examples; here every μ
    gets them all)."""
    infos = [
        registry.AlgorithmInfo(
            f"fiba_test_mu{mu}",
            "FiBA",
            f"FiBA (μ={mu})",
            "003",
            checker="fiba",
            budget="fiba",
            kind="out_of_order",
            params={"min_arity": mu},
        )
        for mu in (2, 3, 4, 8)
    ]
    for info in infos:
        registry.register_algorithm(info)
    try:
        yield {info.params["min_arity"]: info.id for info in infos}
    finally:
        for info in infos:
            registry.unregister_algorithm(info.id)


# every μ with a non-commutative and a non-invertible monoid; μ = 2 and 4 with two of each
STATEFUL = [(mu, m) for mu in (2, 3, 4, 8) for m in ("string_concat", "max_count")] + [
    (mu, m) for mu in (2, 4) for m in ("matrix2x2", "argmax")
]


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize(("mu", "monoid"), STATEFUL)
def test_stateful(impl: str, mu: int, monoid: str, by_mu: dict[int, str]) -> None:
    """The out-of-order machine (every operation, misuse, collisions with internal-node keys, bulks at every
    boundary) for μ = 2, 3, 4, 8."""
    stats = run_machine(by_mu[mu], monoid, impl, max_examples=14, steps=40, seed=mu)
    assert stats.examples >= 14 and stats.max_window > 30


@pytest.mark.parametrize("impl", IMPLS)
def test_stateful_loop_baseline(impl: str) -> None:
    stats = run_machine("fiba_loop", "string_concat", impl, max_examples=30, steps=40, seed=7)
    assert stats.examples >= 10  # a registry variant: a third of the examples


# ---------------------------------------------------------------------------------------------- fixture 1


@pytest.mark.parametrize("impl", IMPLS)
def test_authors_bulk_insert_reproduction(impl: str) -> None:
    """Notes §7 item 1: the artifact's bulkInsert corrupts this tree (a bulk time already held by an internal
    node, with promotions reaching that node from both sides). Ours must not."""
    f = make(impl, collect(), 2)
    model = TimedWindow(collect())
    for t in range(0, 70, 10):
        f.insert(t, t)
        model.insert(t, t)
    s = f.snapshot()
    assert s.root.times == (20, 50)
    assert [c.times for c in s.root.children] == [(0, 10), (30, 40), (60,)]
    bulk = [(t, t) for t in (1, 2, 26, 27, 50, 52, 76, 81)]
    f.bulk_insert(bulk)
    model.bulk_insert(bulk)
    check(f, model)
    assert model.items()[model.times().index(50)][1] == (50, 50)  # old ⊗ new at the internal key


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("mu", [2, 4])
def test_bulk_insert_existing_times_random(impl: str, mu: int) -> None:
    """The notes' random test that failed 897 of 900 runs on the artifact: bulks with about a third existing
    times (internal nodes included), non-commutative, interleaved with bulk evictions."""
    rng = random.Random(mu)
    for run in range(12):
        f = make(impl, collect(), mu)
        model = TimedWindow(collect())
        for step in range(12):
            times = model.times()
            new = rng.sample(range(4000), rng.randrange(1, 60))
            old = rng.sample(times, min(len(times), len(new) // 2)) if times else []
            bulk = sorted((t, (run, step, t)) for t in set(new) | set(old))
            f.bulk_insert(bulk)
            model.bulk_insert(bulk)
            if rng.random() < 0.3 and model.times():
                t = rng.choice(model.times())
                assert f.bulk_evict(t) == model.bulk_evict(t)
        check(f, model)


# ---------------------------------------------------------------------------------------------- fixture 2

HEIGHTS = {2: range(3, 8), 3: range(3, 8), 4: range(3, 7), 8: range(3, 6)}


def tree_height(f: Any) -> int:
    """Levels of a reference FiBA, walking the leftmost path (O(height); a snapshot per step would make
    building a tall tree quadratic)."""
    height, node = 1, f.root
    while node.children:
        height, node = height + 1, node.children[0]
    return height


def random_tree_ops(mu: int, height: int, seed: int) -> list[tuple[str, Any]]:
    """A deterministic operation sequence building a random tree of exactly ``height`` levels: random bulks and
    single inserts at random places, a few removals (irregular arities). Retries with another seed in the rare
    case one bulk adds two levels at once."""
    for attempt in range(20):
        rng = random.Random(seed * 1000 + mu * 10 + height + attempt * 7919)
        probe = ref.FiBA(sum_monoid(), mu)
        ops: list[tuple[str, Any]] = []
        while tree_height(probe) < height:
            if rng.random() < 0.5:
                lo = rng.randrange(10**6)
                big = 1 << max(0, height - 4)  # larger bulks for taller trees: fewer operations to replay
                op: tuple[str, Any] = (
                    "bulk_insert",
                    sorted({(lo + rng.randrange(50 * mu * big), 1) for _ in range(rng.randrange(1, 8 * mu * big))}),
                )
            elif rng.random() < 0.9 or len(probe) < 10:
                op = ("insert", (rng.randrange(10**6 + 50 * mu), 1))
            else:
                op = ("remove", rng.choice(probe.times()))
            ops.append(op)
            apply(probe, [op])
        if levels(probe.snapshot()) == height:  # the snapshot's own count agrees with the cheap walk
            return ops
    raise AssertionError("could not build a tree of that height")  # pragma: no cover


def apply(f: Any, ops: list[tuple[str, Any]]) -> None:
    for name, arg in ops:
        if name == "bulk_insert":
            f.bulk_insert(arg)
        elif name == "insert":
            f.insert(*arg)
        else:
            f.remove(arg)


@pytest.mark.parametrize("mu", [2, 3, 4, 8])
def test_bulk_evict_every_boundary_position(mu: int) -> None:
    """Notes fixture 2: on random trees of heights 3–7 (μ = 2 and 3; 3–6 for μ = 4, whose height-7 trees
    hold tens of thousands of entries and take minutes to replay 2 × 25 times in pure Python; 3–5 for μ = 8), bulk evict
    below the oldest, at it, at an exact match in an internal node at every level, at the right finger's first key,
    above the youngest (and next to each). Contents equal the model's, every invariant holds, the left finger is the
    leftmost leaf; both implementations agree, counters included."""
    for height in HEIGHTS[mu]:
        ops = random_tree_ops(mu, height, seed=1)
        base = ref.FiBA(sum_monoid(), mu)
        apply(base, ops)
        state = base.snapshot()
        assert levels(state) == height
        times = base.times()
        rf_first = leaves(state)[-1].times[0]
        positions = [times[0] - 1, times[0], rf_first, rf_first - 1, times[-1], times[-1] + 1]
        for _depth, ts in sorted(internal_times_by_level(state).items()):
            positions += [ts[0], ts[len(ts) // 2], ts[-1], ts[len(ts) // 2] + 1]
        positions += [times[len(times) // 7], times[len(times) // 2]]
        for t in positions:
            results = []
            for impl in IMPLS:
                f = make(impl, sum_monoid(), mu)
                apply(f, ops)
                model: TimedWindow[Any, Any, Any] = TimedWindow(sum_monoid())
                apply(model, ops)
                c0, t0 = f.combine_count, f.touched_count
                assert f.bulk_evict(t) == model.bulk_evict(t)
                check(f, model)
                results.append((f.snapshot(), f.combine_count - c0, f.touched_count - t0))
            assert results[0] == results[1], f"implementations differ for bulk_evict({t}) at height {height}"


# ---------------------------------------------------------------------------------------------- fixture 3


def unchanged_subtrees(before: FiBAState, after: FiBAState, side: str) -> bool:
    """Whether the root's children other than the last (``side="right"``) / first (``"left"``) kept their
    subtrees (times and aggregates) -- a bulk at one extreme touches only that spine."""
    keep_b = before.root.children[:-1] if side == "right" else before.root.children[1:]
    keep_a = after.root.children[: len(keep_b)] if side == "right" else after.root.children[-len(keep_b) :]

    def strip(n: FiBANodeState) -> Any:
        return (n.times, n.agg, tuple(strip(c) for c in n.children))

    return [strip(n) for n in keep_b] == [strip(n) for n in keep_a]


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("mu", [2, 4])
def test_bulk_insert_extremes_interleaved_root_splits(impl: str, mu: int) -> None:
    """Notes fixture 3: bulks entirely after the youngest (right spine only), entirely before the oldest (left
    spine), interleaved in separated runs, one bulk splitting the root several times, and bulks mixing new and
    existing keys at leaf and internal levels."""
    m = string_concat()
    f = make(impl, m, mu)
    model = TimedWindow(m)
    base = [(t, "b") for t in range(1000, 1400, 2)]
    f.bulk_insert(base)
    model.bulk_insert(base)
    check(f, model)
    before = f.snapshot()
    right = [(t, "r") for t in range(2000, 2000 + 3 * mu)]
    f.bulk_insert(right)
    model.bulk_insert(right)
    check(f, model)
    after = f.snapshot()
    if after.root.times[: len(before.root.times)] == before.root.times:  # the root did not split
        assert unchanged_subtrees(before, after, "right")
    before = after
    left = [(t, "l") for t in range(0, 3 * mu)]
    f.bulk_insert(left)
    model.bulk_insert(left)
    check(f, model)
    after = f.snapshot()
    if after.root.times[-len(before.root.times) :] == before.root.times:
        assert unchanged_subtrees(before, after, "left")
    runs = [(t, "i") for lo in (1001, 1101, 1201, 1301) for t in range(lo, lo + 20, 2)]  # interleaved runs
    f.bulk_insert(runs)
    model.bulk_insert(runs)
    check(f, model)
    internal = sorted({t for ts in internal_times_by_level(f.snapshot()).values() for t in ts})
    mixed = sorted({(t, "x") for t in internal[::2]} | {(t + 0.5, "n") for t in internal[1::3]})
    f.bulk_insert(mixed)
    model.bulk_insert(mixed)
    check(f, model)
    small = make(impl, m, mu)
    small_model = TimedWindow(m)
    seed = [(t, "s") for t in range(5)]
    small.bulk_insert(seed)
    small_model.bulk_insert(seed)
    h0 = levels(small.snapshot())
    huge = [(t + 0.5, "h") for t in range(-3000, 3000)]
    small.bulk_insert(huge)  # p ≫ 2μ at the root: it splits, and so do the new roots above it
    small_model.bulk_insert(huge)
    check(small, small_model)
    assert levels(small.snapshot()) >= h0 + 3


# ---------------------------------------------------------------------------------------------- fixture 4


@pytest.mark.parametrize("mu", range(2, 9))
def test_claim1_split_pieces(mu: int) -> None:
    """Notes fixture 4 and Claim 1: every p in (2μ, 20μ] splits into pieces of arity μ+1 and a last one in
    [μ, 2μ]; t+1 pieces promote t separators. The appendix's errata: the last piece is μ+1+r (not μ+1+k) and
    t ≥ 1 (p = 2μ+1 gives μ+1 | μ, the single-insert split)."""
    assert split_pieces(2 * mu + 1, mu) == [mu + 1, mu]
    for p in range(2 * mu + 1, 20 * mu + 1):
        pieces = split_pieces(p, mu)
        assert sum(pieces) == p and len(pieces) >= 2
        assert all(b == mu + 1 for b in pieces[:-1]) and mu <= pieces[-1] <= 2 * mu
        k, r = divmod(p, mu + 1)
        assert pieces[-1] == (mu if r == mu else mu + 1 + r)
    assert split_pieces(11, 4) == [5, 6] and split_pieces(16, 2) == [3, 3, 3, 3, 4]  # the paper's examples


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("mu", [2, 3, 5])
def test_bulk_split_uses_claim1(impl: str, mu: int) -> None:
    """A root leaf overflowing to arity p is cut exactly into ``split_pieces(p, μ)`` (the leaf level keeps
    those pieces even when the new root splits again)."""
    for p in range(2 * mu + 1, 20 * mu + 1):
        f = make(impl, sum_monoid(), mu)
        f.bulk_insert([(t, 1) for t in range(p - 1)])
        assert [len(leaf.times) + 1 for leaf in leaves(f.snapshot())] == split_pieces(p, mu)
        f._check()


# ---------------------------------------------------------------------------------------------- fixture 5


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("mu", [2, 3, 4])
def test_m1_equivalence(impl: str, mu: int) -> None:
    """Notes fixture 5: bulk_insert([x]) ≡ insert(x) and bulk_evict(oldest) ≡ evict(): same contents, same
    query, and the same shape (bulkSplit of p = 2μ+1 is split; the merge-or-move choice is the same)."""
    rng = random.Random(mu)
    m = string_concat()
    single, bulk = make(impl, m, mu), make(impl, m, mu)
    model = TimedWindow(m)

    def shape(s: FiBAState) -> Any:
        def walk(n: FiBANodeState) -> Any:
            return (n.times, tuple(walk(c) for c in n.children))

        return walk(s.root)

    for step in range(400):
        if rng.random() < 0.6 or len(model) == 0:
            t, v = rng.randrange(300), rng.choice("abc")
            single.insert(t, v)
            bulk.bulk_insert([(t, v)])
            model.insert(t, v)
        else:
            single.evict()
            assert bulk.bulk_evict(model.oldest()) == 1
            model.evict()
        assert single.items() == bulk.items() == model.items()
        assert single.query() == bulk.query()
        assert shape(single.snapshot()) == shape(bulk.snapshot()), f"shapes differ at step {step}"
    check(single, model)
    check(bulk, model)


# ---------------------------------------------------------------------------------------------- spine repair


def spine_repair_run(f: Any) -> list[Any]:
    """Notes §6 (issue #77, the case the authors' random tests missed): the right node borrows from, then
    merges with, a left-spine sibling while removing from the newest end, with Sum at μ = 2."""
    model = TimedWindow(sum_monoid())
    for t in (1, 2, 3, 10, 20, 0):
        f.insert(t, t)
        model.insert(t, t)
    s = f.snapshot()
    assert s.root.times == (3,) and [c.times for c in s.root.children] == [(0, 1, 2), (10, 20)]
    answers = []
    for _ in range(4):
        t = model.youngest()
        f.remove(t)  # R underflows: move from the left-spine sibling, twice, then merge (height decrease)
        model.remove(t)
        check_fiba(f.snapshot(), f.monoid, model.items())
        answers.append((f.query(), model.query()))
    return answers


@pytest.mark.parametrize("impl", IMPLS)
def test_spine_repair_case(impl: str) -> None:
    for got, want in spine_repair_run(make(impl, sum_monoid(), 2)):
        assert got == want


class _Issue77(ref.FiBA):
    """The artifact before 9443d51 (``hitLeft |= sibling->leftSpine()`` missing): the reference's
    ``rebalanceAfterEvict`` loop without that one line."""

    def _rebalance_after_evict(self, node: Any, hit_left: bool, hit_right: bool, count_levels: bool = False) -> Any:
        mu = self.min_arity
        climbed = 0
        while node.parent is not None and node.arity < mu:
            parent = node.parent
            j = parent.child_index(node)
            if j == len(parent.children) - 1:
                sibling, sep = parent.children[j - 1], j - 1
            else:
                sibling, sep = parent.children[j + 1], j
            hit_left |= node.left_spine  # the sibling's left flag is forgotten
            hit_right |= sibling.right_spine or node.right_spine
            climbed += 1
            if sibling.arity <= mu:
                self._merge(parent, sep)
                if parent.parent is None and parent.arity == 1:
                    self._height_decrease()
                    node, hit_left, hit_right = self.root, True, True
                    break
                node = parent
            else:
                self._move(parent, sep, node)
                node = parent
                break
        return (node, hit_left, hit_right, climbed) if count_levels else (node, hit_left, hit_right)


def test_spine_repair_case_catches_the_artifact_bug() -> None:
    """Without the issue-#77 line the left spine keeps a stale aggregate, and the checker names it."""
    with pytest.raises(InvariantViolation) as err:
        spine_repair_run(_Issue77(sum_monoid(), 2))
    assert err.value.invariant in ("size", "G2 left", "C counts")  # the stale counts show first (len())


# ---------------------------------------------------------------------------------------------- errata & bounds


def test_root_arity_erratum() -> None:
    """Notes §2.2 / §7 item 12: a leaf root may hold 0 or 1 entries (the paper's 2 ≤ a fails for them); an
    internal root needs 2 children."""
    f = ref.FiBA(string_concat(), 2)
    f._check()
    f.insert(1, "a")
    f._check()
    s = f.snapshot()
    leaf = s.root
    bad_root = FiBANodeState(0, None, (), (), "a", 1, False, False, (leaf,))
    with pytest.raises(InvariantViolation):
        check_fiba(FiBAState(2, bad_root, 1, 1, 1), string_concat(), [(1, "a")])


def test_geomean_identity_erratum() -> None:
    """Notes §6 item 2: the artifact's GeometricMean identity was (1.0, 0) but must be a zero log-sum."""
    identity = LIBRARY["geomean"].factory().identity
    assert 0.0 in tuple(identity) and 1.0 not in tuple(identity)


@pytest.mark.parametrize("impl", IMPLS)
def test_duplicate_bulk_key_at_apex_first_time(impl: str) -> None:
    """Notes §7 item 14: a duplicated bulk key equal to the search apex's first time (the artifact pops its
    last breadcrumb and reads an empty deque). Duplicates fold before the search here."""
    m = string_concat()
    f = make(impl, m, 2)
    model = TimedWindow(m)
    base = [(t, "o") for t in range(0, 60, 3)]
    f.bulk_insert(base)
    model.bulk_insert(base)
    node = f.snapshot().root
    while node.children:
        node = node.children[-1]
    apex_first = node.times[0]
    bulk = [(apex_first, "x"), (apex_first, "y"), (apex_first, "z"), (apex_first + 1, "w")]
    f.bulk_insert(bulk)
    model.bulk_insert(bulk)
    check(f, model)


@pytest.mark.parametrize("impl", IMPLS)
def test_bulk_evict_work_is_log_m_not_n_nor_m(impl: str) -> None:
    """Theorem 1 (not §7.3's "log d"): bulk evict of m oldest entries visits O(log m) nodes -- flat in n, and
    far below m (the deferred free list: no eager freeing of the m evicted entries, notes §3.10)."""
    visits = {}
    for n in (2**10, 2**12, 2**14):
        f = make(impl, sum_monoid(), 4)
        f.bulk_insert([(t, 1) for t in range(n)])
        for m in (16, n // 4):
            g = make(impl, sum_monoid(), 4)
            g.bulk_insert([(t, 1) for t in range(n)])
            t0 = g.touched_count
            assert g.bulk_evict(m - 1) == m
            visits[n, m] = g.touched_count - t0
    assert max(visits[n, 16] for n in (2**10, 2**12, 2**14)) <= 2 * min(visits[n, 16] for n in (2**10, 2**12, 2**14))
    assert visits[2**14, 2**12] < 2**12 // 20


# ---------------------------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("loop", [False, True])
def test_bad_input_changes_nothing(impl: str, loop: bool) -> None:
    """An unordered bulk raises before changing anything; evict()/oldest()/youngest() on an empty window raise
    the in-order family's EmptyWindowError; remove of an absent time raises MissingTimeError; bad values, NaN
    times and incomparable times raise; nothing changes and the structure stays usable."""
    m = string_concat()
    f = make(impl, m, 2, loop)
    for call in (f.evict, f.oldest, f.youngest):
        with pytest.raises(EmptyWindowError):
            call()
    with pytest.raises(IndexError):  # EmptyWindowError is an IndexError, like the in-order family's
        f.evict()
    f.bulk_insert([(t, "v") for t in range(0, 40, 2)])
    before, counts = f.snapshot(), (f.combine_count, f.touched_count)

    def unchanged() -> None:
        assert f.snapshot() == before
        assert f.combine_count == counts[0]

    with pytest.raises(UnorderedBulkError):
        f.bulk_insert([(1, "a"), (5, "b"), (3, "c")])
    unchanged()
    with pytest.raises(MissingTimeError):
        f.remove(3)
    with pytest.raises(KeyError):  # MissingTimeError is a KeyError
        f.remove(5)
    assert f.snapshot() == before
    with pytest.raises(InvalidTimeError):
        f.insert(float("nan"), "z")
    with pytest.raises(InvalidTimeError):
        f.bulk_insert([(1, "a"), (float("nan"), "b")])
    unchanged()
    with pytest.raises(TypeError):
        f.insert("a string time", "z")  # incomparable with the int times: raised by the (read-only) search
    with pytest.raises(TypeError):
        f.bulk_insert([(1, "a"), ("b", "b")])  # raised by the order check
    assert f.items() == [(t, "v") for t in range(0, 40, 2)]
    assert isinstance(MissingTimeError("x"), SwagkitError) and isinstance(UnorderedBulkError("x"), ValueError)
    f.insert(41, "w")  # still usable
    assert f.youngest() == 41


@pytest.mark.parametrize("impl", IMPLS)
def test_bad_typed_value_changes_nothing(impl: str) -> None:
    f = make(impl, sum_f64(), 3)
    f.bulk_insert([(t, float(t)) for t in range(30)])
    before = f.snapshot()
    with pytest.raises(TypeError):
        f.insert(100, "not a float")
    with pytest.raises(TypeError):
        f.bulk_insert([(100, 1.0), (101, "x")])
    assert f.snapshot() == before and f.query() == sum(range(30))


class _Raises:
    def __init__(self) -> None:
        self.armed = False

    def combine(self, a: Any, b: Any) -> Any:
        if self.armed:
            raise RuntimeError("boom")
        return a + b


@pytest.mark.parametrize("impl", IMPLS)
def test_raising_combine_makes_it_refuse_updates(impl: str) -> None:
    """A user combine that raises half-way leaves an inconsistent tree: further updates raise SwagkitError
    (like the in-order family) instead of computing garbage."""
    from swagkit.spec.monoid import Monoid

    trap = _Raises()
    f = make(impl, Monoid(identity="", combine=trap.combine, name="trap"), 2)
    f.bulk_insert([(t, "x") for t in range(20)])
    trap.armed = True
    with pytest.raises(RuntimeError):
        f.evict()
    trap.armed = False
    for call in (lambda: f.insert(50, "y"), f.evict, lambda: f.bulk_evict(10), lambda: f.bulk_insert([(60, "z")])):
        with pytest.raises(SwagkitError):
            call()


# ---------------------------------------------------------------------------------------------- debug mode


@pytest.mark.parametrize("impl", IMPLS)
def test_debug_mode_dispatches_to_the_out_of_order_wrapper(impl: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from swagkit.verify import checked
    from swagkit.verify.kinds.out_of_order import CheckedOutOfOrder

    w = registry.create("fiba", "string_concat", impl, check=True)
    assert isinstance(w, CheckedOutOfOrder) and w.active_checks == ("model", "invariants", "budget")
    w.bulk_insert([(3, "c"), (1, "a")][::-1])
    w.insert(2, "b")
    assert w.query() == "abc" and w.range_query(2, 3) == "bc" and w.bulk_evict(1) == 1
    assert isinstance(checked(make(impl, string_concat(), 2)), CheckedOutOfOrder)
    monkeypatch.setenv("SWAGKIT_CHECK", "1")
    assert isinstance(registry.create("fiba_loop", "sum", impl), CheckedOutOfOrder)


def test_debug_mode_catches_a_corrupted_tree() -> None:
    from swagkit.verify.errors import InvariantViolationAt

    f = ref.FiBA(string_concat(), 2)
    w = checked_ooo(f)
    w.bulk_insert([(t, "abcdefgh"[t % 8]) for t in range(30)])
    f.root.children[1].agg = "oops"  # type: ignore[union-attr]
    with pytest.raises(InvariantViolationAt) as err:
        w.insert(100, "z")
    assert err.value.invariant in ("G1 up", "G4 inner") and "insert(100, 'z')" in str(err.value)


# ---------------------------------------------------------------------------------------------- range queries


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("mu", [2, 4])
def test_range_query_every_range(impl: str, mu: int) -> None:
    rng = random.Random(mu)
    m = string_concat()
    f = make(impl, m, mu)
    model = TimedWindow(m)
    for _ in range(6):
        bulk = sorted({(rng.randrange(200), rng.choice("abcdef")) for _ in range(30)}, key=lambda p: p[0])
        bulk = [p for k, p in enumerate(bulk) if k == 0 or p[0] != bulk[k - 1][0]]
        f.bulk_insert(bulk)
        model.bulk_insert(bulk)
    f.bulk_evict(20)
    model.bulk_evict(20)
    for a in range(-1, 202, 3):
        for b in range(a, 203, 7):
            assert f.range_query(a, b) == model.range_query(a, b), (a, b)
    assert f.range_query(50, 40) == ""


@pytest.mark.parametrize("impl", IMPLS)
def test_slide_array_driver(impl: str) -> None:
    """``slide`` (the array driver): count-based window answers, typed and generic."""
    import array

    values = [float(v) for v in range(-50, 150)]
    times = array.array("d", [float(t) for t in range(200)])
    f = make(impl, sum_f64(), 4)
    out = list(f.slide(times, array.array("d", values), 16))
    assert out == [sum(values[max(0, i - 15) : i + 1]) for i in range(200)]
    g = make(impl, string_concat(), 2)
    assert list(g.slide(range(5), "abcde", 3)) == ["a", "ab", "abc", "bcd", "cde"]
    with pytest.raises(ValueError):
        g.slide([], [], 0)
