"""Differential runs at scale: ``swagkit verify --spark`` for any implementation (issue 15 §1).

A :class:`Target` is what is verified: a registered algorithm (its optimized or reference class), a user's
Python factory (``--impl MODULE:FACTORY``) or a user's program speaking the line protocol (``--exec CMD``;
docs/protocol.md). A :class:`ScaleTask` is one seed: it drives a fresh instance of the target through long
traces -- every pattern of :mod:`.patterns` (static windows, fill-and-drain, see-saw, bursts, bulk operations,
out-of-order distances, collisions), each trace with its own pattern and window bound drawn from the seed -- in
lock-step with a *fast oracle*, a verified optimized implementation of the same kind (the kind's ``oracles``,
the first that is not the target itself). Every answer, every refusal and, now and then, the size must agree.

The oracle is fast but is itself only as good as its verification, so a sample is judged by the truth: every
:data:`SAMPLE_EVERY`-th trace's first :data:`SAMPLE_OPS` operations run again on a fresh target instance inside
the kind's debug wrapper (the executable model after every operation, and for a registered algorithm its paper
invariants, its ⊗ budget and its twin implementation in lock-step: answers, ⊗ counts, snapshots).

Kinds without trace patterns (paper 004's sketch and time-decayed structures) run their differential runner
(:mod:`.differential`) over the task's operations instead: decayed streams against the exact oracle.

On Spark (:func:`run_scale`) every task is a partition of its own, so a failed task is retried alone
(``local[N,F]``) and the results are checked to account for every seed exactly once. A finding (a mismatch, or
the target raising, dying or hanging on a valid operation) stops its task and comes back with the trace's
coordinates; :func:`replay_finding` regenerates that trace on the driver, cuts it at the finding, shrinks it
against the oracle and writes a replay file (:mod:`swagkit.verify.replay`) that ``swagkit replay FILE`` re-runs.
"""

from __future__ import annotations

import functools
import itertools
import random
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from swagkit.spec.errors import SwagkitError

from .patterns import PATTERNS, WINDOWS, trace, weight

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from ..kinds.base import Kind

__all__ = [
    "Target",
    "ScaleTask",
    "Finding",
    "ScaleResult",
    "Progress",
    "SAMPLE_EVERY",
    "SAMPLE_OPS",
    "make_scale_tasks",
    "run_scale_task",
    "run_scale",
    "replay_finding",
    "lockstep",
]

#: every how many traces of a task one is also checked by the debug wrapper (model, invariants, budget, twin)
SAMPLE_EVERY = 8
#: how many operations of a sampled trace are checked that way (the model's query is an O(n) fold)
SAMPLE_OPS = 600
#: operations between two size comparisons with the oracle (``len`` may cost a protocol round trip)
SIZE_EVERY = 64
#: operations that answer (their results are compared); the others only have to agree on refusing
_ANSWERS = frozenset({"query", "range_query", "bulk_evict", "oldest", "youngest", "query_range"})


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


@dataclass(frozen=True)
class ScaleTask:
    """One seed: ``operations`` calls on ``target`` over ``monoid``, in traces of ``trace_length`` calls with
    windows up to ``max_window``."""

    target: Target
    monoid: str
    seed: int
    operations: int
    trace_length: int = 25_000
    max_window: int = 4096


@dataclass(frozen=True)
class Finding:
    """Where a task found a problem: trace ``trace`` (its ``pattern`` and ``window``), at call ``step`` of it
    (``-1``: outside a trace, e.g. the target could not be built); ``detail`` says what."""

    trace: int
    pattern: str
    window: int
    step: int
    detail: str


@dataclass(frozen=True)
class ScaleResult:
    """What one task did: ``operations`` calls compared with the oracle in ``traces`` traces, ``sampled`` of them
    also checked by the debug wrapper, the ``finding`` (``None``: all agreed), ``seconds`` of work, and the
    attempt (``> 0``: Spark retried the task)."""

    task: ScaleTask
    operations: int
    traces: int
    sampled: int
    finding: Finding | None
    seconds: float
    compiled: bool
    attempt: int = 0


