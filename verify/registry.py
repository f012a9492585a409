"""The algorithm registry: which SWAG algorithms exist, what they promise, and where their code lives.

Everything that enumerates algorithms (``swagkit verify``, ``swagkit list``, the README table, the stateful
tests) reads :data:`ALGORITHMS` and :data:`IMPLEMENTATIONS` instead of naming classes. :data:`ALGORITHMS` is
read off the algorithm cards (:mod:`swagkit.spec.algorithms`, one module per algorithm, which also give
:data:`~swagkit.spec.CHECKERS` and :data:`~swagkit.spec.BUDGETS`), so a new algorithm is a new card there; tests
and experiments add entries with :func:`register_algorithm`. A new implementation family is one
:class:`ImplementationInfo`.

An implementation is a module exporting classes under the names given by ``AlgorithmInfo.class_name``; it
provides an algorithm exactly when it exports that name. ``swagkit.optimized`` is therefore picked up as soon as
it exports ``TwoStacks`` & co., and is simply "not available" while its ``__init__`` is empty or its import
fails.

Each entry's ``kind`` is the :class:`~swagkit.verify.kinds.kind.Kind` its card's ``kind`` string names
(:mod:`swagkit.verify.kinds`): the ADT it is verified as, which owns the model, the debug wrapper, the state
machine and the differential run. :func:`subject` is what those are given: the class an implementation provides,
with its registered parameters and facts.

:func:`create` is the verification side's factory (default implementation: ``reference``). With ``SWAGKIT_CHECK=1``
in the environment (:func:`check_enabled`) it returns the aggregator wrapped in its kind's debug wrapper, so every
operation is checked against the model, the invariants and the budgets. For the built-in algorithms and
implementations it is the runtime factory, :func:`swagkit.optimized.create` (which loads no verification code);
what :func:`register_algorithm` / :func:`register_implementation` add is built here. :class:`RegistryError`,
:data:`ENV_VAR`, :func:`check_enabled` and :func:`resolve_monoid` are shared with the runtime factory (defined in
:mod:`swagkit.spec`) and re-exported here under their old names.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from swagkit.spec.algorithms import CARDS, AlgorithmCard
from swagkit.spec.algorithms.card import MonoidRequirements
from swagkit.spec.debug_mode import ENV_VAR, check_enabled
from swagkit.spec.errors import RegistryError
from swagkit.spec.library import LIBRARY, resolve_monoid
from swagkit.spec.monoid import Monoid

from .kinds import Kind, Subject
from .kinds import kind as kind_named
from .kinds.machines import DEFAULT_MAX_WINDOW, KindMachine

__all__ = [
    "AlgorithmInfo",
    "ImplementationInfo",
    "Combo",
    "RegistryError",
    "ALGORITHMS",
    "IMPLEMENTATIONS",
    "algorithm",
    "algorithm_ids",
    "implementation_ids",
    "monoid_ids",
    "resolve_monoid",
    "resolve_class",
    "available_implementations",
    "create",
    "make_machine",
    "examples_for",
    "combos",
    "register_algorithm",
    "unregister_algorithm",
    "register_implementation",
    "registered",
    "subject",
    "ENV_VAR",
    "check_enabled",
    "guarantees_markdown",
    "decayed_markdown",
    "robustness_markdown",
]

#: A constructor of aggregators: ``factory(monoid, **params)``.
Factory = Callable[..., Any]


#: what an :class:`AlgorithmInfo` copies from its card, by the same name
_CARD_FACTS = (
    "id",
    "class_name",
    "title",
    "paper",
    "requires",
    "requires_any",
    "takes_monoid",
    "monoids",
    "verify_share",
)
#: the entry's guarantee texts, by the card's guarantee they are read from
_GUARANTEE_TEXTS = {
    "worst_query": "query",
    "worst_insert": "insert",
    "worst_evict": "evict",
    "amortized": "amortized",
    "worst_case": "worst_case",
    "space": "space",
    "error": "error",
}


@dataclass(frozen=True)
class AlgorithmInfo(MonoidRequirements):
    """One registered algorithm: identity, where its spec lives, what it requires and what it guarantees.

    The registered ones are read off the algorithm cards (:meth:`from_card`; ``card`` is the card). ``checker``
    and ``budget`` are keys of :data:`~swagkit.spec.checkers.CHECKERS` and :data:`~swagkit.spec.budgets.BUDGETS`
    (``None``: no invariant checker / no combine budget, so only the model is checked). ``kind`` is the
    :class:`~swagkit.verify.kinds.kind.Kind` it is verified as (given as a name, e.g. ``"out_of_order"``, it is
    looked up in :mod:`swagkit.verify.kinds`). ``params`` are constructor keyword arguments, so one class can be
    registered several times under different ids (e.g. FiBA with ``min_arity=2`` and ``4``). ``requires`` lists
    monoid properties the algorithm relies on (SlickDeque: ``selective`` or ``invertible``); ``requires_any``
    means at least one of them suffices.
    """

    id: str
    class_name: str
    title: str
    paper: str
    checker: str | None
    budget: str | None
    kind: Kind = field(default_factory=lambda: kind_named("fifo"))
    requires: tuple[str, ...] = ()
    requires_any: bool = False
    params: Mapping[str, Any] = field(default_factory=dict)
    worst_query: str = "?"
    worst_insert: str = "?"
    worst_evict: str = "?"
    amortized: str = "?"
    worst_case: str = "?"
    space: str = "?"
    #: False for structures that are not generic over a monoid (paper 004's sketches and windows): ``create``
    #: calls ``cls(**params)``, and ``monoids`` names the library monoid they are listed under (run once)
    takes_monoid: bool = True
    monoids: tuple[str, ...] | None = None
    #: the accuracy guarantee of an approximate structure (shown by ``swagkit list``)
    error: str = ""
    #: 1/verify_share of the verification effort (see :attr:`AlgorithmCard.verify_share`)
    verify_share: int = 1
    #: the card this entry was read from (``None`` for entries registered directly)
    card: AlgorithmCard | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        self.check_requirements()
        if isinstance(self.kind, str):  # a kind's name: the Kind object (frozen, hence object.__setattr__)
            object.__setattr__(self, "kind", kind_named(self.kind))

    @classmethod
    def from_card(cls, card: AlgorithmCard) -> AlgorithmInfo:
        """The registry entry of an algorithm card: its facts, its guarantees' texts, its kind."""
        facts = {name: getattr(card, name) for name in _CARD_FACTS}
        texts = {entry: getattr(card.guarantees, text) for entry, text in _GUARANTEE_TEXTS.items()}
        return cls(
            **facts,
            **texts,
            checker=card.checker_id,
            budget=card.budget_id,
            kind=kind_named(card.kind),
            params=dict(card.params),
            card=card,
        )


