"""Debug mode and the state machine of the ``tree`` kind: FlatFAT (paper 002 §4), which is not a FIFO SWAG.

FlatFAT's ADT is a fixed-capacity array ``a[0..n−1]`` of aggregates with ``update(pairs)`` (bulk leaf writes,
duplicate locations merged last-write-wins), ``aggregate()``, ``prefix(i)``, ``suffix(j)``, ``leaf(i)`` and
``leaves()``. Its executable model is the plain list of leaves; every query is a left fold over it.

:class:`CheckedTree` wraps a FlatFAT (reference, optimized, or a user's own with the same API and
``snapshot()``/``combine_count``) and after every operation checks

* **model** -- every answer equals the fold of the model's leaves (``monoid.eq``), and bad input (an
  out-of-range location, a value a typed kind rejects) raises and changes neither the snapshot nor the model;
* **invariants** -- :func:`~swagkit.spec.checkers.check_flatfat` on ``snapshot()`` against the model's leaves
  (every internal node is the combine of its children, the leaves are the model's);
* **budget** -- an update's combines equal the number of distinct proper ancestors of the written leaves
  (the exact count of Algorithm 2) and stay within Theorem 4.2(ii)'s ``m·(1 + ⌈log2(n/m)⌉)``; ``prefix`` and
  ``suffix`` use at most ``log2 n``, ``aggregate`` none.

:func:`run_tree_machine` is registered as the ``tree`` kind's machine, so ``swagkit verify`` covers FlatFAT
for every library monoid and implementation.
"""

from __future__ import annotations

import reprlib
from collections import deque
from typing import Any, Callable, Iterable

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from swagkit.spec.budgets import flatfat_new_combines, flatfat_query_bound, flatfat_update_bound, flatfat_update_exact
from swagkit.spec.checkers import check_flatfat
from swagkit.spec.errors import BudgetExceeded, InvariantViolation
from swagkit.spec.library import LIBRARY
from swagkit.spec.monoid import Monoid, fold

from . import registry
from .debug import register_checked
from .errors import BudgetExceededAt, InvariantViolationAt, ModelMismatchAt
from .faults import FaultInjector, InjectedFault, with_faults
from .machine import DEFAULT_MAX_WINDOW, MachineStats, register_machine, run_machine_class
from .strategies import strategy_for

__all__ = ["CheckedTree", "checked_tree", "make_tree_machine", "run_tree_machine"]

_repr = reprlib.Repr()
_repr.maxstring = 40
_repr.maxother = 40
_repr.maxlist = 6
_repr.maxtuple = 6

SOURCE = "002 Theorem 4.2 and Algorithm 3"


