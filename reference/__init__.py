"""swagkit.reference -- pure-Python algorithms that read like the papers' pseudocode.

One module per algorithm; every class takes a :class:`~swagkit.spec.monoid.Monoid` and offers
``insert(value)``, ``evict()``, ``query()``, ``len()``, ``insert_many``, ``evict_many``, ``snapshot()`` and
``combine_count``. ``window_array`` runs a whole sequence through a count-based window.

Paper 004's approximate structures over out-of-order streams take no monoid: :class:`QDigest` (and
:func:`qdigest_monoid`, which makes q-digests a monoid for the SWAG algorithms), :class:`SlidingWindowCount`,
:class:`SlidingWindowQuantiles` (also any decay at query time) and :class:`ValueDivision`.
"""

from types import ModuleType as _ModuleType

# one line per algorithm module (the explicit ``as`` re-exports them under mypy --strict)
from .daba import DABA as DABA
from .daba_lite import DABALite as DABALite
from .driver import window_array as window_array
from .fiba import FiBA as FiBA
from .fiba import FiBALoop as FiBALoop
from .flatfat import FlatFAT as FlatFAT
from .flatfit import FlatFIT as FlatFIT
from .qdigest import QDigest as QDigest
from .qdigest import qdigest_monoid as qdigest_monoid
from .reactive import ReactiveAggregator as ReactiveAggregator
from .recalc import Recalc as Recalc
from .slickdeque import SlickDequeInv as SlickDequeInv
from .slickdeque import SlickDequeNonInv as SlickDequeNonInv
from .slickdeque import SlickRange as SlickRange
from .subtract_on_evict import SubtractOnEvict as SubtractOnEvict
from .two_stacks import TwoStacks as TwoStacks
from .two_stacks_lite import TwoStacksLite as TwoStacksLite
from .value_division import ValueDivision as ValueDivision
from .window_count import SlidingWindowCount as SlidingWindowCount
from .window_quantiles import SlidingWindowQuantiles as SlidingWindowQuantiles

#: every class and function imported above (not the submodules, which importing them binds here too)
__all__ = sorted(n for n, v in globals().items() if not n.startswith("_") and not isinstance(v, _ModuleType))
