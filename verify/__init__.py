"""swagkit.verify -- the verification harness: every ADT kind's model checks, state machines and differential
runs, and the ``swagkit`` command.

* :mod:`.kinds` -- one module per ADT kind (``fifo``, ``tree``, ``out_of_order``, ``sketch``, ``time_decayed``),
  each defining one :class:`~.kinds.kind.Kind` that owns the kind's model, the operations an implementation must
  offer (:meth:`~.kinds.kind.Kind.check_implements`), its debug wrapper, its Hypothesis state machine and its
  differential run; :mod:`.kinds.base`, :mod:`.kinds.machines` and :mod:`.kinds.differential` hold what they
  share.
* :mod:`.registry` -- algorithm / implementation registry (read off the algorithm cards of
  :mod:`swagkit.spec.algorithms`; ``AlgorithmInfo.kind`` is the Kind) and the :func:`create` factory.
* :mod:`.debug` -- :func:`checked`, which wraps any structure in its kind's debug wrapper; debug mode
  (``SWAGKIT_CHECK=1``) for :func:`create`.
* :mod:`.machine` -- :func:`run_machine`, one entry point for the state machine of any algorithm's kind.
* :mod:`.spark` -- the differential stage on Spark (each kind's runner, fanned out).
* :mod:`.laws` -- monoid law checks over the library; :mod:`.strategies` -- input strategies per library monoid.
* :mod:`.faults` -- fault injection into ``⊗``; :mod:`.errors` -- check failures that name the operation, and the
  one classifier of every run (:func:`~.errors.is_failure`).
* :mod:`.trace` -- the one trace: a counterexample as numbered steps (injected faults and contract families
  included), recorded once around the kind's debug wrapper; :mod:`.wire` -- a step as one JSON line.
* :mod:`.replayfile` -- replay files (data: nothing they name is imported); :mod:`.replay` -- ``swagkit replay``
  runs one through the kind's debug wrapper; :mod:`.recording` -- every failing machine run written as one;
  :mod:`.lockstep` -- two implementations compared call by call (Spark findings); :mod:`.jsonvalues` -- exact
  JSON values.
* :mod:`.impl` -- :func:`verify_aggregator` / :func:`machine_for` and ``swagkit verify --impl``: a user's own
  aggregator through its kind's machine, every call guarded (:mod:`.guard`: exceptions, hangs), its options
  resolved once (:mod:`.options`); :mod:`.process` -- ``--exec``: any language over the line protocol.
* :mod:`.runner` -- one runner, one result type (:class:`~.runner.Outcome`) for every run; :mod:`.cli` -- the
  ``swagkit`` command, one module per subcommand; :mod:`.symbolic` -- CrossHair contracts.
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
