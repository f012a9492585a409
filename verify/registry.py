"""The algorithm registry: which SWAG algorithms exist, what they promise, and where their code lives.

Everything that enumerates algorithms (``swagkit verify``, ``swagkit list``, the README table, the stateful
tests) reads :data:`ALGORITHMS` and :data:`IMPLEMENTATIONS` instead of naming classes, so a new algorithm is one
:class:`AlgorithmInfo` entry (plus its checker in :data:`swagkit.spec.checkers.CHECKERS` and its budget in
:data:`swagkit.spec.budgets.BUDGETS`), and a new implementation family is one :class:`ImplementationInfo`.

An implementation is a module exporting classes under the names given by ``AlgorithmInfo.class_name``; it
provides an algorithm exactly when it exports that name. ``swagkit.optimized`` is therefore picked up as soon as
it exports ``TwoStacks`` & co., and is simply "not available" while its ``__init__`` is empty or its import
fails.

:func:`create` is the package's one factory. With ``SWAGKIT_CHECK=1`` in the environment it returns the
aggregator wrapped in :func:`swagkit.verify.debug.checked`, so every operation is checked against the model,
the invariants and the budgets.
"""

from __future__ import annotations

import importlib
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Callable, Iterator, Mapping, Sequence

from swagkit.spec.errors import SwagkitError, UnsupportedMonoidError
from swagkit.spec.library import LIBRARY
from swagkit.spec.monoid import Monoid

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
    "guarantees_markdown",
    "decayed_markdown",
    "robustness_markdown",
]

#: A constructor of aggregators: ``factory(monoid, **params)``.
Factory = Callable[..., Any]

#: The monoid properties an algorithm may require (``Monoid`` attributes of the same names).
PROPERTIES = ("commutative", "invertible", "selective")


class RegistryError(SwagkitError, LookupError):
    """Unknown algorithm / implementation / monoid id, or an implementation that does not provide an algorithm."""


@dataclass(frozen=True)
class AlgorithmInfo:
    """One registered algorithm: identity, where its spec lives, what it requires and what it guarantees.

    ``checker`` and ``budget`` are keys of :data:`~swagkit.spec.checkers.CHECKERS` and
    :data:`~swagkit.spec.budgets.BUDGETS` (``None``: no invariant checker / no combine budget, so only the model
    is checked). ``kind`` is the ADT it implements: ``"fifo"`` (in-order, checked by
    :mod:`swagkit.verify.machine`); later kinds such as ``"out_of_order"`` get their own machine. ``params``
    are constructor keyword arguments, so one class can be registered several times under different ids (e.g.
    FiBA with ``min_arity=2`` and ``4``). ``requires`` lists monoid properties the algorithm relies on
    (SlickDeque: ``selective`` or ``invertible``); ``requires_any`` means at least one of them suffices.
    """

    id: str
    class_name: str
    title: str
    paper: str
    checker: str | None
    budget: str | None
    kind: str = "fifo"
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

    def __post_init__(self) -> None:
        unknown = [p for p in self.requires if p not in PROPERTIES]
        if unknown:
            raise ValueError(f"algorithm {self.id!r}: unknown monoid properties {unknown} (known: {PROPERTIES})")

    def missing_properties(self, monoid: Monoid[Any, Any, Any]) -> list[str]:
        """The required properties ``monoid`` does not declare (empty when it is supported)."""
        missing = [p for p in self.requires if not getattr(monoid, p)]
        if self.requires_any and len(missing) < len(self.requires):
            return []
        return missing

    def supports(self, monoid: Monoid[Any, Any, Any]) -> bool:
        """Whether this algorithm may run over ``monoid`` (it declares every required property)."""
        return not self.missing_properties(monoid)

    def requirement_text(self) -> str:
        """``"-"``, ``"invertible"``, ``"selective or invertible"``…, for tables."""
        if not self.requires:
            return "-"
        return (" or " if self.requires_any else " and ").join(self.requires)


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


def _fifo(
    id: str,
    class_name: str,
    title: str,
    paper: str,
    *,
    worst: tuple[str, str, str],
    amortized: str,
    worst_case: str,
    space: str,
) -> AlgorithmInfo:
    return AlgorithmInfo(
        id=id,
        class_name=class_name,
        title=title,
        paper=paper,
        checker=id,
        budget=id,
        worst_query=worst[0],
        worst_insert=worst[1],
        worst_evict=worst[2],
        amortized=amortized,
        worst_case=worst_case,
        space=space,
    )


