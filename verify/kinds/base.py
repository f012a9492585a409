"""What every ADT kind is made of, and the bookkeeping its debug wrappers share.

A :class:`~.kind.Kind` is one abstract data type swagkit verifies (FIFO SWAGs, FlatFAT's tree, out-of-order windows,
paper 004's sketches and time-decayed structures). It owns every face of verification for that ADT:

* ``model`` -- the executable specification (e.g. :class:`~swagkit.spec.adt.FifoSwag`);
* ``operations`` -- the face an implementation must offer (:class:`Operation`: name, required or optional), which
  :meth:`~.kind.Kind.check_implements` checks on any object;
* ``checked`` -- the debug wrapper: ``checked(obj, *, monoid, algorithm, facts, **options)`` checks ``obj``
  against the model (and, when ``facts`` names them, the invariants and budgets) after every operation;
* ``make_machine`` -- the Hypothesis state machine of one :class:`Subject` over one library monoid;
* ``diff_runner`` -- the differential (Spark) run of reference against optimized (``None``: the kind has none),
  and ``spark_stages``, further Spark runs the kind offers (the q-digest merge run of the ``sketch`` kind);
* ``oracles`` -- the fast oracles the scale run (``swagkit verify --spark``) compares any implementation with.

A kind never reads the registry: what it verifies comes in as a :class:`Subject` (a constructor plus what is
known about it) and as :class:`AlgorithmFacts` (the registry entry, or nothing), so a user's own class can be
verified by its kind alone. :class:`CheckedBase` is the operation log and error reporting every wrapper uses.
"""

from __future__ import annotations

import math
import reprlib
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from swagkit.spec.algorithms import CARDS
from swagkit.spec.errors import BrokenAggregatorError, BudgetExceeded, InvariantViolation, ModelMismatch
from swagkit.spec.monoid import Monoid

from ..errors import BudgetExceededAt, InvariantViolationAt, ModelMismatchAt

if TYPE_CHECKING:
    from swagkit.spec.algorithms.card import AlgorithmCard

_CARDS = {c.id: c for c in CARDS}

__all__ = [
    "Operation",
    "traced_operations",
    "refuse_guarantee_operations",
    "inspection_operations",
    "has_operation",
    "Subject",
    "AlgorithmFacts",
    "NoFacts",
    "NotImplementedOperations",
    "CheckedBase",
    "RefuseGuarantee",
    "NO_ANSWER",
    "LONG_REPR",
    "SHORT_REPR",
    "expect_raises",
    "monoid_of",
    "checked_ids",
    "same_output",
    "outputs_close",
]


def _repr(maxlist: int) -> reprlib.Repr:
    r = reprlib.Repr()
    r.maxstring = 40
    r.maxother = 40
    r.maxlist = maxlist
    r.maxtuple = maxlist
    return r


#: how arguments appear in operation labels (``insert_many(['a', 'b', ...])``): FIFO wrappers show 8 items,
#: the others 6
LONG_REPR = _repr(8)
SHORT_REPR = _repr(6)


@dataclass(frozen=True)
class Operation:
    """One operation of a kind's face: ``name`` (a method or attribute), ``required`` (an implementation of the
    kind must offer it; optional ones are checked when present), ``doc`` (what it does, for error messages and
    ``swagkit verify --impl``), ``group``: optional operations that come together as an extension (the
    FIFO kind's ``handles``: remove any live element by the handle its insertion returned), and ``model``."""

    name: str
    required: bool
    doc: str
    group: str = ""
    #: the kind's executable model offers it too (the wrapper compares the answers); False for what only
    #: implementations have (``snapshot``, ``combine_count``) and for kinds judged against an oracle's bounds
    model: bool = True
    #: the JSON field of each argument in a trace line (replay files, the ``--exec`` protocol): ``("time",
    #: "value")``; the field names say how a value is encoded (:mod:`swagkit.verify.trace`)
    fields: tuple[str, ...] = ()
    #: a call returns an answer the checks compare (a trace line keeps it as ``expect``)
    answers: bool = False
    #: a call is an operation of a trace; False for the reads the debug wrapper itself makes to judge the state
    #: (``snapshot``, ``combine_count``, ``salvage`` ...)
    traced: bool = True
    #: its name in traces and the protocol when that is not ``name`` (``len()`` is ``size``)
    protocol: str = ""

    @property
    def step_name(self) -> str:
        """The operation's name in a trace (``size`` for ``__len__``)."""
        return self.protocol or self.name