@dataclass(frozen=True)
class ImplementationInfo:
    """An implementation family: a module exporting one class per algorithm under ``AlgorithmInfo.class_name``."""

    id: str
    module: str
    description: str

    def load(self) -> ModuleType | None:
        """The imported module, or ``None`` when it cannot be imported (e.g. not compiled)."""
        try:
            return importlib.import_module(self.module)
        except ImportError:
            return None

    def compiled(self) -> bool | None:
        """The module's ``COMPILED`` flag (``None`` when it has none or cannot be imported)."""
        mod = self.load()
        flag = getattr(mod, "COMPILED", None) if mod is not None else None
        return bool(flag) if flag is not None else None


#: Registered algorithms by id, in presentation order (baseline first), read off the algorithm cards.
#: Guarantees are ⊗ invocations.
ALGORITHMS: dict[str, AlgorithmInfo] = {card.id: AlgorithmInfo.from_card(card) for card in CARDS}

#: Implementation families by id. ``optimized`` provides nothing until ``swagkit.optimized`` exports classes.
IMPLEMENTATIONS: dict[str, ImplementationInfo] = {
    "reference": ImplementationInfo("reference", "swagkit.reference", "pure Python, reads like the pseudocode"),
    "optimized": ImplementationInfo("optimized", "swagkit.optimized", "Cython, same API and counts"),
}

# Classes registered directly (tests, user experiments): (implementation id, algorithm id) -> factory.
_EXTRA_CLASSES: dict[tuple[str, str], Factory] = {}

