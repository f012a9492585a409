"""FlatFAT (paper 002 §4): a perfect binary tree of partial aggregates stored in a flat array.

``n`` (the capacity) is a power of two. The array is heap-ordered and 1-based as in §4.3: the root is
``T[1]``, the children of ``h`` are ``2h`` and ``2h+1``, the parent is ``h // 2``; leaf ``i`` (0-based here:
the paper's ``a[i+1]``) is ``T[n + i]``. ``T[0]`` is unused (holds the identity). Every internal node holds the
combine of its children (4.1), so a node covering leaves ``a[j..k]`` holds ``a[j] ⊕ … ⊕ a[k]`` (4.2).

Leaves hold partial aggregates (elements of the monoid's ``Agg``, e.g. ``monoid.lift(x)`` or the identity ⊥).
For the typed kinds (sum/max/min × f64/i64) they are validated like ``as_f64``/``as_i64`` before anything
changes, exactly like the compiled implementation (numpy scalars included). Leaf indices are ints (numpy
integers too, through ``__index__``; not bools); anything else raises ``IndexError`` and changes nothing.

Complexity (Theorem 4.2, with the notes' erratum P1):

* ``FlatFAT(monoid, values)`` (``new``, Algorithm 1): exactly ``n − 1`` combines;
* ``update(pairs)`` (Algorithm 2) of ``m`` distinct leaves: at most ``m·(1 + ⌈log2(n/m)⌉)`` combines (one per
  distinct ancestor). The proof's floor form ``m + ⌊log2(n/m)⌋·m`` is false (e.g. n = 8, m = 5 on leaves
  {0, 2, 4, 6, 7} needs 7 > 5). Duplicate locations in one call are merged, last write wins;
* ``aggregate()``: 0 combines (the root); ``prefix(i)`` and ``suffix(j)`` (Algorithm 3): at most ``log2 n``
  combines each -- one per level where the walk from the leaf to the root meets a sibling on the relevant side.

Sizes: the capacity is at most :data:`MAX_CAPACITY` (``2**58`` on 64-bit machines: the ``2n`` nodes of 8 bytes
must be addressable); a larger power of two raises ``OverflowError`` before anything is allocated, in both
implementations.

Exception safety: *strong*. ``new`` builds the tree before the structure exists; ``update`` (Algorithm 2, one
bulk operation) keeps the overwritten leaves and nodes and puts them back if a ``combine`` raises (or Ctrl-C
arrives inside it), so the tree is exactly as before the call; ``prefix``/``suffix`` change nothing but
``combine_count``. Re-entrant or concurrent calls raise :class:`~swagkit.spec.errors.ReentrantCallError` before
any change (see :mod:`swagkit.reference._guard`; FlatFAT is not thread-safe). Copies and pickles go by snapshot.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from typing import Any

from swagkit.spec.library import as_f64, as_i64
from swagkit.spec.monoid import Monoid, as_monoid
from swagkit.spec.snapshots import FlatFATState

from ._guard import Guarded, guarded

__all__ = ["FlatFAT", "agg_validator", "is_power_of_two", "ceil_pow2", "check_capacity", "MAX_CAPACITY"]

#: the largest capacity (leaves) a FlatFAT may have: 2n nodes of 8 bytes must fit in ``sys.maxsize`` bytes
MAX_CAPACITY = 1 << ((sys.maxsize // 16).bit_length() - 1)


def is_power_of_two(n: int) -> bool:
    return n >= 1 and n & (n - 1) == 0


def ceil_pow2(n: int) -> int:
    """The smallest power of two ``≥ max(n, 1)``."""
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


def check_capacity(n: Any, what: str = "capacity", algorithm: str = "flatfat") -> int:
    """A capacity (number of leaves): an int (numpy integers too, not a bool) that is a power of two, else
    ``ValueError``; at most :data:`MAX_CAPACITY`, else ``OverflowError`` (before anything is allocated). Shared by
    both implementations of FlatFAT and the Reactive Aggregator."""
    if isinstance(n, bool) or not hasattr(type(n), "__index__"):
        raise ValueError(f"{algorithm}: {what} must be a power of two ≥ 1, got {n!r}")
    k = int(n.__index__())
    if not is_power_of_two(k):
        raise ValueError(f"{algorithm}: {what} must be a power of two ≥ 1, got {n!r}")
    if k > MAX_CAPACITY:
        raise OverflowError(
            f"{algorithm}: {what} {k} exceeds the largest tree this machine can address ({MAX_CAPACITY} leaves)"
        )
    return k


def leaf_index(i: Any, n: int) -> int:
    """A leaf index ``0 ≤ i < n`` (an int or numpy integer, not a bool), else ``IndexError``."""
    if type(i) is int:
        k: int = i
    elif isinstance(i, bool) or not hasattr(type(i), "__index__"):
        raise IndexError(f"flatfat: leaf index {i!r} out of range 0..{n - 1}")
    else:
        k = int(i.__index__())
    if not 0 <= k < n:
        raise IndexError(f"flatfat: leaf index {i!r} out of range 0..{n - 1}")
    return k


_F64 = ("sum_f64", "max_f64", "min_f64")
_I64 = ("sum_i64", "max_i64", "min_i64")


def agg_validator(monoid: Monoid[Any, Any, Any]) -> Callable[[Any], Any] | None:
    """``as_f64``/``as_i64`` for a typed kind whose identity validates (the compiled fast path's condition),
    else ``None`` (generic: values are stored as given)."""
    kind = getattr(monoid, "fast_path", None)
    check: Callable[[Any], Any] | None = as_f64 if kind in _F64 else as_i64 if kind in _I64 else None
    if check is None:
        return None
    try:
        check(monoid.identity)
    except (TypeError, ValueError, OverflowError):
        return None
    return check


class FlatFAT(Guarded):
    """FlatFAT (id ``flatfat``; paper 002 §4) over ``monoid``: ``capacity`` leaves of partial aggregates.

    ``FlatFAT(monoid, values=(), capacity=None)`` is the paper's ``new``: leaf ``i`` holds ``values[i]`` and the
    remaining leaves the identity; ``capacity`` defaults to the smallest power of two ``≥ len(values)`` and must
    be a power of two ``≥ len(values)`` (``ValueError``) and at most :data:`MAX_CAPACITY` (``OverflowError``).
    Not a FIFO SWAG: its operations are ``update``, ``aggregate``, ``prefix``, ``suffix`` (plus ``leaf``,
    ``leaves``, ``snapshot``, ``combine_count``).

    Exception safety: *strong* -- a ``combine`` that raises inside ``update`` (Algorithm 2) leaves every leaf
    and node exactly as before the call (the overwritten values are kept and put back). Not thread-safe:
    overlapping calls raise :class:`~swagkit.spec.errors.ReentrantCallError` and change nothing.
    """

    algorithm = "flatfat"
    exception_safety = "strong"

    def __init__(self, monoid: Monoid[Any, Any, Any], values: Iterable[Any] = (), capacity: int | None = None) -> None:
        monoid = as_monoid(monoid, self.algorithm)
        self.monoid = monoid
        self.combine_count = 0
        self._combine = monoid.combine
        self._one: Any = monoid.identity
        self._check = agg_validator(monoid)
        self._init_guard()
        vals = self._validated(values)
        n = ceil_pow2(len(vals)) if capacity is None else check_capacity(capacity)
        if n < len(vals):
            raise ValueError(f"flatfat: capacity must be a power of two ≥ len(values) = {len(vals)}, got {capacity!r}")
        check_capacity(n)
        self.T: list[Any] = self._built(vals, n)
        self.n = n

    # ------------------------------------------------------------------------------------------------ helpers
    # (unguarded: the Reactive Aggregator drives its tree through them while holding its own guard)

    def _otimes(self, a: Any, b: Any) -> Any:
        """``a ⊕ b``, counted."""
        self.combine_count += 1
        return self._combine(a, b)

    def _validated(self, values: Iterable[Any]) -> list[Any]:
        check = self._check
        return [check(v) for v in values] if check is not None else list(values)

    def _built(self, leaves: list[Any], n: int) -> list[Any]:
        """Algorithm 1 in the flat layout, on a new array (the caller installs it once every ⊕ has returned):
        ``for h = n−1 … 1: T[h] = T[2h] ⊕ T[2h+1]``. ``n − 1`` combines."""
        T = [self._one] * (2 * n)
        T[n : n + len(leaves)] = leaves
        for h in range(n - 1, 0, -1):
            T[h] = self._otimes(T[2 * h], T[2 * h + 1])
        return T

    def _clear(self, n: int) -> None:
        """Every node ← ⊥ for a tree of ``n`` leaves, without combines (⊥ ⊕ ⊥ = ⊥)."""
        self.T = [self._one] * (2 * n)
        self.n = n

    def _write_leaf(self, i: int, v: Any) -> None:
        """``T(leaf(i)) ← v`` without propagation (the caller propagates)."""
        self.T[self.n + i] = v

    def _propagate(self, locs: Iterable[int]) -> None:
        """Algorithm 2, lines 3–…: recompute the distinct ancestors of the leaves ``locs`` level by level
        (``W_ℓ+1 = {parent(v) | v ∈ W_ℓ}``, deduplicated). One combine per distinct ancestor.

        Strong: if a combine raises, every node already recomputed gets its old value back."""
        T = self.T
        if self.n == 1:
            return
        level = sorted({(self.n + i) >> 1 for i in locs})
        saved: list[tuple[int, Any]] = []
        try:
            while level:
                nxt: list[int] = []
                for h in level:
                    r = self._otimes(T[2 * h], T[2 * h + 1])
                    saved.append((h, T[h]))
                    T[h] = r
                    p = h >> 1
                    if p >= 1 and (not nxt or nxt[-1] != p):
                        nxt.append(p)
                level = nxt
        except BaseException:
            for h, old in reversed(saved):
                T[h] = old
            raise

    def _check_loc(self, i: Any) -> int:
        return leaf_index(i, self.n)

    def _prefix(self, i: int) -> Any:
        h = self.n + i
        T = self.T
        acc = T[h]
        while h > 1:
            if h & 1:
                acc = self._otimes(T[h - 1], acc)
            h >>= 1
        return acc

    def _suffix(self, j: int) -> Any:
        h = self.n + j
        T = self.T
        acc = T[h]
        while h > 1:
            if not h & 1:
                acc = self._otimes(acc, T[h + 1])
            h >>= 1
        return acc

    # --------------------------------------------------------------------------------------------- operations

    @property
    def capacity(self) -> int:
        """The number of leaves ``n`` (a power of two)."""
        return self.n

    def __len__(self) -> int:
        return self.n

    @guarded
    def update(self, pairs: Iterable[tuple[int, Any]]) -> None:
        """Algorithm 2: ``a[loc] ← val`` for each ``(loc, val)``, then recompute the affected internal nodes.

        Duplicate locations are merged, the last write wins; at most ``m·(1 + ⌈log2(n/m)⌉)`` combines for ``m``
        distinct locations. All locations (``IndexError``) and values (typed kinds) are validated first: a bad
        pair changes nothing. Strong: a raising ``combine`` leaves the tree exactly as before."""
        writes: dict[int, Any] = {}
        check = self._check
        for loc, val in pairs:
            writes[self._check_loc(loc)] = check(val) if check is not None else val
        T, n = self.T, self.n
        old = [(i, T[n + i]) for i in writes]
        for i, v in writes.items():
            T[n + i] = v
        try:
            self._propagate(writes)
        except BaseException:
            for i, v in old:
                T[n + i] = v
            raise

    @guarded
    def aggregate(self) -> Any:
        """``a[0] ⊕ … ⊕ a[n−1]``: the root. No combine."""
        return self.T[1]

    @guarded
    def prefix(self, i: int) -> Any:
        """``a[0] ⊕ … ⊕ a[i]`` (the paper's ``prefix(i+1)``, Algorithm 3): walk from leaf ``i`` to the root,
        ``acc ← T(left sibling) ⊕ acc`` whenever the walk comes from a right child. At most ``log2 n`` combines."""
        return self._prefix(self._check_loc(i))

    @guarded
    def suffix(self, j: int) -> Any:
        """``a[j] ⊕ … ⊕ a[n−1]`` (the paper's ``suffix(j+1)``): the mirror walk, ``acc ← acc ⊕ T(right sibling)``
        whenever the walk comes from a left child. At most ``log2 n`` combines."""
        return self._suffix(self._check_loc(j))

    @guarded
    def leaf(self, i: int) -> Any:
        """``a[i]``."""
        return self.T[self.n + self._check_loc(i)]

    @guarded
    def leaves(self) -> list[Any]:
        """``[a[0], …, a[n−1]]``."""
        return self.T[self.n :]

    @guarded
    def snapshot(self) -> FlatFATState:
        return FlatFATState(capacity=self.n, nodes=tuple(self.T))

    @classmethod
    def _from_snapshot(cls, monoid: Monoid[Any, Any, Any], snapshot: FlatFATState) -> FlatFAT:
        """The tree whose :meth:`snapshot` is ``snapshot`` (copying and pickling; no ⊕ call). The shape is
        validated (``ValueError``/``OverflowError``) and typed values like :meth:`update`'s."""
        n = check_capacity(snapshot.capacity)
        nodes = list(snapshot.nodes)
        if len(nodes) != 2 * n:
            raise ValueError(f"flatfat: a snapshot of capacity {n} has {2 * n} nodes, got {len(nodes)}")
        tree = cls(monoid, (), 1)
        tree.T = tree._validated(nodes)
        tree.n = n
        return tree

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.monoid.name}, capacity={self.n})"
