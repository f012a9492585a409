"""Verify a user's own aggregator: ``swagkit verify --impl MODULE:FACTORY`` and :func:`verify_aggregator`.

``FACTORY(monoid)`` (a class or any callable) returns an aggregator of one kind -- ``fifo`` (insert, evict, query,
``len``; 000 §2.1), ``handles`` (fifo plus ``insert_with_handle``/``remove``; 002 §2.2) or ``ooo`` (the
out-of-order face of 003 §2) -- that combines with ``monoid.combine``, lifts inputs with ``monoid.lift`` and
lowers answers with ``monoid.lower``. The kind's Hypothesis state machine (:mod:`swagkit.verify.kinds`) drives it
against the executable model, on the object itself:

* optional operations the object lacks are not exercised (bulk calls are emulated one at a time; handle-group
  extras and ``query_range`` rules are off) and are listed (:func:`detect`);
* ``snapshot()``/``combine_count`` are optional: ``checker=`` (``--checker ALGO``) runs that algorithm's paper
  invariants on ``snapshot()`` (which must have its state shape), ``budget=`` (``--budget ALGO``) meters ``⊗``
  through ``combine_count`` against the theorem's bounds;
* an exception the implementation raises on a valid operation is a failure of the implementation,
  :class:`ImplementationError` naming the operation (swagkit's documented errors -- ``EmptyWindowError`` and the
  other :class:`~swagkit.spec.errors.SwagkitError` subclasses -- are the answers to misuse and pass through);
* the shrunk failing run is written as a replay file (:mod:`swagkit.verify.replay`);
* ``contract=`` (``--contract``; :class:`~swagkit.verify.kinds.fifo.Contract`) declares what a FIFO window promises
  -- a fixed capacity whose inserts evict the oldest, no explicit evicts, evicts only draining a full window, no
  empty window, registered query ranges -- and the machine stays inside it (the replay file's header carries it).

Monoids: a library id, or ``MODULE:OBJ`` for a user's own :class:`~swagkit.spec.monoid.Monoid` (or a callable
returning one) whose input strategy is ``OBJ.strategy`` (a Hypothesis strategy or a callable returning one) or
given as ``values="MODULE:STRATEGY"`` (``--values``). ``MODULE`` is imported with the current directory on
``sys.path``, as ``python -m`` does.

>>> from swagkit.reference import TwoStacks
>>> report = verify_aggregator(TwoStacks, kind="fifo", monoid="string_concat", examples=3, steps=10)
>>> report.passed, [r.monoid for r in report.results]
(True, ['string_concat'])
"""

from __future__ import annotations

import importlib
import os
import re
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from hypothesis import strategies as st
from hypothesis.reporting import with_reporter

from swagkit.spec.errors import SwagkitError
from swagkit.spec.library import LIBRARY
from swagkit.spec.monoid import Monoid

from .faults import InjectedFault
from .kinds import Kind
from .kinds import kind as kind_named
from .kinds.base import Subject, outputs_close
from .kinds.fifo.contract import Contract
from .kinds.fifo.machine import make_fifo_machine
from .kinds.machines import DEFAULT_MAX_WINDOW, KindMachine, run_machine_class
from .kinds.out_of_order.machine import TIME_FLAVORS, make_ooo_machine
from .runner import describe_exception
from .strategies import strategy_for

__all__ = [
    "KIND_NAMES",
    "DEFAULT_MONOIDS",
    "TIMES",
    "ImplementationError",
    "VerificationFailed",
    "Guarded",
    "MonoidChoice",
    "UserFacts",
    "Detected",
    "MonoidResult",
    "Report",
    "load",
    "resolve_kind",
    "resolve_monoid",
    "detect",
    "machine_for",
    "verify_aggregator",
    "run_monoid",
]

#: ``--kind`` names: (the swagkit kind, the extension group the object must offer)
KIND_NAMES: dict[str, tuple[str, str]] = {
    "fifo": ("fifo", ""),
    "handles": ("fifo", "handles"),
    "ooo": ("out_of_order", ""),
    "out_of_order": ("out_of_order", ""),
}

#: monoids run when none is named: non-commutative and non-invertible (string_concat), selective and
#: non-commutative with ties (argmax), an invertible non-commutative group (affine), typed floats (sum_f64)
DEFAULT_MONOIDS = ("string_concat", "argmax", "affine", "sum_f64")