# The entries as the cards and this module define them: create() hands these to the runtime factory.
_BUILTIN_ALGORITHMS: dict[str, AlgorithmInfo] = dict(ALGORITHMS)
_BUILTIN_IMPLEMENTATIONS: dict[str, ImplementationInfo] = dict(IMPLEMENTATIONS)


def algorithm(algorithm_id: str) -> AlgorithmInfo:
    """The :class:`AlgorithmInfo` of ``algorithm_id`` (:class:`RegistryError` when unknown)."""
    try:
        return ALGORITHMS[algorithm_id]
    except KeyError:
        raise RegistryError(f"unknown algorithm {algorithm_id!r}; known: {', '.join(ALGORITHMS)}") from None


def algorithm_ids() -> list[str]:
    """Registered algorithm ids in presentation order."""
    return list(ALGORITHMS)


def implementation_ids() -> list[str]:
    """Registered implementation ids (available or not)."""
    return list(IMPLEMENTATIONS)


def monoid_ids() -> list[str]:
    """Library monoid ids (:data:`swagkit.spec.library.LIBRARY`, read at call time)."""
    return list(LIBRARY)


def resolve_class(algorithm_id: str, implementation: str = "reference") -> Factory | None:
    """The class (factory) of ``algorithm_id`` in ``implementation``, or ``None`` when it does not provide it."""
    info = algorithm(algorithm_id)
    extra = _EXTRA_CLASSES.get((implementation, algorithm_id))
    if extra is not None:
        return extra
    try:
        impl = IMPLEMENTATIONS[implementation]
    except KeyError:
        raise RegistryError(f"unknown implementation {implementation!r}; known: {', '.join(IMPLEMENTATIONS)}") from None
    mod = impl.load()
    cls = getattr(mod, info.class_name, None) if mod is not None else None
    return cls if callable(cls) else None


def available_implementations(algorithm_id: str | None = None) -> list[str]:
    """Implementations that provide ``algorithm_id`` (or, without an id, at least one registered algorithm)."""
    ids = [algorithm_id] if algorithm_id is not None else list(ALGORITHMS)
    return [impl for impl in IMPLEMENTATIONS if any(resolve_class(a, impl) is not None for a in ids)]


def subject(algorithm_id: str, implementation: str = "reference") -> Subject:
    """What ``algorithm_id``'s kind verifies in ``implementation``: its class, registered parameters and facts
    (:class:`RegistryError` when the implementation does not provide it)."""
    info = algorithm(algorithm_id)
    cls = resolve_class(algorithm_id, implementation)
    if cls is None:
        raise RegistryError(f"implementation {implementation!r} does not provide {algorithm_id} ({info.class_name})")
    return Subject(algorithm_id, cls, dict(info.params), info.takes_monoid, info, implementation)


def require_monoid(info: AlgorithmInfo, monoid: Monoid[Any, Any, Any] | str) -> Monoid[Any, Any, Any]:
    """The monoid ``monoid`` names, if ``info``'s algorithm may run over it (else
    :class:`~swagkit.spec.errors.UnsupportedMonoidError`)."""
    return info.require_supported(resolve_monoid(monoid))


def create(
    algorithm_id: str,
    monoid: Monoid[Any, Any, Any] | str | None,
    implementation: str = "reference",
    *,
    check: bool | None = None,
    **params: Any,
) -> Any:
    """A new empty aggregator of ``algorithm_id`` over ``monoid`` (a :class:`Monoid` or a library id).

    ``params`` override the registered constructor parameters. ``check=None`` follows the ``SWAGKIT_CHECK``
    environment variable; when checking is on the result is the algorithm's kind's debug wrapper around the
    aggregator. Raises :class:`RegistryError` for unknown ids or an implementation lacking the algorithm, and
    :class:`~swagkit.spec.errors.UnsupportedMonoidError` when the monoid lacks a required property.

    A built-in algorithm (as its card registers it) in a built-in implementation is built by the runtime factory,
    :func:`swagkit.optimized.create`; entries added by :func:`register_algorithm` /
    :func:`register_implementation` (or replacing a built-in one) are built here.
    """
    info = algorithm(algorithm_id)
    if _builtin(info, implementation):
        # imported here, not at module level: importing the registry loads no compiled extension
        from swagkit.optimized.factory import create as runtime_create

        return runtime_create(algorithm_id, monoid, implementation, check=check, **params)
    m: Monoid[Any, Any, Any] | None = None
    if info.takes_monoid:  # paper 004's structures take none: the monoid argument is ignored
        if monoid is None:
            raise RegistryError(f"{algorithm_id} needs a monoid")
        m = require_monoid(info, monoid)
    aggregator = subject(algorithm_id, implementation).new(m, **params)
    wanted = check_enabled() if check is None else check
    if wanted:
        return info.kind.checked(aggregator, monoid=m, algorithm=algorithm_id, facts=info)
    return aggregator


