"""``swagkit engines``: the window engines people run, checked against swagkit's exact oracle (issue 24).

Each engine (``--engine``; default: every one installed) gets generated cases (``--seed``; case *i* of a seed is
the same everywhere) until ``--cases`` are done or ``--budget`` seconds are spent; every failure is judged,
classified and counted; the first failure of each signature is shrunk and written as a standalone repro under
``--out``, with the conformance matrix. ``--known FILE`` accepts signatures (they do not fail the run).
``--spark`` fans the cases out over Spark workers (the embedded local Spark, or ``--master URL``).

Exit status: 0 no new finding, 1 a new finding, 2 a usage error, 3 no engine to run.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from ..options import UsageError
from .common import WIDTH, table

__all__ = ["add_engines_arguments", "engines_command", "engines_stage"]

DEFAULT_BUDGET = 20.0
DEFAULT_SPARK_CASES = 2000
#: the findings accepted for the engine versions swagkit's tests pin (package data)
BUNDLED_KNOWN = Path(__file__).resolve().parent.parent / "engines" / "known.json"
#: cases per engine in ``swagkit verify``'s closing engines stage
STAGE_CASES = 60


def add_engines_arguments(parser: argparse.ArgumentParser) -> None:
    from ..engines.adapters import ENGINE_NAMES

    parser.add_argument(
        "--engine",
        nargs="+",
        metavar="NAME",
        help=f"engines to check (default: every one installed; known: {', '.join(ENGINE_NAMES)})",
    )
    parser.add_argument(
        "--budget", type=float, default=DEFAULT_BUDGET, metavar="SECONDS", help="seconds per engine (default 20)"
    )
    parser.add_argument(
        "--cases",
        nargs="+",
        metavar="N|NAME=N",
        help="at most N cases per engine; NAME=N sets one engine's own number (e.g. --cases 1000 datafusion=100)",
    )
    parser.add_argument("--seed", type=int, default=0, help="the seed of the generated cases (default 0)")
    parser.add_argument(
        "--out", default="swagkit-engines", metavar="DIR", help="repros and the matrix go here (default %(default)s)"
    )
    parser.add_argument(
        "--known",
        metavar="FILE",
        help="a known-findings file: signatures that do not fail the run (default: the findings swagkit accepted "
        "for the engine versions it is tested with; 'none' for no file)",
    )
    parser.add_argument(
        "--accept", metavar="FILE", help="write every finding of this run (and the --known ones) to FILE as known"
    )
    parser.add_argument(
        "--shrink-budget", type=float, default=10.0, metavar="SECONDS", help="seconds to shrink one finding"
    )
    parser.add_argument("--spark", action="store_true", help="fan the cases out over Spark workers")
    parser.add_argument("--master", metavar="URL", help="Spark master for --spark (default: local Spark)")


def _options(args: argparse.Namespace) -> tuple[list[str], list[Any]]:
    """The engines to run and the known findings (a :class:`UsageError` for anything the user must change)."""
    from ..engines.adapters import ENGINE_NAMES, SPARK_ENGINES, installed_engines
    from ..engines.known import KnownFindingsError, load_known

    if args.budget <= 0 or args.budget != args.budget or args.budget == float("inf"):
        raise UsageError(f"--budget must be a positive number of seconds, not {args.budget}")
    args.case_counts = _case_counts(args.cases)
    if args.shrink_budget < 0 or args.shrink_budget != args.shrink_budget:
        raise UsageError(f"--shrink-budget must be >= 0, not {args.shrink_budget}")
    names = list(dict.fromkeys(args.engine)) if args.engine else list(installed_engines())
    unknown = [n for n in names if n not in ENGINE_NAMES]
    if unknown:
        raise UsageError(f"--engine: unknown {', '.join(unknown)} (known: {', '.join(ENGINE_NAMES)})")
    if args.engine and not args.spark:
        installed = installed_engines()
        missing = [n for n in names if n not in installed]
        if missing:
            raise UsageError(f"--engine: {', '.join(missing)} not installed here (pip install 'swagkit[engines]')")
    if not args.engine:  # the default run stays in-process: name spark (spark-segment-tree) to check Spark SQL
        names = [n for n in names if n not in SPARK_ENGINES]
    stray = [n for n in args.case_counts or {} if n is not None and n not in names]
    if stray:
        raise UsageError(f"--cases: {', '.join(stray)} is not among the engines of this run ({', '.join(names)})")
    try:
        known = [] if args.known == "none" else load_known(args.known or BUNDLED_KNOWN)
    except KnownFindingsError as error:
        raise UsageError(f"--known {error}") from None
    return names, known


def _case_counts(given: Sequence[str] | int | None) -> dict[str | None, int] | None:
    """``--cases``: engine name (``None`` for every other engine) -> cases, or ``None`` without ``--cases``."""
    if given is None:
        return None
    counts: dict[str | None, int] = {}
    for item in [str(given)] if isinstance(given, int) else given:
        name, _, number = item.rpartition("=")
        try:
            count = int(number)
        except ValueError:
            count = 0
        if count < 1:
            raise UsageError(f"--cases: {item!r} is not a number of cases of at least 1 (N or NAME=N)")
        counts[name or None] = count
    return counts


def _cases_of(args: argparse.Namespace, name: str) -> int | None:
    """How many cases engine ``name`` gets (``None``: as many as its budget allows)."""
    counts: dict[str | None, int] | None = args.case_counts
    if counts is None:
        return None
    return counts.get(name, counts.get(None))


def engines_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run ``swagkit engines``; returns the exit status."""
    names, known = _options(args)
    if not names:
        print("swagkit engines: no engine installed (pip install 'swagkit[engines]')", file=err)
        return 3
    started = time.monotonic()
    where = f"on Spark ({args.master or 'local'})" if args.spark else "in-process"
    limit = f"{_limit(args.case_counts)} cases" if args.case_counts else f"{args.budget:g} s"
    print(f"swagkit engines: {', '.join(names)}; seed {args.seed}, {limit} per engine, {where}", file=out)
    runs = _run_spark(args, names, known) if args.spark else _run_local(args, names, known, err)
    return _report(args, runs, known, out, time.monotonic() - started)