class CheckedTree:
    """A FlatFAT plus its model (the list of leaves), checked after every operation (see the module docstring).

    ``leaves`` gives the leaves the wrapped tree already holds (input values are not recoverable from a built
    tree); by default they are read from ``tree.leaves()`` and then checked against the snapshot at once.
    """

    def __init__(
        self,
        tree: Any,
        *,
        monoid: Monoid[Any, Any, Any] | None = None,
        algorithm: str | None = None,
        leaves: Iterable[Any] | None = None,
        history: int = 8,
    ) -> None:
        self.inner = tree
        m = monoid if monoid is not None else getattr(tree, "monoid", None)
        if not isinstance(m, Monoid):
            raise TypeError("checked() needs the tree's monoid: pass monoid=... or expose a .monoid attribute")
        self.monoid: Monoid[Any, Any, Any] = m
        algo = algorithm if algorithm is not None else getattr(tree, "algorithm", None)
        self.algorithm: str | None = algo if isinstance(algo, str) else None
        self.model: list[Any] = list(leaves) if leaves is not None else list(tree.leaves())
        if len(self.model) != len(tree):
            raise ValueError(f"checked(): {len(self.model)} leaves given for a tree of capacity {len(tree)}")
        self.operations = 0
        self._recent: deque[str] = deque(maxlen=history)
        self._has_count = isinstance(getattr(tree, "combine_count", None), int)
        self.active_checks = ("model", "invariants") + (("budget",) if self._has_count else ())
        self._verify("checked()")

    # ------------------------------------------------------------------------------------------- plumbing

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def __len__(self) -> int:
        return len(self.inner)

    def __repr__(self) -> str:
        return f"checked({self.inner!r})"

    def _count(self) -> int:
        return int(self.inner.combine_count) if self._has_count else 0

    def _start(self, label: str) -> None:
        self.operations += 1
        self._recent.append(label)

    def _fail_model(self, label: str, detail: str) -> ModelMismatchAt:
        return ModelMismatchAt(detail, label, self.operations, list(self._recent)[:-1])

    def _verify(self, label: str) -> None:
        try:
            check_flatfat(self.inner.snapshot(), self.monoid, self.model)
        except InvariantViolation as err:
            raise InvariantViolationAt.wrap(err, label, self.operations, list(self._recent)[:-1]) from None

    def _budget(self, label: str, operation: str, used: int, allowed: int) -> None:
        if self._has_count and used > allowed:
            err = BudgetExceeded("flatfat", operation, used, allowed, SOURCE)
            raise BudgetExceededAt.wrap(err, label, self.operations, list(self._recent)[:-1])

    def _same(self, got: Any, want: Any) -> bool:
        try:
            return bool(got == want) or self.monoid.eq(got, want)
        except Exception:
            return False

    # ----------------------------------------------------------------------------------------- operations

    def update(self, pairs: Iterable[tuple[int, Any]]) -> None:
        """``update`` checked: model writes last-write-wins, exact ancestor count, invariants."""
        pairs = list(pairs)
        label = f"update({_repr.repr(pairs)})"
        self._start(label)
        n = len(self.model)
        before_snapshot = self.inner.snapshot()
        c0 = self._count()
        try:
            self.inner.update(pairs)
        except Exception:
            # bad input: the tree must be unchanged (the spec promises "nothing lost"), the model too
            if self.inner.snapshot() != before_snapshot:
                raise self._fail_model(label, "update raised but changed the tree") from None
            raise
        used = self._count() - c0
        locs = {loc for loc, _ in pairs}
        for loc, val in pairs:
            self.model[loc] = val
        exact = flatfat_update_exact(n, locs)
        self._budget(label, f"update of {len(locs)} leaves (n={n})", used, flatfat_update_bound(n, len(locs)))
        if self._has_count and used != exact:
            err = BudgetExceeded("flatfat", f"update of {len(locs)} leaves (n={n}), exact count", used, exact, SOURCE)
            raise BudgetExceededAt.wrap(err, label, self.operations, list(self._recent)[:-1])
        self._verify(label)

    def _query(self, label: str, call: Callable[[], Any], want: Any, allowed: int) -> Any:
        self._start(label)
        c0 = self._count()
        got = call()
        self._budget(label, label, self._count() - c0, allowed)
        if not self._same(got, want):
            raise self._fail_model(label, f"{label} returned {_repr.repr(got)}, the model gives {_repr.repr(want)}")
        return got

    def aggregate(self) -> Any:
        """``a[0] ⊕ … ⊕ a[n−1]``, checked (0 combines)."""
        return self._query("aggregate()", self.inner.aggregate, fold(self.monoid, self.model), 0)

    def prefix(self, i: int) -> Any:
        """``a[0] ⊕ … ⊕ a[i]``, checked (≤ log2 n combines)."""
        n = len(self.model)
        want = fold(self.monoid, self.model[: i + 1]) if 0 <= i < n else None
        if want is None:
            self._start(f"prefix({i!r})")
            return self.inner.prefix(i)  # raises IndexError
        return self._query(f"prefix({i})", lambda: self.inner.prefix(i), want, flatfat_query_bound(n))

    def suffix(self, j: int) -> Any:
        """``a[j] ⊕ … ⊕ a[n−1]``, checked (≤ log2 n combines)."""
        n = len(self.model)
        want = fold(self.monoid, self.model[j:]) if 0 <= j < n else None
        if want is None:
            self._start(f"suffix({j!r})")
            return self.inner.suffix(j)  # raises IndexError
        return self._query(f"suffix({j})", lambda: self.inner.suffix(j), want, flatfat_query_bound(n))

    def leaf(self, i: int) -> Any:
        """``a[i]``, checked."""
        if not 0 <= i < len(self.model):
            self._start(f"leaf({i!r})")
            return self.inner.leaf(i)  # raises IndexError
        return self._query(f"leaf({i})", lambda: self.inner.leaf(i), self.model[i], 0)

    def leaves(self) -> list[Any]:
        """All leaves, checked."""
        self._start("leaves()")
        got = list(self.inner.leaves())
        if len(got) != len(self.model) or not all(self._same(g, w) for g, w in zip(got, self.model)):
            raise self._fail_model("leaves()", f"leaves() = {_repr.repr(got)}, the model holds {_repr.repr(self.model)}")
        return got


def checked_tree(tree: Any, *, monoid: Monoid[Any, Any, Any] | None = None, algorithm: str | None = None,
                 **_: Any) -> CheckedTree:
    """:class:`CheckedTree` around ``tree`` (an already checked tree is returned as is)."""
    if isinstance(tree, CheckedTree):
        return tree
    return CheckedTree(tree, monoid=monoid, algorithm=algorithm)


