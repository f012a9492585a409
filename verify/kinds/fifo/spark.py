"""The differential run of the FIFO kind: reference, optimized and the :class:`~swagkit.spec.adt.FifoSwag`
model in lock-step over a few thousand seeded inserts, evicts and queries. After every operation the two
implementations must give the same answer and the same ``combine_count``; every ``MODEL_EVERY`` steps (and at
the end) the model's answer and the two snapshots are compared too."""

from __future__ import annotations

import random
from typing import Any

from swagkit.spec.adt import FifoSwag
from swagkit.spec.errors import EmptyWindowError

from ..base import Subject, same_output
from ..differential import MODEL_EVERY, DiffResult, DiffTask, Lockstep

__all__ = ["run_fifo_task"]


def run_fifo_task(task: DiffTask, reference: Subject, optimized: Subject) -> DiffResult:
    """Run ``task`` locally (see the module docstring)."""
    run = Lockstep.of(task, reference, optimized)
    monoid, ref, opt = run.monoid, run.ref, run.opt
    model: FifoSwag[Any, Any, Any] = FifoSwag(monoid)
    rng = random.Random(f"{task.algorithm}/{task.monoid}/{task.seed}")
    # a drifting insert probability makes windows grow, shrink and sometimes drain completely
    bias = 0.5
    for step in range(task.steps):
        if step % 97 == 0:
            bias = rng.choice((0.2, 0.5, 0.5, 0.8))
        op = "insert" if (len(model) == 0 or rng.random() < bias) and len(model) < task.max_window else "evict"
        try:
            if op == "insert":
                value = rng.choice(run.examples)
                ref.insert(value)
                opt.insert(value)
                model.insert(value)
            else:
                ref.evict()
                opt.evict()
                model.evict()
        except EmptyWindowError as err:  # pragma: no cover - the model guards evicts
            return run.result(task, False, step, f"{op}: unexpected {err!r}", step)
        got_ref, got_opt = ref.query(), opt.query()
        problem = ""
        # reference and optimized perform the same ⊗ sequence, so they must agree at every step; the model
        # (an O(n) fold) is consulted every MODEL_EVERY steps and at the end
        if not same_output(monoid, got_opt, got_ref):
            problem = f"optimized query {got_opt!r} != reference {got_ref!r}"
        elif ref.combine_count != opt.combine_count:
            problem = f"combine_count reference {ref.combine_count} != optimized {opt.combine_count}"
        elif step % MODEL_EVERY == 0 or step == task.steps - 1:
            want = model.query()
            if not same_output(monoid, got_ref, want):
                problem = f"reference query {got_ref!r} != model {want!r}"
            elif not same_output(monoid, got_opt, want):
                problem = f"optimized query {got_opt!r} != model {want!r}"
            elif ref.snapshot() != opt.snapshot():
                problem = "snapshots differ"
        if problem:
            return run.result(task, False, step, f"after {op} (step {step}): {problem}", step + 1)
    return run.result(task, True, task.steps, "", task.steps)
