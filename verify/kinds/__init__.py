"""The ADT kinds swagkit verifies, one module each, each defining one :class:`~.kind.Kind` named ``KIND``.

=================  ============================================================================================
kind               module
=================  ============================================================================================
``fifo``           :mod:`.fifo` -- in-order SWAGs (000), with the ``handles`` extension (Reactive, 002 §2.2)
``tree``           :mod:`.tree` -- FlatFAT's fixed-capacity array of aggregates (002 §4)
``out_of_order``   :mod:`.out_of_order` -- timestamped windows with bulk operations (003, FiBA)
``sketch``         :mod:`.sketch` -- mergeable quantile sketches (004 §3.1, q-digest)
``time_decayed``   :mod:`.time_decayed` -- sliding-window and decayed aggregates (004 §3-§4)
=================  ============================================================================================

:data:`KINDS` lists them; an algorithm card's ``kind`` string picks one (:func:`kind`), so a new algorithm of an
existing kind needs nothing here, and a new kind is one new module plus one line in :data:`KINDS`. Shared
pieces: :mod:`.kind` (the :class:`~.kind.Kind` class), :mod:`.base` (operations, the wrappers' bookkeeping),
:mod:`.machines` (state machine settings and runs), :mod:`.differential` (the differential task and result).

>>> [k.name for k in KINDS]
['fifo', 'tree', 'out_of_order', 'sketch', 'time_decayed']
>>> kind("fifo").required()
('insert', 'evict', 'query', '__len__')
"""

from __future__ import annotations

from . import fifo, out_of_order, sketch, time_decayed, tree
from .base import NotImplementedOperations, Operation, Subject
from .kind import Kind

__all__ = ["KINDS", "Kind", "Operation", "Subject", "NotImplementedOperations", "kind"]

#: Every kind, in presentation order: one line per kind.
KINDS: tuple[Kind, ...] = (fifo.KIND, tree.KIND, out_of_order.KIND, sketch.KIND, time_decayed.KIND)

_BY_NAME = {k.name: k for k in KINDS}


def kind(name: str | Kind) -> Kind:
    """The kind called ``name`` (a :class:`~.kind.Kind` is returned as is); :class:`KeyError` when unknown."""
    if isinstance(name, Kind):
        return name
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"unknown kind {name!r}; known: {', '.join(_BY_NAME)}") from None
