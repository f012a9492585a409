"""``swagkit replay FILE``: run a replay file (:mod:`.replayfile`) again, exactly, on the implementation the
command line names.

:func:`run` replays a file through the kind's debug wrapper -- the same model, invariant and budget checks as the
run that wrote it, the injected ⊗ faults injected again at the same steps -- and compares every step with the
file: 1 while it still fails, 0 once it passes. Nothing the file names is imported or run (see
:mod:`.replayfile`): the implementation is ``--impl``/``--exec`` from the command line, or a registered algorithm
of swagkit's own registry. :func:`run_steps` is the engine (``swagkit corpus run`` and the check that a
freshly written replay reproduces its failure use it too); files that re-run a whole seeded search or Spark
task (``python_only``) go to :func:`rerun`, :func:`swagkit.verify.spark.rediff` or
:func:`swagkit.verify.kinds.decay.spark.remerge`.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from swagkit.spec.library import LIBRARY
from swagkit.spec.monoid import Monoid

from . import registry
from .arrays import ArrayCase, compare
from .errors import describe_exception, without_history
from .faults import with_faults
from .kinds import Kind
from .kinds import kind as kind_named
from .kinds.base import same_output
from .kinds.decay.spark import MergeTask, run_merge_locally
from .kinds.differential import DiffTask
from .kinds.fifo.contract import Contract
from .kinds.machines import run_machine_class
from .lockstep import Against
from .options import conformance_monoid, tolerant
from .replayfile import RERUN, ReplayFile, read
from .trace import Step, Trace, execute
from .tracemin import ddmin

__all__ = [
    "ReplayUsageError",
    "Target",
    "run",
    "run_steps",
    "replay_file",
    "reproduces",
    "rerun",
    "rediff",
    "remerge",
]


class ReplayUsageError(ValueError):
    """The file cannot run as asked: it needs ``--impl``/``--exec``/``--monoid`` on the command line."""


@dataclass(frozen=True)
class Target:
    """What a replay runs on: ``factory(monoid)``; ``guard`` wraps each new aggregator (code swagkit did not
    write: its own exceptions and hangs become failures naming the step; a Spark finding: the implementation it
    was compared with runs in lock-step); ``algorithm``/``facts`` what is known about it; ``monoid`` the monoid's
    constructor when it is not the one the file names (a user's own, as the run resolved it)."""

    factory: Callable[..., Any]
    algorithm: str | None = None
    facts: Any = None
    guard: Callable[[Any], Any] | None = None
    monoid: Callable[[], Monoid[Any, Any, Any]] | None = None


def run_steps(
    target: Target,
    kind: Kind,
    monoid: Monoid[Any, Any, Any],
    steps: Sequence[Step],
    *,
    contract: Contract | None = None,
    judge_only: bool = False,
) -> tuple[Trace, tuple[int, str] | None]:
    """Run ``steps`` on a new aggregator of ``target`` in ``kind``'s debug wrapper (faults injected again where
    a step says); the trace of this run and ``None``, or ``(number, what went wrong)`` at the first step that
    fails or disagrees with the steps (number 0: building the aggregator failed; ``judge_only``: only the
    wrapper's checks judge, see :func:`~swagkit.verify.trace.execute`)."""
    plain = monoid
    faults = None
    if any(s.fault is not None for s in steps):
        monoid, faults = with_faults(plain)
    trace = Trace(kind.traced(), faults)
    try:
        obj = target.factory(monoid)
        if target.guard is not None:
            obj = target.guard(obj)
        within = {"contract": contract} if contract is not None and contract.restricted else {}
        checked = kind.checked(obj, monoid=plain, algorithm=target.algorithm, facts=target.facts, **within)
    except AssertionError as exc:
        return trace, (0, f"{type(exc).__name__}: {exc}")
    failure = execute(
        trace.wrap(checked), steps, lambda got, want: same_output(plain, got, want), judge_only=judge_only
    )
    return trace, failure


#: the most seconds :func:`shrunk_trace` spends (a part of the shrink budget: Hypothesis has had its share)
TRACE_SHRINK_SECONDS = 10.0


def shrunk_trace(
    machine: Any, header: Mapping[str, Any], steps: Sequence[Step], seconds: float
) -> tuple[Trace, str] | None:
    """``steps`` (a failing machine run's trace) shrunk by delta debugging (:mod:`swagkit.verify.tracemin`),
    each candidate run on a fresh instance of what ``machine`` verified, judged by the wrapper's checks alone;
    the shrunk run's trace and its failure, or ``None`` when no step could go (or the steps do not fail again the
    same way: nothing is changed then)."""
    target = getattr(machine, "replay_target", None) or _registered_target(header)
    monoid = target.monoid() if target.monoid is not None else _monoid(header)
    kind = kind_named(machine.kind_name)
    contract = Contract.of(header.get("contract")) if header.get("contract") is not None else None

    def run(candidate: Sequence[Step]) -> tuple[Trace, tuple[int, str] | None]:
        return run_steps(target, kind, monoid, candidate, contract=contract, judge_only=True)

    _, first = run(steps)
    if first is None or first[0] == 0:
        return None
    cut = list(steps[: first[0]])  # the steps after the first failure never matter
    # the same failure: the same check failing (its exception) at the same operation; and a candidate stays
    # within the run's contract (a window that is never evicted empty, say): outside it nothing is a finding
    same = (_failure_sort(first[1]), cut[-1].name)

    def fails(candidate: Sequence[Step]) -> bool:
        if contract is not None and contract.restricted and not contract.admits((s.name, s.args) for s in candidate):
            return False
        failure = run(candidate)[1]
        return failure is not None and failure[0] > 0 and _same_failure(failure, candidate) == same

    smallest = ddmin(cut, fails, seconds=seconds) if len(cut) > 1 else cut
    if len(smallest) >= len(steps):
        return None
    trace, failure = run(smallest)
    if failure is None or failure[0] == 0 or _same_failure(failure, smallest) != same:  # pragma: no cover - flaky
        return None
    return trace, failure[1]


def _same_failure(failure: tuple[int, str], steps: Sequence[Step]) -> tuple[str, str]:
    """What a failure is, for :func:`shrunk_trace`: the check's exception and the failing step's operation."""
    return _failure_sort(failure[1]), steps[failure[0] - 1].name


def _failure_sort(what: str) -> str:
    """What kind of failure ``what`` is: its exception's name (``ModelMismatch``, ``ImplementationHang``, …)."""
    return what.split(":", 1)[0].strip()


def replay_file(path: str, target: Target | None = None) -> tuple[ReplayFile, Trace, tuple[int, str] | None]:
    """Run the file at ``path`` on ``target`` (default: the registered algorithm it names); the file, the trace
    of the run and its first failure (see :func:`run_steps`)."""
    file = read(path)
    header = file.header
    target = target if target is not None else _registered_target(header)
    m = target.monoid() if target.monoid is not None else _monoid(header)
    contract = Contract.of(header.get("contract")) if header.get("contract") is not None else None
    trace, failure = run_steps(target, kind_named(file.kind_name), m, file.steps, contract=contract)
    return file, trace, failure


def reproduces(path: str, machine: Any) -> bool:
    """Whether the replay file just written at ``path`` fails again on what ``machine`` verified (its
    ``replay_target``, else the registered algorithm the file names). A file that re-runs a seeded search
    reproduces by construction (the same search)."""
    if read(path).header.get("python_only") in RERUN:
        return True
    return replay_file(path, getattr(machine, "replay_target", None))[2] is not None


def run(path: str, target: Target | Callable[..., Any] | None = None, *, out: TextIO | None = None) -> int:
    """Replay the file at ``path`` on ``target`` (the command line's ``--impl``/``--exec``, or a factory called
    with the monoid; ``None``: the registered algorithm the file names): 0 when every step passes and agrees with
    the file, 1 at the first that does not (printed to ``out``). Raises :class:`~.replayfile.ReplayFileError` for
    a malformed file and :class:`ReplayUsageError` for a file that needs what the command line did not give."""
    if target is not None and not isinstance(target, Target):
        target = Target(target)
    say: Callable[[str], None] = (lambda s: print(s, file=out)) if out is not None else (lambda s: None)
    file = read(path)
    header = file.header
    how = header.get("python_only")
    if how in RERUN:
        if target is not None or "algorithm" not in header:
            raise ReplayUsageError(f"{path} re-runs the registered implementations it names: no --impl/--exec")
        return _rerun(str(how))(header, say)
    if target is None:
        for flag, key in (("--impl", "impl"), ("--exec", "exec")):
            if header.get(key):
                named = shlex.quote(str(header[key]))
                raise ReplayUsageError(
                    f"the file was written for {flag} {header[key]}: run swagkit replay {shlex.quote(path)} {flag} "
                    f"{named} (swagkit never imports or runs what a replay file names)"
                )
    file, trace, failure = replay_file(path, target)
    recorded = header.get("failed_at")
    if failure is None:
        note = f"; the failure recorded at #{recorded} does not happen" if recorded else ""
        say(f"replay: PASS, {len(file.steps)} steps agree with the model{note} ({path})")
        return 0
    number, what = failure
    where = f"#{number} {file.steps[number - 1].call()}" if 0 < number <= len(file.steps) else "the start"
    same = " (as recorded)" if recorded == number else f" (recorded at #{recorded})" if recorded else ""
    say(f"replay: FAIL at {where}{same}:\n{without_history(what)}")
    if len(trace) > 1:
        say("trace:\n" + _indent(trace.describe()))
    return 1


def _indent(text: str) -> str:
    return "\n".join("  " + line for line in text.splitlines())


def _monoid(header: Mapping[str, Any]) -> Monoid[Any, Any, Any]:
    """The monoid a file names, when swagkit knows it without importing anything (a library id or a protocol
    conformance monoid)."""
    name = str(header["monoid"])
    if name in LIBRARY:
        m = LIBRARY[name].factory()
    else:
        conformance = conformance_monoid(name)
        if conformance is None:
            raise ReplayUsageError(
                f"the file's monoid {name!r} is not one of swagkit's: name it with --monoid {name} (swagkit never "
                "imports what a replay file names)"
            )
        m = conformance.monoid()
    tolerance = header.get("tolerance")
    if isinstance(tolerance, (int, float)) and not isinstance(tolerance, bool):
        m = tolerant(m, float(tolerance))
    return m


def _registered_target(header: Mapping[str, Any]) -> Target:
    """The registered algorithm a file names (its registry entry's checks), with the implementation a Spark
    finding was compared with in lock-step."""
    if "algorithm" not in header:
        raise ReplayUsageError("the file names no implementation: pass --impl MODULE:FACTORY or --exec CMD")
    algorithm = str(header["algorithm"])
    try:
        subject = registry.subject(algorithm, str(header.get("implementation", "reference")))
        info = registry.algorithm(algorithm)
    except registry.RegistryError as exc:
        raise ReplayUsageError(f"the file's algorithm is not available here: {exc}") from exc
    against = Against.of(dict(header), _monoid(header)) if header.get("against") else None
    return Target(subject.new, algorithm=algorithm, facts=info, guard=against.wrap if against is not None else None)


def _rerun(how: str) -> Callable[[dict[str, Any], Callable[[str], None]], int]:
    """What re-runs a ``python_only`` ``rerun``, ``diff`` or ``merge`` file."""
    return {"merge": remerge, "diff": rediff, "arrays": rearray}.get(how, rerun)


def _registered_pair(algorithm: str, header: Mapping[str, Any]) -> tuple[Any, Any]:
    """The subjects ``against`` and ``implementation`` of a Spark file, from the registry."""
    try:
        return registry.subject(algorithm, str(header["against"])), registry.subject(
            algorithm, str(header["implementation"])
        )
    except (registry.RegistryError, KeyError) as exc:  # not a failure of the implementation: a usage error
        raise ReplayUsageError(f"the replay file's algorithm is not available here: {exc}") from exc


def _task(cls: Callable[..., Any], header: Mapping[str, Any], key: str) -> Any:
    """The Spark task a ``python_only`` file names (``diff``/``merge``), as ``cls``."""
    try:
        return cls(**header[key])
    except (TypeError, KeyError) as exc:
        raise ReplayUsageError(f"the replay file's {key} task is malformed: {exc}") from None


def _verdict(again: Any, what: str, passed: str, say: Callable[[str], None]) -> int:
    """0 and a PASS line when the re-run ``again`` is ``ok``, else 1 and a FAIL line with its ``detail``."""
    if again.ok:
        say(f"replay: PASS, {what}: {passed}")
        return 0
    where = f" at step {again.step}" if getattr(again, "step", None) is not None else ""
    say(f"replay: FAIL, {what}{where}: {again.detail}")
    return 1


def rediff(header: dict[str, Any], say: Callable[[str], None]) -> int:
    """``swagkit replay`` of a ``python_only: "diff"`` file (a Spark differential run): the task of
    ``header["diff"]`` again, locally, under its kind's runner over the registered ``against`` (reference) and
    ``implementation`` classes: 1 while it still differs, 0 once they agree."""
    task = _task(DiffTask, header, "diff")
    reference, optimized = _registered_pair(task.algorithm, header)
    runner = registry.algorithm(task.algorithm).kind.diff_runner
    if runner is None:
        raise ReplayUsageError(f"{task.algorithm}'s kind has no differential run")
    again = runner(task, reference, optimized)  # never raises: a crash is a failed result
    agree = f"{header['implementation']} agrees with {header['against']}"
    return _verdict(again, f"the differential run ({task.steps} steps, seed {task.seed})", agree, say)


def rearray(header: dict[str, Any], say: Callable[[str], None]) -> int:
    """``swagkit replay`` of a ``python_only: "arrays"`` file (:mod:`swagkit.verify.arrays`): the recorded call
    of an array entry point again on the registered ``implementation`` and its twin ``against`` (``window_sum``:
    the compiled kernel and its pure-Python twin): 1 while they still differ, 0 once they agree."""
    try:
        case = ArrayCase.of(header["case"])
    except (TypeError, KeyError, ValueError) as exc:
        raise ReplayUsageError(f"the replay file's array call is malformed: {exc}") from None
    subjects = None if case.algorithm is None else _registered_pair(case.algorithm, header)
    problem = compare(case, subjects[1], subjects[0]) if subjects is not None else compare(case, None, None)
    if not problem:
        say(f"replay: PASS, {case.entry} agrees with its twin ({len(case.values)} values, window {case.window})")
        return 0
    say(f"replay: FAIL, {case.describe()}:\n  {problem}")
    return 1


def remerge(header: dict[str, Any], say: Callable[[str], None]) -> int:
    """``swagkit replay`` of a ``python_only: "merge"`` file (the sketch kind's Spark merge run): the merge run
    again, locally (:func:`~swagkit.verify.kinds.decay.spark.run_merge_locally`) over the registered
    ``against`` and ``implementation`` classes: 1 while it still fails, 0 once it passes."""
    task = _task(MergeTask, header, "merge")
    reference, optimized = _registered_pair(task.algorithm, header)
    again = run_merge_locally(task, (reference.factory, optimized.factory))
    what = f"the merge run ({task.items:,} items on {task.partitions} partitions, seed {task.seed})"
    return _verdict(again, what, "the merged digests pass", say)


def rerun(header: dict[str, Any], say: Callable[[str], None]) -> int:
    """``swagkit replay`` of a ``python_only: "rerun"`` file over a registered algorithm: the same machine,
    settings and seed (Hypothesis finds and shrinks the same example): 1 while it still fails, 0 once it
    passes."""
    run = header.get("rerun")
    if not isinstance(run, dict) or not all(isinstance(run.get(k), int) for k in ("examples", "steps", "max_window")):
        raise ReplayUsageError("the file's rerun settings are malformed (examples, steps, max_window)")
    if run.get("seed") is None:
        say("replay: note: the run had no seed (the Hypothesis profile chose): this search may differ")
    try:
        machine = registry.make_machine(
            str(header["algorithm"]), str(header["monoid"]), str(header["implementation"]), max_window=run["max_window"]
        )
    except (registry.RegistryError, KeyError) as exc:
        raise ReplayUsageError(f"the file's algorithm is not available here: {exc}") from exc
    try:
        run_machine_class(machine, run["examples"], run["steps"], run.get("seed"))
    except Exception as exc:
        say(f"replay: FAIL (the seeded search again):\n{describe_exception(exc)}")
        return 1
    say(f"replay: PASS, the seeded search ({run['examples']} examples × {run['steps']} steps) finds no failure")
    return 0
