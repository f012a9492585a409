"""What a run of a user's own aggregator is told, resolved once: :class:`Options` (frozen) and the pieces it names.

``swagkit verify --impl/--exec``, :func:`~swagkit.verify.impl.verify_aggregator`, ``swagkit replay`` and
``swagkit corpus run`` read their arguments here exactly once -- the kind, the monoids (:class:`MonoidChoice`:
a library id, a protocol conformance monoid or a user's ``MODULE:OBJ``), the contract, the tolerance, the
timeout, the user's own empty-window exception -- and every check of a value the user gave is made here, so a
bad value is one :class:`UsageError` (one line, exit 2) before anything runs.

:func:`load` is the one place a ``MODULE:NAME`` the user named is imported. It pins swagkit's own packages
first: a folder called ``swagkit`` in the working directory (a clone of this repository, say) would otherwise
take over every swagkit module imported afterwards, because ``swagkit`` is a namespace package.
"""

from __future__ import annotations

import importlib
import math
import os
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import FrozenInstanceError, dataclass, field, replace
from typing import Any

from hypothesis import strategies as st

from swagkit.spec.library import LIBRARY
from swagkit.spec.monoid import Monoid

from .kinds import Kind
from .kinds import kind as kind_named
from .kinds.base import outputs_close
from .kinds.fifo.contract import UNRESTRICTED, Contract
from .kinds.machines import DEFAULT_MAX_WINDOW, DEFAULT_SHRINK_SECONDS
from .kinds.out_of_order.machine import TIME_FLAVORS
from .process import CONFORMANCE
from .strategies import strategy_for

__all__ = [
    "KIND_NAMES",
    "TIMES",
    "DEFAULT_MONOIDS",
    "MAX_WINDOW_LIMIT",
    "UsageError",
    "Options",
    "MonoidChoice",
    "UserFacts",
    "Detected",
    "load",
    "pin_swagkit",
    "resolve_kind",
    "resolve_monoid",
    "tolerant",
    "detect",
    "conformance_monoid",
    "conformance_choices",
]

#: ``--kind`` names: (the swagkit kind, the extension group the object must offer)
KIND_NAMES: dict[str, tuple[str, str]] = {
    "fifo": ("fifo", ""),
    "handles": ("fifo", "handles"),
    "ooo": ("out_of_order", ""),
    "out_of_order": ("out_of_order", ""),
}

#: ``--times``: the timestamp flavors of the out-of-order machine
TIMES: dict[str, tuple[str, ...]] = {"int": ("int",), "float": ("float",), "any": TIME_FLAVORS}

#: monoids run when none is named: non-commutative and non-invertible (string_concat), selective and
#: non-commutative with ties (argmax), an invertible non-commutative group (affine), typed floats (sum_f64)
DEFAULT_MONOIDS = ("string_concat", "argmax", "affine", "sum_f64")

#: the largest ``--max-window``: the debug wrapper's checks cost O(window) ⊗ per operation, so a run's time grows
#: with the window; 4096 keeps a default run within about a minute
MAX_WINDOW_LIMIT = 4096


class UsageError(ValueError):
    """A value the user gave cannot be used (the message is one line saying which and why: exit status 2)."""


def pin_swagkit() -> None:
    """Import swagkit's four packages now, so that a ``swagkit`` folder that a later ``sys.path`` change brings
    in front (the working directory, for ``--impl``) cannot shadow them: ``swagkit`` is a namespace package,
    whose search path follows ``sys.path`` until every subpackage is imported."""
    for name in ("spec", "reference", "optimized", "verify"):
        importlib.import_module(f"swagkit.{name}")


def load(spec: str, what: str = "--impl") -> Any:
    """The object ``MODULE:NAME`` (``NAME`` may be dotted) that the user named with ``what``, importing
    ``MODULE`` with the current directory on ``sys.path`` (as ``python -m`` does). :class:`UsageError` (one line)
    for a malformed spec, a module that cannot be imported or raises on import, or a missing name."""
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise UsageError(f"{what} {spec!r}: expected MODULE:NAME (e.g. mymodule:MyAggregator)")
    pin_swagkit()
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        obj: Any = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        raise UsageError(f"{what} {spec}: no module named {exc.name!r} (from . or PYTHONPATH)") from None
    except FrozenInstanceError as exc:
        raise UsageError(
            f"{what} {spec}: importing {module_name} raised FrozenInstanceError ({exc}): a Monoid is frozen, so "
            "give its input strategy with --values MODULE:STRATEGY (or set .strategy on a function that returns it)"
        ) from None
    except Exception as exc:  # the user's module failed to import: their code, one line
        raise UsageError(f"{what} {spec}: importing {module_name} raised {type(exc).__name__}: {exc}") from None
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise UsageError(f"{what} {spec}: {module_name} has no {attr!r}") from None
    return obj


