"""swagkit.verify -- the verification harness.

* :mod:`.registry` -- algorithm / implementation registry and the :func:`create` factory.
* :mod:`.debug` -- :func:`checked`, debug mode (``SWAGKIT_CHECK=1``).
* :mod:`.machine` -- the generic Hypothesis state machine (:func:`make_machine`, :func:`run_machine`).
* :mod:`.laws` -- monoid law checks over the library.
* :mod:`.runner` / :mod:`.cli` -- ``swagkit verify`` and ``swagkit list``.
* :mod:`.strategies` -- input strategies per library monoid.
"""

from .debug import CheckedAggregator, check_enabled, checked
from .errors import BudgetExceededAt, InvariantViolationAt, ModelMismatchAt, OperationContext
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
]
