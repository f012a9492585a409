"""The face of the out-of-order kind: the operations an out-of-order window offers (003 §2), with how each
appears in a trace (:mod:`swagkit.verify.trace`) and on the ``--exec`` protocol."""

from __future__ import annotations

from ..base import Operation, inspection_operations, refuse_guarantee_operations

__all__ = ["OPERATIONS"]

#: every operation of the kind, in the order error messages and ``swagkit verify --impl`` list them
OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "insert",
        True,
        "insert(time, value): add an entry at any time (combined into an equal time)",
        fields=("time", "value"),
    ),
    Operation("evict", True, "evict(): remove the oldest entry (EmptyWindowError on an empty window)"),
    Operation(
        "remove", True, "remove(time): remove the entry at time (MissingTimeError when absent)", fields=("time",)
    ),
    Operation(
        "bulk_evict",
        True,
        "bulk_evict(time): remove every entry up to time, return how many",
        fields=("time",),
        answers=True,
    ),
    Operation(
        "bulk_insert",
        True,
        "bulk_insert(pairs): insert time-ordered (time, value) pairs (UnorderedBulkError otherwise, changing nothing)",
        fields=("items",),
    ),
    Operation("query", True, "query(): the lowered aggregate of the window in time order", answers=True),
    Operation(
        "range_query",
        True,
        "range_query(t_from, t_to): the aggregate of the entries in [t_from, t_to]",
        fields=("from", "to"),
        answers=True,
    ),
    Operation("oldest", True, "oldest(): the oldest time (EmptyWindowError on an empty window)", answers=True),
    Operation("youngest", True, "youngest(): the youngest time (EmptyWindowError on an empty window)", answers=True),
    Operation("__len__", True, "len(): the number of entries", answers=True, protocol="size"),
    *inspection_operations("the tree the invariant checker reads", "metered"),
    Operation("touched_count", False, "touched_count: node visits so far (metered)", model=False, traced=False),
    Operation(
        "min_arity", False, "min_arity: the tree's μ (the budgets are functions of it)", model=False, traced=False
    ),
    *refuse_guarantee_operations("the entries"),
)