@dataclass
class Progress:
    """The running totals the progress display shows (updated as Spark tasks finish)."""

    seeds: int
    done: int = 0
    operations: int = 0
    findings: int = 0
    started: float = field(default_factory=time.monotonic)

    def line(self) -> str:
        elapsed = max(1e-9, time.monotonic() - self.started)
        return (
            f"spark: {self.done}/{self.seeds} seeds, {self.operations:,} operations "
            f"({self.operations / elapsed:,.0f}/s), {self.findings} finding{'s' * (self.findings != 1)}, "
            f"{elapsed:.0f} s"
        )


# --------------------------------------------------------------------------------------------- the target


class _Built:
    """A target resolved in this process: its kind, a constructor over a monoid, the oracle's, the debug
    wrapper's facts and (registered algorithms) the twin implementation."""

    def __init__(self, target: Target) -> None:
        from .. import impl, registry
        from ..recording import PROTOCOL_KINDS

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
            self.kind, _group = impl.resolve_kind(target.kind)
            self.new = (
                impl.load(target.spec) if target.how == "impl" else _exec_factory(target.spec, target.kind, target)
            )
            self.params = (self.new, {})
            self.facts = None
            self.contract = target.contract  # a --contract SPEC string
        self.protocol_kind = PROTOCOL_KINDS.get(self.kind.name, "")
        self.oracle = self._oracle()

    def _oracle(self) -> Callable[[Any], Any] | None:
        """The first of the kind's fast oracles that is not the target itself."""
        from .. import impl

        for spec, params in self.kind.oracles:
            factory = impl.load(spec)
            if (factory, dict(params)) != self.params:
                return functools.partial(factory, **params)
        return None


#: --exec targets: one long-lived process per (command, kind) in each Python worker
_EXEC: dict[tuple[str, str], Any] = {}


def _exec_factory(command: str, kind: str, target: Target) -> Any:
    from ..process import process_factory

    key = (command, kind)
    if key not in _EXEC:
        _EXEC[key] = process_factory(command, kind, timeout=target.timeout, cwd=target.cwd)
    return _EXEC[key]


_BUILT: dict[Target, _Built] = {}


def _built(target: Target) -> _Built:
    if target not in _BUILT:
        _BUILT[target] = _Built(target)
    return _BUILT[target]


# ------------------------------------------------------------------------------------------ the lock-step


def lockstep(subject: Any, oracle: Any, calls: Iterable[tuple[str, tuple[Any, ...]]], monoid: Any) -> Finding | None:
    """Run ``calls`` on ``subject`` and ``oracle`` side by side; the first disagreement (answers, refusals, the
    size every :data:`SIZE_EVERY` calls and at the end), or the subject failing on a valid call, as a
    :class:`Finding` with its ``step`` (pattern fields left empty), else ``None``."""
    from ..kinds.base import same_output

    step = -1
    eq = monoid.eq
    for step, (name, args) in enumerate(calls):
        try:
            want = getattr(oracle, name)(*args)
        except SwagkitError as exc:  # the call is misuse: the subject must refuse it alike
            try:
                got = getattr(subject, name)(*args)
            except SwagkitError as theirs:
                if type(theirs) is type(exc):
                    continue
                return Finding(-1, "", 0, step, f"{_call(name, args)} raised {theirs!r}, the oracle {exc!r}")
            except Exception as crash:
                return Finding(-1, "", 0, step, f"{_call(name, args)} crashed: {crash!r}")
            return Finding(-1, "", 0, step, f"{_call(name, args)} returned {got!r}, the oracle raised {exc!r}")
        try:
            got = getattr(subject, name)(*args)
        except Exception as crash:  # a valid call the subject cannot do: a finding, never a harness error
            return Finding(-1, "", 0, step, f"{_call(name, args)} raised {crash!r} (the oracle answered {want!r})")
        if name in _ANSWERS and got != want and not (eq(got, want) if eq else same_output(monoid, got, want)):
            return Finding(-1, "", 0, step, f"{_call(name, args)} answered {got!r}, the oracle {want!r}")
        if step % SIZE_EVERY == 0 and (size := _size(subject, oracle)):
            return Finding(-1, "", 0, step, f"after {_call(name, args)}: {size}")
    if step >= 0 and (size := _size(subject, oracle)):
        return Finding(-1, "", 0, step, f"at the end: {size}")
    return None


