"""swagkit.reference -- pure-Python algorithms that read like the papers' pseudocode.

One module per algorithm; every class takes a :class:`~swagkit.spec.monoid.Monoid` and offers
``insert(value)``, ``evict()``, ``query()``, ``len()``, ``insert_many``, ``evict_many``, ``snapshot()`` and
``combine_count``. ``window_array`` runs a whole sequence through a count-based window.

Paper 004's approximate structures over out-of-order streams take no monoid: :class:`QDigest` (and
:func:`qdigest_monoid`, which makes q-digests a monoid for the SWAG algorithms), :class:`SlidingWindowCount`,
:class:`SlidingWindowQuantiles` (also any decay at query time) and :class:`ValueDivision`.
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
from .qdigest import QDigest, qdigest_monoid
from .value_division import ValueDivision
from .window_count import SlidingWindowCount
from .window_quantiles import SlidingWindowQuantiles

__all__ = ["Recalc", "TwoStacks", "TwoStacksLite", "DABA", "DABALite", "SlickDequeInv", "SlickDequeNonInv", "SlickRange", "FlatFAT", "ReactiveAggregator", "FlatFIT", "window_array"]
__all__ += ["FiBA", "FiBALoop"]
__all__ += ["QDigest", "qdigest_monoid", "SlidingWindowCount", "SlidingWindowQuantiles", "ValueDivision"]