#: ``--times``: the timestamp flavors of the out-of-order machine
TIMES: dict[str, tuple[str, ...]] = {"int": ("int",), "float": ("float",), "any": TIME_FLAVORS}

#: operations recorded into replay traces (what the machine asked; not the wrapper's own reads)
TRACED = frozenset(
    {
        "insert",
        "evict",
        "query",
        "insert_many",
        "evict_many",
        "shift",
        "query_range",
        "query_all",
        "insert_with_handle",
        "insert_many_with_handles",
        "remove",
        "remove_many",
        "batch",
        "handles",
        "bulk_evict",
        "bulk_insert",
        "range_query",
        "oldest",
        "youngest",
    }
)


class ImplementationError(AssertionError):
    """The implementation raised ``original`` on a valid ``operation``: a failure of the implementation, never
    an error of swagkit (an :class:`AssertionError`, so test runners and ``swagkit verify`` report FAIL)."""

    def __init__(self, operation: str, original: BaseException) -> None:
        super().__init__(f"the implementation raised {type(original).__name__}: {original} in {operation}")
        self.operation = operation
        self.original = original


class VerificationFailed(AssertionError):
    """:func:`verify_aggregator` found a failure: the message holds the shrunk program, the failure and the replay
    file's path (``report``: every monoid's result)."""

    def __init__(self, message: str, report: Report) -> None:
        super().__init__(message)
        self.report = report


_PASS_THROUGH: tuple[type[BaseException], ...] = (SwagkitError, InjectedFault, ImplementationError)


class Guarded:
    """The user's aggregator as the checked wrapper sees it: every call of an operation is recorded
    (``calls``: ``(name, args)`` of the :data:`TRACED` ones) and an exception other than swagkit's documented
    errors becomes :class:`ImplementationError` naming the call."""

    def __init__(self, inner: Any, calls: list[tuple[str, tuple[Any, ...]]] | None = None) -> None:
        self._inner = inner
        self.calls: list[tuple[str, tuple[Any, ...]]] = calls if calls is not None else []

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name == "_inner":
            raise AttributeError(name)
        attr = getattr(self._inner, name)
        if not callable(attr):
            return attr

        def call(*args: Any) -> Any:
            if name in TRACED:
                self.calls.append((name, args))
            return self._call(f"{name}({', '.join(map(repr, args))})", attr, *args)

        return call

    def _call(self, label: str, fn: Callable[..., Any], *args: Any) -> Any:
        try:
            return fn(*args)
        except _PASS_THROUGH:
            raise
        except Exception as exc:
            raise ImplementationError(label, exc) from exc

    def __len__(self) -> int:
        n = self._call("len()", lambda: len(self._inner))
        if not isinstance(n, int):
            raise ImplementationError("len()", TypeError(f"len() returned {n!r}"))
        return n

    def __repr__(self) -> str:
        return repr(self._inner)


def load(spec: str) -> Any:
    """The object ``MODULE:NAME`` (``NAME`` may be dotted), importing ``MODULE`` with the current directory on
    ``sys.path`` first (as ``python -m`` does). :class:`ValueError` for a malformed or unresolvable spec."""
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise ValueError(f"expected MODULE:NAME, got {spec!r}")
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        obj: Any = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"cannot import {module_name!r} (from {spec!r}): {exc}") from exc
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise ValueError(f"{module_name} has no {attr!r} (from {spec!r})") from None
    return obj


def resolve_kind(name: str | Kind) -> tuple[Kind, str]:
    """``(kind, group)`` of a ``--kind`` name (:data:`KIND_NAMES`; a swagkit kind name also works)."""
    if isinstance(name, Kind):
        return name, ""
    kind_id, group = KIND_NAMES.get(name, (name, ""))
    return kind_named(kind_id), group


@dataclass(frozen=True)
class MonoidChoice:
    """A monoid to verify over: ``id`` (a library id or ``MODULE:OBJ``), its constructor and input strategy."""

    id: str
    factory: Callable[[], Monoid[Any, Any, Any]]
    values: st.SearchStrategy[Any]

    @property
    def label(self) -> str:
        """``id`` as an identifier (machine class names, replay file names)."""
        return re.sub(r"\W+", "_", self.id).strip("_")


