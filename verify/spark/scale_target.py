"""What a scale run verifies, resolved in the process that runs it (a Spark worker, or the driver re-running a
finding): the :class:`Target`, its kind, a constructor, the fast oracle, the monoid and a pool of input values.

A worker resolves a target once (:func:`resolve` caches it per process): the class imported, the ``--exec`` program
started (one long-lived process per worker, restarted when it died), the oracle picked from the kind's
``oracles`` -- the first that is not the target itself.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..kinds.kind import Kind

__all__ = [
    "Target",
    "Built",
    "resolve",
    "CapacityOracle",
    "restricted_contract",
    "oracle_for",
    "offered_operations",
    "monoid_values",
]


@dataclass(frozen=True)
class Target:
    """What a scale run verifies. ``how``: ``registry`` (``spec`` an algorithm id, ``implementation`` which of
    its classes), ``impl`` (``spec`` is ``MODULE:FACTORY``; ``paths`` are put on the workers' ``sys.path``) or
    ``exec`` (``spec`` is the command; ``timeout`` per reply). ``kind``: the protocol kind, ``fifo`` or ``ooo``
    (a registered algorithm's kind is looked up). ``contract``: a FIFO window's contract (``--contract``)."""

    how: str
    spec: str
    kind: str = ""
    implementation: str = "optimized"
    paths: tuple[str, ...] = ()
    timeout: float = 10.0
    contract: str | None = None
    #: answers compare with this relative and absolute tolerance (``--tolerance``)
    tolerance: float | None = None
    #: the working directory of an ``exec`` command (the driver's: a relative command path resolves the same)
    cwd: str | None = None

    @property
    def label(self) -> str:
        if self.how == "registry":
            return f"{self.spec} ({self.implementation})"
        return f"--{self.how} {self.spec}"


class Built:
    """A target resolved in this process: its kind, a constructor over a monoid, the oracle's, the debug
    wrapper's facts and (registered algorithms) the twin implementation."""

    def __init__(self, target: Target) -> None:
        from .. import options, registry
        from ..replayfile import PROTOCOL_KINDS

        self.target = target
        self.twin: Any = None
        self.facts: Any = None
        if target.how == "registry":
            info = registry.algorithm(target.spec)
            self.kind: Kind = info.kind
            subject = registry.subject(target.spec, target.implementation)
            self.new: Callable[[Any], Any] = subject.new
            self.params = (subject.factory, dict(subject.params))
            self.facts = info
            other = "reference" if target.implementation == "optimized" else "optimized"
            if registry.resolve_class(target.spec, other) is not None:
                self.twin = registry.subject(target.spec, other).new
            card = info.card
            self.contract: Any = card.contract if card is not None else None
        else:
            for path in target.paths:
                if path not in sys.path:
                    sys.path.insert(0, path)
            self.kind, _group = options.resolve_kind(target.kind)
            self.new = (
                options.load(target.spec) if target.how == "impl" else exec_factory(target.spec, target.kind, target)
            )
            self.params = (self.new, {})
            self.facts = None
            self.contract = target.contract  # a --contract SPEC string
        self.protocol_kind = PROTOCOL_KINDS.get(self.kind.name, "")
        self.oracle = self._oracle()

    def _oracle(self) -> Callable[[Any], Any] | None:
        """The first of the kind's fast oracles that is not the target itself."""
        from .. import options

        for spec, params in self.kind.oracles:
            factory = options.load(spec)
            if (factory, dict(params)) != self.params:
                return functools.partial(factory, **params)
        return None


#: --exec targets: one long-lived process per (command, kind) in each Python worker
EXEC: dict[tuple[str, str], Any] = {}


def exec_factory(command: str, kind: str, target: Target) -> Any:
    from ..process import process_factory

    key = (command, kind)
    if key not in EXEC:
        EXEC[key] = process_factory(command, kind, timeout=target.timeout, cwd=target.cwd)
    return EXEC[key]


BUILT: dict[Target, Built] = {}


def resolve(target: Target) -> Built:
    if target not in BUILT:
        BUILT[target] = Built(target)
    return BUILT[target]


class CapacityOracle:
    """The oracle of a fixed-capacity window (``--contract capacity=W``): an insert into a full window first
    evicts the oldest, as the contract says the target does."""

    def __init__(self, inner: Any, capacity: int) -> None:
        self.inner, self.capacity = inner, capacity

    def insert(self, value: Any) -> Any:
        if len(self.inner) >= self.capacity:
            self.inner.evict()
        return self.inner.insert(value)

    def insert_many(self, values: Iterable[Any]) -> None:
        for v in values:
            self.insert(v)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def __len__(self) -> int:
        return len(self.inner)


def restricted_contract(spec: Any) -> Any:
    from ..kinds.fifo.contract import Contract

    contract = Contract.of(spec)
    return contract if contract.restricted else None


def oracle_for(built: Built, monoid: Any, contract: Any) -> Any:
    if built.oracle is None:
        raise ValueError(f"the {built.kind.name} kind has no fast oracle")
    oracle = built.oracle(monoid)
    return CapacityOracle(oracle, contract.capacity) if contract is not None and contract.capacity else oracle


def offered_operations(built: Built, monoid: Any) -> frozenset[str]:
    """The optional operations both the target and the oracle offer (bulk calls are made only then)."""
    probe = built.new(monoid)
    oracle = built.oracle(monoid) if built.oracle is not None else probe
    names = ("insert_many", "evict_many", "bulk_insert", "bulk_evict", "range_query", "remove")
    return frozenset(n for n in names if callable(getattr(probe, n, None)) and callable(getattr(oracle, n, None)))


def monoid_values(monoid_id: str, tolerance: float | None) -> tuple[Any, list[Any]]:
    """The monoid choice of ``monoid_id`` (answers compared within ``tolerance``) and a pool of input values
    drawn from its strategy (the same pool on every worker: the draw is derandomized), the library's examples
    first."""
    from .. import options

    choice = options.resolve_monoid(monoid_id, tolerance=tolerance)
    return choice, value_pool(choice)


POOLS: dict[str, list[Any]] = {}


def value_pool(choice: Any, size: int = 64) -> list[Any]:
    if choice.id in POOLS:
        return POOLS[choice.id]
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import strategies as st

    from swagkit.spec.library import LIBRARY

    pool: list[Any] = list(LIBRARY[choice.id].examples) if choice.id in LIBRARY else []

    @settings(
        max_examples=8,
        database=None,
        derandomize=True,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
        deadline=None,
    )
    @given(st.lists(choice.values, min_size=size // 8, max_size=size // 8))
    def draw(values: list[Any]) -> None:
        pool.extend(values)

    draw()
    POOLS[choice.id] = pool
    return pool
