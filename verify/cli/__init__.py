"""The ``swagkit`` command, one module per subcommand.

============================  =====================================================================================
``swagkit verify``            :mod:`.main_job` -- the registered algorithms × monoids × implementations, the laws,
                              CrossHair and Spark stages
``swagkit verify --impl/-e``  :mod:`.own` -- a user's own aggregator (``--impl MODULE:FACTORY``, ``--exec CMD``)
``swagkit replay``            :mod:`.replay_cmd` -- a replay file run again
``swagkit list``              :mod:`.listing` -- algorithms, monoids, implementations
``swagkit explain``           :mod:`swagkit.verify.explain`
``swagkit corpus``            :mod:`swagkit.verify.corpus`
``swagkit bench``             :mod:`swagkit.verify.bench`
``swagkit engines``           :mod:`.engines_cmd` -- SQL and dataframe window engines against the exact oracle
============================  =====================================================================================

Exit status: 0 everything passed, 1 a failure, 2 a usage error (one line saying what to change), 3 the
selection runs nothing, 4 the Spark job could not run, 130 interrupted. A mistake on the user's side -- a bad
flag value, a module that cannot be imported, a factory that raises -- is one line and status 2, never a
traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ..options import UsageError
from .common import shadowing_warning, version
from .main_job import DEFAULT_EXAMPLES, DEFAULT_STEPS, add_verify_arguments, verify
from .replay_cmd import add_replay_arguments, replay_command

__all__ = ["main", "build_parser", "DEFAULT_EXAMPLES", "DEFAULT_STEPS"]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``swagkit`` (exposed for documentation and tests)."""
    parser = argparse.ArgumentParser(
        prog="swagkit",
        description="Verification suite for sliding-window aggregation (SWAG) algorithms.",
    )
    parser.add_argument("--version", action="version", version=f"swagkit {version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    add_verify_arguments(
        sub.add_parser(
            "verify",
            help="check monoid laws and run stateful verification of algorithms, or of your own aggregator",
            description="Check the library's monoid laws, then run the Hypothesis state machine (model, "
            "invariants, ⊗ budgets, space) for every algorithm × monoid × implementation; or verify your own "
            "aggregator (--impl MODULE:FACTORY, --exec CMD).",
        )
    )
    add_replay_arguments(
        sub.add_parser(
            "replay",
            help="re-run a replay file (a shrunk failing trace) against an implementation",
            description="Re-run a replay file written by a failing `swagkit verify` exactly, step by step, against "
            "the implementation named on this command line (--impl/--exec; a registered algorithm runs as the "
            "file names it): exit 1 while it still fails, 0 when it passes. Nothing a file names is imported.",
        )
    )
    from .. import explain

    explain.add_arguments(
        sub.add_parser(
            "explain",
            help="print the reference's state after every operation, in the papers' notation",
            description="Run operations on an algorithm's reference implementation and draw its state after each "
            "(sublists and pointers, partial aggregates like cd..g, trees, ranges); --svg writes the same pictures.",
        )
    )
    lst = sub.add_parser("list", help="list algorithms, monoids and implementations")
    lst.add_argument("--markdown", action="store_true", help="print the guarantee table of docs/algorithms.md")
    from .engines_cmd import add_engines_arguments

    add_engines_arguments(
        sub.add_parser(
            "engines",
            help="check SQL window frames and dataframe rolling windows of installed engines against exact answers",
            description="Generate window cases (ROWS/RANGE/GROUPS frames, ties, NULLs, mixed magnitudes), run them "
            "on SQLite, DuckDB, DataFusion, Polars, pandas, Spark SQL and swagkit itself, judge every answer "
            "exactly, and write each finding as a shrunk standalone repro and the conformance matrix.",
        )
    )
    from ..corpus import add_subparser as add_corpus_subparser  # swagkit corpus export|run (verify/corpus/)

    add_corpus_subparser(sub)
    from ..bench import add_subparser as add_bench_subparser  # swagkit bench (verify/bench/)

    add_bench_subparser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``swagkit`` console script; returns the exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version or a usage error; keep main() callable in-process
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    warning = shadowing_warning()
    if warning:
        print(warning, file=sys.stderr)
    try:
        return _dispatch(parser, args)
    except UsageError as exc:  # a value the user gave: one line
        print(f"swagkit {args.command or ''}: {exc}".replace("  ", " "), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (swagkit list | head): nothing more to say
        sys.stderr.close()
        return 0


def _dispatch(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    if args.command == "bench":
        from ..bench import run as bench_run

        return bench_run(args, sys.stdout, sys.stderr)
    if args.command == "verify":
        return verify(args, sys.stdout, sys.stderr)
    if args.command == "list":
        from .listing import list_command

        return list_command(args, sys.stdout)
    if args.command == "engines":
        from .engines_cmd import engines_command

        return engines_command(args, sys.stdout, sys.stderr)
    if args.command == "replay":
        return replay_command(args, sys.stdout, sys.stderr)
    if args.command == "corpus":
        return int(args.corpus_command(args, sys.stdout, sys.stderr))
    if args.command == "explain":
        from .. import explain

        return explain.run(args, sys.stdout, sys.stderr)
    parser.print_help(sys.stderr)
    return 2
