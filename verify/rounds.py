"""Searches that spend seconds in parallel (``--budget SECONDS --jobs N`` of ``--impl``/``--exec``, issue 25 §1).

:func:`swagkit.verify.runner.search_rounds` spends a budget in rounds of consecutive seeds. With ``jobs > 1``
the seeds are dealt to forked workers -- worker ``j`` runs ``S + j``, ``S + j + jobs``, … with the same budget --
and a worker stops at its next round once another has found a failure.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from .runner import Outcome, search_rounds, stops_search

__all__ = ["search_rounds_parallel"]

#: the job the forked workers run (set before the pool forks: a closure cannot be pickled, a fork inherits it)
_JOB: dict[str, Any] = {}


def _worker(j: int) -> Outcome:
    job = _JOB
    after_fork = job.get("after_fork")
    if after_fork is not None:
        after_fork()
    found = job["found"]

    def round_of(seed: int, examples: int) -> Outcome:
        outcome: Outcome = job["run_round"](seed, examples)
        if stops_search(outcome):
            found.set()
        return outcome

    return search_rounds(
        round_of,
        seconds=job["seconds"],
        examples=job["examples"],
        seed=job["seed"] + j,
        stride=job["jobs"],
        stop=found.is_set,
    )


def search_rounds_parallel(
    run_round: Callable[[int, int], Outcome],
    *,
    seconds: float,
    examples: int,
    seed: int,
    jobs: int,
    after_fork: Callable[[], None] | None = None,
) -> Outcome:
    """:func:`search_rounds` in ``jobs`` forked workers (worker ``j``: seeds ``seed + j``, ``seed + j + jobs``,
    …); ``after_fork()`` runs first in each worker (an ``--exec`` program is started afresh there: the parent's
    pipes are not shared). Without ``fork`` (or with one job) it is :func:`search_rounds`. The merged outcome
    counts every worker's examples; its findings are those of the lowest seed that failed."""
    if jobs <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        return search_rounds(run_round, seconds=seconds, examples=examples, seed=seed)
    start = time.perf_counter()
    context = multiprocessing.get_context("fork")
    _JOB.update(
        run_round=run_round,
        seconds=seconds,
        examples=examples,
        seed=seed,
        jobs=jobs,
        after_fork=after_fork,
        found=context.Event(),
    )
    try:
        with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
            outcomes = list(pool.map(_worker, range(jobs)))
    finally:
        _JOB.clear()
    return _merged(outcomes, time.perf_counter() - start)


def _merged(outcomes: Sequence[Outcome], seconds: float) -> Outcome:
    failing = [o for o in outcomes if o.status != "PASS"]
    first = min(failing, key=lambda o: o.details.get("seed", 0)) if failing else outcomes[0]
    kept = {f.replay for f in first.findings}
    for other in failing:  # two workers failed at once: one finding is reported, the other's file is not left behind
        for f in other.findings:
            if f.replay and f.replay not in kept:
                with contextlib.suppress(OSError):
                    os.remove(f.replay)
    merged = Outcome(
        first.name,
        first.status,
        seconds,
        sum(o.examples for o in outcomes),
        sum(o.steps for o in outcomes),
        list(first.findings),
        error=first.error,
    )
    merged.details = {**first.details, "rounds": sum(o.details.get("rounds", 1) for o in outcomes)}
    return merged