#: Registered algorithms by id, in presentation order (baseline first). Guarantees are ⊗ invocations.
ALGORITHMS: dict[str, AlgorithmInfo] = {
    info.id: info
    for info in (
        _fifo("recalc", "Recalc", "Recalculate-from-scratch", "000 §8.1",
              worst=("n−1", "0", "0"), amortized="O(n)", worst_case="O(n)", space="n"),
        _fifo("two_stacks", "TwoStacks", "Two-Stacks", "000 §3 (Thm 3.2)",
              worst=("1", "1", "n"), amortized="O(1)", worst_case="O(n)", space="2n"),
        _fifo("two_stacks_lite", "TwoStacksLite", "Two-Stacks Lite", "000 §4 (Thm 4.2)",
              worst=("1", "1", "n"), amortized="O(1)", worst_case="O(n)", space="n+1"),
        _fifo("daba", "DABA", "DABA", "000 §5 (Thm 5.2)",
              worst=("1", "4", "3"), amortized="O(1) (insert 2.5, evict 1.5)", worst_case="O(1)", space="2n"),
        _fifo("daba_lite", "DABALite", "DABA Lite", "000 §6 (Thm 6.2)",
              worst=("1", "3", "2"), amortized="O(1) (insert 2, evict 1)", worst_case="O(1)", space="n+2"),
        _fifo("reactive", "ReactiveAggregator", "Reactive Aggregator", "002 §5 (Thm 4.2, §5.1.1)",
              worst=("2·log2 C+1", "C−1+log2 C", "C/2+log2 C"), amortized="O(log n) (resize O(1))",
              worst_case="O(n)", space="2C−1 (C ≤ max(2, 4n))"),
        AlgorithmInfo("flatfat", "FlatFAT", "FlatFAT (tree, not a SWAG)", "002 §4 (Thm 4.2)",
                      checker=None, budget=None, kind="tree",
                      worst_query="log2 n", worst_insert="m(1+⌈log2(n/m)⌉)", worst_evict="-",
                      amortized="-", worst_case="O(m + m log(n/m))", space="2n−1"),
        AlgorithmInfo("slickdeque_inv", "SlickDequeInv", "SlickDeque (Inv)", "001 Algorithm 1, §4",
                      checker="slickdeque_inv", budget="slickdeque_inv", requires=("invertible",),
                      worst_query="0", worst_insert="1", worst_evict="1", amortized="O(1) (insert 1, evict 1)",
                      worst_case="O(1)", space="n+1"),
        AlgorithmInfo("slickdeque_noninv", "SlickDequeNonInv", "SlickDeque (Non-Inv)", "001 Algorithm 2, §4",
                      checker="slickdeque_noninv", budget="slickdeque_noninv", requires=("selective",),
                      worst_query="0", worst_insert="n", worst_evict="0", amortized="O(1) (insert < 2)",
                      worst_case="O(n)", space="1…n"),
        _fifo("flatfit", "FlatFIT", "FlatFIT (resizable)", "001 §2, §4; 000 §7–8.1",
              worst=("n−1", "0", "0"), amortized="O(1) (1 per insert, evict and query)", worst_case="O(n)",
              space="2n (buffer ≤ max(2, 4n))"),
    )
}


def _fiba(id: str, class_name: str, title: str, mu: int, amortized: str) -> AlgorithmInfo:
    """Out-of-order FiBA (paper 003, FiBA 2019). Worst-case columns in ⊗ with u = 4μ−2 ⊗ per node
    recomputation and L the height bound (swagkit.spec.fiba_budgets); space in stored partial aggregates."""
    return AlgorithmInfo(
        id=id, class_name=class_name, title=title, paper="003 §3–§5 (Thms 1, 3); FiBA 2019",
        checker="fiba", budget="fiba_loop" if class_name == "FiBALoop" else "fiba", kind="out_of_order",
        params={"min_arity": mu}, worst_query="2", worst_insert="u(5L+1)+1", worst_evict="u(5L+2)",
        amortized=amortized, worst_case="O(log n)", space="n + #nodes (≤ n/(μ−1)+1)",
    )


# Out-of-order algorithms: FiBA with μ = 4 (the paper's default), 2 and 8, and the paper's loop baseline.
ALGORITHMS.update(
    (info.id, info)
    for info in (
        _fiba("fiba", "FiBA", "FiBA (μ=4, bulk evict/insert)", 4,
              "insert O(log d), evict O(1); bulk evict O(log m), bulk insert O(log d + m(1+log(d/m)))"),
        _fiba("fiba_mu2", "FiBA", "FiBA (μ=2)", 2, "as fiba"),
        _fiba("fiba_mu8", "FiBA", "FiBA (μ=8)", 8, "as fiba"),
        _fiba("fiba_loop", "FiBALoop", "FiBA, bulk ops as loops (μ=4, baseline)", 4,
              "as fiba, but bulk evict O(m), bulk insert O(m log d)"),
    )
)

#: Implementation families by id. ``optimized`` provides nothing until ``swagkit.optimized`` exports classes.
IMPLEMENTATIONS: dict[str, ImplementationInfo] = {
    "reference": ImplementationInfo("reference", "swagkit.reference", "pure Python, reads like the pseudocode"),
    "optimized": ImplementationInfo("optimized", "swagkit.optimized", "Cython, same API and counts"),
}

# Time-decayed aggregates over out-of-order streams (paper 004): approximate structures, not monoid-generic
# SWAGs. They take no monoid (they add integer weights), so ``swagkit verify`` runs each once per implementation,
# listed under the ``count`` monoid; their state machines and debug wrappers are in ``decay_machine`` and
# ``decay_debug``, their error and space contracts in ``swagkit.spec.decay_bounds``.
from swagkit.spec.decay import PolynomialDecay as _PolynomialDecay  # noqa: E402


