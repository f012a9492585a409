"""One runner, one result type, one classifier: every verification run of ``swagkit verify`` ends as an
:class:`Outcome`.

* :func:`search` runs a state machine (a registered algorithm's or a user's aggregator's) and turns a failure
  into a :class:`Finding`: the counterexample's trace (:mod:`swagkit.verify.trace`), the failure, the replay file
  that reproduces it and the rule family it belongs to. Contract families never stop the correctness rules: a
  misuse or ⊗-fault finding is reported, that family is switched off, and the search goes on for correctness
  bugs, so one unusual choice of the implementation (its own exception on an empty window) cannot hide a wrong
  answer.
* :func:`run_task` runs one :class:`Task` of the registry (a machine run, or one library monoid's laws) -- kept
  apart from the CLI so tasks can run in worker processes and tests can call them directly. Every task derives
  its Hypothesis seed from the run's ``--seed`` and its own name, so the reproduce command printed for a failure
  re-runs exactly that task's search.

The classifier is :func:`swagkit.verify.errors.is_failure`: a failed check (an :class:`AssertionError`) is a FAIL
of the code under test, anything else an ERROR of swagkit itself.
"""

from __future__ import annotations

import shlex
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from hypothesis.reporting import with_reporter

from swagkit.spec.errors import BudgetExceeded

from .arrays import WINDOW_SUM, ArrayCase, compare, entry_point, search_arrays, write_replay
from .errors import contains, describe_exception, first_line, is_failure
from .kinds.base import Subject
from .kinds.machines import DEFAULT_MAX_WINDOW, DEFAULT_SHRINK_SECONDS, KindMachine, MachineStats
from .laws import check_monoid
from .machine import run_machine_class
from .registry import Combo, algorithm, examples_for, make_machine, subject
from .strategies import strategy_for
from .trace import SKIP_FLAGS, Step, describe

__all__ = [
    "Task",
    "Finding",
    "Outcome",
    "task_seed",
    "search",
    "search_rounds",
    "stops_search",
    "run_task",
    "reproduce_command",
]


@dataclass(frozen=True)
class Task:
    """One unit of verification: a machine run for ``combo``, or (``combo is None``) the laws of ``monoid``."""

    kind: str  # "machine", "laws" or "arrays" (an array entry point: swagkit.verify.arrays)
    monoid: str
    combo: Combo | None = None
    examples: int = 30
    steps: int = 50
    seed: int = 0
    max_window: int = DEFAULT_MAX_WINDOW
    #: seconds the machine run may spend in rounds of further seeds after its first (``--budget``; ``None``: one)
    seconds: float | None = None
    #: seconds to shrink a failure (``--shrink-budget``)
    shrink_seconds: float = DEFAULT_SHRINK_SECONDS
    #: no round starts that would end after this ``time.perf_counter()`` (the whole run's end), at ``cost`` seconds
    #: an example (:func:`search_rounds`; the main job's further rounds)
    deadline: float | None = None
    cost: float | None = None

    @property
    def name(self) -> str:
        if self.kind == "arrays":
            who = f"{self.combo.algorithm} × " if self.combo is not None else ""
            return f"{who}{self.monoid} arrays" if who else f"{WINDOW_SUM} × {self.monoid}"
        return self.combo.label if self.combo is not None else f"laws × {self.monoid}"


@dataclass(frozen=True)
class Finding:
    """One failure: its rule ``family`` (``correctness``, ``misuse``, ``faults``, ``budget``; ``laws`` for a
    monoid's), the ``failure`` text, the counterexample's ``trace`` (its steps, numbered from 1), its ``replay``
    file and whether that file ``reproduces`` it (``None``: not checked), and for an ``--exec`` program the
    protocol lines of the failing instance (``protocol``)."""

    family: str
    failure: str
    trace: tuple[Step, ...] = ()
    replay: str = ""
    reproduces: bool | None = None
    protocol: str = ""
    #: the trace's length before :mod:`swagkit.verify.tracemin` shrank it further (0: it did not)
    shrunk_from: int = 0

    @property
    def headline(self) -> str:
        """The failure's line that says what went wrong."""
        return first_line(self.failure)

    @property
    def skip_flag(self) -> str:
        """The flag that skips this finding's family (``""``: correctness is never skipped)."""
        return SKIP_FLAGS.get(self.family, "")

    def describe(self, limit: int = 60) -> str:
        """The trace, one numbered line per step."""
        return describe(self.trace, limit)


