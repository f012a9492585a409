"""swagkit.verify -- the verification harness: every ADT kind's model checks, state machines and differential
runs, and the ``swagkit`` command.

* :mod:`.kinds` -- one module per ADT kind (``fifo``, ``tree``, ``out_of_order``, ``sketch``, ``time_decayed``),
  each defining one :class:`~.kinds.base.Kind` that owns the kind's model, the operations an implementation must
  offer (:meth:`~.kinds.base.Kind.check_implements`), its debug wrapper, its Hypothesis state machine and its
  differential run; :mod:`.kinds.base`, :mod:`.kinds.machines` and :mod:`.kinds.differential` hold what they
  share.
* :mod:`.registry` -- algorithm / implementation registry (read off the algorithm cards of
  :mod:`swagkit.spec.algorithms`; ``AlgorithmInfo.kind`` is the Kind) and the :func:`create` factory.
* :mod:`.debug` -- :func:`checked`, which wraps any structure in its kind's debug wrapper; debug mode
  (``SWAGKIT_CHECK=1``) for :func:`create`.
* :mod:`.machine` -- :func:`run_machine`, one entry point for the state machine of any algorithm's kind.
* :mod:`.spark` -- the differential stage on Spark (each kind's runner, fanned out).
* :mod:`.laws` -- monoid law checks over the library; :mod:`.strategies` -- input strategies per library monoid.
* :mod:`.faults` -- fault injection into ``⊗``; :mod:`.errors` -- check failures that name the operation.
* :mod:`.impl` -- :func:`verify_aggregator` / :func:`machine_for` and ``swagkit verify --impl``: a user's own
  aggregator through its kind's machine; :mod:`.replay` -- failures as replay files (``swagkit replay``),
  :mod:`.jsonvalues` their exact JSON values.
* :mod:`.runner` / :mod:`.cli` -- ``swagkit verify`` and ``swagkit list``; :mod:`.symbolic` -- CrossHair contracts.
"""

from .debug import CheckedAggregator, check_enabled, checked
from .errors import BudgetExceededAt, InvariantViolationAt, ModelMismatchAt, OperationContext
from .impl import ImplementationError, VerificationFailed, machine_for, verify_aggregator
from .kinds import KINDS, Kind, NotImplementedOperations, Operation, Subject, kind
from .machine import make_machine, run_machine
from .process import process_factory as process_factory  # --exec (ProcessFailure: swagkit.verify.process)
from .registry import (
    ALGORITHMS,
    IMPLEMENTATIONS,
    AlgorithmInfo,
    Combo,
    ImplementationInfo,
    RegistryError,
    combos,
    create,
)

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
    "KINDS",
    "Kind",
    "Operation",
    "Subject",
    "NotImplementedOperations",
    "kind",
    "make_machine",
    "run_machine",
    "verify_aggregator",
    "machine_for",
    "VerificationFailed",
    "ImplementationError",
]