def resolve_kind(name: str | Kind) -> tuple[Kind, str]:
    """``(kind, group)`` of a ``--kind`` name (:data:`KIND_NAMES`; a swagkit kind name also works)."""
    if isinstance(name, Kind):
        return name, ""
    if name not in KIND_NAMES:
        raise UsageError(f"--kind {name!r}: one of {', '.join(KIND_NAMES)}")
    kind_id, group = KIND_NAMES[name]
    return kind_named(kind_id), group


@dataclass(frozen=True)
class MonoidChoice:
    """A monoid to verify over: ``id`` (a library id, a conformance monoid or ``MODULE:OBJ``), its constructor,
    its input strategy and -- for a user's own monoid -- ``own`` (its laws are checked before any aggregator
    over it is blamed)."""

    id: str
    factory: Callable[[], Monoid[Any, Any, Any]]
    values: st.SearchStrategy[Any]
    own: bool = False

    @property
    def label(self) -> str:
        """``id`` as an identifier (machine class names, replay file names)."""
        return re.sub(r"\W+", "_", self.id).strip("_")


def conformance_monoid(name: str) -> Any:
    """The protocol's conformance monoid called ``name`` (:data:`swagkit.verify.process.CONFORMANCE`), or None."""
    return CONFORMANCE.get(name)


def resolve_monoid(
    spec: str | MonoidChoice | Monoid[Any, Any, Any],
    values: str | st.SearchStrategy[Any] | None = None,
    tolerance: float | None = None,
) -> MonoidChoice:
    """A :class:`MonoidChoice` from a library id, a conformance monoid's name, ``MODULE:OBJ`` or a
    :class:`Monoid` (``values``: its input strategy, or ``MODULE:STRATEGY``; default ``OBJ.strategy``, else the
    library's). ``tolerance``: answers and aggregates compare with that relative and absolute tolerance."""
    if isinstance(spec, MonoidChoice):
        choice = spec
    elif isinstance(spec, str) and spec in LIBRARY:
        given = _strategy(values, spec) if values is not None else strategy_for(spec)
        choice = MonoidChoice(spec, LIBRARY[spec].factory, given)
    elif isinstance(spec, str) and conformance_monoid(spec) is not None:
        c = conformance_monoid(spec)
        choice = MonoidChoice(spec, c.monoid, _strategy(values if values is not None else c.strategy, spec))
    else:
        obj: Any = spec
        if isinstance(spec, str):
            if ":" not in spec:
                raise UsageError(f"--monoid {spec!r}: a library id ({', '.join(LIBRARY)}) or MODULE:OBJ")
            obj = load(spec, "--monoid")
        mid = spec if isinstance(spec, str) else getattr(spec, "name", "monoid")
        factory = _monoid_factory(obj, mid)
        choice = MonoidChoice(mid, factory, _strategy(values if values is not None else _own(obj), mid), own=True)
    if tolerance is None:
        return choice
    base = choice.factory
    return replace(choice, factory=lambda: tolerant(base(), tolerance))


def _own(obj: Any) -> Any:
    return getattr(obj, "strategy", None)


def _monoid_factory(obj: Any, mid: str) -> Callable[[], Monoid[Any, Any, Any]]:
    if isinstance(obj, Monoid):
        return lambda: obj
    if callable(obj):
        try:
            made = obj()
        except Exception as exc:
            raise UsageError(f"--monoid {mid}: calling it raised {type(exc).__name__}: {exc}") from None
        if isinstance(made, Monoid):
            return obj  # type: ignore[no-any-return]
    raise UsageError(f"--monoid {mid}: neither a swagkit Monoid nor a callable returning one")


