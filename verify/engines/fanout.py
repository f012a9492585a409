"""``swagkit engines --spark``: the generated cases fanned out over Spark workers, each running the engines
in-process (issue 24 §1).

The cases of a seed are numbered, so a run is a list of chunks ``(engine, seed, start, count)``; every Spark task
runs its chunks (:func:`.run.run_engine` on a fresh adapter) and sends back its :class:`~.run.EngineRun`. The
driver merges them: matrices add up; of the findings of one signature the one from the lowest case number wins
(so the report does not depend on which worker finished first); occurrences add up. A worker needs the engines
installed (the same Python environment as the driver, as ``local[N]`` and a standalone cluster on one machine
have).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .known import KnownFinding
from .run import EngineRun

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["chunks", "merge_runs", "run_on_spark"]

#: a unit of work: (engine, seed, first case number, number of cases)
Chunk = tuple[str, int, int, int]


def chunks(engines: Sequence[str], seed: int, cases: int | Mapping[str, int], per_chunk: int) -> list[Chunk]:
    """``cases`` cases of ``seed`` per engine (one number, or one per engine), in chunks of at most ``per_chunk``.

    The chunks are interleaved so that every engine advances at the same pace through its share (a slow engine
    given fewer cases does not leave its work to the end of the job)."""
    per_chunk = max(1, per_chunk)
    totals = {name: cases if isinstance(cases, int) else cases.get(name, 0) for name in engines}
    work = [
        (s / total, position, (name, seed, s, min(per_chunk, total - s)))
        for position, (name, total) in enumerate(totals.items())
        for s in range(0, total, per_chunk)
    ]
    return [chunk for _, _, chunk in sorted(work)]


def merge_runs(runs: Iterable[EngineRun]) -> dict[str, EngineRun]:
    """Runs of the same engines (from several chunks) merged, one per engine."""
    merged: dict[str, EngineRun] = {}
    for run in runs:
        into = merged.get(run.engine)
        if into is None:
            merged[run.engine] = into = EngineRun(run.engine, run.version)
        into.matrix.merge(run.matrix)
        into.occurrences.update(run.occurrences)
        into.cases += run.cases
        into.seconds += run.seconds
        for signature, finding in run.findings.items():
            held = into.findings.get(signature)
            if held is None or (finding.seed, finding.index or 0) < (held.seed, held.index or 0):
                into.findings[signature] = finding
    return merged


def _run_chunks(
    items: Iterable[Chunk], known: Sequence[KnownFinding], budget: float, shrink_budget: float
) -> Iterable[EngineRun]:
    """A Spark task: its chunks, each on a fresh adapter (module-level, so that it pickles by reference)."""
    from .adapters import make_engine
    from .run import run_engine

    for name, seed, start, count in items:
        engine = make_engine(name)
        try:
            yield run_engine(
                engine, seed=seed, start=start, cases=count, budget=budget, known=known, shrink_budget=shrink_budget
            )
        finally:
            engine.close()


def run_on_spark(
    spark: SparkSession,
    engines: Sequence[str],
    *,
    seed: int,
    cases: int | Mapping[str, int],
    per_chunk: int = 200,
    budget: float = 600.0,
    shrink_budget: float = 10.0,
    known: Sequence[KnownFinding] = (),
) -> dict[str, EngineRun]:
    """``cases`` cases per engine (one number, or one per engine) on ``spark``'s workers; ``budget`` bounds each
    chunk's seconds."""
    work = chunks(engines, seed, cases, per_chunk)
    slices = max(1, min(len(work), spark.sparkContext.defaultParallelism * 4))
    known_list = list(known)

    def task(items: Iterable[Any]) -> Iterable[EngineRun]:
        return _run_chunks(items, known_list, budget, shrink_budget)

    runs = spark.sparkContext.parallelize(work, slices).mapPartitions(task).collect()
    return merge_runs(runs)