class _NoAnswer:
    def __repr__(self) -> str:
        return "NO_ANSWER"


#: no answer (a step that returned none, or raised; a wrapper that has not compared one)
NO_ANSWER: Any = _NoAnswer()


class NotImplementedOperations(TypeError):
    """An object lacks required operations of a kind (:meth:`~.kind.Kind.require`)."""


class AlgorithmFacts(Protocol):
    """What a debug wrapper may know about the algorithm it checks: its registry entry
    (:class:`~swagkit.verify.registry.AlgorithmInfo`). ``checker``/``budget`` are ids in
    :data:`~swagkit.spec.CHECKERS`/:data:`~swagkit.spec.BUDGETS` (``None``: none); ``card`` the algorithm card."""

    @property
    def id(self) -> str: ...

    @property
    def checker(self) -> str | None: ...

    @property
    def budget(self) -> str | None: ...

    @property
    def card(self) -> AlgorithmCard | None: ...


@dataclass(frozen=True)
class NoFacts:
    """:class:`AlgorithmFacts` of a structure checked as a kind it is not registered under: no checker, no budget,
    no card (the model only)."""

    id: str = ""
    checker: None = None
    budget: None = None
    card: None = None


@dataclass(frozen=True)
class Subject:
    """What a state machine or differential run verifies: a constructor (``factory``, e.g. a class) called as
    ``factory(monoid, **params)`` -- or ``factory(**params)`` when it takes no monoid -- and what is known about
    it (``facts``: the registry entry, ``None`` for a user's own class). ``name`` labels machines and messages."""

    name: str
    factory: Callable[..., Any]
    params: Mapping[str, Any] = field(default_factory=dict)
    takes_monoid: bool = True
    facts: AlgorithmFacts | None = None
    implementation: str = "reference"

    def new(self, monoid: Any = None, **params: Any) -> Any:
        """A new instance; ``params`` override the registered ones."""
        merged = {**self.params, **params}
        return self.factory(monoid, **merged) if self.takes_monoid else self.factory(**merged)


def inspection_operations(state: str, counted: str) -> tuple[Operation, Operation]:
    """``snapshot``/``combine_count``: the optional reads the invariant checker and the ⊗ meter use, in every
    kind (``state``: what the snapshot shows; ``counted``: how the count is used)."""
    return (
        Operation("snapshot", False, f"snapshot(): {state}", model=False, traced=False),
        Operation(
            "combine_count",
            False,
            f"combine_count: ⊗ calls so far ({counted})",
            model=False,
            traced=False,
            protocol="stats",
        ),
    )


def refuse_guarantee_operations(contents: str) -> tuple[Operation, Operation]:
    """``salvage``/``repair``: the optional operations of the refuse guarantee (issue 12), the same in every kind
    (``contents``: what ``salvage()`` returns, e.g. "the entries")."""
    return (
        Operation(
            "salvage",
            False,
            f"salvage(): {contents} after a refused operation (refuse guarantee)",
            model=False,
            traced=False,
        ),
        Operation(
            "repair", False, "repair(): rebuild after a refused operation (refuse guarantee)", model=False, traced=False
        ),
    )


def traced_operations(operations: Sequence[Operation]) -> dict[str, Operation]:
    """The operations of a trace among ``operations``, by their trace name (see :meth:`~.kind.Kind.traced`)."""
    return {op.step_name: op for op in operations if op.traced}


def has_operation(obj: Any, name: str) -> bool:
    try:
        return getattr(obj, name, None) is not None
    except Exception:  # a property that raises on this object: the operation is there
        return True


