"""Deliberately broken out-of-order aggregators (issue 14 §1): each bug needs a specific shape of operations --
a bulk whose key already sits in an internal node of a B-tree (at any level, or only in a tree three levels
deep), a time repeated inside one bulk, a bulk that changes the size, two queries in a row -- and the
``ooo`` machine must find every one at ``verify_aggregator``'s defaults. The shapes are the bugs the machines
found in a public C++ FiBA (issue 14's opening). Each lives in its own corpus file (``tests/planted/ooo_*.py``,
with its origin and measured find rate); this module gathers them. Not collected by pytest."""

from __future__ import annotations

from typing import Any

from planted.ooo_bulk_repeat_drops_last import BulkRepeatDropsLast
from planted.ooo_bulk_size_stale import BulkSizeStale
from planted.ooo_deep_key_bulk_new_first import DeepKeyBulkNewFirst
from planted.ooo_internal_key_bulk_new_first import InternalKeyBulkNewFirst
from planted.ooo_stale_second_query import StaleSecondQuery

from swagkit.reference import FiBA

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
