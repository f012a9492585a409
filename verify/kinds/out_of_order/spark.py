"""The differential run of the out-of-order kind (FiBA): one seeded random run of reference, optimized and the
:class:`~swagkit.spec.ooo.TimedWindow` model in lock-step.

:func:`run_ooo_task` takes the same :class:`~swagkit.verify.kinds.differential.DiffTask` as every kind's run and
mixes every operation: inserts at random times
(collisions included), evict, remove, bulk_evict anywhere, sorted bulk inserts with duplicates, range queries.
After every operation the two implementations must give the same answer and the same ``combine_count`` and
``touched_count``; every 16 steps (and at the end) the model's answer and the two snapshots are compared too.
To keep the stage cheap it runs a quarter of the task's steps (bulks make each step heavier).
"""

from __future__ import annotations

import random
from typing import Any

from swagkit.spec.errors import EmptyWindowError
from swagkit.spec.ooo import MissingTimeError, TimedWindow

from ..base import Subject, same_output
from ..differential import MODEL_EVERY, DiffResult, DiffTask, Lockstep

__all__ = ["run_ooo_task"]


def run_ooo_task(task: DiffTask, reference: Subject, optimized: Subject) -> DiffResult:
    """Run ``task`` for an out-of-order algorithm locally (see the module docstring)."""
    run = Lockstep.of(task, reference, optimized)
    monoid, ref, opt, examples = run.monoid, run.ref, run.opt, run.examples
    model: TimedWindow[Any, Any, Any] = TimedWindow(monoid)
    rng = random.Random(f"ooo/{task.algorithm}/{task.monoid}/{task.seed}")
    steps = max(1, task.steps // 4)
    span = 2 * task.max_window
    for step in range(steps):
        x = rng.random()
        full = len(model) >= task.max_window
        op: tuple[Any, ...]
        if x < 0.3 and not full:
            op = ("insert", rng.randrange(span), rng.choice(examples))
        elif x < 0.45 or (full and x < 0.6):
            op = ("evict",) if len(model) else ("insert", rng.randrange(span), rng.choice(examples))
        elif x < 0.55 and len(model):
            op = ("remove", rng.choice(model.times()))
        elif x < 0.65:
            op = ("bulk_evict", rng.randrange(-1, span + 1))
        elif x < 0.85 and not full:
            keys = sorted(rng.randrange(span) for _ in range(rng.randrange(1, 24)))
            op = ("bulk_insert", [(k, rng.choice(examples)) for k in keys])
        else:
            a, b = sorted(rng.randrange(-1, span + 1) for _ in range(2))
            op = ("range_query", a, b)
        answers = []
        for agg in (ref, opt):
            try:
                answers.append(getattr(agg, op[0])(*op[1:]))
            except (EmptyWindowError, MissingTimeError) as err:  # pragma: no cover - the model guards them
                return run.result(task, False, step, f"{op[0]}: unexpected {err!r}", step)
        want = getattr(model, op[0])(*op[1:]) if op[0] != "range_query" else model.range_query(*op[1:])
        problem = ""
        if not same_output(monoid, answers[1], answers[0]):
            problem = f"optimized answered {answers[1]!r}, reference {answers[0]!r}"
        elif (ref.combine_count, ref.touched_count) != (opt.combine_count, opt.touched_count):
            problem = (
                f"counters: reference ⊗ {ref.combine_count} / visits {ref.touched_count}, optimized "
                f"{opt.combine_count} / {opt.touched_count}"
            )
        elif op[0] in ("bulk_evict", "range_query") and not same_output(monoid, answers[0], want):
            problem = f"reference answered {answers[0]!r}, the model {want!r}"
        elif step % MODEL_EVERY == 0 or step == steps - 1:
            got_ref, got_opt, model_q = ref.query(), opt.query(), model.query()
            if not same_output(monoid, got_ref, model_q) or not same_output(monoid, got_opt, model_q):
                problem = f"query: reference {got_ref!r}, optimized {got_opt!r}, model {model_q!r}"
            elif ref.snapshot() != opt.snapshot():
                problem = "snapshots differ"
        if problem:
            return run.result(task, False, step, f"after {op[0]} (step {step}): {problem}", step + 1)
    return run.result(task, True, steps, "", steps)
