"""swagkit.reference -- pure-Python algorithms that read like the papers' pseudocode.

One module per algorithm; every class takes a :class:`~swagkit.spec.monoid.Monoid` and offers
``insert(value)``, ``evict()``, ``query()``, ``len()``, ``insert_many``, ``evict_many``, ``snapshot()`` and
``combine_count``. ``window_array`` runs a whole sequence through a count-based window.
"""

from .daba import DABA
from .daba_lite import DABALite
from .driver import window_array
from .fiba import FiBA, FiBALoop
from .flatfat import FlatFAT
from .flatfit import FlatFIT
from .reactive import ReactiveAggregator
from .recalc import Recalc
from .slickdeque import SlickDequeInv, SlickDequeNonInv, SlickRange
from .two_stacks import TwoStacks
from .two_stacks_lite import TwoStacksLite

__all__ = ["Recalc", "TwoStacks", "TwoStacksLite", "DABA", "DABALite", "SlickDequeInv", "SlickDequeNonInv", "SlickRange", "FlatFAT", "ReactiveAggregator", "FlatFIT", "window_array"]
__all__ += ["FiBA", "FiBALoop"]
