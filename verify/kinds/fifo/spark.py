"""The differential run of the FIFO kind: reference, optimized and the :class:`~swagkit.spec.adt.FifoSwag`
model in lock-step over a few thousand seeded inserts, evicts and queries. After every operation the two
implementations must give the same answer and the same ``combine_count``; every ``MODEL_EVERY`` steps (and at
the end) the model's answer and the two snapshots are compared too. Within the card's
:class:`~.contract.Contract`: a fixed capacity evicts the oldest on an insert into a full window (in the model too),
and with registered ranges (001 §4's multi-query mode) ``query_all()`` is compared after every operation as well."""

from __future__ import annotations

import random
from typing import Any

from swagkit.spec.adt import FifoSwag
from swagkit.spec.errors import EmptyWindowError
from swagkit.spec.monoid import fold

from ..base import Subject, same_output
from ..differential import MODEL_EVERY, DiffResult, DiffTask, Lockstep
from .contract import Contract

__all__ = ["run_fifo_task"]


def run_fifo_task(task: DiffTask, reference: Subject, optimized: Subject) -> DiffResult:
    """Run ``task`` locally (see the module docstring)."""
    run = Lockstep.of(task, reference, optimized)
    monoid, ref, opt = run.monoid, run.ref, run.opt
    model: FifoSwag[Any, Any, Any] = FifoSwag(monoid)
    card = getattr(reference.facts, "card", None)
    contract = Contract.of(card.contract if card is not None else None)
    cap = min(contract.capacity or task.max_window, task.max_window)
    draining = False
    rng = random.Random(f"{task.algorithm}/{task.monoid}/{task.seed}")
    # a drifting insert probability makes windows grow, shrink and sometimes drain completely
    bias = 0.5
    for step in range(task.steps):
        if step % 97 == 0:
            bias = rng.choice((0.2, 0.5, 0.5, 0.8))
        evictable = contract.evictable(len(model), draining)
        # a fixed capacity takes inserts into a full window (the oldest leaves); otherwise the cap asks for evicts
        room = contract.full(len(model)) or len(model) < cap
        op = "insert" if (evictable == 0 or rng.random() < bias) and room else "evict" if evictable else "query"
        draining = op == "evict" or draining and op == "query"
        try:
            if op == "insert":
                value = rng.choice(run.examples)
                ref.insert(value)
                opt.insert(value)
                if contract.full(len(model)):
                    model.evict()
                model.insert(value)
            elif op == "evict":
                ref.evict()
                opt.evict()
                model.evict()
        except EmptyWindowError as err:  # pragma: no cover - the model guards evicts
            return run.result(task, False, step, f"{op}: unexpected {err!r}", step)
        got_ref, got_opt = ref.query(), opt.query()
        problem = ""
        # reference and optimized perform the same ⊗ sequence, so they must agree at every step; the model
        # (an O(n) fold) is consulted every MODEL_EVERY steps and at the end
        all_ref, all_opt = (ref.query_all(), opt.query_all()) if contract.ranges else ({}, {})
        if not same_output(monoid, got_opt, got_ref):
            problem = f"optimized query {got_opt!r} != reference {got_ref!r}"
        elif set(all_ref) != set(all_opt) or any(not same_output(monoid, all_opt[r], all_ref[r]) for r in all_ref):
            problem = f"optimized query_all {all_opt!r} != reference {all_ref!r}"
        elif ref.combine_count != opt.combine_count:
            problem = f"combine_count reference {ref.combine_count} != optimized {opt.combine_count}"
        elif step % MODEL_EVERY == 0 or step == task.steps - 1:
            want = model.query()
            if not same_output(monoid, got_ref, want):
                problem = f"reference query {got_ref!r} != model {want!r}"
            elif not same_output(monoid, got_opt, want):
                problem = f"optimized query {got_opt!r} != model {want!r}"
            elif contract.ranges and set(all_ref) != set(contract.ranges):
                problem = f"query_all answers ranges {sorted(all_ref)}, the registered ranges are {contract.ranges}"
            elif any(not same_output(monoid, all_ref[r], _newest(model, r)) for r in all_ref):
                problem = f"reference query_all {all_ref!r} differs from the model's newest-r folds"
            elif ref.snapshot() != opt.snapshot():
                problem = "snapshots differ"
        if problem:
            return run.result(task, False, step, f"after {op} (step {step}): {problem}", step + 1)
    return run.result(task, True, task.steps, "", task.steps)


def _newest(model: FifoSwag[Any, Any, Any], r: int) -> Any:
    """The model's answer for range ``r``: the newest ``min(r, n)`` values, lowered."""
    m = model.monoid
    values = model.values()
    return m.lower(fold(m, values[len(values) - min(r, len(values)) :]))
