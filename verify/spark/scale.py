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

A finding (a mismatch, or the target raising, dying or hanging on a valid operation) stops its task and comes back
with the trace's coordinates. :mod:`.scale_target` resolves targets in a worker; :mod:`.scale_job` runs the tasks
on Spark (every seed accounted for exactly once) and brings findings back as shrunk replay files.
"""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from swagkit.spec.errors import SwagkitError

from .patterns import PATTERNS, WINDOWS, trace, weight
from .scale_target import Built, Target, monoid_values, offered_operations, oracle_for, resolve, restricted_contract

__all__ = [
    "Target",
    "ScaleTask",
    "Finding",
    "ScaleResult",
    "SAMPLE_EVERY",
    "SAMPLE_OPS",
    "make_scale_tasks",
    "run_scale_task",
    "lockstep",
    "plans",
    "calls_of",
    "sample",
]

#: every how many traces of a task one is also checked by the debug wrapper (model, invariants, budget, twin)
SAMPLE_EVERY = 8
#: how many operations of a sampled trace are checked that way (the model's query is an O(n) fold)
SAMPLE_OPS = 600
#: operations between two size comparisons with the oracle (``len`` may cost a protocol round trip)
SIZE_EVERY = 64
#: operations that answer (their results are compared); the others only have to agree on refusing
_ANSWERS = frozenset({"query", "range_query", "bulk_evict", "oldest", "youngest", "query_range"})
#: calls sent to a pipelining target (an ``--exec`` program) before its replies are read
PIPELINE = 1024


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


# ------------------------------------------------------------------------------------------ the lock-step


def lockstep(
    subject: Any, oracle: Any, calls: Iterable[tuple[str, tuple[Any, ...]]], monoid: Any, *, pipelined: bool = True
) -> Finding | None:
    """Run ``calls`` on ``subject`` and ``oracle`` side by side; the first disagreement (answers, refusals, the
    size every :data:`SIZE_EVERY` calls and at the end), or the subject failing on a valid call, as a
    :class:`Finding` with its ``step`` (pattern fields left empty), else ``None``. A subject that pipelines (an
    ``--exec`` program's instance: ``pipeline``) gets :data:`PIPELINE` calls at a time, judged in the same order
    with the same words (:func:`_pipelined_lockstep`), unless ``pipelined`` is False."""
    from ..kinds.base import same_output

    if pipelined and callable(getattr(subject, "pipeline", None)):
        return _pipelined_lockstep(subject, oracle, calls, monoid)
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


def _pipelined_lockstep(
    subject: Any, oracle: Any, calls: Iterable[tuple[str, tuple[Any, ...]]], monoid: Any
) -> Finding | None:
    """:func:`lockstep` for a pipelining subject: the oracle runs a chunk of calls first (each outcome kept, and
    its size where the size is compared), the subject gets the chunk (and the size requests) as one pipeline, and
    the replies are judged call by call as :func:`lockstep` judges them one at a time."""
    from ..kinds.base import same_output

    eq = monoid.eq
    sized = hasattr(subject, "__len__")
    pending = iter(calls)
    methods: dict[str, Any] = {}  # the oracle's bound methods, looked up once
    step = -1
    while True:
        chunk = list(itertools.islice(pending, PIPELINE))
        if not chunk:
            break
        wants: list[tuple[int, str, tuple[Any, ...], bool, Any, int | None]] = []
        requests: list[tuple[str, tuple[Any, ...]]] = []
        for name, args in chunk:
            step += 1
            method = methods.get(name)
            if method is None:
                method = methods[name] = getattr(oracle, name)
            try:
                want, refused = method(*args), False
            except SwagkitError as exc:
                want, refused = exc, True
            size = len(oracle) if sized and step % SIZE_EVERY == 0 else None
            wants.append((step, name, args, refused, want, size))
            requests.append((name, args))
            if size is not None:
                requests.append(("__len__", ()))
        try:
            replies = subject.pipeline(requests)
        except AssertionError as failure:  # the program died, hung or broke the protocol
            answered = getattr(failure, "answered", 0)
            failed = wants[-1]
            for entry in wants:  # the call whose reply never came
                answered -= 1 + (entry[5] is not None)
                if answered < 0:
                    failed = entry
                    break
            number, name, args, refused, want, _ = failed
            told = "" if refused else f" (the oracle answered {want!r})"
            return Finding(-1, "", 0, number, f"{_call(name, args)} raised {failure!r}{told}")
        k = 0
        for number, name, args, refused, want, size in wants:
            if k >= len(replies):  # a value the protocol cannot carry ended the pipeline before this call
                return Finding(-1, "", 0, number, f"{_call(name, args)} was not sent (an earlier value ended it)")
            ok, got = replies[k]
            k += 1
            if refused:
                if not ok and type(got) is type(want):
                    pass
                elif ok:
                    return Finding(
                        -1, "", 0, number, f"{_call(name, args)} returned {got!r}, the oracle raised {want!r}"
                    )
                else:
                    return Finding(-1, "", 0, number, f"{_call(name, args)} raised {got!r}, the oracle {want!r}")
            elif not ok:
                return Finding(-1, "", 0, number, f"{_call(name, args)} raised {got!r} (the oracle answered {want!r})")
            elif name in _ANSWERS and got != want and not (eq(got, want) if eq else same_output(monoid, got, want)):
                return Finding(-1, "", 0, number, f"{_call(name, args)} answered {got!r}, the oracle {want!r}")
            if size is not None:
                if k >= len(replies):
                    return Finding(-1, "", 0, number, f"after {_call(name, args)}: len() was not answered")
                ok, got = replies[k]
                k += 1
                if not ok:
                    return Finding(-1, "", 0, number, f"after {_call(name, args)}: len() raised {got!r}")
                if got != size:
                    return Finding(-1, "", 0, number, f"after {_call(name, args)}: len() is {got}, the oracle's {size}")
    if step >= 0 and (problem := _size(subject, oracle)):
        return Finding(-1, "", 0, step, f"at the end: {problem}")
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


# ------------------------------------------------------------------------------------------------ traces


@dataclass(frozen=True)
class _TracePlan:
    index: int
    pattern: str
    window: int
    length: int
    rng_key: str


def plans(task: ScaleTask, protocol_kind: str, contract: Any) -> Iterator[_TracePlan]:
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


def calls_of(
    plan: _TracePlan, protocol_kind: str, values: Sequence[Any], offered: frozenset[str], contract: Any
) -> Any:
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


# ------------------------------------------------------------------------------------------------ a task


def run_scale_task(task: ScaleTask, attempt: int = 0) -> ScaleResult:
    """Run ``task`` here (a plain function: a Spark worker calls it, and so can a test or a debugger). Never
    raises for a problem found; a target that cannot even be built is a finding at step -1."""
    from ..kinds.differential import compiled

    started = time.perf_counter()
    ops = traces = sampled = 0
    try:
        built = resolve(task.target)
        if not built.protocol_kind:
            return _decay_task(task, built, started, attempt)
        choice, values = monoid_values(task.monoid, task.target.tolerance)
        monoid = choice.factory()
        contract = restricted_contract(built.contract) if built.protocol_kind == "fifo" else None
        offered = offered_operations(built, monoid)
        for plan in plans(task, built.protocol_kind, contract):
            subject = built.new(monoid)
            oracle = oracle_for(built, monoid, contract)
            found = lockstep(subject, oracle, calls_of(plan, built.protocol_kind, values, offered, contract), monoid)
            traces += 1
            if found is not None and callable(getattr(subject, "pipeline", None)):
                # a pipeline that died or got garbage knows the chunk, not the call: the trace again, one call
                # at a time on a fresh instance, names it (and words it) exactly
                exact = lockstep(
                    built.new(monoid),
                    oracle_for(built, monoid, contract),
                    calls_of(plan, built.protocol_kind, values, offered, contract),
                    monoid,
                    pipelined=False,
                )
                found = exact or found
            if found is not None:
                ops += sum(
                    weight(c)
                    for c in itertools.islice(
                        calls_of(plan, built.protocol_kind, values, offered, contract), found.step + 1
                    )
                )
                finding = Finding(plan.index, plan.pattern, plan.window, found.step, found.detail)
                return ScaleResult(
                    task, ops, traces, sampled, finding, time.perf_counter() - started, compiled(), attempt
                )
            ops += plan.length
            if plan.index % SAMPLE_EVERY == 0:
                problem = sample(built, monoid, calls_of(plan, built.protocol_kind, values, offered, contract))
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


def sample(built: Built, monoid: Any, calls: Iterable[tuple[str, tuple[Any, ...]]]) -> tuple[int, str] | None:
    """The first :data:`SAMPLE_OPS` of ``calls`` on a fresh target instance inside the kind's debug wrapper (and
    beside the twin, for a registered algorithm): ``(step, what failed)`` or ``None``."""
    from ..kinds.base import NoFacts
    from ..lockstep import Against

    raw = built.new(monoid)
    facts = built.facts if built.facts is not None else NoFacts()
    options: dict[str, Any] = {}
    if built.protocol_kind == "fifo" and built.contract is not None:
        options["contract"] = restricted_contract(built.contract)
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


def _decay_task(task: ScaleTask, built: Built, started: float, attempt: int) -> ScaleResult:
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
    of a share, at most ``pace × per_task``, so it does not hold the whole run up); the full-pace tasks make up
    the difference, so the total is ``operations`` unless every target is slow."""
    combos = [(t, m) for t in targets for m in (monoids(t) if callable(monoids) else monoids)]
    if not combos:
        return []
    count = max(len(combos), -(-operations // per_task))
    picked = [combos[i % len(combos)] for i in range(count)]
    paces = [pace(t) for t, _ in picked]
    share = operations / sum(paces)  # the full-pace tasks make up what the slow ones leave
    tasks = []
    for i, ((t, m), p) in enumerate(zip(picked, paces)):
        ops = round(share * p) if p >= 1 else min(round(share * p), round(per_task * p))
        tasks.append(ScaleTask(t, m, seed + i, max(1, ops), min(trace_length, max(1, ops)), max_window))
    return tasks