def _size(subject: Any, oracle: Any) -> str:
    try:
        got = len(subject)
    except TypeError:  # no len(): the kind does not require one
        return ""
    except Exception as crash:
        return f"len() raised {crash!r}"
    want = len(oracle)
    return "" if got == want else f"len() is {got}, the oracle's {want}"


def _call(name: str, args: tuple[Any, ...]) -> str:
    from ..kinds.base import SHORT_REPR

    return f"{name}({', '.join(SHORT_REPR.repr(a) for a in args)})"


class _CapacityOracle:
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


# ------------------------------------------------------------------------------------------------ traces


@dataclass(frozen=True)
class _TracePlan:
    index: int
    pattern: str
    window: int
    length: int
    rng_key: str


def _plans(task: ScaleTask, protocol_kind: str, contract: Any) -> Iterator[_TracePlan]:
    """The traces of ``task``: each draws its pattern and window bound from the seed; a restricted FIFO contract
    (a capacity) bounds the window, one without explicit evicts or with evicts only from a full window runs the
    ``static`` pattern only."""
    patterns: Sequence[str] = PATTERNS[protocol_kind]
    windows = [w for w in WINDOWS if w <= task.max_window] or [task.max_window]
    if contract is not None and contract.capacity is not None:
        windows = [w for w in windows if w <= contract.capacity] or [contract.capacity]
    if contract is not None and (not contract.evict or not contract.evict_before_full or not contract.empty_ops):
        patterns, windows = ("static",), [contract.capacity or windows[-1]]
    left, index = task.operations, 0
    while left > 0:
        key = f"scale/{task.target.spec}/{task.monoid}/{task.seed}/{index}"
        rng = random.Random(key + "/plan")
        length = min(left, task.trace_length)
        yield _TracePlan(index, rng.choice(patterns), rng.choice(windows), length, key)
        left -= length
        index += 1


def _calls(plan: _TracePlan, protocol_kind: str, values: Sequence[Any], offered: frozenset[str], contract: Any) -> Any:
    evicts = contract is None or contract.evict
    return trace(
        protocol_kind,
        plan.pattern,
        random.Random(plan.rng_key),
        values,
        plan.length,
        plan.window,
        offered,
        evicts=evicts,
    )


def _contract(spec: Any) -> Any:
    from ..kinds.fifo.contract import Contract

    contract = Contract.of(spec)
    return contract if contract.restricted else None


# ------------------------------------------------------------------------------------------------ a task