@dataclass
class Outcome:
    """How one run ended: ``status`` ``PASS``, ``FAIL`` (``findings`` say what), ``ERROR`` (swagkit itself
    broke: ``error``) or ``SKIP`` (``note`` says why: a corpus file the implementation cannot run);
    ``examples``/``steps`` run, ``seconds``, a ``reproduce`` command and ``details``."""

    name: str
    status: str
    seconds: float
    examples: int = 0
    steps: int = 0
    findings: list[Finding] = field(default_factory=list)
    error: str = ""
    note: str = ""
    reproduce: str = ""
    details: dict[str, Any] = field(default_factory=dict)
    task: Task | None = None

    @property
    def failed(self) -> bool:
        """FAIL or ERROR (a SKIP -- a corpus file the implementation cannot run -- is neither)."""
        return self.status in ("FAIL", "ERROR")

    @property
    def headline(self) -> str:
        """One line on what failed ("" when it passed)."""
        if self.status == "ERROR":
            return first_line(self.error)
        if not self.findings:
            return ""
        first = self.findings[0]
        more = f" (+{len(self.findings) - 1} more)" if len(self.findings) > 1 else ""
        return f"{first.family}: {first.headline}{more}"


def family_of(exc: BaseException, machine: type[KindMachine]) -> str:
    """The rule family of a machine's failure: a broken ⊗ budget, else what the trace says (the failing step's
    family, or the contract rule whose check failed)."""
    if contains(exc, BudgetExceeded):
        return "budget"
    trace = machine.last_trace
    return trace.family_of_failure if trace is not None else "correctness"


def finding_of(exc: BaseException, machine: type[KindMachine], protocol: Callable[[], str] | None = None) -> Finding:
    """The :class:`Finding` of a machine's failure ``exc`` (its replay file named on it by the run)."""
    trace = machine.last_trace
    # a trace shrunk after Hypothesis (delta debugging) failed with its own message, numbered like its steps
    failure = getattr(exc, "swagkit_failure", None) or describe_exception(exc, notes=False)
    return Finding(
        family_of(exc, machine),
        failure,
        tuple(trace) if trace is not None else (),
        str(getattr(exc, "swagkit_replay", "")),
        getattr(exc, "swagkit_reproduces", None),
        protocol() if protocol is not None else "",
        getattr(exc, "swagkit_shrunk_from", 0),
    )


def search(
    machine: type[KindMachine],
    name: str,
    *,
    examples: int,
    steps: int,
    seed: int | None,
    protocol: Callable[[], str] | None = None,
) -> Outcome:
    """Run ``machine``'s search; never raises for a failure of the code under test. A finding of a contract
    family (misuse, faults) switches that family off and the search goes on, so correctness is always searched
    (see the module docstring). ``protocol()``: the protocol lines of an ``--exec`` program's failing instance."""
    start = time.perf_counter()
    findings: list[Finding] = []
    while True:
        try:
            with with_reporter(lambda value: None):  # Hypothesis' program print: the trace says it, numbered
                run_machine_class(machine, examples, steps, seed)
        except Exception as exc:
            if not is_failure(exc):
                error = describe_exception(exc)
                return Outcome(name, "ERROR", time.perf_counter() - start, findings=findings, error=error)
            finding = finding_of(exc, machine, protocol)
            findings.append(finding)
            if finding.family == "misuse" and machine.misuse_rules:
                machine.misuse_rules = False
                continue
            if finding.family == "faults" and machine.inject_faults:
                machine.inject_faults = False
                continue
        break
    stats = machine.stats
    status = "FAIL" if findings else "PASS"
    return Outcome(name, status, time.perf_counter() - start, stats.examples, stats.steps, findings)