def resolve_monoid(
    spec: str | MonoidChoice | Monoid[Any, Any, Any],
    values: str | st.SearchStrategy[Any] | None = None,
    tolerance: float | None = None,
) -> MonoidChoice:
    """A :class:`MonoidChoice` from a library id, ``MODULE:OBJ`` or a :class:`Monoid` (``values``: its input
    strategy, or ``MODULE:STRATEGY``; default ``OBJ.strategy``, else the library's). ``tolerance``: answers and
    aggregates compare with that relative and absolute tolerance."""
    if isinstance(spec, MonoidChoice):
        choice = spec
    else:
        obj: Any = spec
        mid = spec if isinstance(spec, str) else getattr(spec, "name", "monoid")
        conformance = _conformance(spec) if isinstance(spec, str) and spec not in LIBRARY else None
        if isinstance(spec, str) and spec in LIBRARY:
            factory: Callable[[], Monoid[Any, Any, Any]] = LIBRARY[spec].factory
            default_values: Any = strategy_for(spec) if values is None else None
        elif conformance is not None:  # a protocol monoid that is not a library id (affine_int): replays, corpus
            factory, default_values = conformance.monoid, conformance.strategy()
        else:
            if isinstance(spec, str):
                if ":" not in spec:
                    raise ValueError(f"unknown monoid {spec!r}: a library id ({', '.join(LIBRARY)}) or MODULE:OBJ")
                obj = load(spec)
            factory = _monoid_factory(obj, mid)
            default_values = getattr(obj, "strategy", None)
        strategy = _strategy(values if values is not None else default_values, mid)
        choice = MonoidChoice(mid, factory, strategy)
    if tolerance is None:
        return choice
    base = choice.factory
    return replace(choice, factory=lambda: _tolerant(base(), tolerance))


def _conformance(name: str) -> Any:
    """The protocol's conformance monoid of that name (:data:`swagkit.verify.process.CONFORMANCE`), or None."""
    from .process import CONFORMANCE

    return CONFORMANCE.get(name)


def _monoid_factory(obj: Any, mid: str) -> Callable[[], Monoid[Any, Any, Any]]:
    if isinstance(obj, Monoid):
        return lambda: obj
    if callable(obj):
        made = obj()
        if isinstance(made, Monoid):
            return obj  # type: ignore[no-any-return]
    raise ValueError(f"{mid} is neither a Monoid nor a callable returning one")


def _strategy(values: Any, mid: str) -> st.SearchStrategy[Any]:
    if isinstance(values, str):
        values = load(values)
    if callable(values) and not isinstance(values, st.SearchStrategy):
        values = values()
    if not isinstance(values, st.SearchStrategy):
        raise ValueError(
            f"no input strategy for monoid {mid}: give it a .strategy attribute or pass --values MODULE:STRATEGY"
        )
    return values


def _tolerant(monoid: Monoid[Any, Any, Any], tolerance: float) -> Monoid[Any, Any, Any]:
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


