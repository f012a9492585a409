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

from ..kind import Kind
from .contract import Contract
from .debug import CheckedAggregator, CheckedNonFifoAggregator, checked_fifo
from .face import HANDLES, OPERATIONS
from .machine import make_fifo_machine
from .spark import run_fifo_task

__all__ = ["KIND", "Contract", "CheckedAggregator", "CheckedNonFifoAggregator", "checked_fifo"]

KIND = Kind(
    name="fifo",
    title="FIFO sliding-window aggregator",
    model=FifoSwag,
    operations=OPERATIONS,
    checked=checked_fifo,
    make_machine=make_fifo_machine,
    diff_runner=run_fifo_task,
    group_models={HANDLES: OrderedMultisetWindow},
    # DABA Lite: worst-case O(1) ⊗ per operation (000 §5); Two-Stacks Lite when DABA Lite itself is verified
    oracles=(("swagkit.optimized:DABALite", {}), ("swagkit.optimized:TwoStacksLite", {})),
)
