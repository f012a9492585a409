"""Searches that spend seconds (``--budget SECONDS``, issue 25 §1): in parallel, and shared by many searches.

:func:`swagkit.verify.runner.search_rounds` spends a budget in rounds of consecutive seeds. With ``jobs > 1``
the seeds of one search (``--impl``/``--exec``) are dealt to forked workers -- worker ``j`` runs ``S + j``,
``S + j + jobs``, … with the same budget -- and a worker stops at its next round once another has found a failure.

The main job shares one budget among hundreds of searches whose costs differ a hundredfold (a FiBA string
combination against a sum): every search runs a first round, then :func:`further_rounds` deals the seconds left
in equal shares, sized by each search's *measured* first round so that no share is overdrawn by more than one
example, and :func:`merge_rounds` makes one outcome of the two stages.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from typing import Any

from .runner import Outcome, Task, search_rounds, stops_search

__all__ = ["search_rounds_parallel", "further_rounds", "merge_rounds"]

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


def further_rounds(
    first: Sequence[Outcome],
    seconds: float,
    jobs: int,
    *,
    busy: float = 1.0,
    deadline: float | None = None,
) -> list[Task]:
    """The second stage of a main job that spends ``seconds`` of wall time over ``jobs`` workers, kept busy a
    ``busy`` fraction of it (the first stage's measure: dispatch and the last stragglers idle the others): for
    every search whose first round ended without stopping it, a task running rounds of seeds ``S+1``, ``S+2``, …
    in an equal share of the worker-seconds, its first round ``min(2·E, what fits)`` examples at the speed its
    first round of ``E`` examples measured. A search of which one example would overdraw its share gets none,
    and the share goes to the others (a search costing 40× the median would otherwise overrun the budget by
    itself). The estimates are a first round's: a ``deadline`` (``time.perf_counter()``'s) holds the run to its
    end whatever they missed -- no round starts that would end after it.

    >>> t = [Task("machine", "m", None, examples=4, seed=0), Task("machine", "n", None, examples=4, seed=0)]
    >>> runs = [Outcome("a", "PASS", 0.4, 4, task=t[0]), Outcome("b", "PASS", 40.0, 4, task=t[1])]
    >>> [(x.monoid, x.seed, x.examples, x.seconds) for x in further_rounds(runs, seconds=3.0, jobs=1)]
    [('m', 1, 8, 3.0)]
    """
    cost = {id(r): r.seconds / r.task.examples for r in first if r.task is not None and r.task.examples}
    runs = [r for r in first if id(r) in cost and r.task is not None and r.task.kind != "laws" and not stops_search(r)]
    runs.sort(key=lambda r: cost[id(r)], reverse=True)
    total = seconds * jobs * busy
    while runs and cost[id(runs[0])] > total / len(runs):
        runs.pop(0)  # one example overdraws its share: that search keeps its first round
    if not runs or seconds <= 0:
        return []
    share, kept = total / len(runs), {id(r) for r in runs}
    return [
        replace(
            r.task,
            seed=r.task.seed + 1,
            examples=min(2 * r.task.examples, int(share / cost[id(r)])),
            seconds=share,
            deadline=deadline,
            cost=cost[id(r)],
        )
        for r in first
        if id(r) in kept and r.task is not None
    ]


def merge_rounds(first: Outcome, further: Outcome) -> Outcome:
    """One outcome of a search's first round and its further rounds: counts and seconds summed, the findings of
    both, the task of the first (its name and seed) and the command that re-runs the further rounds' finding.

    >>> a = Outcome("x", "PASS", 1.0, 4, 40, details={"rounds": 1, "max_window": 5})
    >>> b = Outcome("x", "PASS", 2.0, 8, 80, details={"rounds": 2, "max_window": 9})
    >>> m = merge_rounds(a, b)
    >>> m.status, m.seconds, m.examples, m.steps, m.details
    ('PASS', 3.0, 12, 120, {'rounds': 3, 'max_window': 9})
    """
    findings = first.findings + further.findings
    error = first.error or further.error
    status = "ERROR" if error else "FAIL" if findings else first.status
    details: dict[str, Any] = dict(first.details)
    for key, value in further.details.items():
        details[key] = max(details.get(key, 0), value) if key.startswith("max_") else details.get(key, 0) + value
    return Outcome(
        first.name,
        status,
        first.seconds + further.seconds,
        first.examples + further.examples,
        first.steps + further.steps,
        findings,
        error=error,
        note=first.note,
        reproduce=further.reproduce or first.reproduce,
        details=details,
        task=first.task,
    )