def _decayed(id: str, class_name: str, title: str, paper: str, kind: str, error: str, space: str,
             **params: Any) -> AlgorithmInfo:
    return AlgorithmInfo(id, class_name, title, paper, checker=None, budget=None, kind=kind, params=params,
                         worst_query="-", worst_insert="-", worst_evict="-", amortized="-", worst_case="-",
                         space=space, takes_monoid=False, monoids=("count",), error=error)


for _info in (
    _decayed("qdigest", "QDigest", "q-digest (mergeable quantile sketch)", "004 §3.1 box", "sketch",
             "r̂(q) <= r(q) <= r̂(q) + εN", "4·b/ε+1 ranges", universe_bits=10, eps=0.05),
    _decayed("window_count", "SlidingWindowCount", "Out-of-order window count", "004 §3.1 (Thm 1)", "time_decayed",
             "|D̂_w - D_w| <= ε·D_w", "α per level, α = (8/ε+7)T+1", time_bits=12, eps=0.2),
    _decayed("window_quantiles", "SlidingWindowQuantiles", "Out-of-order window quantiles (defer merge)",
             "004 §3.2-3.3, §4.1 (Thm 2, 3)", "time_decayed", "ranks ±ε·D_w (any decay: ±ε·D)",
             "α·(8b/ε+1) per level, α = (16/ε+7)T+1", time_bits=10, value_bits=8, eps=0.5),
    _decayed("value_division", "ValueDivision", "Value division (smooth decay)", "004 §4.2 (Thm 4)", "time_decayed",
             "ranks ±(θ+β+θβ)·D", "2⌈ln(1/g(A))/ln(1+θ)⌉+1 digests", time_bits=12, value_bits=8,
             decay=_PolynomialDecay(1.0), theta=0.1, beta=0.1),
):
    ALGORITHMS[_info.id] = _info

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
        raise RegistryError(
            f"unknown implementation {implementation!r}; known: {', '.join(IMPLEMENTATIONS)}"
        ) from None
    mod = impl.load()
    cls = getattr(mod, info.class_name, None) if mod is not None else None
    return cls if callable(cls) else None


def available_implementations(algorithm_id: str | None = None) -> list[str]:
    """Implementations that provide ``algorithm_id`` (or, without an id, at least one registered algorithm)."""
    ids = [algorithm_id] if algorithm_id is not None else list(ALGORITHMS)
    return [impl for impl in IMPLEMENTATIONS if any(resolve_class(a, impl) is not None for a in ids)]


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
    environment variable; when checking is on the result is :func:`swagkit.verify.debug.checked` around the
    aggregator. Raises :class:`RegistryError` for unknown ids or an implementation lacking the algorithm, and
    :class:`~swagkit.spec.errors.UnsupportedMonoidError` when the monoid lacks a required property.
    """
    info = algorithm(algorithm_id)
    if not info.takes_monoid:  # paper 004 structures: the monoid argument is ignored
        return _create_monoid_free(info, implementation, check, params)
    if monoid is None:
        raise RegistryError(f"{algorithm_id} needs a monoid")
    m = resolve_monoid(monoid)
    missing = info.missing_properties(m)
    if missing:
        raise UnsupportedMonoidError(
            f"{algorithm_id} needs {_article(info.requirement_text())} monoid; {m.name} does not declare "
            f"{', '.join(missing)}"
        )
    cls = resolve_class(algorithm_id, implementation)
    if cls is None:
        raise RegistryError(f"implementation {implementation!r} does not provide {algorithm_id} ({info.class_name})")
    aggregator = cls(m, **{**info.params, **params})
    from .debug import check_enabled, checked  # local: debug imports this module

    if check if check is not None else check_enabled():
        return checked(aggregator, monoid=m, algorithm=algorithm_id)
    return aggregator


def _article(words: str) -> str:
    """``"a selective"`` / ``"an invertible"``."""
    return ("an " if words[:1] in "aeiou" else "a ") + words


def _create_monoid_free(info: AlgorithmInfo, implementation: str, check: bool | None, params: dict[str, Any]) -> Any:
    cls = resolve_class(info.id, implementation)
    if cls is None:
        raise RegistryError(f"implementation {implementation!r} does not provide {info.id} ({info.class_name})")
    structure = cls(**{**info.params, **params})
    from .debug import check_enabled, checked  # local: debug imports this module

    if check if check is not None else check_enabled():
        return checked(structure, algorithm=info.id)
    return structure


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
        if a.id == "recalc":
            continue
        declared = {impl: getattr(resolve_class(a.id, impl), "exception_safety", "undocumented")
                    for impl in available_implementations(a.id)}
        kinds = sorted(set(declared.values()))
        safety = _SAFETY.get(kinds[0], kinds[0]) if len(kinds) == 1 else ", ".join(f"{i}: {k}" for i, k in declared.items())
        rows.append(f"| {a.title} | `{a.id}` | {safety} | refused with `ReentrantCallError`, nothing changed | "
                    "by snapshot, same state and counts |")
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