def run_scale_task(task: ScaleTask, attempt: int = 0) -> ScaleResult:
    """Run ``task`` here (a plain function: a Spark worker calls it, and so can a test or a debugger). Never
    raises for a problem found; a target that cannot even be built is a finding at step -1."""
    from ..kinds.differential import compiled

    started = time.perf_counter()
    ops = traces = sampled = 0
    try:
        built = _built(task.target)
        if not built.protocol_kind:
            return _decay_task(task, built, started, attempt)
        choice, values = _monoid(task.monoid, task.target.tolerance)
        monoid = choice.factory()
        contract = _contract(built.contract) if built.protocol_kind == "fifo" else None
        offered = _offered(built, monoid)
        for plan in _plans(task, built.protocol_kind, contract):
            subject = built.new(monoid)
            oracle = _oracle_for(built, monoid, contract)
            found = lockstep(subject, oracle, _calls(plan, built.protocol_kind, values, offered, contract), monoid)
            traces += 1
            if found is not None:
                ops += sum(
                    weight(c)
                    for c in itertools.islice(
                        _calls(plan, built.protocol_kind, values, offered, contract), found.step + 1
                    )
                )
                finding = Finding(plan.index, plan.pattern, plan.window, found.step, found.detail)
                return ScaleResult(
                    task, ops, traces, sampled, finding, time.perf_counter() - started, compiled(), attempt
                )
            ops += plan.length
            if plan.index % SAMPLE_EVERY == 0:
                problem = _sample(built, monoid, _calls(plan, built.protocol_kind, values, offered, contract))
                sampled += min(plan.length, SAMPLE_OPS)
                if problem is not None:
                    finding = Finding(plan.index, plan.pattern, plan.window, problem[0], f"debug mode: {problem[1]}")
                    return ScaleResult(
                        task, ops, traces, sampled, finding, time.perf_counter() - started, compiled(), attempt
                    )
    except Exception as exc:  # the target could not be built, or the harness broke: reported with the seed
        finding = Finding(-1, "", 0, -1, f"raised {exc!r}")
        return ScaleResult(task, ops, traces, sampled, finding, time.perf_counter() - started, compiled(), attempt)
    return ScaleResult(task, ops, traces, sampled, None, time.perf_counter() - started, compiled(), attempt)


def _oracle_for(built: _Built, monoid: Any, contract: Any) -> Any:
    if built.oracle is None:
        raise ValueError(f"the {built.kind.name} kind has no fast oracle")
    oracle = built.oracle(monoid)
    return _CapacityOracle(oracle, contract.capacity) if contract is not None and contract.capacity else oracle


def _offered(built: _Built, monoid: Any) -> frozenset[str]:
    """The optional operations both the target and the oracle offer (bulk calls are made only then)."""
    probe = built.new(monoid)
    oracle = built.oracle(monoid) if built.oracle is not None else probe
    names = ("insert_many", "evict_many", "bulk_insert", "bulk_evict", "range_query", "remove")
    return frozenset(n for n in names if callable(getattr(probe, n, None)) and callable(getattr(oracle, n, None)))


def _sample(built: _Built, monoid: Any, calls: Iterable[tuple[str, tuple[Any, ...]]]) -> tuple[int, str] | None:
    """The first :data:`SAMPLE_OPS` of ``calls`` on a fresh target instance inside the kind's debug wrapper (and
    beside the twin, for a registered algorithm): ``(step, what failed)`` or ``None``."""
    from ..kinds.base import NoFacts
    from ..recording import Against

    raw = built.new(monoid)
    facts = built.facts if built.facts is not None else NoFacts()
    options: dict[str, Any] = {}
    if built.protocol_kind == "fifo" and built.contract is not None:
        options["contract"] = _contract(built.contract)
    swag = built.kind.checked(raw, monoid=monoid, algorithm=facts.id or None, facts=facts, **options)
    twin = Against(built.twin(monoid), monoid) if built.twin is not None else None
    for step, (name, args) in enumerate(calls):
        if step >= SAMPLE_OPS:
            break
        try:
            got: Any = getattr(swag, name)(*args)
        except AssertionError as exc:  # the model, an invariant or the budget
            return step, str(exc).splitlines()[0][:500]
        except SwagkitError as exc:  # a refusal the wrapper accepted: the twin must refuse too
            got = exc
        if twin is not None and (problem := twin.step(name, args, got, raw)):
            return step, f"against the twin: {problem}"
    return None


def _monoid(monoid_id: str, tolerance: float | None) -> tuple[Any, list[Any]]:
    """The monoid choice of ``monoid_id`` (answers compared within ``tolerance``) and a pool of input values
    drawn from its strategy (the same pool on every worker: the draw is derandomized), the library's examples
    first."""
    from .. import impl

    choice = impl.resolve_monoid(monoid_id, tolerance=tolerance)
    return choice, _pool(choice)


_POOLS: dict[str, list[Any]] = {}


def _pool(choice: Any, size: int = 64) -> list[Any]:
    if choice.id in _POOLS:
        return _POOLS[choice.id]
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
    _POOLS[choice.id] = pool
    return pool


