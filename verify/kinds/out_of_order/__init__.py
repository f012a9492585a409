"""The out-of-order kind: windows of timestamped entries that arrive in any time order (paper 003, FiBA), with
bulk eviction and bulk insertion; :class:`~swagkit.spec.ooo.TimedWindow` is the model.

* :mod:`.debug` -- :class:`~.debug.CheckedOutOfOrder` (model, every FiBA invariant, the card's ⊗ and node-visit
  meter);
* :mod:`.machine` -- the Hypothesis state machine;
* :mod:`.spark` -- the differential run.
"""

from __future__ import annotations

from swagkit.spec.ooo import TimedWindow

from ..base import Kind, Operation
from .debug import CheckedOutOfOrder, checked_ooo
from .machine import make_ooo_machine
from .spark import run_ooo_task

__all__ = ["KIND", "CheckedOutOfOrder", "checked_ooo"]

KIND = Kind(
    name="out_of_order",
    title="out-of-order sliding-window aggregator",
    model=TimedWindow,
    operations=(
        Operation("insert", True, "insert(time, value): add an entry at any time (combined into an equal time)"),
        Operation("evict", True, "evict(): remove the oldest entry (EmptyWindowError on an empty window)"),
        Operation("remove", True, "remove(time): remove the entry at time (MissingTimeError when absent)"),
        Operation("bulk_evict", True, "bulk_evict(time): remove every entry up to time, return how many"),
        Operation(
            "bulk_insert",
            True,
            "bulk_insert(pairs): insert time-ordered (time, value) pairs "
            "(UnorderedBulkError otherwise, changing nothing)",
        ),
        Operation("query", True, "query(): the lowered aggregate of the window in time order"),
        Operation("range_query", True, "range_query(t_from, t_to): the aggregate of the entries in [t_from, t_to]"),
        Operation("oldest", True, "oldest(): the oldest time (EmptyWindowError on an empty window)"),
        Operation("youngest", True, "youngest(): the youngest time (EmptyWindowError on an empty window)"),
        Operation("__len__", True, "len(): the number of entries"),
        Operation("snapshot", False, "snapshot(): the tree the invariant checker reads", model=False),
        Operation("combine_count", False, "combine_count: ⊗ calls so far (metered)", model=False),
        Operation("touched_count", False, "touched_count: node visits so far (metered)", model=False),
        Operation("min_arity", False, "min_arity: the tree's μ (the budgets are functions of it)", model=False),
        Operation("salvage", False, "salvage(): the entries after a refused operation (refuse guarantee)", model=False),
        Operation("repair", False, "repair(): rebuild after a refused operation (refuse guarantee)", model=False),
    ),
    checked=checked_ooo,
    make_machine=make_ooo_machine,
    diff_runner=run_ooo_task,
    # FiBA at μ=4 (003's default); at μ=2 when FiBA μ=4 itself is verified (other tree shapes, the same code: the
    # scale run's sample then judges it by the model and the reference)
    oracles=(("swagkit.optimized:FiBA", {"min_arity": 4}), ("swagkit.optimized:FiBA", {"min_arity": 2})),
)
