"""Deliberately broken out-of-order aggregators (issue 14 §1): each bug needs a specific shape of operations --
a bulk whose key already sits in an internal node of a B-tree (at any level, or only in a tree three levels
deep), a time repeated inside one bulk, a bulk that changes the size, two queries in a row -- and the
``ooo`` machine must find every one at ``verify_aggregator``'s defaults. The shapes are the bugs the machines
found in a public C++ FiBA (issue 14's opening). Not collected by pytest."""

from __future__ import annotations

from itertools import groupby
from typing import Any

from swagkit.reference import FiBA
from swagkit.spec.ooo import TimedWindow, check_bulk_order


class _CollidingBulkNewFirst(FiBA):
    """A FiBA whose bulk insert, at a key already held by a node ``min_level`` or more levels above the leaves,
    combines new ⊗ old (the wrong order) -- invisible to commutative monoids and to leaf collisions."""

    min_level = 1

    def _multisearch(self, keys: list[Any], vals: list[Any]) -> tuple[list[Any], list[tuple[Any, ...]]]:
        leaf_events, matches = super()._multisearch(keys, vals)
        for seq, node, i, level in matches:
            if level >= self.min_level:  # the caller folds node.values[i] ⊗ vals[seq]: swap the operands
                vals[seq], node.values[i] = node.values[i], vals[seq]
        return leaf_events, matches


class InternalKeyBulkNewFirst(_CollidingBulkNewFirst):
    """Bulk key colliding with an internal node's key: new ⊗ old."""


class DeepKeyBulkNewFirst(_CollidingBulkNewFirst):
    """Bulk key colliding with a key two or more levels above the leaves (a tree of height ≥ 3): new ⊗ old."""

    min_level = 2


class BulkRepeatDropsLast(TimedWindow[Any, Any, Any]):
    """A bulk that repeats a time keeps all but the last value of the run (an off-by-one in the fold of equal
    times)."""

    def bulk_insert(self, pairs: Any) -> None:
        items = list(pairs)
        check_bulk_order([t for t, _ in items])
        kept: list[tuple[Any, Any]] = []
        for _, run in groupby(items, key=lambda p: p[0]):
            group = list(run)
            kept.extend(group[:-1] if len(group) > 1 else group)
        super().bulk_insert(kept)


class BulkSizeStale(TimedWindow[Any, Any, Any]):
    """A size counter that the single-entry operations keep and the bulk operations never update."""

    def __init__(self, monoid: Any) -> None:
        super().__init__(monoid)
        self._n = 0

    def insert(self, time: Any, value: Any) -> None:
        fresh = time not in self
        super().insert(time, value)
        self._n += fresh

    def evict(self) -> None:
        super().evict()
        self._n -= 1

    def remove(self, time: Any) -> None:
        super().remove(time)
        self._n -= 1

    def __len__(self) -> int:
        return self._n


class StaleSecondQuery(TimedWindow[Any, Any, Any]):
    """In-order inserts wait in a tail buffer; ``query()`` answers window ⊗ tail correctly, then moves the tail
    into the window but keeps the window's cached aggregate: the second query in a row misses the tail."""

    def __init__(self, monoid: Any) -> None:
        super().__init__(monoid)
        self._tail: list[tuple[Any, Any]] = []
        self._cache: Any = None

    def _flush(self) -> None:
        for t, v in self._tail:
            super().insert(t, v)
        self._tail = []
        self._cache = None

    def insert(self, time: Any, value: Any) -> None:
        last = self._tail[-1][0] if self._tail else (self._times[-1] if self._times else None)
        if last is not None and last < time:
            self.monoid.lift(value)  # a bad value raises before anything changes
            self._tail.append((time, value))
            return
        self._flush()
        super().insert(time, value)

    def query(self) -> Any:
        if self._cache is None:
            self._cache = self.aggregate()
        agg = self._cache
        for _, v in self._tail:
            agg = self.monoid.combine(agg, self.monoid.lift(v))
        for t, v in self._tail:  # the bug: the tail joins the window, the cache stays as it was
            TimedWindow.insert(self, t, v)
        self._tail = []
        return self.monoid.lower(agg)

    def __len__(self) -> int:
        return len(self._times) + len(self._tail)


def _flushing(name: str) -> Any:
    def method(self: StaleSecondQuery, *args: Any) -> Any:
        self._flush()
        return getattr(TimedWindow, name)(self, *args)

    method.__name__ = name
    return method


for _name in ("evict", "remove", "bulk_evict", "bulk_insert", "range_query", "oldest", "youngest", "times"):
    setattr(StaleSecondQuery, _name, _flushing(_name))

#: every planted out-of-order bug, by name
PLANTED_OOO = {
    cls.__name__: cls
    for cls in (InternalKeyBulkNewFirst, DeepKeyBulkNewFirst, BulkRepeatDropsLast, BulkSizeStale, StaleSecondQuery)
}


class SpineRecomputedInOrder(FiBA):
    """A FiBA that, after every in-order insert (younger than every entry), recomputes the whole right spine from
    the root down -- the answers stay right, but an O(1) amortized append (003 §1, FiBA 2019) becomes O(log n).
    Found by the ⊗ meter's in-order guard, not by any answer (the machine's runs name the budget)."""

    def insert(self, time: Any, value: Any) -> None:
        in_order = len(self) == 0 or self.youngest() < time
        super().insert(time, value)
        if in_order and self.root.children is not None:
            self._walk_spine(self.root, -1)


#: planted bugs that cost ⊗ only (answers right): found by the budget the verification names
PLANTED_OOO_BUDGET = {cls.__name__: cls for cls in (SpineRecomputedInOrder,)}