def _limit(counts: dict[str | None, int]) -> str:
    return ", ".join(f"{name}={count}" if name else str(count) for name, count in counts.items())


def _run_local(args: argparse.Namespace, names: Sequence[str], known: Sequence[Any], err: TextIO) -> dict[str, Any]:
    from ..engines.adapters import EngineUnavailable
    from ..engines.run import run_engine

    runs: dict[str, Any] = {}
    for name in names:
        try:
            engine = _make(args, name)
        except EngineUnavailable as error:
            raise UsageError(str(error)) from None
        try:
            print(f"  {name} {engine.version()} ...", file=err, flush=True)
            made = getattr(args, "made", None)
            if made is not None:
                made[name] = engine  # the caller reads what the engine counted (verify --spark-sql)
            runs[name] = run_engine(
                engine,
                seed=args.seed,
                cases=_cases_of(args, name),
                budget=args.budget,
                known=known,
                shrink_budget=args.shrink_budget,
                max_rows=getattr(args, "max_rows", None),
            )
        finally:
            engine.close()
    return runs


def _run_spark(args: argparse.Namespace, names: Sequence[str], known: Sequence[Any]) -> dict[str, Any]:
    from ..engines.adapters import SPARK_ENGINES
    from ..engines.fanout import run_on_spark
    from ..spark.session import local_session, session_for

    spark = session_for(args.master, "swagkit-engines") if args.master else local_session("swagkit-engines")
    fanned = [n for n in names if n not in SPARK_ENGINES]
    return run_on_spark(
        spark,
        fanned,
        seed=args.seed,
        cases={name: _cases_of(args, name) or DEFAULT_SPARK_CASES for name in fanned},
        budget=args.budget,
        shrink_budget=args.shrink_budget,
        known=known,
    )


def _accept(path: str, known: Sequence[Any], runs: dict[str, Any]) -> None:
    from ..engines.known import KnownFinding, write_known

    entries = list(known)
    for run in runs.values():
        for finding in run.findings.values():
            if finding.known is None:
                origin = f"found by swagkit engines, seed {finding.seed}, case {finding.index}"
                note = f"{finding.failed.detail[:160]} ({origin})"
                engine, aggregate, frame_kind, klass = finding.signature
                entries.append(KnownFinding(engine, aggregate, frame_kind, klass, note=note))
    write_known(path, entries)


def engines_stage(seed: int, out: TextIO, err: TextIO) -> int:
    """``swagkit verify``'s closing stage: a short run of every installed engine (:data:`STAGE_CASES` cases each,
    the bundled known findings accepted, repros under ``swagkit-engines/``)."""
    args = argparse.Namespace(
        engine=None,
        budget=DEFAULT_BUDGET,
        cases=STAGE_CASES,
        seed=seed,
        out="swagkit-engines",
        known=None,
        accept=None,
        shrink_budget=5.0,
        spark=False,
        master=None,
    )
    return engines_command(args, out, err)