def _builtin(info: AlgorithmInfo, implementation: str) -> bool:
    """Whether ``info`` is a card's own entry and ``implementation`` a built-in one, neither replaced nor given a
    directly registered class: what the runtime factory builds alike."""
    return (
        _BUILTIN_ALGORITHMS.get(info.id) is info
        and implementation in _BUILTIN_IMPLEMENTATIONS
        and _BUILTIN_IMPLEMENTATIONS[implementation] is IMPLEMENTATIONS.get(implementation)
        and (implementation, info.id) not in _EXTRA_CLASSES
    )


@dataclass(frozen=True)
class Combo:
    """One (algorithm, monoid, implementation) combination; ``skip`` says why it cannot run (else ``None``)."""

    algorithm: str
    monoid: str
    implementation: str
    skip: str | None = None

    @property
    def label(self) -> str:
        return f"{self.algorithm} × {self.monoid} × {self.implementation}"


def combos(
    algorithms: Sequence[str] | None = None,
    monoids: Sequence[str] | None = None,
    implementations: Sequence[str] | None = None,
) -> list[Combo]:
    """Every requested combination (all registered ones by default), with a skip reason where it cannot run."""
    algos = [algorithm(a).id for a in (algorithms or list(ALGORITHMS))]
    mons = list(monoids or list(LIBRARY))
    impls = list(implementations or list(IMPLEMENTATIONS))
    for impl in impls:
        if impl not in IMPLEMENTATIONS:
            raise RegistryError(f"unknown implementation {impl!r}; known: {', '.join(IMPLEMENTATIONS)}")
    out: list[Combo] = []
    for a in algos:
        info = ALGORITHMS[a]
        for mid in mons:
            m = resolve_monoid(mid)
            for impl in impls:
                skip: str | None = None
                if resolve_class(a, impl) is None:
                    skip = f"{impl} does not provide {info.class_name}"
                elif info.monoids is not None and mid not in info.monoids:
                    skip = f"takes no monoid (runs once, listed under {', '.join(info.monoids)})"
                elif not info.supports(m):
                    skip = f"needs {info.requirement_phrase()}"
                out.append(Combo(a, mid, impl, skip))
    return out


def register_algorithm(
    info: AlgorithmInfo, classes: Mapping[str, Factory] | None = None, *, replace: bool = False
) -> None:
    """Add ``info`` to :data:`ALGORITHMS`; ``classes`` maps implementation ids to factories provided directly
    (otherwise implementations are searched for ``info.class_name``)."""
    if info.id in ALGORITHMS and not replace:
        raise RegistryError(f"algorithm {info.id!r} is already registered (pass replace=True)")
    ALGORITHMS[info.id] = info
    for impl, factory in (classes or {}).items():
        if impl not in IMPLEMENTATIONS:
            raise RegistryError(f"unknown implementation {impl!r}")
        _EXTRA_CLASSES[(impl, info.id)] = factory


def unregister_algorithm(algorithm_id: str) -> None:
    """Remove an algorithm and any directly registered classes of it."""
    ALGORITHMS.pop(algorithm_id, None)
    for key in [k for k in _EXTRA_CLASSES if k[1] == algorithm_id]:
        del _EXTRA_CLASSES[key]


def register_implementation(info: ImplementationInfo, *, replace: bool = False) -> None:
    """Add an implementation family (a module exporting classes under the registered class names)."""
    if info.id in IMPLEMENTATIONS and not replace:
        raise RegistryError(f"implementation {info.id!r} is already registered (pass replace=True)")
    IMPLEMENTATIONS[info.id] = info