class CheckedBase:
    """The bookkeeping every debug wrapper shares: the wrapped object (``inner``), the algorithm's name, the
    operation log (``operations``, the last few labels) and the errors that say which operation failed
    (:mod:`swagkit.verify.errors`). Attributes a wrapper does not define are forwarded to ``inner``."""

    #: how arguments appear in operation labels
    labels: reprlib.Repr = LONG_REPR

    def __init__(self, inner: Any, algorithm: str | None, history: int = 8) -> None:
        self.inner = inner
        algo = algorithm if algorithm is not None else getattr(inner, "algorithm", None)
        #: the algorithm id: the one given, else the object's ``algorithm`` attribute (``None``: unknown)
        self.algorithm: str | None = algo if isinstance(algo, str) else None
        self.operations = 0
        self._recent: deque[str] = deque(maxlen=history)
        #: the model's answer the last answering operation was compared with (a trace keeps it: the model's
        #: exact answer, not the implementation's equal-up-to-rounding one)
        self.model_answer: Any = NO_ANSWER

    def __getattr__(self, name: str) -> Any:
        if name == "inner":  # not yet set (during __init__ or unpickling)
            raise AttributeError(name)
        return getattr(self.inner, name)

    def __len__(self) -> int:
        return len(self.inner)

    def __repr__(self) -> str:
        return f"checked({self.inner!r})"

    def _checks(self, **on: bool) -> tuple[str, ...]:
        """``("model", ...)`` then each named check that is on, in order (``active_checks``)."""
        return ("model", *(name for name, active in on.items() if active))

    def _name(self) -> str:
        # a user's object behind a guard (swagkit.verify.guard) is named by its own class
        return self.algorithm or type(getattr(self.inner, "guarded", self.inner)).__name__

    def _begin(self, name: str, *args: Any) -> str:
        """Log the start of operation ``name(args)``; its label."""
        self.operations += 1
        op = f"{name}({', '.join(self.labels.repr(a) for a in args)})"
        self._recent.append(f"#{self.operations} {op}")
        return op

    def _mismatch(self, op: str, detail: str) -> ModelMismatchAt:
        return ModelMismatchAt(f"{self._name()}: {detail}", op, self.operations, self._recent)

    def _invariant_at(self, err: InvariantViolation, op: str) -> InvariantViolationAt:
        return InvariantViolationAt.wrap(err, op, self.operations, self._recent)

    def _budget_at(self, err: BudgetExceeded, op: str) -> BudgetExceededAt:
        return BudgetExceededAt.wrap(err, op, self.operations, self._recent)

    def _snapshot(self) -> Any:
        snap = getattr(self.inner, "snapshot", None)
        return snap() if callable(snap) else None


class RefuseGuarantee(CheckedBase):
    """What a wrapper does after the aggregator raised (issue 12): the aggregator must still agree with the
    unchanged model -- or, if it declares the *refuse* guarantee and now raises :class:`BrokenAggregatorError`,
    refuse queries too, ``salvage()`` the contents before or after the operation (``apply`` applies the operation
    to the model), and ``repair()`` to a state that agrees with the model again. A wrapper provides
    :meth:`_refuses`, :meth:`_holds` and :meth:`_recheck`."""

    def _refuses(self) -> bool:
        """Whether the aggregator now refuses (raises :class:`BrokenAggregatorError` on a read)."""
        try:
            self._snapshot()
        except BrokenAggregatorError:
            return True
        return False

    def _holds(self, held: list[Any]) -> bool:
        """Whether ``held`` (what ``salvage()`` returned) is the model's contents."""
        raise NotImplementedError  # a hook: every wrapper with the refuse guarantee defines it for its kind

    def _recheck(self, label: str) -> None:
        """Check the aggregator against the model (invariants, length, ...) after ``label``."""
        raise NotImplementedError  # a hook: every wrapper with the refuse guarantee defines it for its kind

    def _guarded(self, op: str, call: Callable[[], Any], apply: Callable[[], Any] | None = None) -> Any:
        """``call()`` (the aggregator's operation ``op``); if it raises, :meth:`_after_failure` judges the state
        the aggregator was left in, then the exception propagates."""
        try:
            return call()
        except Exception as exc:
            self._after_failure(op, exc, apply)
            raise

    def _after_failure(self, op: str, exc: BaseException, apply: Callable[[], Any] | None = None) -> None:
        if self._refuses():
            self._recover(op, exc, apply)
            return
        try:
            self._recheck(f"{op} raising {type(exc).__name__}")
        except (InvariantViolation, BudgetExceeded, ModelMismatch) as err:
            raise err from exc

    def _recover(self, op: str, exc: BaseException, apply: Callable[[], Any] | None) -> None:
        label = f"{op} raising {type(exc).__name__}"
        try:
            self.inner.query()
        except BrokenAggregatorError:
            pass  # refused: the aggregator says so, salvage() and repair() below decide the rest
        else:
            raise self._mismatch(label, "the aggregator refuses snapshot() but still answers query()") from exc
        salvage, repair = getattr(self.inner, "salvage", None), getattr(self.inner, "repair", None)
        if not callable(salvage) or not callable(repair):
            raise self._mismatch(label, "the aggregator refuses (BrokenAggregatorError) but has no salvage()/repair()")
        held = list(salvage())
        if not self._holds(held) and apply is not None:
            try:  # not the state before: it must be the one after the operation
                apply()
            except Exception:  # the model refuses the input: the aggregator should have too
                pass
        if not self._holds(held):
            raise self._mismatch(
                label,
                f"salvage() holds {self.labels.repr(held)}: neither the model's contents "
                "before nor after the operation",
            )
        repair()
        self._recheck(f"{label}, then repair()")