#: families whose finding switches that family off and lets the search go on (the others end it)
CONTINUING_FAMILIES = frozenset({"misuse", "faults"})

#: the most examples one round of :func:`search_rounds` runs (a long budget runs more rounds, not endless ones)
MAX_ROUND_EXAMPLES = 100_000


def stops_search(outcome: Outcome) -> bool:
    """Whether ``outcome`` ends a search in rounds: an ERROR, or a finding of a family that stops it."""
    return outcome.status == "ERROR" or any(f.family not in CONTINUING_FAMILIES for f in outcome.findings)


def search_rounds(
    run_round: Callable[[int, int], Outcome],
    *,
    seconds: float,
    examples: int,
    seed: int,
    stride: int = 1,
    stop: Callable[[], bool] = lambda: False,
    clock: Callable[[], float] = time.perf_counter,
    deadline: float | None = None,
    per_example: float | None = None,
) -> Outcome:
    """A search that spends ``seconds``, in rounds (``--budget SECONDS``, issue 25 §1).

    Round 0 is the run the flags describe (``examples`` examples, ``seed``); round ``r`` runs with seed ``seed +
    r·stride`` -- for ``stride`` 1 exactly the run ``--seed S+r --examples N_r`` makes, so a finding's round is
    reproduced by a command line -- and twice the examples of the round before, cut to what the seconds left
    allow at the speed of the last round. The rounds end at the first finding of a family that stops a search
    (correctness, a crash or hang, a ⊗ budget; misuse and ⊗-fault findings are reported and the search goes on,
    as in :func:`search`), when the budget is spent, or when the next round would not fit. Shrinking a failure
    is not charged to the budget: the search is bounded, the shrink has its own bounds.

    >>> clock = iter(range(100)).__next__  # a fake clock: one second per reading
    >>> ran = []
    >>> def run_round(seed, examples):
    ...     ran.append((seed, examples))
    ...     return Outcome("m", "PASS", 1.0, examples, examples * 10)
    >>> total = search_rounds(run_round, seconds=8, examples=2, seed=5, clock=clock)
    >>> ran, total.examples, total.details["rounds"]
    ([(5, 2), (6, 4), (7, 8)], 14, 3)

    Rounds of ``run_round(seed, examples)`` (one :class:`~swagkit.verify.runner.Outcome` each, counting that
    round's examples and steps) until ``seconds`` are spent; seeds ``seed``, ``seed + stride``, …; ``stop()`` is
    asked before each further round (another worker found a failure). With a ``deadline`` (on ``clock``'s scale;
    ``time.perf_counter`` is system-wide, so forked workers share one) no round starts that would end after it:
    the first is cut to what fits at ``per_example`` seconds an example, or skipped (an outcome of no rounds). One
    outcome for all: examples and steps summed, the findings of every round, ``details`` ``rounds`` and
    ``seed``/``examples`` of the last round."""
    start = clock()
    name, status, error = "", "PASS", ""
    total_examples = total_steps = rounds = 0
    findings: list[Finding] = []
    if deadline is not None and per_example:
        examples = min(examples, int((deadline - start) / per_example))
        if examples < 1:  # the run's time is up before this search's turn came
            return Outcome("", "PASS", 0.0, details={"rounds": 0, "seed": seed, "examples": 0})
    n, s, spent = examples, seed, 0.0
    while True:
        before = clock()
        outcome = run_round(s, n)
        took = clock() - before
        rounds += 1
        name = outcome.name
        total_examples += outcome.examples
        total_steps += outcome.steps
        findings += outcome.findings
        if outcome.status == "ERROR":
            status, error = "ERROR", outcome.error
        if stops_search(outcome):
            break
        spent = clock() - start
        per_example = took / max(outcome.examples, n, 1)
        left = seconds - spent if deadline is None else min(seconds - spent, deadline - clock())
        nxt = min(2 * n, MAX_ROUND_EXAMPLES)
        if left < nxt * per_example:
            nxt = int(left / per_example)
        if nxt < 1 or left <= 0 or stop():
            break
        n, s = nxt, s + stride
    if status != "ERROR" and findings:
        status = "FAIL"
    result = Outcome(name, status, clock() - start, total_examples, total_steps, findings, error=error)
    result.details = {"rounds": rounds, "seed": s, "examples": n}
    return result