@contextmanager
def registered(info: AlgorithmInfo, classes: Mapping[str, Factory] | None = None) -> Iterator[AlgorithmInfo]:
    """Register ``info`` for the duration of a ``with`` block (tests, experiments)."""
    register_algorithm(info, classes)
    try:
        yield info
    finally:
        unregister_algorithm(info.id)


def decayed_markdown() -> str:
    """The README's table of the approximate structures (paper 004): accuracy and space guarantees."""
    rows = ["| structure | id | paper | guarantee | space |", "|---|---|---|---|---|"]
    for a in ALGORITHMS.values():
        if a.error:
            rows.append(f"| {a.title} | `{a.id}` | {a.paper} | {a.error} | {a.space} |")
    return "\n".join(rows)


_SAFETY = {
    "strong": "exactly as before the operation (strong)",
    "refuse": "refuses every later call (`BrokenAggregatorError`) until `repair()`; `salvage()` returns the contents",
}


def robustness_markdown() -> str:
    """The README's table of what each structure guarantees when its user code misbehaves (issue 12): the
    exception guarantee each class declares (``exception_safety``, the same in both implementations -- a
    mismatch shows both), re-entrant/concurrent calls, copying and pickling."""
    rows = [
        "| structure | id | if ⊗ (or other user code) raises mid-operation | re-entrant or concurrent call | "
        "copy / deepcopy / pickle |",
        "|---|---|---|---|---|",
    ]
    for a in ALGORITHMS.values():
        cls = resolve_class(a.id)
        if isinstance(cls, type) and issubclass(cls, a.kind.model):  # the ADT model itself (Recalc): nothing to harden
            continue
        declared = {
            impl: getattr(resolve_class(a.id, impl), "exception_safety", "undocumented")
            for impl in available_implementations(a.id)
        }
        kinds = sorted(set(declared.values()))
        safety = (
            _SAFETY.get(kinds[0], kinds[0]) if len(kinds) == 1 else ", ".join(f"{i}: {k}" for i, k in declared.items())
        )
        rows.append(
            f"| {a.title} | `{a.id}` | {safety} | refused with `ReentrantCallError`, nothing changed | "
            "by snapshot, same state and counts |"
        )
    return "\n".join(rows)


def guarantees_markdown() -> str:
    """The README's guarantee table (⊗ invocations per operation, stored partial aggregates)."""
    rows = [
        "| algorithm | id | paper | query | insert | evict | amortized ⊗/op | worst-case ⊗/op | space | requires |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for a in ALGORITHMS.values():
        rows.append(
            f"| {a.title} | `{a.id}` | {a.paper} | {a.worst_query} | {a.worst_insert} | {a.worst_evict} | "
            f"{a.amortized} | {a.worst_case} | {a.space} | {a.requirement_text()} |"
        )
    return "\n".join(rows)


def make_machine(
    algorithm_id: str, monoid_id: str, implementation: str = "reference", *, max_window: int = DEFAULT_MAX_WINDOW
) -> type[KindMachine]:
    """The state machine class of ``algorithm_id``'s kind over library monoid ``monoid_id`` in ``implementation``.

    Raises :class:`~swagkit.verify.registry.RegistryError` (unknown id / implementation lacks the algorithm),
    :class:`~swagkit.spec.errors.UnsupportedMonoidError` or ``KeyError`` (no input strategy for the monoid) up
    front rather than inside Hypothesis.
    """
    info = algorithm(algorithm_id)
    machine_subject = subject(algorithm_id, implementation)
    if info.takes_monoid:
        require_monoid(info, LIBRARY[monoid_id].factory())
    return info.kind.make_machine(machine_subject, monoid_id, max_window)


def examples_for(algorithm_id: str, max_examples: int) -> int:
    """How many examples ``algorithm_id`` runs of ``max_examples``: a card with ``verify_share`` > 1 (FiBA's
    other μ and its looped bulk operations: all of FiBA's code is shared) runs that share, at least 3, which keeps
    ``swagkit verify`` within its time budget."""
    share = algorithm(algorithm_id).verify_share
    return max_examples if share == 1 else max(3, max_examples // share)