def expect_raises(
    call: Callable[[], Any], error: type[BaseException], what: str, state: Callable[[], Any] | None = None
) -> None:
    """The machines' misuse check: ``call()`` must raise ``error`` and, when ``state`` is given, leave
    ``state()`` (a snapshot) as it was. (The checked wrappers usually fail first, naming the operation.)"""
    before = state() if state is not None else None
    try:
        call()
    except error:
        pass  # the documented refusal; the state must still be as it was (checked below)
    else:
        raise AssertionError(f"{what} did not raise {error.__name__}")
    if state is not None:
        after = state()
        assert after == before, f"{what} raised but changed the state:\n  before {before!r}\n  after  {after!r}"


#: Tolerance for lowered query outputs of monoids whose ``tolerance`` is not ``"exact"`` (see :func:`same_output`).
OUTPUT_REL_TOL = 1e-6
OUTPUT_ABS_TOL = 1e-6


def outputs_close(got: Any, want: Any, rel: float = OUTPUT_REL_TOL, abs_tol: float = OUTPUT_ABS_TOL) -> bool:
    """Approximate equality of lowered outputs: floats by ``math.isclose``, containers element-wise."""
    if isinstance(got, (int, float)) and isinstance(want, (int, float)):
        return got == want or math.isclose(got, want, rel_tol=rel, abs_tol=abs_tol)
    if isinstance(got, (tuple, list)) and isinstance(want, (tuple, list)):
        return (
            type(got) is type(want)
            and len(got) == len(want)
            and all(outputs_close(g, w, rel, abs_tol) for g, w in zip(got, want))
        )
    try:
        return bool(got == want)
    except Exception:
        return False


def same_output(monoid: Monoid[Any, Any, Any], got: Any, want: Any) -> bool:
    """Whether two *lowered* query answers agree.

    Exact ``==`` first, then the monoid's equality (it is defined on aggregates but often applies to outputs
    too), then an ``out_eq`` the monoid may provide for outputs. For monoids with a stated tolerance the output
    is compared approximately (:func:`outputs_close`): ``lower`` can amplify rounding that ``eq`` accepts on
    aggregates (a square root near zero), and the invariant checkers already compare every stored partial
    aggregate with ``eq``.
    """
    try:
        if got == want:
            return True
    except Exception:  # e.g. numpy arrays; fall through to the monoid's equalities
        pass
    for eq in (getattr(monoid, "out_eq", None), monoid.eq):
        if callable(eq):
            try:
                if eq(got, want):
                    return True
            except Exception:
                pass
    return monoid.tolerance != "exact" and outputs_close(got, want)


def monoid_of(obj: Any, monoid: Monoid[Any, Any, Any] | None) -> Monoid[Any, Any, Any]:
    """The monoid a wrapper checks ``obj`` over: ``monoid``, else ``obj.monoid``."""
    m = monoid if monoid is not None else getattr(obj, "monoid", None)
    if not isinstance(m, Monoid):
        raise TypeError("checked() needs the aggregator's monoid: pass monoid=... or expose a .monoid attribute")
    return m


def checked_ids(
    algorithm: str | None, facts: AlgorithmFacts | None
) -> tuple[str | None, str | None, AlgorithmCard | None]:
    """``(checker id, budget id, card)`` of the algorithm a wrapper checks: from ``facts`` (the registry entry);
    else from the card of id ``algorithm``; else ``algorithm`` itself as both ids (``None``, ``None``, ``None``
    when nothing is known: the wrapper checks against the model only)."""
    if facts is not None:
        return facts.checker, facts.budget, facts.card
    card = _CARDS.get(algorithm or "")
    if card is not None:
        return card.checker_id, card.budget_id, card
    return algorithm, algorithm, None