class _Recorder:
    """The calls of the latest instance the factory built (Hypothesis runs the shrunk example last)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[Any, ...]]] = []

    def build(self, factory: Callable[..., Any]) -> Callable[[Monoid[Any, Any, Any]], Guarded]:
        def new(monoid: Monoid[Any, Any, Any]) -> Guarded:
            self.calls = []
            try:
                inner = factory(monoid)
            except Exception as exc:
                raise ImplementationError(f"FACTORY({monoid.name})", exc) from exc
            return Guarded(inner, self.calls)

        return new


def machine_for(
    factory: Callable[..., Any],
    kind: str | Kind = "fifo",
    monoid: str | MonoidChoice | Monoid[Any, Any, Any] = "string_concat",
    *,
    values: str | st.SearchStrategy[Any] | None = None,
    times: str = "int",
    checker: str | None = None,
    budget: str | None = None,
    tolerance: float | None = None,
    misuse: bool = True,
    faults: bool = True,
    max_window: int = DEFAULT_MAX_WINDOW,
    contract: Contract | str | dict[str, Any] | None = None,
) -> type[KindMachine]:
    """The Hypothesis state machine class verifying ``factory(monoid)`` as a ``kind`` aggregator: run it with
    ``machine_for(...).TestCase`` (unittest/pytest) or :func:`hypothesis.stateful.run_state_machine_as_test`,
    or subclass it to add rules. ``misuse=False`` skips the misuse rules (an implementation that documents
    undefined behaviour there), ``faults=False`` the transient-⊗-fault rules. ``contract`` (a
    :class:`~swagkit.verify.kinds.fifo.Contract`, its fields as a dict, or a ``--contract`` spec such as
    ``"capacity=8,no-evict-before-full"``) restricts a FIFO window to what it promises."""
    k, _ = resolve_kind(kind)
    promise = Contract.of(contract)
    choice = resolve_monoid(monoid, values, tolerance)
    if times not in TIMES:
        raise ValueError(f"times must be one of {', '.join(TIMES)}, got {times!r}")
    recorder = _Recorder()
    name = re.sub(r"\W+", "_", getattr(factory, "__name__", "impl")).strip("_") or "impl"
    facts = UserFacts(name, checker, budget)
    subject = Subject(name, recorder.build(factory), facts=facts, implementation="impl")
    machine: type[KindMachine]
    if k.name == "out_of_order":
        machine = make_ooo_machine(subject, choice.label, max_window, strategy=choice.values, flavors=TIMES[times])
    elif k.name == "fifo":
        machine = make_fifo_machine(subject, choice.label, max_window, strategy=choice.values, contract=promise)
    else:
        raise ValueError(f"--impl verifies the fifo, handles and ooo kinds, not {k.name}")
    if promise.restricted and k.name != "fifo":
        raise ValueError(f"a contract restricts FIFO windows; the {k.name} kind has none")
    machine.monoid_factory = choice.factory
    machine.misuse_rules = misuse
    machine.inject_faults = faults
    machine.recorder = recorder
    return machine


@dataclass
class MonoidResult:
    """One monoid's run: ``status`` ``"PASS"``/``"FAIL"``/``"ERROR"`` (ERROR: swagkit itself failed),
    ``program`` (Hypothesis' shrunk steps), ``failure`` (the error text), ``replay`` (the file's path)."""

    monoid: str
    status: str
    seconds: float
    examples: int = 0
    steps: int = 0
    program: str = ""
    failure: str = ""
    replay: str = ""
    calls: list[tuple[str, tuple[Any, ...]]] = field(default_factory=list)


@dataclass
class Report:
    """Every monoid's :class:`MonoidResult` and what was detected on the object."""

    kind: str
    detected: Detected
    results: list[MonoidResult]

    @property
    def passed(self) -> bool:
        return all(r.status == "PASS" for r in self.results)


def run_monoid(
    machine: type[KindMachine],
    monoid: str,
    *,
    examples: int,
    steps: int,
    seed: int | None,
    replay: Callable[[MonoidResult], str] | None = None,
) -> MonoidResult:
    """Run one machine from :func:`machine_for`; never raises for a failure of the implementation. ``replay``
    writes the failing trace and returns its path."""
    report: list[str] = []
    start = time.perf_counter()
    try:
        with with_reporter(lambda value: report.append(str(value))):
            run_machine_class(machine, examples, steps, seed)
    except Exception as exc:
        result = MonoidResult(
            monoid,
            "FAIL" if _is_failure(exc) else "ERROR",
            time.perf_counter() - start,
            program="\n".join(report).strip(),
            failure=describe_exception(exc),
            calls=list(machine.recorder.calls),  # type: ignore[attr-defined]
        )
        if replay is not None and result.status == "FAIL":
            result.replay = replay(result)
        return result
    stats = machine.stats
    return MonoidResult(monoid, "PASS", time.perf_counter() - start, stats.examples, stats.steps)


def _is_failure(exc: BaseException) -> bool:
    if isinstance(exc, BaseExceptionGroup):
        return all(_is_failure(e) for e in exc.exceptions)
    return isinstance(exc, AssertionError)


def verify_aggregator(
    factory: Callable[..., Any],
    kind: str = "fifo",
    monoid: str | Monoid[Any, Any, Any] | Sequence[str | Monoid[Any, Any, Any]] | None = None,
    *,
    examples: int = 12,
    steps: int = 40,
    seed: int | None = 0,
    replay_dir: str | None = ".swagkit/replays",
    impl: str | None = None,
    **options: Any,
) -> Report:
    """Verify ``factory(monoid)`` as a ``kind`` aggregator (``"fifo"``, ``"handles"``, ``"ooo"``) over each
    monoid (default :data:`DEFAULT_MONOIDS`); ``options`` go to :func:`machine_for` (``values``, ``times``,
    ``checker``, ``budget``, ``tolerance``, ``misuse``, ``faults``, ``max_window``, ``contract``). Returns the
    :class:`Report`; raises :class:`VerificationFailed` (an ``AssertionError``) with the shrunk program, the
    failure and the replay file's path when a monoid fails, and
    :class:`~swagkit.verify.kinds.base.NotImplementedOperations` when a required operation is missing."""
    monoids = _monoid_list(monoid)
    report = run_all(factory, kind, monoids, examples, steps, seed, replay_dir, impl, **options)
    failed = [r for r in report.results if r.status != "PASS"]
    if failed:
        raise VerificationFailed("\n\n".join(describe_result(r) for r in failed), report)
    return report


