"""swagkit.verify -- the verification harness.

* :mod:`.registry` -- algorithm / implementation registry and the :func:`create` factory.
* :mod:`.debug` -- :func:`checked`, debug mode (``SWAGKIT_CHECK=1``).
* :mod:`.machine` -- the generic Hypothesis state machine of FIFO SWAGs (:func:`make_machine`), and
  :func:`run_machine`, which dispatches on the algorithm's kind (:data:`~.machine.MACHINES`). Machines of other
  kinds live in their own modules and register themselves on import; this package imports them all below.
* :mod:`.laws` -- monoid law checks over the library.
* :mod:`.runner` / :mod:`.cli` -- ``swagkit verify`` and ``swagkit list``.
* :mod:`.strategies` -- input strategies per library monoid.
"""

from .debug import CheckedAggregator, check_enabled, checked
from .errors import BudgetExceededAt, InvariantViolationAt, ModelMismatchAt, OperationContext
from .machine import MACHINES, register_machine, run_machine
from .registry import ALGORITHMS, IMPLEMENTATIONS, AlgorithmInfo, Combo, ImplementationInfo, RegistryError, combos, create

__all__ = [
    "checked",
    "check_enabled",
    "CheckedAggregator",
    "create",
    "combos",
    "Combo",
    "ALGORITHMS",
    "IMPLEMENTATIONS",
    "AlgorithmInfo",
    "ImplementationInfo",
    "RegistryError",
    "InvariantViolationAt",
    "BudgetExceededAt",
    "ModelMismatchAt",
    "OperationContext",
    "MACHINES",
    "register_machine",
    "run_machine",
]

# State machines of non-FIFO kinds register themselves on import (one line per kind):
from . import tree as _tree  # noqa: E402,F401  (FlatFAT: the "tree" kind)
from . import ooo_machine  # noqa: E402,F401  (out-of-order: FiBA; also registers its debug wrapper)
from . import decay_machine  # noqa: E402,F401  (kinds sketch and time_decayed: paper 004; also their debug wrappers)
