"""swagkit.reference -- pure-Python algorithms that read like the papers' pseudocode.

One module per algorithm; every class takes a :class:`~swagkit.spec.monoid.Monoid` and offers
``insert(value)``, ``evict()``, ``query()``, ``len()``, ``insert_many``, ``evict_many``, ``snapshot()`` and
``combine_count``. ``window_array`` runs a whole sequence through a count-based window.
"""

from .daba import DABA
from .daba_lite import DABALite
from .driver import window_array
from .recalc import Recalc
from .two_stacks import TwoStacks
from .two_stacks_lite import TwoStacksLite

__all__ = ["Recalc", "TwoStacks", "TwoStacksLite", "DABA", "DABALite", "window_array"]