def run_rounds(task: Task, run_round: Callable[[int, int], Outcome]) -> Outcome:
    """``task``'s search by ``run_round(seed, examples)``: one round when it has no ``seconds``, else rounds
    within them and its ``deadline`` (:func:`search_rounds`)."""
    if task.seconds is None:
        return run_round(task.seed, task.examples)
    return search_rounds(
        run_round,
        seconds=task.seconds,
        examples=task.examples,
        seed=task.seed,
        deadline=task.deadline,
        per_example=task.cost,
    )


def task_seed(seed: int, name: str) -> int:
    """The Hypothesis seed of one task: stable across runs and machines, distinct across tasks."""
    return (seed * 1_000_003 + zlib.crc32(name.encode())) % 2**32


def reproduce_command(task: Task, seed: int | None = None, examples: int | None = None) -> str:
    """A ``swagkit verify`` command line that reruns exactly ``task`` (or the round of it with base ``seed`` and
    ``examples``)."""
    seed = task.seed if seed is None else seed
    examples = task.examples if examples is None else examples
    args = ["swagkit", "verify"]
    if task.kind == "arrays":  # the array tasks of this selection (the machine's run too), the same seeds
        if task.combo is not None:
            args += ["--algorithm", task.combo.algorithm]
        args += ["--monoid", task.monoid, "--implementation", "optimized", "--no-laws", "--no-spark"]
        args += ["--steps", str(task.steps)]
    elif task.combo is not None:
        args += ["--algorithm", task.combo.algorithm, "--monoid", task.monoid]
        args += ["--implementation", task.combo.implementation, "--no-laws", "--no-spark"]
        args += ["--steps", str(task.steps), "--max-window", str(task.max_window)]
    else:
        args += ["--monoid", task.monoid, "--laws-only"]
    args += ["--examples", str(examples), "--seed", str(seed)]
    return " ".join(shlex.quote(a) for a in args)


#: an array task's examples per ``--examples`` (one array example is a whole run of up to 160 operations)
ARRAY_EXAMPLES_PER_EXAMPLE = 6


def array_examples(task: Task, examples: int) -> int:
    """The calls an array task draws for ``examples`` (its ``--examples``): :data:`ARRAY_EXAMPLES_PER_EXAMPLE`
    each, and four times that for ``window_sum`` (a call is one kernel run and its twin's: milliseconds)."""
    return examples * ARRAY_EXAMPLES_PER_EXAMPLE * (4 if task.combo is None else 1)


