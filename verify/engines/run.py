"""Running engines against the exact oracle: cases in, a conformance matrix and shrunk, deduplicated findings out
(issue 24 §1, §5).

:func:`check_case` gives one engine one case and judges every answer (:mod:`.oracle`, :mod:`.judge`), counting
into the :class:`~.matrix.Matrix`. :func:`run_engine` does that for generated cases (:mod:`.generate`, seeded:
case ``i`` of seed ``s`` is the same everywhere) until ``cases`` are done or ``budget`` seconds are spent; the first
failure of each *signature* -- (engine, aggregate, frame kind, class) -- is shrunk (:mod:`.shrink`) to a case of one
query and few rows that still fails the same way; later failures of a known signature are only counted.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from .engine import Engine, Failure, nan_is_null
from .generate import Features, generate_case, simplify
from .judge import Verdict, judge_row
from .known import KnownFinding, Signature, match_known
from .matrix import Matrix
from .model import Case, Query
from .oracle import Expected, expected
from .shrink import shrink

__all__ = ["Finding", "EngineRun", "Failed", "check_case", "first_failure", "probe_features", "run_engine"]


@dataclass(frozen=True)
class Failed:
    """One wrong (or refused, or crashed) query of a case: where, what the engine said and what is right."""

    query_index: int
    row: int  # the first wrong row's index in the table (-1 for a refused or crashed query)
    klass: str
    detail: str
    got: Any = None
    expected: Expected | None = None


@dataclass(frozen=True)
class Finding:
    """The first failure of a signature, with its case shrunk to a minimal repro (:attr:`case`: one query)."""

    signature: Signature
    engine: str
    version: str
    case: Case
    failed: Failed
    seed: int | None
    index: int | None
    original_rows: int
    original_queries: int
    shrink_tries: int
    shrink_seconds: float
    known: KnownFinding | None = None

    @property
    def name(self) -> str:
        """A file-system friendly name: ``duckdb-var_samp-rows-sign``."""
        return "-".join(part.replace("+", "_") for part in self.signature)


@dataclass
class EngineRun:
    """What one engine did in one run."""

    engine: str
    version: str
    matrix: Matrix = field(default_factory=Matrix)
    findings: dict[Signature, Finding] = field(default_factory=dict)
    occurrences: Counter[Signature] = field(default_factory=Counter)
    cases: int = 0
    seconds: float = 0.0

    @property
    def new_findings(self) -> list[Finding]:
        return [f for f in self.findings.values() if f.known is None]

    @property
    def cases_per_second(self) -> float:
        return self.cases / self.seconds if self.seconds > 0 else 0.0


def check_case(engine: Engine, case: Case, matrix: Matrix | None = None) -> list[Failed]:
    """Run ``case`` on ``engine`` and judge every answer; count into ``matrix`` (if given). Returns the failed
    queries (each with its first wrong row), in query order."""
    table = case.table
    supported: list[tuple[int, Query]] = []
    for i, query in enumerate(case.queries):
        if engine.unsupported(table, query) is None:
            supported.append((i, query))
        elif matrix is not None:
            _cell(matrix, engine, query).skipped += 1
    if not supported:
        return []
    answers = engine.run(table, [q for _, q in supported])
    failed: list[Failed] = []
    nan_null = nan_is_null(engine)
    for (i, query), column in zip(supported, answers, strict=True):
        cell = _cell(matrix, engine, query) if matrix is not None else None
        if isinstance(column, Failure) and column.kind == "refused" and query.call.distinct:
            # DISTINCT inside a window aggregate is not something every SQL engine owes (PostgreSQL refuses it
            # too): a refusal is counted as unsupported, never a finding; a wrong DISTINCT answer still is one
            if cell is not None:
                cell.skipped += 1
            continue
        if cell is not None:
            cell.queries += 1
        if isinstance(column, Failure):
            if cell is not None:
                if column.kind == "refused":
                    cell.refused += 1
                else:
                    cell.crashed += 1
            failed.append(Failed(i, -1, column.kind, column.message))
            continue
        first: Failed | None = None
        for row, (want, got) in enumerate(zip(expected(table, query), column, strict=True)):
            if nan_null and got is None and isinstance(want.value, float) and math.isnan(want.value):
                verdict = _NAN_AS_NULL  # the engine has no NaN apart from NULL (engine.nan_is_null)
            else:
                verdict = judge_row(table, query, row, want, got)
            if cell is not None:
                cell.answers += 1
                if verdict.ok:
                    cell.exact += verdict.exact
                    cell.within += not verdict.exact
                else:
                    cell.wrong[verdict.klass or "wrong"] += 1
            if not verdict.ok and first is None:
                first = Failed(i, row, verdict.klass or "wrong", verdict.detail, got, want)
        if first is not None:
            failed.append(first)
    return failed


_NAN_AS_NULL = Verdict(True, exact=True)


def _cell(matrix: Matrix | None, engine: Engine, query: Query) -> Any:
    assert matrix is not None
    return matrix.cell(engine.name, query.call.aggregate, query.frame_kind)


def signature(engine: Engine, case: Case, failed: Failed) -> Signature:
    query = case.queries[failed.query_index]
    return (engine.name, query.call.aggregate, query.frame_kind, failed.klass)


def first_failure(engine: Engine, case: Case, wanted: Signature | None = None) -> Failed | None:
    """The first failed query of ``case`` on ``engine`` (with signature ``wanted``, when given), or None."""
    for failed in check_case(engine, case):
        if wanted is None or signature(engine, case, failed) == wanted:
            return failed
    return None


def minimal(engine: Engine, case: Case, failed: Failed, budget_seconds: float) -> tuple[Case, Failed, int, float]:
    """``case`` shrunk while it fails with ``failed``'s signature: first to the failing query alone, then by
    :func:`.generate.simplify`. Returns the shrunk case, its failure, the candidates tried and the seconds."""
    started = time.monotonic()
    wanted = signature(engine, case, failed)
    seen: dict[Case, Failed] = {case: failed}

    def still_fails(candidate: Case) -> bool:
        found = first_failure(engine, candidate, wanted)
        if found is not None:
            seen[candidate] = found
        return found is not None

    alone = case.with_queries([case.queries[failed.query_index]])
    start = alone if still_fails(alone) else case
    shrunk, tries = shrink(start, still_fails, simplify, budget_seconds)
    # the failure as the shrinker saw it (an engine whose answers vary between runs of one query would not
    # fail again on demand; the repro script then says so when run)
    return shrunk, seen[shrunk], tries, time.monotonic() - started


def probe_features(engine: Engine) -> Features:
    """What ``engine`` can run, read off its :meth:`~.engine.Engine.unsupported` answers on template queries, so
    that generated cases are mostly runnable (:meth:`.generate.Features.probe`)."""
    return Features.probe(engine.unsupported)


def run_engine(
    engine: Engine,
    *,
    seed: int = 0,
    cases: int | None = None,
    budget: float = 10.0,
    start: int = 0,
    known: Sequence[KnownFinding] = (),
    shrink_budget: float = 10.0,
    features: Features | None = None,
    max_rows: int | None = None,
) -> EngineRun:
    """Generated cases ``start, start+1, …`` of ``seed`` on ``engine`` until ``cases`` are done or ``budget``
    seconds are spent (shrinking included), whichever comes first; the first failure of each signature shrunk.
    ``max_rows`` caps a case's table (default: the features')."""
    run = EngineRun(engine.name, engine.version())
    features = features if features is not None else probe_features(engine)
    if max_rows is not None:
        features = replace(features, max_rows=max_rows)
    started = time.monotonic()
    index = start
    while (cases is None or run.cases < cases) and time.monotonic() - started < budget:
        case = generate_case(seed, index, features=features)
        index += 1
        run.cases += 1
        for failed in check_case(engine, case, run.matrix):
            _record(run, engine, case, failed, known, shrink_budget)
    run.seconds = time.monotonic() - started
    return run


def _record(
    run: EngineRun, engine: Engine, case: Case, failed: Failed, known: Iterable[KnownFinding], shrink_budget: float
) -> None:
    sig = signature(engine, case, failed)
    run.occurrences[sig] += 1
    if sig in run.findings:
        return
    accepted = match_known(sig, known)
    # a known signature is reported, not shrunk again (its minimal repro was written when it was accepted)
    shrunk, final, tries, seconds = minimal(engine, case, failed, 0.0 if accepted else shrink_budget)
    run.findings[sig] = Finding(
        sig,
        engine.name,
        run.version,
        replace(shrunk, seed=case.seed, index=case.index),
        final,
        case.seed,
        case.index,
        len(case.table.rows),
        len(case.queries),
        tries,
        seconds,
        accepted,
    )