def _report(args: argparse.Namespace, runs: dict[str, Any], known: Sequence[Any], out: TextIO, seconds: float) -> int:
    from ..engines.matrix import Matrix
    from ..engines.repro import write_repro

    directory = Path(args.out)
    rows = [["engine", "version", "cases", "cases/s", "answers", "wrong", "refused", "skipped", "findings", "new"]]
    matrix = Matrix()
    new_total = 0
    listed: list[tuple[Any, Path]] = []
    for name, run in runs.items():
        matrix.merge(run.matrix)
        totals = run.matrix.totals(name)
        new = run.new_findings
        new_total += len(new)
        counts = [run.cases, f"{run.cases_per_second:.0f}", totals.answers, totals.wrong_total, totals.refused]
        rows.append([name, run.version, *map(str, counts), str(totals.skipped), str(len(run.findings)), str(len(new))])
        adapter = _make(args, name) if run.findings else None
        for finding in run.findings.values():
            assert adapter is not None
            headline = _headline(finding)
            path = write_repro(directory / finding.name, adapter, finding.case, headline)
            listed.append((finding, path))
    print("\n".join(table(rows, right=set(range(2, 10)))), file=out)
    for finding, path in listed:
        if finding.known:
            continue  # counted in the table and listed in findings.md
        print(f"\nNEW: {_headline(finding)}"[: WIDTH * 2], file=out)
        print(f"  {finding.failed.detail}"[: WIDTH * 2], file=out)
        size = f"{len(finding.case.table.rows)} rows, {len(finding.case.queries)} query"
        origin = f"shrunk from {finding.original_rows} rows, {finding.original_queries} queries"
        print(f"  repro: python {path} ({size}; {origin} in {finding.shrink_seconds:.1f} s)", file=out)
    known_count = sum(1 for finding, _ in listed if finding.known)
    if known_count:
        source = args.known or "swagkit's known findings for the engine versions it is tested with"
        print(f"\n{known_count} known finding(s) ({source}): listed in {directory / 'findings.md'}", file=out)
    if args.accept:
        _accept(args.accept, known, runs)
        print(f"accepted: {args.accept} now lists every finding of this run as known", file=out)
    written = matrix.write(directory, preamble=_preamble(runs, args))
    (directory / "findings.md").write_text(_findings_markdown(listed, runs, args), encoding="utf-8")
    (directory / "findings.json").write_text(json.dumps(_findings_json(runs), indent=1) + "\n", encoding="utf-8")
    print(f"\nmatrix: {written[0]}; {new_total} new finding(s), {seconds:.0f} s", file=out)
    return 1 if new_total else 0


def _make(args: argparse.Namespace, name: str) -> Any:
    """Engine ``name``'s adapter, made with the options ``args.engine_options`` gives it (``swagkit verify
    --spark-sql``: the session, the segment tree's block size and fanout)."""
    from ..engines.adapters import make_engine

    return make_engine(name, **getattr(args, "engine_options", {}).get(name, {}))


def _findings_markdown(listed: Sequence[tuple[Any, Path]], runs: dict[str, Any], args: argparse.Namespace) -> str:
    """Every finding: its headline, whether it is known, how often its signature came up, the shrunk case in the
    engine's own spelling and the repro's directory (relative to the output directory)."""

    lines = ["# Engine findings", "", _preamble(runs, args), ""]
    lines += [f"{len(listed)} distinct findings (engine, aggregate, frame kind, class); each directory named below "]
    lines += ["holds a standalone `repro.py` that exits 1 while the engine disagrees.", ""]
    adapters: dict[str, Any] = {}
    for finding, path in listed:
        engine = adapters.setdefault(finding.engine, _make(args, finding.engine))
        status = "new"
        if finding.known:
            why = "; ".join(x for x in (finding.known.note, finding.known.link) if x)
            status = f"known ({why})" if why else "known"
        count = runs[finding.engine].occurrences[finding.signature]
        lines += [f"## {_headline(finding)}", ""]
        lines += [f"{status}; {count} wrong queries of this signature; repro: `{path.parent.name}/`", ""]
        lines += [f"> {finding.failed.detail}", "", "```", engine.render(finding.case.table, finding.case.queries)]
        lines += ["```", ""]
    for engine in adapters.values():
        engine.close()
    return "\n".join(lines)


def _headline(finding: Any) -> str:
    engine, aggregate, frame_kind, klass = finding.signature
    return f"{engine} {finding.version}: {aggregate} over a {frame_kind} frame -- {klass}"


def _preamble(runs: dict[str, Any], args: argparse.Namespace) -> str:
    versions = ", ".join(f"{name} {run.version}" for name, run in runs.items())
    return f"Written by `swagkit engines` (seed {args.seed}): {versions}."


def _findings_json(runs: dict[str, Any]) -> list[dict[str, Any]]:
    from ..engines.model import case_to_json

    return [
        {
            "signature": list(f.signature),
            "version": f.version,
            "known": f.known is not None,
            "occurrences": run.occurrences[f.signature],
            "detail": f.failed.detail,
            "seed": f.seed,
            "index": f.index,
            "case": json.loads(case_to_json(f.case)),
        }
        for run in runs.values()
        for f in run.findings.values()
    ]
