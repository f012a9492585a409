"""The out-of-order kind: windows of timestamped entries that arrive in any time order (paper 003, FiBA), with
bulk eviction and bulk insertion; :class:`~swagkit.spec.ooo.TimedWindow` is the model.

* :mod:`.debug` -- :class:`~.debug.CheckedOutOfOrder` (model, every FiBA invariant, the card's ⊗ and node-visit
  meter);
* :mod:`.machine` -- the Hypothesis state machine;
* :mod:`.spark` -- the differential run.
"""

from __future__ import annotations

from swagkit.spec.ooo import TimedWindow

from ..kind import Kind
from .debug import CheckedOutOfOrder, checked_ooo
from .face import OPERATIONS
from .machine import make_ooo_machine
from .spark import run_ooo_task

__all__ = ["KIND", "CheckedOutOfOrder", "checked_ooo"]

KIND = Kind(
    name="out_of_order",
    title="out-of-order sliding-window aggregator",
    model=TimedWindow,
    operations=OPERATIONS,
    checked=checked_ooo,
    make_machine=make_ooo_machine,
    diff_runner=run_ooo_task,
    # FiBA at μ=4 (003's default); at μ=2 when FiBA μ=4 itself is verified (other tree shapes, the same code: the
    # scale run's sample then judges it by the model and the reference)
    oracles=(("swagkit.optimized:FiBA", {"min_arity": 4}), ("swagkit.optimized:FiBA", {"min_arity": 2})),
)
