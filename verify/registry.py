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

Each entry's ``kind`` is the :class:`~swagkit.verify.kinds.base.Kind` its card's ``kind`` string names
(:mod:`swagkit.verify.kinds`): the ADT it is verified as, which owns the model, the debug wrapper, the state
machine and the differential run. :func:`subject` is what those are given: the class an implementation provides,
with its registered parameters and facts.

:func:`create` is the package's one factory. With ``SWAGKIT_CHECK=1`` in the environment (:func:`check_enabled`)
it returns the aggregator wrapped in its kind's debug wrapper, so every operation is checked against the model,
the invariants and the budgets.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from swagkit.spec.algorithms import CARDS, AlgorithmCard
from swagkit.spec.algorithms.card import MonoidRequirements
from swagkit.spec.errors import SwagkitError, UnsupportedMonoidError
from swagkit.spec.library import LIBRARY
from swagkit.spec.monoid import Monoid

from .kinds import Kind, Subject
from .kinds import kind as kind_named

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


class RegistryError(SwagkitError, LookupError):
    """Unknown algorithm / implementation / monoid id, or an implementation that does not provide an algorithm."""


@dataclass(frozen=True)
class AlgorithmInfo(MonoidRequirements):
    """One registered algorithm: identity, where its spec lives, what it requires and what it guarantees.

    The registered ones are read off the algorithm cards (:meth:`from_card`; ``card`` is the card). ``checker``
    and ``budget`` are keys of :data:`~swagkit.spec.checkers.CHECKERS` and :data:`~swagkit.spec.budgets.BUDGETS`
    (``None``: no invariant checker / no combine budget, so only the model is checked). ``kind`` is the
    :class:`~swagkit.verify.kinds.base.Kind` it is verified as (given as a name, e.g. ``"out_of_order"``, it is
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
        """The registry entry of an algorithm card."""
        g = card.guarantees
        return cls(
            id=card.id,
            class_name=card.class_name,
            title=card.title,
            paper=card.paper,
            checker=card.checker_id,
            budget=card.budget_id,
            kind=kind_named(card.kind),
            requires=card.requires,
            requires_any=card.requires_any,
            params=dict(card.params),
            worst_query=g.query,
            worst_insert=g.insert,
            worst_evict=g.evict,
            amortized=g.amortized,
            worst_case=g.worst_case,
            space=g.space,
            takes_monoid=card.takes_monoid,
            monoids=card.monoids,
            error=g.error,
            verify_share=card.verify_share,
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


def resolve_monoid(monoid: Monoid[Any, Any, Any] | str) -> Monoid[Any, Any, Any]:
    """A :class:`Monoid` from a monoid or a library id (a fresh instance from the library factory)."""
    if isinstance(monoid, Monoid):
        return monoid
    try:
        return LIBRARY[monoid].factory()
    except KeyError:
        raise RegistryError(f"unknown monoid {monoid!r}; known: {', '.join(LIBRARY)}") from None


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


#: Environment variable that turns debug mode on for aggregators built by :func:`create`.
ENV_VAR = "SWAGKIT_CHECK"


def check_enabled() -> bool:
    """Whether ``SWAGKIT_CHECK`` asks for debug mode (any value except empty, ``0``, ``false``, ``no``, ``off``)."""
    return os.environ.get(ENV_VAR, "").strip().lower() not in ("", "0", "false", "no", "off")


def require_monoid(info: AlgorithmInfo, monoid: Monoid[Any, Any, Any] | str) -> Monoid[Any, Any, Any]:
    """The monoid ``monoid`` names, if ``info``'s algorithm may run over it (else
    :class:`~swagkit.spec.errors.UnsupportedMonoidError`)."""
    m = resolve_monoid(monoid)
    missing = info.missing_properties(m)
    if missing:
        raise UnsupportedMonoidError(
            f"{info.id} needs {_article(info.requirement_text())} monoid; {m.name} does not declare "
            f"{', '.join(missing)}"
        )
    return m


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
    """
    info = algorithm(algorithm_id)
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


def _article(words: str) -> str:
    """``"a selective"`` / ``"an invertible"``."""
    return ("an " if words[:1] in "aeiou" else "a ") + words


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
                    skip = f"needs {_article(info.requirement_text())} monoid"
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
