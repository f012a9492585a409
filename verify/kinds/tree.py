"""The ``tree`` kind: FlatFAT (paper 002 §4), which is not a FIFO SWAG -- its debug mode and state machine.

FlatFAT's ADT is a fixed-capacity array ``a[0..n−1]`` of aggregates with ``update(pairs)`` (bulk leaf writes,
duplicate locations merged last-write-wins), ``aggregate()``, ``prefix(i)``, ``suffix(j)``, ``leaf(i)`` and
``leaves()``. Its executable model is the plain list of leaves; every query is a left fold over it.

:class:`CheckedTree` wraps a FlatFAT (reference, optimized, or a user's own with the same API and
``snapshot()``/``combine_count``) and after every operation checks

* **model** -- every answer equals the fold of the model's leaves (``monoid.eq``), and bad input (an
  out-of-range location, a value a typed kind rejects) raises and changes neither the snapshot nor the model;
* **invariants** -- the card's checker (FlatFAT's :func:`~swagkit.spec.checkers.check_flatfat`) on ``snapshot()``
  against the model's leaves (every internal node is the combine of its children, the leaves are the model's);
* **budget** -- (for a known algorithm) an update's combines equal the number of distinct proper ancestors of the
  written leaves (the exact count of Algorithm 2) and stay within Theorem 4.2(ii)'s ``m·(1 + ⌈log2(n/m)⌉)``; ``prefix``
  and ``suffix`` use at most ``log2 n``, ``aggregate`` none.

:data:`KIND` owns both, so ``swagkit verify`` covers FlatFAT for every library monoid and implementation.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from hypothesis import strategies as st
from hypothesis.stateful import invariant, precondition, rule

from swagkit.spec.budgets import flatfat_new_combines, flatfat_query_bound, flatfat_update_bound, flatfat_update_exact
from swagkit.spec.errors import BudgetExceeded, InvariantViolation
from swagkit.spec.monoid import Monoid, fold

from ..strategies import strategy_for
from .base import (
    SHORT_REPR,
    AlgorithmFacts,
    CheckedBase,
    Operation,
    Subject,
    checked_ids,
    expect_raises,
    monoid_of,
)
from .kind import Kind
from .machines import DEFAULT_MAX_WINDOW, KindMachine, bind

__all__ = ["KIND", "LeafArray", "CheckedTree", "checked_tree", "make_tree_machine"]

SOURCE = "002 Theorem 4.2 and Algorithm 3"


class LeafArray:
    """The executable model of the tree kind: FlatFAT's ADT, a fixed-capacity array ``a[0..n−1]`` of aggregates
    whose every query is a left fold (002 §4.1)."""

    def __init__(self, monoid: Monoid[Any, Any, Any], leaves: Iterable[Any]) -> None:
        self.monoid = monoid
        self.leaves_: list[Any] = list(leaves)

    def __len__(self) -> int:
        return len(self.leaves_)

    def update(self, pairs: Iterable[tuple[int, Any]]) -> None:
        """Write the leaves, last write wins."""
        for loc, val in pairs:
            self.leaves_[loc] = val

    def aggregate(self) -> Any:
        return fold(self.monoid, self.leaves_)

    def prefix(self, i: int) -> Any:
        return fold(self.monoid, self.leaves_[: i + 1])

    def suffix(self, j: int) -> Any:
        return fold(self.monoid, self.leaves_[j:])

    def leaf(self, i: int) -> Any:
        return self.leaves_[i]

    def leaves(self) -> list[Any]:
        return list(self.leaves_)


class CheckedTree(CheckedBase):
    """A FlatFAT plus its model (:class:`LeafArray`), checked after every operation (see the module docstring).

    ``leaves`` gives the leaves the wrapped tree already holds (input values are not recoverable from a built
    tree); by default they are read from ``tree.leaves()`` and then checked against the snapshot at once.
    """

    labels = SHORT_REPR

    def __init__(
        self,
        tree: Any,
        *,
        monoid: Monoid[Any, Any, Any] | None = None,
        algorithm: str | None = None,
        leaves: Iterable[Any] | None = None,
        history: int = 8,
        facts: AlgorithmFacts | None = None,
    ) -> None:
        super().__init__(tree, algorithm, history)
        self.monoid: Monoid[Any, Any, Any] = monoid_of(tree, monoid)
        self.model = LeafArray(self.monoid, leaves if leaves is not None else tree.leaves())
        if len(self.model) != len(tree):
            raise ValueError(f"checked(): {len(self.model)} leaves given for a tree of capacity {len(tree)}")
        _, _, card = checked_ids(self.algorithm, facts)
        #: the invariant checker of the algorithm's card (``None`` for an unknown algorithm: model only)
        self._checker: Callable[..., None] | None = card.checker if card is not None else None
        self._has_count = card is not None and isinstance(getattr(tree, "combine_count", None), int)
        self.active_checks = (
            ("model",) + (("invariants",) if self._checker else ()) + (("budget",) if self._has_count else ())
        )
        self._verify("checked()")

    def _count(self) -> int:
        return int(self.inner.combine_count) if self._has_count else 0

    def _verify(self, label: str) -> None:
        if self._checker is None:
            return
        try:
            self._checker(self.inner.snapshot(), self.monoid, self.model.leaves_)
        except InvariantViolation as err:
            raise self._invariant_at(err, label) from None

    def _budget(self, label: str, operation: str, used: int, allowed: int) -> None:
        if self._has_count and used > allowed:
            raise self._budget_at(BudgetExceeded(self._name(), operation, used, allowed, SOURCE), label)

    def _same(self, got: Any, want: Any) -> bool:
        try:
            return bool(got == want) or self.monoid.eq(got, want)
        except Exception:
            return False

    # ----------------------------------------------------------------------------------------- operations

    def update(self, pairs: Iterable[tuple[int, Any]]) -> None:
        """``update`` checked: model writes last-write-wins, exact ancestor count, invariants."""
        pairs = list(pairs)
        label = self._begin("update", pairs)
        n = len(self.model)
        before_snapshot = self._snapshot()
        c0 = self._count()
        try:
            self.inner.update(pairs)
        except Exception:
            # bad input: the tree must be unchanged (the spec promises "nothing lost"), the model too
            if self._snapshot() != before_snapshot:
                raise self._mismatch(label, "update raised but changed the tree") from None
            raise
        used = self._count() - c0
        locs = {loc for loc, _ in pairs}
        self.model.update(pairs)
        exact = flatfat_update_exact(n, locs)
        self._budget(label, f"update of {len(locs)} leaves (n={n})", used, flatfat_update_bound(n, len(locs)))
        if self._has_count and used != exact:
            raise self._budget_at(
                BudgetExceeded(self._name(), f"update of {len(locs)} leaves (n={n}), exact count", used, exact, SOURCE),
                label,
            )
        self._verify(label)

    def _query(self, name: str, arg: int | None, call: Callable[[], Any], want: Callable[[], Any], allowed: int) -> Any:
        """A checked query: out-of-range arguments go to the tree (which raises IndexError)."""
        label = self._begin(name, *(() if arg is None else (arg,)))
        if arg is not None and not 0 <= arg < len(self.model):
            return call()  # raises IndexError
        c0 = self._count()
        got = call()
        self._budget(label, label, self._count() - c0, allowed)
        expected = want()
        if not self._same(got, expected):
            raise self._mismatch(
                label, f"{label} returned {self.labels.repr(got)}, the model gives {self.labels.repr(expected)}"
            )
        return got

    def aggregate(self) -> Any:
        """``a[0] ⊕ … ⊕ a[n−1]``, checked (0 combines)."""
        return self._query("aggregate", None, self.inner.aggregate, self.model.aggregate, 0)

    def prefix(self, i: int) -> Any:
        """``a[0] ⊕ … ⊕ a[i]``, checked (≤ log2 n combines)."""
        bound = flatfat_query_bound(len(self.model))
        return self._query("prefix", i, lambda: self.inner.prefix(i), lambda: self.model.prefix(i), bound)

    def suffix(self, j: int) -> Any:
        """``a[j] ⊕ … ⊕ a[n−1]``, checked (≤ log2 n combines)."""
        bound = flatfat_query_bound(len(self.model))
        return self._query("suffix", j, lambda: self.inner.suffix(j), lambda: self.model.suffix(j), bound)

    def leaf(self, i: int) -> Any:
        """``a[i]``, checked."""
        return self._query("leaf", i, lambda: self.inner.leaf(i), lambda: self.model.leaf(i), 0)

    def leaves(self) -> list[Any]:
        """All leaves, checked."""
        label = self._begin("leaves")
        got = list(self.inner.leaves())
        want = self.model.leaves()
        if len(got) != len(want) or not all(self._same(g, w) for g, w in zip(got, want)):
            raise self._mismatch(label, f"leaves() = {self.labels.repr(got)}, the model holds {self.labels.repr(want)}")
        return got


def checked_tree(
    tree: Any,
    *,
    monoid: Monoid[Any, Any, Any] | None = None,
    algorithm: str | None = None,
    facts: AlgorithmFacts | None = None,
    leaves: Iterable[Any] | None = None,
    **_: Any,
) -> CheckedTree:
    """The tree kind's debug wrapper: :class:`CheckedTree` around ``tree`` (an already checked tree is returned
    as is)."""
    if isinstance(tree, CheckedTree):
        return tree
    return CheckedTree(tree, monoid=monoid, algorithm=algorithm, leaves=leaves, facts=facts)


# --------------------------------------------------------------------------------------------- the machine


class TreeMachine(KindMachine):
    """Base of the tree machines: no tree until the ``new`` rule builds one."""

    one_operation_per_step = True
    kind_name = "tree"

    def __init__(self) -> None:
        super().__init__()
        self.monoid, self.tree_monoid = self._monoids()
        self.tree: CheckedTree | None = None


def make_tree_machine(subject: Subject, monoid_id: str, max_window: int = DEFAULT_MAX_WINDOW) -> type[TreeMachine]:
    """A state machine building a FlatFAT of a drawn power-of-two capacity (``≤ max_window``) and then mixing
    bulk updates (duplicates included), out-of-range updates that must change nothing, and every query."""
    values = strategy_for(monoid_id)
    top = max(0, max_window.bit_length() - 1)

    class Machine(TreeMachine):
        @precondition(lambda self: self.tree is None)
        @rule(k=st.integers(0, top), data=st.data())
        def new(self, k: int, data: st.DataObject) -> None:
            n = 1 << k
            vs = data.draw(st.lists(values, max_size=n), label="values")
            lifted = [self.monoid.lift(v) for v in vs]  # FlatFAT's leaves are aggregates
            raw = self.subject.factory(self.tree_monoid, lifted, n)
            if self.subject.facts is not None:  # a known algorithm: Theorem 4.2(i)
                used = int(raw.combine_count)
                assert used == flatfat_new_combines(n), f"new() of {n} leaves used {used} combines, Theorem 4.2(i): n−1"
            self.tree = checked_tree(
                raw,
                monoid=self.monoid,
                algorithm=self.subject.name,
                facts=self.subject.facts,
                leaves=lifted + [self.monoid.identity] * (n - len(vs)),
            )
            self._step(n)

        @precondition(lambda self: self.tree is not None)
        @rule(data=st.data())
        def update(self, data: st.DataObject) -> None:
            assert self.tree is not None
            n = len(self.tree)
            pairs = data.draw(st.lists(st.tuples(st.integers(0, n - 1), values), max_size=n + 2), label="pairs")
            self.tree.update([(i, self.monoid.lift(v)) for i, v in pairs])
            self._step()

        @precondition(lambda self: self.tree is not None)
        @rule(data=st.data(), bad=st.sampled_from([-1, "n", 1.0]))
        def update_out_of_range(self, data: st.DataObject, bad: Any) -> None:
            """A batch with one bad location raises IndexError and writes none of the batch."""
            assert self.tree is not None
            n = len(self.tree)
            loc: Any = n if bad == "n" else bad
            good = data.draw(st.lists(st.tuples(st.integers(0, n - 1), values), max_size=3), label="good")
            batch = [(i, self.monoid.lift(v)) for i, v in good] + [(loc, self.monoid.identity)]
            tree = self.tree
            expect_raises(lambda: tree.update(batch), IndexError, f"update with location {loc!r} on {n} leaves")
            self._step()

        @precondition(lambda self: self.tree is not None and self.faults is not None)
        @rule(data=st.data(), k=st.integers(1, 12))
        def combine_raises(self, data: st.DataObject, k: int) -> None:
            """The k-th ⊗ of a bulk update (or of the queries after it) raises once: the checked tree requires
            the update to leave the tree exactly as before, and the queries to answer like the model."""
            tree = self.tree
            assert tree is not None
            n = len(tree)
            pairs = data.draw(
                st.lists(st.tuples(st.integers(0, n - 1), values), min_size=1, max_size=n + 2), label="pairs"
            )

            def under_fault() -> None:
                tree.update([(i, self.monoid.lift(v)) for i, v in pairs])
                i = data.draw(st.integers(0, n - 1), label="i")
                tree.prefix(i)
                tree.suffix(i)

            self._under_fault(k, under_fault)
            tree.aggregate()
            self._step()

        @precondition(lambda self: self.tree is not None)
        @rule(data=st.data())
        def queries(self, data: st.DataObject) -> None:
            assert self.tree is not None
            i = data.draw(st.integers(0, len(self.tree) - 1), label="i")
            self.tree.prefix(i)
            self.tree.suffix(i)
            self.tree.leaf(i)
            self.tree.aggregate()
            self._step()

        @invariant()
        def agrees(self) -> None:
            if self.tree is not None:
                self.tree.aggregate()

    return bind(Machine, subject, monoid_id, max_window, suffix="TreeMachine")


KIND = Kind(
    name="tree",
    title="FlatFAT tree (fixed-capacity array of aggregates)",
    model=LeafArray,
    operations=(
        Operation(
            "update",
            True,
            "update(pairs): write (location, aggregate) pairs, last write wins; IndexError "
            "for a bad location, writing none",
        ),
        Operation("aggregate", True, "aggregate(): a[0] ⊕ … ⊕ a[n−1]"),
        Operation("prefix", True, "prefix(i): a[0] ⊕ … ⊕ a[i]"),
        Operation("suffix", True, "suffix(j): a[j] ⊕ … ⊕ a[n−1]"),
        Operation("leaf", True, "leaf(i): a[i]"),
        Operation("leaves", True, "leaves(): every leaf"),
        Operation("__len__", True, "len(): the capacity n"),
        Operation("snapshot", False, "snapshot(): the state the invariant checker reads", model=False),
        Operation("combine_count", False, "combine_count: ⊗ calls so far (the budget is metered on it)", model=False),
    ),
    checked=checked_tree,
    make_machine=make_tree_machine,
)
