"""Run verification tasks (one state machine combination, or one monoid's laws) and describe the outcome.

Kept apart from the CLI so tasks can run in worker processes and tests can call them directly. Every task
derives its Hypothesis seed from the run's ``--seed`` and its own name, so the reproduce command printed for a
failure replays exactly that task's search. Hypothesis' own report (the shrunk failing program:
``state = …Machine(); state.insert(value='a'); …``) is captured and returned as text.
"""

from __future__ import annotations

import re
import shlex
import time
import traceback
import zlib
from dataclasses import dataclass, field
from typing import Any

from hypothesis.reporting import with_reporter

from .laws import check_monoid
from .machine import DEFAULT_MAX_WINDOW, run_machine
from .registry import Combo

__all__ = ["Task", "Result", "task_seed", "run_task", "reproduce_command", "describe_exception"]


@dataclass(frozen=True)
class Task:
    """One unit of verification: a machine run for ``combo``, or (``combo is None``) the laws of ``monoid``."""

    kind: str  # "machine" or "laws"
    monoid: str
    combo: Combo | None = None
    examples: int = 30
    steps: int = 50
    seed: int = 0
    max_window: int = DEFAULT_MAX_WINDOW

    @property
    def name(self) -> str:
        return self.combo.label if self.combo is not None else f"laws × {self.monoid}"


@dataclass
class Result:
    """Outcome of a :class:`Task`: ``status`` is ``ok``, ``FAIL`` or ``ERROR`` (the harness itself broke)."""

    task: Task
    status: str
    seconds: float
    examples: int = 0
    steps: int = 0
    note: str = ""
    counterexample: str = ""
    reproduce: str = ""
    details: dict[str, Any] = field(default_factory=dict)
    #: the replay file of a failed machine run (``swagkit replay FILE`` re-runs it; "": none)
    replay: str = ""

    @property
    def failed(self) -> bool:
        return self.status != "ok"


def task_seed(seed: int, name: str) -> int:
    """The Hypothesis seed of one task: stable across runs and machines, distinct across tasks."""
    return (seed * 1_000_003 + zlib.crc32(name.encode())) % 2**32


def reproduce_command(task: Task) -> str:
    """A ``swagkit verify`` command line that reruns exactly ``task``."""
    args = ["swagkit", "verify"]
    if task.combo is not None:
        args += ["--algorithm", task.combo.algorithm, "--monoid", task.monoid]
        args += ["--implementation", task.combo.implementation, "--no-laws", "--no-spark"]
        args += ["--steps", str(task.steps), "--max-window", str(task.max_window)]
    else:
        args += ["--monoid", task.monoid, "--laws-only"]
    args += ["--examples", str(task.examples), "--seed", str(task.seed)]
    return " ".join(shlex.quote(a) for a in args)


def describe_exception(exc: BaseException) -> str:
    """The exception text (with notes), flattening exception groups (Hypothesis reports distinct bugs so)."""
    if isinstance(exc, BaseExceptionGroup):
        parts = [f"{len(exc.exceptions)} distinct failures:"]
        parts += [describe_exception(e) for e in exc.exceptions]
        return "\n".join(parts)
    return "".join(traceback.format_exception_only(exc)).rstrip()


def run_task(task: Task) -> Result:
    """Run ``task``; never raises for a verification failure (it is reported in the :class:`Result`)."""
    report: list[str] = []
    start = time.perf_counter()
    seed = task_seed(task.seed, task.name)
    try:
        with with_reporter(lambda value: report.append(str(value))):
            if task.combo is not None:
                c = task.combo
                stats = run_machine(
                    c.algorithm,
                    c.monoid,
                    c.implementation,
                    max_examples=task.examples,
                    steps=task.steps,
                    seed=seed,
                    max_window=task.max_window,
                )
                examples, steps = stats.examples, stats.steps
                details: dict[str, Any] = {"operations": stats.operations, "max_window": stats.max_window}
            else:
                law_stats = check_monoid(task.monoid, max_examples=task.examples, seed=seed)
                examples, steps = law_stats.examples, 0
                details = {"generated": law_stats.generated}
                if not law_stats.generated:
                    details["note"] = "no input strategy: library examples only"
    except Exception as exc:  # a verdict: FAIL for a failed check, ERROR for any other exception
        elapsed = time.perf_counter() - start
        status = "FAIL" if isinstance(exc, AssertionError) or _is_check_failure(exc) else "ERROR"
        program = "\n".join(report).strip()
        text = (program + "\n\n" if program else "") + describe_exception(exc)
        return Result(
            task,
            status,
            elapsed,
            note=_first_line(describe_exception(exc)),
            counterexample=text,
            reproduce=reproduce_command(task),
            replay=str(getattr(exc, "swagkit_replay", "")),
        )
    return Result(
        task,
        "ok",
        time.perf_counter() - start,
        examples=examples,
        steps=steps,
        note=str(details.pop("note", "")),
        details=details,
    )


def _is_check_failure(exc: BaseException) -> bool:
    if isinstance(exc, BaseExceptionGroup):
        return all(_is_check_failure(e) for e in exc.exceptions)
    return isinstance(exc, AssertionError)


def _first_line(text: str, width: int = 100) -> str:
    lines = [ln for ln in text.splitlines() if ln.strip()]
    line = lines[0] if lines else ""
    for candidate in lines:  # prefer the error line over Hypothesis' "N distinct failures"
        if "Error" in candidate or "Violation" in candidate or "Exceeded" in candidate or "Mismatch" in candidate:
            line = candidate
            break
    line = re.sub(r"^[\w.]+\.(\w+): ", r"\1: ", line)  # swagkit.verify.errors.X: -> X:
    return line if len(line) <= width else line[: width - 1] + "…"
