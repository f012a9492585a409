"""The face of the FIFO kind: the operations a FIFO SWAG offers (000 §2.1) and its ``handles`` extension
(002 §2.2), with how each appears in a trace (:mod:`swagkit.verify.trace`) and on the ``--exec`` protocol."""

from __future__ import annotations

from ..base import Operation, inspection_operations, refuse_guarantee_operations

__all__ = ["OPERATIONS", "HANDLES"]

#: the ``handles`` extension group (the Reactive Aggregator, 002 §2.2)
HANDLES = "handles"

#: every operation of the kind, in the order error messages and ``swagkit verify --impl`` list them
OPERATIONS: tuple[Operation, ...] = (
    Operation("insert", True, "insert(value): add a value at the young end", fields=("value",)),
    Operation("evict", True, "evict(): remove the oldest value (EmptyWindowError on an empty window)"),
    Operation("query", True, "query(): the lowered aggregate of the window, oldest to youngest", answers=True),
    Operation("__len__", True, "len(): the number of values in the window", answers=True, protocol="size"),
    Operation("insert_many", False, "insert_many(values): insert each value, oldest first", fields=("values",)),
    Operation(
        "evict_many", False, "evict_many(k): evict k values (EmptyWindowError beyond the size)", fields=("count",)
    ),
    Operation(
        "shift",
        False,
        "shift(value): evict(); insert(value); query() in one call (EmptyWindowError on an empty window)",
        model=False,
        fields=("value",),
        answers=True,
    ),
    Operation(
        "query_range",
        False,
        "query_range(r): the aggregate of the newest min(r, n) values",
        model=False,
        fields=("range",),
        answers=True,
    ),
    *inspection_operations("the state the invariant checker reads", "the budget is metered on it"),
    *refuse_guarantee_operations("the contents"),
    Operation(
        "query_all",
        False,
        "query_all(): {r: query_range(r)} for every registered range (001 §4)",
        model=False,
        answers=True,
    ),
    Operation(
        "insert_with_handle",
        False,
        "insert_with_handle(value): insert, return the element's handle",
        HANDLES,
        fields=("value",),
        answers=True,
    ),
    Operation(
        "remove",
        False,
        "remove(handle): remove a live element (InvalidHandleError otherwise)",
        HANDLES,
        fields=("handle",),
    ),
    Operation("handles", False, "handles(): the live handles, oldest first", HANDLES, answers=True),
    Operation(
        "insert_many_with_handles",
        False,
        "insert_many_with_handles(values): the handles, in order",
        HANDLES,
        model=False,
        fields=("values",),
        answers=True,
    ),
    Operation(
        "remove_many",
        False,
        "remove_many(handles): remove several live elements at once",
        HANDLES,
        model=False,
        fields=("handles",),
    ),
    Operation(
        "batch",
        False,
        "batch(events): mixed insert/evict/remove events propagated once",
        HANDLES,
        model=False,
        fields=("events",),
        answers=True,
    ),
)