def run_array_task(task: Task) -> Outcome:
    """An array entry point's search (:mod:`swagkit.verify.arrays`): the first failing call, shrunk, as a
    finding with its replay file."""
    start = time.perf_counter()
    c = task.combo
    try:
        if c is not None:
            implementation = subject(c.algorithm, c.implementation)
            subjects: tuple[Subject, Subject] | None = (implementation, subject(c.algorithm, "reference"))
            entry = entry_point(implementation, algorithm(c.algorithm).kind.name) or ""
        else:
            subjects, entry = None, WINDOW_SUM
        values = strategy_for(task.monoid)
    except Exception as exc:  # the registry cannot build this task: swagkit's error
        return Outcome(task.name, "ERROR", time.perf_counter() - start, error=describe_exception(exc), task=task)
    found: list[tuple[ArrayCase, str]] = []

    def run_round(base_seed: int, examples: int) -> Outcome:
        began = time.perf_counter()
        seed = task_seed(base_seed, task.name)
        try:
            case, problem = search_arrays(
                entry,
                c.algorithm if c else None,
                task.monoid,
                subjects,
                values,
                examples=array_examples(task, examples),
                seed=seed,
                shrink_seconds=task.shrink_seconds,
            )
        except Exception as exc:  # a crash of swagkit's own check (a failure of the code under test is a case)
            return Outcome(task.name, "ERROR", time.perf_counter() - began, error=describe_exception(exc))
        findings = []
        if case is not None:
            found.append((case, problem))
            findings.append(Finding("correctness", f"AssertionError: {case.describe()}:\n{problem}"))
        took = time.perf_counter() - began
        return Outcome(task.name, "FAIL" if findings else "PASS", took, array_examples(task, examples), 0, findings)

    outcome = run_rounds(task, run_round)
    outcome.task = task
    if found and outcome.findings:
        case, problem = found[-1]
        path = write_replay(case, problem, c.implementation if c else "optimized")
        again = compare(case, *(subjects or (None, None)))
        outcome.findings[-1] = replace(outcome.findings[-1], replay=path, reproduces=bool(again))
        details = outcome.details
        outcome.reproduce = reproduce_command(
            task, details.get("seed", task.seed), details.get("examples", task.examples)
        )
    outcome.details = {"rounds": outcome.details.get("rounds", 1)}
    return outcome


def run_task(task: Task) -> Outcome:
    """Run ``task``; never raises for a verification failure (it is reported in the :class:`Outcome`)."""
    seed = task_seed(task.seed, task.name)
    if task.kind == "arrays":
        return run_array_task(task)
    if task.combo is not None:
        c = task.combo
        start = time.perf_counter()
        try:
            machine = make_machine(c.algorithm, c.monoid, c.implementation, max_window=task.max_window)
        except Exception as exc:  # the registry or the monoid cannot make this machine: swagkit's error
            return Outcome(task.name, "ERROR", time.perf_counter() - start, error=describe_exception(exc), task=task)
        machine.shrink_seconds = task.shrink_seconds
        operations = max_window = 0

        def run_round(base_seed: int, examples: int) -> Outcome:
            """One round: the run ``--seed base_seed --examples examples`` makes (the round's own counts; a card
            with a ``verify_share`` runs its share of ``examples``, as that command would)."""
            nonlocal operations, max_window
            machine.stats = MachineStats()
            seed = task_seed(base_seed, task.name)
            n = examples_for(c.algorithm, examples)
            result = search(machine, task.name, examples=n, steps=task.steps, seed=seed)
            operations += machine.stats.operations
            max_window = max(max_window, machine.stats.max_window)
            return result

        outcome = run_rounds(task, run_round)
        rounds = outcome.details.get("rounds", 1)
        last_seed = outcome.details.get("seed", task.seed)
        last_examples = outcome.details.get("examples", task.examples)
        outcome.details = {"operations": operations, "max_window": max_window, "rounds": rounds}
        outcome.task = task
        if outcome.failed:
            outcome.reproduce = reproduce_command(task, last_seed, last_examples)
        return outcome
    else:
        start = time.perf_counter()
        try:
            law_stats = check_monoid(task.monoid, max_examples=task.examples, seed=seed)
        except Exception as exc:
            status = "FAIL" if is_failure(exc) else "ERROR"
            text = describe_exception(exc)
            findings = [Finding("laws", text)] if status == "FAIL" else []
            outcome = Outcome(task.name, status, time.perf_counter() - start, findings=findings)
            outcome.error = text if status == "ERROR" else ""
        else:
            outcome = Outcome(task.name, "PASS", time.perf_counter() - start, law_stats.examples)
            if not law_stats.generated:
                outcome.note = "no input strategy: library examples only"
    outcome.task = task
    if outcome.failed:
        outcome.reproduce = reproduce_command(task)
    return outcome