def _decay_task(task: ScaleTask, built: _Built, started: float, attempt: int) -> ScaleResult:
    """A kind without trace patterns: its differential runner over ``task.operations`` steps (decayed streams
    against the exact oracle), in runs of at most ``trace_length`` steps."""
    from ..kinds.differential import DiffTask, compiled
    from .differential import run_task

    if task.target.how != "registry":
        raise ValueError(f"the {built.kind.name} kind is verified at scale for registered algorithms only")
    ops = runs = 0
    for plan in range(max(1, -(-task.operations // task.trace_length))):
        steps = min(task.trace_length, task.operations - plan * task.trace_length)
        result = run_task(DiffTask(task.target.spec, task.monoid, task.seed * 1_000 + plan, steps))
        ops += result.operations
        runs += 1
        if not result.ok:
            finding = Finding(plan, "decayed stream", 0, result.step, result.detail)
            return ScaleResult(task, ops, runs, ops, finding, time.perf_counter() - started, compiled(), attempt)
    return ScaleResult(task, ops, runs, ops, None, time.perf_counter() - started, compiled(), attempt)


# -------------------------------------------------------------------------------------------- the tasks


def make_scale_tasks(
    targets: Sequence[Target],
    monoids: Sequence[str] | Callable[[Target], Sequence[str]],
    operations: int,
    *,
    per_task: int = 500_000,
    trace_length: int = 25_000,
    max_window: int = 4096,
    seed: int = 0,
    pace: Callable[[Target], float] = lambda target: 1.0,
) -> list[ScaleTask]:
    """About ``operations`` calls in all, split into tasks (seeds) of at most ``per_task`` calls, dealt round-robin
    over every target × monoid (``monoids``: a list, or a function of the target giving its monoids); seeds
    count up from ``seed``. Every combination gets at least one task. ``pace(target)`` scales a target's tasks
    (a target checked by a slow lock-step -- paper 004's structures against their reference -- runs a fraction
    of its share, so it does not hold the whole run up; the run then makes fewer operations than asked)."""
    combos = [(t, m) for t in targets for m in (monoids(t) if callable(monoids) else monoids)]
    if not combos:
        return []
    count = max(len(combos), -(-operations // per_task))
    share = operations / count
    tasks = []
    for i in range(count):
        t, m = combos[i % len(combos)]
        ops = max(1, round(share * pace(t)))
        tasks.append(ScaleTask(t, m, seed + i, ops, min(trace_length, ops), max_window))
    return tasks


# ----------------------------------------------------------------------------------------------- on Spark


def _run_partition(tasks: Iterable[ScaleTask]) -> Iterable[ScaleResult]:
    from pyspark import TaskContext

    context = TaskContext.get()
    attempt = context.attemptNumber() if context is not None else 0
    for task in tasks:
        yield run_scale_task(task, attempt)


def run_scale(
    spark: SparkSession,
    tasks: list[ScaleTask],
    *,
    progress: Callable[[Progress], None] | None = None,
    every: float = 2.0,
    run_partition: Callable[[Iterable[ScaleTask]], Iterable[ScaleResult]] = _run_partition,
) -> list[ScaleResult]:
    """Run ``tasks`` on ``spark``, one partition per task (a retried task reruns one seed), calling
    ``progress`` every ``every`` seconds and at the end with the totals of the tasks finished so far. Raises
    :class:`~.session.SparkJobError` when the job fails or the results do not account for every task exactly
    once. ``run_partition`` replaces the per-partition loop (tests inject faults with it)."""
    from .session import SparkJobError

    sc = spark.sparkContext
    state = Progress(len(tasks))
    ops_acc = sc.accumulator(0)
    done_acc = sc.accumulator(0)
    found_acc = sc.accumulator(0)

    def counted(part: Iterable[ScaleTask]) -> Iterable[ScaleResult]:
        for result in run_partition(part):
            ops_acc.add(result.operations)
            done_acc.add(1)
            found_acc.add(result.finding is not None)
            yield result

    box: dict[str, Any] = {}

    def job() -> None:
        try:
            box["results"] = sc.parallelize(tasks, max(1, len(tasks))).mapPartitions(counted).collect()
        except Exception as exc:  # Py4JJavaError and friends
            box["error"] = exc

    worker = threading.Thread(target=job, name="swagkit-scale", daemon=True)
    worker.start()
    while worker.is_alive():
        worker.join(every)
        state.done, state.operations, state.findings = done_acc.value, ops_acc.value, found_acc.value
        if progress is not None:
            progress(state)
    if "error" in box:
        exc = box["error"]
        first = next((ln for ln in str(exc).splitlines() if ln.strip()), type(exc).__name__)
        raise SparkJobError(f"the Spark job failed: {first[:300]}") from exc
    results: list[ScaleResult] = box["results"]
    if [r.task for r in results] != list(tasks):
        raise SparkJobError(
            f"the Spark job returned {len(results)} results for {len(tasks)} seeds (lost or duplicated seeds)"
        )
    state.done = len(results)
    state.operations = sum(r.operations for r in results)
    state.findings = sum(r.finding is not None for r in results)
    if progress is not None:
        progress(state)
    return results


# ------------------------------------------------------------------------------------- back on the driver


def replay_finding(result: ScaleResult, directory: str | None = None, seconds: float = 30.0) -> str:
    """The replay file of ``result``'s finding ("" when there is none to write: no finding, a kind without a
    protocol trace, or the trace no longer fails here). The trace is regenerated from the seed, cut at the
    finding and shrunk against the oracle (delta debugging for at most ``seconds``); the file runs under
    ``swagkit replay`` (the kind's debug wrapper, the model's answers) and, for ``--exec``, as ``CMD < file``."""
    from .. import replay
    from ..recording import registered_header, replay_dir
    from .differential import _minimized

    finding, task = result.finding, result.task
    if finding is None or finding.trace < 0:
        return ""
    built = _built(task.target)
    if not built.protocol_kind:
        return ""
    choice, values = _monoid(task.monoid, task.target.tolerance)
    monoid = choice.factory()
    contract = _contract(built.contract) if built.protocol_kind == "fifo" else None
    offered = _offered(built, monoid)
    plan = next(p for p in _plans(task, built.protocol_kind, contract) if p.index == finding.trace)
    calls = list(_calls(plan, built.protocol_kind, values, offered, contract))

    def fails(cs: list[tuple[str, tuple[Any, ...]]]) -> bool:
        if contract is not None and not contract.admits(cs):  # shrinking must not leave the window's contract
            return False
        found = lockstep(built.new(monoid), _oracle_for(built, monoid, contract), cs, monoid)
        return found is not None or _sample_all(built, monoid, cs)

    cut = calls[: finding.step + 1]
    if not fails(cut):
        return ""
    cut = _minimized(cut, fails, time.monotonic() + seconds)
    target = task.target
    where = f"spark seed {task.seed}, trace {finding.trace} ({finding.pattern}, window {finding.window})"
    if target.how == "registry":
        header = registered_header(registry_subject(target), task.monoid, f"{where}: {finding.detail}")
    else:
        header = {target.how: target.spec, "monoid": task.monoid, "failure": f"{where}: {finding.detail}"}
        if target.contract:
            header["contract"] = _contract(target.contract).as_dict() if _contract(target.contract) else None
    header["spark"] = {"seed": task.seed, "trace": finding.trace, "step": finding.step}
    kind = built.protocol_kind
    return replay.write_trace(directory or replay_dir(), {**header, "kind": kind}, cut, monoid, kind)


def _sample_all(built: _Built, monoid: Any, calls: list[tuple[str, tuple[Any, ...]]]) -> bool:
    """Whether the debug wrapper finds a problem in ``calls`` (a sampled finding shrinks under it)."""
    return _sample(built, monoid, calls[:SAMPLE_OPS]) is not None


def registry_subject(target: Target) -> Any:
    from .. import registry

    return registry.subject(target.spec, target.implementation)
