"""``swagkit bench [--quick] [--only EXPERIMENT] [--out DIR] | --readme [RESULTS]``: run the experiments.

Writes ``DIR/<experiment>.csv`` (columns :data:`~.report.COLUMNS`), ``DIR/<figure>.png`` when matplotlib is
installed, ``DIR/report.md`` (claims, ratio tables, figures) and ``DIR/summary.json`` (what ``--readme``
renders into docs/performance.md's block: :mod:`.readme`); progress goes to stderr, the ratio tables and
claims to stdout. Exit status 0 after a run (a missed paper claim is a finding of the report, not an error), 2 on
a usage error such as an unknown experiment.
"""

from __future__ import annotations

import argparse
import datetime
import importlib
import json
import os
import platform
import time
from collections.abc import Sequence
from types import ModuleType
from typing import Any, TextIO

from . import figures, readme
from .report import Outcome, merge_reports, merge_summaries, write_csv, write_markdown, write_summary
from .timing import Progress

__all__ = ["EXPERIMENTS", "DEFAULT_OUT", "add_subparser", "run", "run_experiments"]

#: experiment id -> module of this package (in the order they run)
EXPERIMENTS: dict[str, str] = {
    "000": "exp000",
    "003": "exp003",
    "001": "exp001",
    "002": "exp002",
    "004": "exp004",
    "peers": "peers",
    "throughput": "throughput",
    "engines": "engine_peers",
}
DEFAULT_OUT = "bench-results"
PRESETS = ("FULL", "QUICK", "TINY")


def add_subparser(sub: Any) -> None:
    """Register ``swagkit bench`` on the ``swagkit`` subparsers (``sub``: argparse's subparsers action)."""
    b = sub.add_parser(
        "bench",
        help="reproduce the papers' experiments: CSV, PNG figures and a Markdown report",
        description="Run the papers' experiments on this machine (contenders alternated, medians of paired "
        "ratios, ⊗ counts beside every timing) and write CSV, PNG figures (with matplotlib) and report.md.",
    )
    b.add_argument("--quick", action="store_true", help="smaller grids and fewer rounds (a few minutes)")
    b.add_argument(
        "--only",
        action="extend",
        nargs="+",
        metavar="EXPERIMENT",
        help=f"experiments to run (default: all of {', '.join(EXPERIMENTS)})",
    )
    b.add_argument("--out", default=DEFAULT_OUT, metavar="DIR", help=f"output directory (default {DEFAULT_OUT}/)")
    b.add_argument(
        "--merge",
        action="store_true",
        help="replace only the experiments run (--only) in DIR's existing report.md and summary.json; the header "
        "keeps the earlier run's lines and adds this run's",
    )
    b.add_argument(
        "--readme",
        nargs="?",
        const=readme.RESULTS,
        metavar="RESULTS",
        help=f"run nothing: rewrite the results block of {readme.PAGE} from a run's directory (default "
        f"{readme.RESULTS}); run it in the repository's root",
    )


def experiment(experiment_id: str) -> ModuleType:
    return importlib.import_module(f"{__package__}.{EXPERIMENTS[experiment_id]}")


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``swagkit bench``'s body."""
    if args.readme:
        return write_readme(args.readme, readme.PAGE, out, err)
    only = list(dict.fromkeys(args.only or EXPERIMENTS))
    unknown = [e for e in only if e not in EXPERIMENTS]
    if unknown:
        print(f"swagkit bench: unknown experiment {', '.join(unknown)} (known: {', '.join(EXPERIMENTS)})", file=err)
        return 2
    if args.merge and not os.path.isfile(os.path.join(args.out, "summary.json")):
        print(f"swagkit bench --merge: {args.out} has no summary.json to merge into (run without --merge)", file=err)
        return 2
    return run_experiments(only, args.out, "QUICK" if args.quick else "FULL", out, err, merge=args.merge)


def write_readme(results: str, path: str, out: TextIO, err: TextIO) -> int:
    """``--readme``: the performance page's block between the bench markers from ``results/summary.json``."""
    try:
        changed = readme.update_page(path, results)
    except (OSError, ValueError) as e:
        print(f"swagkit bench --readme: {e}", file=err)
        return 2
    print(f"{path}: performance block {'rewritten' if changed else 'unchanged'} from {results}/summary.json", file=out)
    return 0


def run_experiments(
    ids: Sequence[str], directory: str, preset: str, out: TextIO, err: TextIO, *, merge: bool = False
) -> int:
    """Run ``ids`` with the size preset ``preset`` (FULL, QUICK or TINY) and write everything to ``directory``
    (``merge``: into the run already there, :func:`.report.merge_reports`)."""
    import swagkit.optimized as opt

    os.makedirs(directory, exist_ok=True)
    progress = Progress(err)
    outcomes: list[Outcome] = []
    for eid in ids:
        mod = experiment(eid)
        started = time.perf_counter()
        outcome: Outcome = mod.run(getattr(mod, preset), progress)
        outcome.seconds = time.perf_counter() - started
        write_csv(outcome, os.path.join(directory, f"{eid}.csv"))
        outcomes.append(outcome)
        progress.done(f"{eid}: {outcome.title}: {outcome.seconds:.1f} s, {len(outcome.rows)} rows")
    drawn = figures.draw([f for o in outcomes for f in o.figures], directory)
    n_figures = sum(len(o.figures) for o in outcomes)
    note = (
        f"figures: {len(drawn)} PNG"
        if drawn or not n_figures
        else f"figures skipped: matplotlib is not installed ({n_figures} not drawn; pip install swagkit[bench])"
    )
    header = [
        f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC, {platform.machine()}, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}",
        f"mode: {preset.lower()}; swagkit.optimized compiled: {opt.COMPILED}",
        f"experiments: {', '.join(ids)}; total {progress.elapsed():.0f} s",
    ]
    if not opt.COMPILED:
        header.append("warning: the pure-Python fallback ran: the ⊗ counts hold, the timings do not")
    report_path, summary_path = os.path.join(directory, "report.md"), os.path.join(directory, "summary.json")
    if merge:
        with open(summary_path, encoding="utf-8") as f:
            old = json.load(f)
        with open(report_path, encoding="utf-8") as f:
            old_report = f.read()
        header = [*old["header"], f"re-run {header[0]}, mode {preset.lower()}: {header[2]}"]
        with open(report_path, "w", encoding="utf-8") as f:
            f.write(merge_reports(old_report, outcomes, header, note, set(drawn)))
        with open(summary_path, "w", encoding="utf-8") as f:
            json.dump(merge_summaries(old, outcomes, header), f, ensure_ascii=False, indent=1, sort_keys=True)
            f.write("\n")
    else:
        with open(report_path, "w", encoding="utf-8") as f:
            write_markdown(outcomes, f, header, note, set(drawn))
        write_summary(outcomes, summary_path, header)
    for o in outcomes:
        print(f"== {o.experiment}: {o.title}", file=out)
        for c in o.checks:
            print(f"   {'' if c.ok is None else 'OK     ' if c.ok else 'MISSED '}{c.claim}: {c.measured}", file=out)
        for r in o.ratios:
            print(f"   {r.what}: {r.contender} / {r.baseline} = {r.ratio:.2f}", file=out)
    print(f"{note}; report: {os.path.join(directory, 'report.md')} ({progress.elapsed():.0f} s)", file=out)
    return 0