def _strategy(values: Any, mid: str) -> st.SearchStrategy[Any]:
    if isinstance(values, str):
        values = load(values, "--values")
    if callable(values) and not isinstance(values, st.SearchStrategy):
        try:
            values = values()
        except Exception as exc:
            raise UsageError(f"the input strategy of {mid}: calling it raised {type(exc).__name__}: {exc}") from None
    if not isinstance(values, st.SearchStrategy):
        raise UsageError(
            f"no input strategy for monoid {mid}: pass --values MODULE:STRATEGY (a Hypothesis strategy), or set "
            ".strategy on a function that returns the monoid"
        )
    return values


def tolerant(monoid: Monoid[Any, Any, Any], tolerance: float) -> Monoid[Any, Any, Any]:
    """``monoid`` whose equality accepts a relative and absolute difference of ``tolerance``."""

    def close(a: Any, b: Any) -> bool:
        return outputs_close(a, b, tolerance, tolerance)

    return replace(monoid, eq=close, tolerance=f"rel/abs {tolerance:g}")


@dataclass(frozen=True)
class UserFacts:
    """:class:`~swagkit.verify.kinds.base.AlgorithmFacts` of a user's class: the checker and budget ids the user
    named (``--checker``/``--budget``), no card."""

    id: str
    checker: str | None = None
    budget: str | None = None
    card: None = None


@dataclass(frozen=True)
class Detected:
    """What :func:`detect` found on an instance: the kind's operations it offers, and the optional ones it lacks
    (``missing``) and required ones it lacks (``lacking``, a usage error)."""

    offered: tuple[str, ...]
    missing: tuple[str, ...]
    lacking: tuple[str, ...]


def detect(obj: Any, kind: str | Kind) -> Detected:
    """Which operations of ``kind`` (a ``--kind`` name) the instance ``obj`` offers."""
    k, group = resolve_kind(kind)
    required = set(k.required()) | set(k.group(group)[:2] if group else ())
    names = [op.name for op in k.operations if not op.group or op.group == group or _has(obj, op.name)]
    offered = tuple(n for n in names if _has(obj, n))
    missing = tuple(n for n in names if not _has(obj, n) and n not in required)
    lacking = tuple(n for n in names if not _has(obj, n) and n in required)
    return Detected(offered, missing, lacking)


def _has(obj: Any, name: str) -> bool:
    if name == "__len__":
        return callable(getattr(type(obj), "__len__", None))
    try:
        return getattr(obj, name, None) is not None
    except Exception:
        return True


def _positive(name: str, value: float | int, limit: float | None = None) -> None:
    if isinstance(value, bool) or not math.isfinite(value) or value <= 0:
        raise UsageError(f"{name} must be a positive number, got {value!r}")
    if limit is not None and value > limit:
        raise UsageError(f"{name} must be at most {limit:g}, got {value!r}")


