"""``swagkit replay FILE``: run a replay file again on the implementation the command line names
(:mod:`swagkit.verify.replay`). Exit 0 when it passes, 1 while it still fails, 2 on a usage error or a malformed
file (one line)."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from .. import replay
from ..guard import Deadline, Guarded
from ..options import Options, UserFacts, load, resolve_monoid
from ..process import ProcessFailure, process_factory
from ..replayfile import KIND_OF_FILE, ReplayFileError, read

__all__ = ["add_replay_arguments", "replay_command"]


def add_replay_arguments(rep: argparse.ArgumentParser) -> None:
    rep.add_argument("file", metavar="FILE", help="the .jsonl replay file")
    who = rep.add_mutually_exclusive_group()
    who.add_argument("--impl", metavar="MODULE:FACTORY", help="the Python factory to run it against")
    who.add_argument("--exec", dest="exec_cmd", metavar="CMD", help="the protocol program to run it against")
    rep.add_argument("--monoid", metavar="MODULE:OBJ", help="the file's own monoid (a file never names code to run)")
    rep.add_argument("--empty-error", metavar="MODULE:EXC", help="your own empty-window exception (as in the run)")
    rep.add_argument("--timeout", type=float, default=10.0, metavar="S", help="seconds one operation may take")


def replay_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``swagkit replay FILE``: 0 when the trace passes, 1 while it still fails, 2 on a usage error."""
    try:
        file = read(args.file)
    except OSError as exc:
        print(f"swagkit replay: cannot read {args.file}: {exc.strerror or exc}", file=err)
        return 2
    except ReplayFileError as exc:
        print(f"swagkit replay: {exc}", file=err)
        return 2
    header = file.header
    named = header.get("empty_error")
    if named and not args.empty_error and (args.impl or args.exec_cmd):
        print(f"swagkit replay: the run took --empty-error {named}: pass it again", file=err)
        return 2
    options = Options.of(kind=_kind(header), timeout=args.timeout, empty_error=args.empty_error)
    target = None
    if args.impl is not None or args.exec_cmd is not None:
        deadline = Deadline(options.timeout)

        def guard(obj: Any) -> Guarded:
            return Guarded(obj, empty_error=options.empty_error, deadline=deadline)

        factory: Any
        if args.impl is not None:
            factory = load(args.impl, "--impl")
        else:
            try:
                factory = process_factory(args.exec_cmd, _kind(header), timeout=options.timeout)
            except ProcessFailure as exc:
                print(f"swagkit replay: --exec {args.exec_cmd}: {exc.reason}", file=err)
                return 2
        tolerance = header.get("tolerance") if isinstance(header.get("tolerance"), (int, float)) else None
        monoid = resolve_monoid(args.monoid, tolerance=tolerance).factory if args.monoid else None
        # the facts the run had: the checker and ⊗ budget it named (none: the model's checks alone), so that the
        # replay judges each step as the run did and fails where it failed
        checker, budget = header.get("checker"), header.get("budget")
        facts = UserFacts(
            str(header.get("impl") or header.get("exec")),
            checker if isinstance(checker, str) else None,
            budget if isinstance(budget, str) else None,
        )
        target = replay.Target(factory, facts=facts, guard=guard, monoid=monoid)
    elif args.monoid:
        print("swagkit replay: --monoid goes with --impl or --exec", file=err)
        return 2
    try:
        return replay.run(args.file, target, out=out)
    except (replay.ReplayUsageError, ReplayFileError) as exc:
        print(f"swagkit replay: {exc}", file=err)
        return 2


def _kind(header: dict[str, Any]) -> str:
    """The ``--kind`` of a file (its protocol kind: ``fifo``, ``handles``, ``ooo``)."""
    kind = str(header.get("kind", "fifo"))
    return kind if kind in KIND_OF_FILE else "fifo"