# --------------------------------------------------------------------------------------------- the machine


def make_tree_machine(
    algorithm_id: str, monoid_id: str, implementation: str = "reference", *, max_leaves: int = 64
) -> type[RuleBasedStateMachine]:
    """A state machine building a FlatFAT of a drawn power-of-two capacity (``≤ max_leaves``) and then mixing
    bulk updates (duplicates included), out-of-range updates that must change nothing, and every query."""
    info = registry.algorithm(algorithm_id)
    if info.kind != "tree":
        raise registry.RegistryError(f"{algorithm_id} is a {info.kind!r} algorithm; this machine checks trees")
    found = registry.resolve_class(algorithm_id, implementation)
    if found is None:
        raise registry.RegistryError(f"implementation {implementation!r} does not provide {algorithm_id}")
    cls: Callable[..., Any] = found
    factory = LIBRARY[monoid_id].factory
    values = strategy_for(monoid_id)
    top = max(0, max_leaves.bit_length() - 1)

    class Machine(RuleBasedStateMachine):
        stats = MachineStats()

        def __init__(self) -> None:
            super().__init__()
            self.monoid = factory()
            #: generic monoids: the tree gets a combine that can be told to raise once (``combine_raises``)
            self.faults: FaultInjector | None = None
            self.tree_monoid = self.monoid
            if self.monoid.fast_path is None:
                self.tree_monoid, self.faults = with_faults(self.monoid)
            self.tree: CheckedTree | None = None
            type(self).stats.examples += 1

        def _step(self) -> None:
            type(self).stats.steps += 1
            type(self).stats.operations += 1

        @precondition(lambda self: self.tree is None)
        @rule(k=st.integers(0, top), data=st.data())
        def new(self, k: int, data: st.DataObject) -> None:
            n = 1 << k
            vs = data.draw(st.lists(values, max_size=n), label="values")
            lifted = [self.monoid.lift(v) for v in vs]  # FlatFAT's leaves are aggregates
            raw = cls(self.tree_monoid, lifted, n)
            used = int(raw.combine_count)
            assert used == flatfat_new_combines(n), f"new() of {n} leaves used {used} combines, Theorem 4.2(i): n−1"
            self.tree = CheckedTree(raw, monoid=self.monoid, algorithm=algorithm_id,
                                    leaves=lifted + [self.monoid.identity] * (n - len(vs)))
            type(self).stats.max_window = max(type(self).stats.max_window, n)
            self._step()

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
            try:
                self.tree.update(batch)
            except IndexError:
                pass
            else:
                raise AssertionError(f"update with location {loc!r} on {n} leaves did not raise IndexError")
            self._step()

        @precondition(lambda self: self.tree is not None and self.faults is not None)
        @rule(data=st.data(), k=st.integers(1, 12))
        def combine_raises(self, data: st.DataObject, k: int) -> None:
            """The k-th ⊗ of a bulk update (or of the queries after it) raises once: the checked tree requires
            the update to leave the tree exactly as before, and the queries to answer like the model."""
            assert self.tree is not None and self.faults is not None
            n = len(self.tree)
            pairs = data.draw(st.lists(st.tuples(st.integers(0, n - 1), values), min_size=1, max_size=n + 2),
                              label="pairs")
            self.faults.arm(k)
            try:
                self.tree.update([(i, self.monoid.lift(v)) for i, v in pairs])
                i = data.draw(st.integers(0, n - 1), label="i")
                self.tree.prefix(i)
                self.tree.suffix(i)
            except InjectedFault:
                pass
            finally:
                self.faults.disarm()
            self.tree.aggregate()
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

    name = "".join(p.title() for p in f"{algorithm_id}_{monoid_id}_{implementation}".split("_"))
    Machine.__name__ = Machine.__qualname__ = f"{name}TreeMachine"
    Machine.stats = MachineStats()
    return Machine


def run_tree_machine(
    algorithm_id: str,
    monoid_id: str,
    implementation: str = "reference",
    *,
    max_examples: int = 40,
    steps: int = 50,
    seed: int | None = None,
    max_window: int = DEFAULT_MAX_WINDOW,
) -> MachineStats:
    """Run the tree machine for one combination (``max_window`` caps the capacity at a power of two ≤ it)."""
    machine = make_tree_machine(algorithm_id, monoid_id, implementation, max_leaves=max_window)
    run_machine_class(machine, max_examples, steps, seed)
    stats: MachineStats = machine.stats  # type: ignore[attr-defined]
    return stats


register_machine("tree", run_tree_machine)
register_checked("tree", checked_tree)