@dataclass(frozen=True)
class Options:
    """How a user's aggregator is verified (every field checked when the object is made; see the module
    docstring). ``misuse``/``faults``: the contract families (misuse rules, ⊗ faults) run; ``timeout``: the
    seconds one call may take; ``empty_error``: the user's own empty-window exception types (``empty_error_name``:
    the ``MODULE:EXC`` named, kept in replay headers)."""

    kind: str = "fifo"
    times: str = "int"
    examples: int = 12
    steps: int = 40
    seed: int | None = 0
    max_window: int = DEFAULT_MAX_WINDOW
    tolerance: float | None = None
    checker: str | None = None
    combine_budget: str | None = None
    budget: float | None = None
    jobs: int = 1
    shrink_budget: float = DEFAULT_SHRINK_SECONDS
    misuse: bool = True
    faults: bool = True
    contract: Contract = UNRESTRICTED
    timeout: float = 10.0
    empty_error: tuple[type[BaseException], ...] = field(default=(), compare=False)
    empty_error_name: str | None = None
    values: str | None = None
    replay_dir: str | None = ".swagkit/replays"

    def __post_init__(self) -> None:
        resolve_kind(self.kind)
        if self.times not in TIMES:
            raise UsageError(f"--times {self.times!r}: one of {', '.join(TIMES)}")
        for name, value in (("--examples", self.examples), ("--steps", self.steps)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise UsageError(f"{name} must be a positive integer, got {value!r}")
        if isinstance(self.max_window, bool) or not isinstance(self.max_window, int):
            raise UsageError(f"--max-window must be an integer, got {self.max_window!r}")
        _positive("--max-window", self.max_window, MAX_WINDOW_LIMIT)
        if self.tolerance is not None and (not math.isfinite(self.tolerance) or self.tolerance < 0):
            raise UsageError(f"--tolerance must be a finite number ≥ 0, got {self.tolerance!r}")
        _positive("--timeout", self.timeout, 3600)
        if self.budget is not None:
            if isinstance(self.budget, str):
                raise UsageError(
                    f"budget={self.budget!r}: the budget is seconds now; the ⊗ bounds of an algorithm are "
                    f"combine_budget={self.budget!r} (--combine-budget {self.budget})"
                )
            _positive("--budget", self.budget, 7 * 24 * 3600)
        _positive("--shrink-budget", self.shrink_budget, 7 * 24 * 3600)
        if isinstance(self.jobs, bool) or not isinstance(self.jobs, int) or self.jobs < 1:
            raise UsageError(f"--jobs must be a positive integer, got {self.jobs!r}")
        if self.contract.restricted and resolve_kind(self.kind)[0].name != "fifo":
            raise UsageError(f"--contract restricts fifo and handles windows, not --kind {self.kind}")

    @property
    def swagkit_kind(self) -> Kind:
        return resolve_kind(self.kind)[0]

    @property
    def group(self) -> str:
        return resolve_kind(self.kind)[1]

    def header(self) -> dict[str, Any]:
        """The options a replay of this run needs (a replay header's fields)."""
        head: dict[str, Any] = {}
        # the ⊗ budget keeps its replay-file name, "budget" (files written before the flag was renamed)
        for key, attr in (("checker", "checker"), ("budget", "combine_budget"), ("tolerance", "tolerance")):
            if getattr(self, attr) is not None:
                head[key] = getattr(self, attr)
        if self.values is not None:
            head["values"] = self.values
        if self.contract.restricted:
            head["contract"] = self.contract.as_dict()
        if self.empty_error_name:
            head["empty_error"] = self.empty_error_name
        return head

    @classmethod
    def of(cls, empty_error: str | Sequence[type[BaseException]] | None = None, **given: Any) -> Options:
        """:class:`Options` from keyword values as a user gives them: ``contract`` as a :class:`Contract`, a dict
        of its fields or a ``--contract`` spec, ``empty_error`` as ``MODULE:EXC`` or exception types."""
        contract = given.pop("contract", None)
        try:
            given["contract"] = Contract.of(contract)
        except (TypeError, ValueError) as exc:
            raise UsageError(f"--contract: {exc}") from None
        if isinstance(empty_error, str):
            given["empty_error_name"] = empty_error
            given["empty_error"] = _exception_types(load(empty_error, "--empty-error"), empty_error)
        elif empty_error:
            given["empty_error"] = tuple(empty_error)
        return cls(**{k: v for k, v in given.items() if v is not None or k in ("seed", "tolerance")})


def _exception_types(obj: Any, spec: str) -> tuple[type[BaseException], ...]:
    types = obj if isinstance(obj, tuple) else (obj,)
    if not all(isinstance(t, type) and issubclass(t, Exception) for t in types):
        raise UsageError(f"--empty-error {spec}: not an exception class")
    return tuple(types)


def conformance_choices(
    factory: Any, monoids: Sequence[str] | None, tolerance: float | None = None
) -> list[MonoidChoice]:
    """The monoids of ``--exec``: the protocol's conformance monoids named in ``monoids``, by default every one
    the program's ``hello`` lists (``factory.monoids``); :class:`UsageError` for one that is not a conformance
    monoid or that the program does not offer."""
    offered: tuple[str, ...] = tuple(getattr(factory, "monoids", ()))
    names = list(dict.fromkeys(monoids or offered))
    if not names:
        raise UsageError("the program's hello lists no conformance monoid (see docs/protocol.md)")
    choices = []
    for name in names:
        c = conformance_monoid(name)
        if c is None:
            raise UsageError(f"--exec: {name!r} is not a conformance monoid ({', '.join(CONFORMANCE)})")
        if name not in offered:
            raise UsageError(f"--exec: the program does not offer {name!r} (its hello lists {', '.join(offered)})")
        choices.append(resolve_monoid(MonoidChoice(name, c.monoid, _strategy(c.strategy, name)), tolerance=tolerance))
    return choices
