"""The FIFO kind: in-order sliding-window aggregators (paper 000 §2.1), and their ``handles`` extension.

A FIFO SWAG inserts at the young end, evicts at the old end and answers the aggregate of the window
(:class:`~swagkit.spec.adt.FifoSwag` is the model). Algorithms of the ``handles`` ADT (the Reactive Aggregator,
002 §2.2) also remove any live element by the handle its insertion returned, against
:class:`~swagkit.spec.nonfifo.OrderedMultisetWindow`; they are verified as this kind with the extra operations.

* :mod:`.contract` -- :class:`~.contract.Contract`, what a window promises (a fixed capacity, no evicts ...);
* :mod:`.debug` -- :class:`~.debug.CheckedAggregator` / :class:`~.debug.CheckedNonFifoAggregator`;
* :mod:`.machine` -- the Hypothesis state machine;
* :mod:`.spark` -- the differential run.
"""

from __future__ import annotations

from swagkit.spec.adt import FifoSwag
from swagkit.spec.nonfifo import OrderedMultisetWindow

from ..base import Kind, Operation
from .contract import Contract
from .debug import CheckedAggregator, CheckedNonFifoAggregator, checked_fifo
from .machine import make_fifo_machine
from .spark import run_fifo_task

__all__ = ["KIND", "Contract", "CheckedAggregator", "CheckedNonFifoAggregator", "checked_fifo"]

_HANDLES = "handles"

KIND = Kind(
    name="fifo",
    title="FIFO sliding-window aggregator",
    model=FifoSwag,
    operations=(
        Operation("insert", True, "insert(value): add a value at the young end"),
        Operation("evict", True, "evict(): remove the oldest value (EmptyWindowError on an empty window)"),
        Operation("query", True, "query(): the lowered aggregate of the window, oldest to youngest"),
        Operation("__len__", True, "len(): the number of values in the window"),
        Operation("insert_many", False, "insert_many(values): insert each value, oldest first"),
        Operation("evict_many", False, "evict_many(k): evict k values (EmptyWindowError beyond the size)"),
        Operation("query_range", False, "query_range(r): the aggregate of the newest min(r, n) values", model=False),
        Operation("snapshot", False, "snapshot(): the state the invariant checker reads", model=False),
        Operation("combine_count", False, "combine_count: ⊗ calls so far (the budget is metered on it)", model=False),
        Operation(
            "salvage", False, "salvage(): the contents after a refused operation (refuse guarantee)", model=False
        ),
        Operation("repair", False, "repair(): rebuild after a refused operation (refuse guarantee)", model=False),
        Operation(
            "query_all", False, "query_all(): {r: query_range(r)} for every registered range (001 §4)", model=False
        ),
        Operation(
            "insert_with_handle", False, "insert_with_handle(value): insert, return the element's handle", _HANDLES
        ),
        Operation("remove", False, "remove(handle): remove a live element (InvalidHandleError otherwise)", _HANDLES),
        Operation("handles", False, "handles(): the live handles, oldest first", _HANDLES),
        Operation(
            "insert_many_with_handles",
            False,
            "insert_many_with_handles(values): the handles, in order",
            _HANDLES,
            model=False,
        ),
        Operation(
            "remove_many", False, "remove_many(handles): remove several live elements at once", _HANDLES, model=False
        ),
        Operation(
            "batch", False, "batch(events): mixed insert/evict/remove events propagated once", _HANDLES, model=False
        ),
    ),
    checked=checked_fifo,
    make_machine=make_fifo_machine,
    diff_runner=run_fifo_task,
    group_models={_HANDLES: OrderedMultisetWindow},
    # DABA Lite: worst-case O(1) ⊗ per operation (000 §5); Two-Stacks Lite when DABA Lite itself is verified
    oracles=(("swagkit.optimized:DABALite", {}), ("swagkit.optimized:TwoStacksLite", {})),
)
