"""Verify a user's own aggregator: ``swagkit verify --impl MODULE:FACTORY`` and :func:`verify_aggregator`.

``FACTORY(monoid)`` (a class or any callable) returns an aggregator of one kind -- ``fifo`` (insert, evict, query,
``len``; 000 §2.1), ``handles`` (fifo plus ``insert_with_handle``/``remove``; 002 §2.2) or ``ooo`` (the
out-of-order face of 003 §2) -- that combines with ``monoid.combine``, lifts inputs with ``monoid.lift`` and
lowers answers with ``monoid.lower``. The kind's Hypothesis state machine (:mod:`swagkit.verify.kinds`) drives it
against the executable model, on the object itself:

* optional operations the object lacks are not exercised (bulk calls become single calls; handle-group extras
  and ``query_range`` rules are off) and are listed (:func:`~swagkit.verify.options.detect`);
* every call goes through a :class:`~swagkit.verify.guard.Guarded`: an exception the implementation raises on a
  valid operation is :class:`ImplementationError` naming the step (swagkit's documented errors --
  ``EmptyWindowError`` and the other :class:`~swagkit.spec.errors.SwagkitError` subclasses -- are the answers to
  misuse; ``empty_error`` names the user's own empty-window exception), and a call that does not return within
  ``timeout`` seconds is a hang naming the step;
* the rule families: *correctness* (the model's answers), *misuse* (operations the model refuses: an evict on an
  empty window must raise :class:`~swagkit.spec.errors.EmptyWindowError`; ``misuse=False`` skips them), *faults*
  (a ⊗ call raising once must leave the aggregator as before; ``faults=False`` skips them) and, with
  ``combine_budget=``, the theorems' ⊗ counts. A finding of a contract family is reported on its own and the
  search goes on for correctness (:func:`swagkit.verify.runner.search`);
* ``snapshot()``/``combine_count`` are optional: ``checker=`` (``--checker ALGO``) runs that algorithm's paper
  invariants on ``snapshot()`` (which must have its state shape), ``combine_budget=`` (``--combine-budget
  ALGO``) meters ``⊗`` through ``combine_count`` against the theorem's bounds;
* ``budget=`` (``--budget SECONDS``) spends seconds instead of a count of examples: rounds of further seeds with
  more examples each (:func:`swagkit.verify.runner.search_rounds`), over ``jobs`` forked workers
  (:mod:`swagkit.verify.rounds`);
* the shrunk counterexample is one trace (:mod:`swagkit.verify.trace`), written as a replay file
  (:mod:`swagkit.verify.replayfile`) that is checked to reproduce the failure;
* ``contract=`` (``--contract``; :class:`~swagkit.verify.kinds.fifo.Contract`) declares what a FIFO window promises
  -- a fixed capacity whose inserts evict the oldest, no explicit evicts, evicts only draining a full window, no
  empty window, registered query ranges -- and the machine stays inside it (the replay file's header carries it).

A user's own monoid (``MODULE:OBJ``) is law-checked before any aggregator over it is blamed. Options are resolved
once into a frozen :class:`~swagkit.verify.options.Options`.

>>> from swagkit.reference import TwoStacks
>>> report = verify_aggregator(TwoStacks, kind="fifo", monoid="string_concat", examples=3, steps=10)
>>> report.passed, [r.name for r in report.results]
(True, ['string_concat'])
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from swagkit.spec.monoid import Monoid

from .guard import Deadline, Guarded, ImplementationError
from .kinds.base import NotImplementedOperations, Subject
from .kinds.fifo.machine import make_fifo_machine
from .kinds.machines import KindMachine, MachineStats
from .kinds.out_of_order.machine import make_ooo_machine
from .laws import LawFailure, check_laws_of
from .options import (
    DEFAULT_MONOIDS,
    TIMES,
    Detected,
    MonoidChoice,
    Options,
    UsageError,
    UserFacts,
    detect,
    resolve_monoid,
)
from .replay import Target
from .rounds import search_rounds_parallel
from .runner import Finding, Outcome, search

__all__ = [
    "ImplementationError",
    "VerificationFailed",
    "Report",
    "machine_for",
    "verify_aggregator",
    "run_monoids",
    "run_all",
    "check_own_monoid",
    "probe",
    "describe_outcome",
]


class VerificationFailed(AssertionError):
    """:func:`verify_aggregator` found a failure: the message holds each finding's trace, failure and replay
    file (``report``: every monoid's :class:`~swagkit.verify.runner.Outcome`)."""

    def __init__(self, message: str, report: Report) -> None:
        super().__init__(message)
        self.report = report


def _guard(options: Options, deadline: Deadline) -> Callable[[Any], Guarded]:
    return lambda obj: Guarded(obj, empty_error=options.empty_error, deadline=deadline)


def _built_by(factory: Callable[..., Any], guard: Callable[[Any], Any]) -> Callable[[Monoid[Any, Any, Any]], Any]:
    def new(monoid: Monoid[Any, Any, Any]) -> Any:
        try:
            obj = factory(monoid)
        except Exception as exc:
            raise ImplementationError(f"FACTORY({monoid.name})", exc) from exc
        return guard(obj)

    return new


def _name(factory: Callable[..., Any], who: dict[str, Any] | None) -> str:
    """What messages call the implementation: its class or function name, an ``--exec`` program's file name."""
    if who and who.get("exec"):
        program = shlex.split(str(who["exec"]))[0] if str(who["exec"]).strip() else "program"
        return os.path.basename(program)
    return re.sub(r"\W+", "_", getattr(factory, "__name__", type(factory).__name__)).strip("_") or "impl"


def machine_for(
    factory: Callable[..., Any],
    kind: str = "fifo",
    monoid: str | MonoidChoice | Monoid[Any, Any, Any] = "string_concat",
    *,
    options: Options | None = None,
    who: dict[str, Any] | None = None,
    **given: Any,
) -> type[KindMachine]:
    """The Hypothesis state machine class verifying ``factory(monoid)`` as a ``kind`` aggregator: run it with
    ``machine_for(...).TestCase`` (unittest/pytest) or :func:`hypothesis.stateful.run_state_machine_as_test`,
    or subclass it to add rules. ``options`` (else the keyword values ``given``: ``values``, ``times``,
    ``checker``, ``combine_budget``, ``tolerance``, ``misuse``, ``faults``, ``max_window``, ``contract``, ``timeout``,
    ``empty_error``, ``replay_dir``; see :class:`~swagkit.verify.options.Options`) say how; ``who``: what the
    replay header names the implementation by (``{"impl": "MODULE:FACTORY"}``)."""
    opts = options if options is not None else Options.of(kind=kind, **given)
    k = opts.swagkit_kind
    choice = resolve_monoid(monoid, opts.values, opts.tolerance)
    guard = _guard(opts, Deadline(opts.timeout))
    name = _name(factory, who)
    facts = UserFacts(name, opts.checker, opts.combine_budget)
    subject = Subject(name, _built_by(factory, guard), facts=facts, implementation="impl")
    machine: type[KindMachine]
    if k.name == "out_of_order":
        machine = make_ooo_machine(
            subject, choice.label, opts.max_window, strategy=choice.values, flavors=TIMES[opts.times]
        )
    elif k.name == "fifo":
        machine = make_fifo_machine(
            subject, choice.label, opts.max_window, strategy=choice.values, contract=opts.contract
        )
    else:
        raise UsageError(f"--impl verifies the fifo, handles and ooo kinds, not {k.name}")
    machine.monoid_factory = choice.factory
    machine.shrink_seconds = opts.shrink_budget
    machine.misuse_rules = opts.misuse
    machine.inject_faults = opts.faults
    machine.faults_on_typed = True  # the user's class calls combine for every monoid (issue 25: 0 of 20 seeds
    # found a FiBA that forgets a failed ⊗ over sum_i64 while faults were only injected into untyped monoids)
    label = who or {"impl": f"{getattr(factory, '__module__', '?')}:{getattr(factory, '__qualname__', name)}"}
    machine.replay_facts = {**label, "monoid": choice.id, **opts.header()}
    machine.replay_directory = opts.replay_dir
    machine.replay_target = Target(factory, facts=facts, guard=guard, monoid=choice.factory)
    return machine


@dataclass
class Report:
    """Every monoid's :class:`~swagkit.verify.runner.Outcome` and what was detected on the object."""

    kind: str
    detected: Detected
    results: list[Outcome]

    @property
    def passed(self) -> bool:
        return all(r.status == "PASS" for r in self.results)


def check_own_monoid(choice: MonoidChoice, seed: int | None) -> str:
    """The law violation of a user's own monoid (``""``: its laws hold on the inputs drawn, NaN included): a
    broken monoid would make every aggregator over it look wrong."""
    if not choice.own:
        return ""
    try:
        check_laws_of(choice.factory, [], choice.values, max_examples=60, seed=seed)
    except LawFailure as exc:
        return f"{exc} (give the monoid an equality that accepts rounding with --tolerance X, or fix it)"
    return ""


def verify_aggregator(
    factory: Callable[..., Any],
    kind: str = "fifo",
    monoid: str | Monoid[Any, Any, Any] | Sequence[str | Monoid[Any, Any, Any]] | None = None,
    *,
    impl: str | None = None,
    **given: Any,
) -> Report:
    """Verify ``factory(monoid)`` as a ``kind`` aggregator (``"fifo"``, ``"handles"``, ``"ooo"``) over each
    monoid (default :data:`~swagkit.verify.options.DEFAULT_MONOIDS`); ``given`` are
    :class:`~swagkit.verify.options.Options` fields (``examples`` 12, ``steps`` 40, ``seed`` 0, ``replay_dir``,
    ``values``, ``times``, ``checker``, ``combine_budget``, ``budget`` (seconds: rounds of seeds until spent,
    :mod:`swagkit.verify.rounds`), ``jobs``, ``tolerance``, ``misuse``, ``faults``, ``max_window``,
    ``contract``, ``timeout``, ``empty_error``). Returns the :class:`Report`; raises :class:`VerificationFailed`
    (an ``AssertionError``) with each finding's trace, failure and replay file when a monoid fails,
    :class:`~swagkit.verify.kinds.base.NotImplementedOperations` when a required operation is missing and
    :class:`~swagkit.verify.options.UsageError` for a bad option."""
    report = run_monoids(factory, kind, monoid, impl=impl, **given)
    failed = [r for r in report.results if r.status != "PASS"]
    if failed:
        raise VerificationFailed("\n\n".join(describe_outcome(r) for r in failed), report)
    return report


def run_monoids(
    factory: Callable[..., Any],
    kind: str = "fifo",
    monoid: str | Monoid[Any, Any, Any] | Sequence[str | Monoid[Any, Any, Any]] | None = None,
    *,
    impl: str | None = None,
    on_result: Callable[[Outcome], None] | None = None,
    **given: Any,
) -> Report:
    """:func:`verify_aggregator` without the raise: every monoid's :class:`~swagkit.verify.runner.Outcome` in
    the :class:`Report` (``on_result`` is called with each as it ends)."""
    given.setdefault("replay_dir", ".swagkit/replays")
    options = Options.of(kind=kind, **given)
    monoids = [monoid] if isinstance(monoid, (str, Monoid)) else list(monoid or DEFAULT_MONOIDS)
    choices = [resolve_monoid(m, options.values, options.tolerance) for m in monoids]
    detected = detect(probe(factory, choices[0]), kind)
    if detected.lacking:
        k = options.swagkit_kind
        lines = "\n".join(f"  {n}: {k.operation(n).doc}" for n in detected.lacking)
        raise NotImplementedOperations(
            f"the object is not a {kind} aggregator: it lacks {', '.join(detected.lacking)}\n{lines}"
        )
    who = {"impl": impl} if impl else None
    return Report(kind, detected, run_all(factory, choices, options, who, on_result=on_result))


def probe(factory: Callable[..., Any], choice: MonoidChoice) -> Any:
    """One instance to see what the factory makes (:class:`UsageError` when it cannot make one)."""
    if not callable(factory):
        raise UsageError(f"the factory {factory!r} is not callable (a class, or a function of the monoid)")
    try:
        return factory(choice.factory())
    except Exception as exc:
        raise UsageError(
            f"calling the factory with the monoid {choice.id} raised {type(exc).__name__}: {exc}"
        ) from None


def run_all(
    factory: Callable[..., Any],
    choices: Sequence[MonoidChoice],
    options: Options,
    who: dict[str, Any] | None = None,
    *,
    on_result: Callable[[Outcome], None] | None = None,
    protocol: Callable[[], str] | None = None,
    after_fork: Callable[[], None] | None = None,
) -> list[Outcome]:
    """Every monoid's :class:`~swagkit.verify.runner.Outcome` (``on_result`` is called with each); a user's own
    monoid whose laws fail is a ``laws`` finding and no aggregator runs over it. With ``options.budget`` the
    seconds are shared by the monoids, each searched in rounds over ``options.jobs`` forked workers
    (``after_fork()`` runs first in each: an ``--exec`` program's own process)."""
    results = []
    share = options.budget / len(choices) if options.budget is not None and choices else None
    for choice in choices:
        broken = check_own_monoid(choice, options.seed)
        if broken:
            result = Outcome(choice.id, "FAIL", 0.0, findings=[Finding("laws", f"the monoid {choice.id}: {broken}")])
        else:
            machine = machine_for(factory, options.kind, choice, options=options, who=who)

            def run_round(
                seed: int | None, examples: int, machine: type[KindMachine] = machine, name: str = choice.id
            ) -> Outcome:
                machine.stats = MachineStats()  # this round's counts only
                return search(machine, name, examples=examples, steps=options.steps, seed=seed, protocol=protocol)

            if share is None:
                result = run_round(options.seed, options.examples)
            else:
                result = search_rounds_parallel(
                    run_round,
                    seconds=share,
                    examples=options.examples,
                    seed=options.seed or 0,
                    jobs=options.jobs,
                    after_fork=after_fork,
                )
        results.append(result)
        if on_result is not None:
            on_result(result)
    return results


def describe_outcome(result: Outcome) -> str:
    """A failed outcome as text: each finding's family, trace, failure and replay file."""
    lines = [f"{result.status}: {result.name}"]
    if result.error:
        lines.append(result.error)
    for f in result.findings:
        lines.append(f"[{f.family}] {f.failure}")
        if f.trace:
            lines.append(f.describe())
        if f.replay:
            lines.append(f"replay file: {f.replay}")
    return "\n".join(lines)