def _monoid_list(monoid: Any) -> list[Any]:
    if monoid is None:
        return list(DEFAULT_MONOIDS)
    if isinstance(monoid, (str, Monoid)):
        return [monoid]
    return list(monoid)


def run_all(
    factory: Callable[..., Any],
    kind: str,
    monoids: Sequence[Any],
    examples: int,
    steps: int,
    seed: int | None,
    replay_dir: str | None,
    impl: str | None,
    *,
    on_result: Callable[[MonoidResult], None] | None = None,
    header: dict[str, Any] | None = None,
    **options: Any,
) -> Report:
    """:func:`verify_aggregator` without the raise: every monoid's result (``on_result`` is called with each)."""
    from . import replay

    k, group = resolve_kind(kind)
    choices = [resolve_monoid(m, options.get("values"), options.get("tolerance")) for m in monoids]
    detected = detect(factory(choices[0].factory()), kind)
    if detected.lacking:
        from .kinds.base import NotImplementedOperations

        lines = "\n".join(f"  {n}: {k.operation(n).doc}" for n in detected.lacking)
        raise NotImplementedOperations(
            f"the object is not a {kind} aggregator: it lacks {', '.join(detected.lacking)}\n{lines}"
        )
    label = impl or f"{getattr(factory, '__module__', '?')}:{getattr(factory, '__qualname__', repr(factory))}"
    results = []
    for choice in choices:
        machine = machine_for(factory, kind, choice, **options)
        head = {"kind": kind, "monoid": choice.id, **(header or {"impl": label})}
        for key in ("checker", "budget", "tolerance", "values"):
            if options.get(key) is not None and isinstance(options[key], (str, int, float)):
                head[key] = options[key]
        if Contract.of(options.get("contract")).restricted:  # replays re-run within the same contract
            head["contract"] = Contract.of(options.get("contract")).as_dict()

        def write(result: MonoidResult, head: dict[str, Any] = head, choice: MonoidChoice = choice) -> str:
            if replay_dir is None:
                return ""
            return replay.write(replay_dir, head, result, choice, group or k.name)

        result = run_monoid(machine, choice.id, examples=examples, steps=steps, seed=seed, replay=write)
        results.append(result)
        if on_result is not None:
            on_result(result)
    return Report(kind, detected, results)


def describe_result(result: MonoidResult) -> str:
    """A failed result as text: the monoid, the shrunk program, the failure and the replay path."""
    lines = [f"{result.status}: monoid {result.monoid}"]
    if result.program:
        lines.append(result.program)
    lines.append(result.failure)
    if result.replay:
        lines.append(f"replay file: {result.replay}")
    return "\n".join(lines)


def conformance_choices(
    factory: Any, monoids: Sequence[str] | None, tolerance: float | None = None
) -> list[MonoidChoice]:
    """The monoids of ``--exec``: the protocol's conformance monoids (:data:`swagkit.verify.process.CONFORMANCE`)
    named in ``monoids``, by default every one the program's ``hello`` lists (``factory.monoids``);
    :class:`ValueError` for one that is not a conformance monoid or that the program does not offer."""
    from .process import CONFORMANCE

    offered: tuple[str, ...] = tuple(getattr(factory, "monoids", ()))
    names = list(dict.fromkeys(monoids or offered))
    if not names:
        raise ValueError("the program's hello lists no conformance monoid (see docs/protocol.md)")
    choices = []
    for name in names:
        if name not in CONFORMANCE:
            raise ValueError(f"--exec: {name!r} is not a conformance monoid ({', '.join(CONFORMANCE)})")
        if name not in offered:
            raise ValueError(f"--exec: the program does not offer {name!r} (its hello lists {', '.join(offered)})")
        c = CONFORMANCE[name]
        choices.append(resolve_monoid(MonoidChoice(name, c.monoid, _strategy(c.strategy, name)), tolerance=tolerance))
    return choices


def exec_factory(cmd: str, kind: str, timeout: float = 10.0) -> Callable[..., Any]:
    """The factory of ``--exec CMD``: aggregators living in a subprocess that speaks the line protocol
    (:mod:`swagkit.verify.process`)."""
    from .process import process_factory

    return process_factory(cmd, kind, timeout=timeout)
