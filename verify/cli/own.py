"""``swagkit verify --impl MODULE:FACTORY`` / ``--exec CMD``: a user's own aggregator, every monoid's verdict, each
finding with its trace, failure, rule family and replay file (:mod:`swagkit.verify.impl`)."""

from __future__ import annotations

import argparse
import shlex
from typing import Any, TextIO

from swagkit.spec.budgets import BUDGETS
from swagkit.spec.checkers import CHECKERS

from ..impl import probe, run_all
from ..options import (
    DEFAULT_MONOIDS,
    KIND_NAMES,
    TIMES,
    Detected,
    Options,
    UsageError,
    conformance_choices,
    detect,
    resolve_monoid,
)
from ..options import load as load_object
from ..process import ProcessFailure, process_factory
from ..runner import Outcome
from .common import WIDTH, print_findings

__all__ = ["add_own_arguments", "own_command", "options_of", "DEFAULT_OWN_BUDGET"]

#: seconds a run of ``--impl``/``--exec`` spends searching by default, shared by its monoids (``--budget``)
DEFAULT_OWN_BUDGET = 30.0


def add_own_arguments(v: argparse.ArgumentParser) -> None:
    """The ``--impl``/``--exec`` options of ``swagkit verify``."""
    g = v.add_argument_group("your own aggregator (instead of the registered algorithms)")
    who = g.add_mutually_exclusive_group()
    who.add_argument("--impl", metavar="MODULE:FACTORY", help="verify FACTORY(monoid), importable from . or PYTHONPATH")
    who.add_argument("--exec", dest="exec_cmd", metavar="CMD", help="verify a program speaking docs/protocol.md")
    g.add_argument("--kind", default="fifo", choices=sorted(KIND_NAMES), help="its ADT kind (default fifo)")
    g.add_argument("--times", default="int", choices=sorted(TIMES), help="ooo timestamps (default int)")
    g.add_argument("--tolerance", type=float, metavar="X", help="relative/absolute tolerance of answers (finite, ≥ 0)")
    g.add_argument("--checker", metavar="ALGO", help="run ALGO's paper invariants on the object's snapshot()")
    g.add_argument("--combine-budget", metavar="ALGO", help="check ALGO's ⊗ bounds through the object's combine_count")
    g.add_argument("--values", metavar="MODULE:STRATEGY", help="input strategy of a MODULE:OBJ monoid")
    g.add_argument("--replay-dir", default=".swagkit/replays", metavar="DIR", help="where failures are written")
    g.add_argument(
        "--no-misuse",
        action="store_true",
        help="skip the misuse rules (evict on an empty window, dead handles must raise swagkit's errors)",
    )
    g.add_argument("--no-faults", action="store_true", help="skip the rules where a ⊗ call raises once")
    g.add_argument(
        "--empty-error",
        metavar="MODULE:EXC",
        help="your own exception for an empty window: taken as swagkit's EmptyWindowError",
    )
    g.add_argument(
        "--contract",
        metavar="SPEC",
        help="what a fifo window promises, comma-separated: capacity=W (an insert into a full window evicts the "
        "oldest), static (no evicts), no-evict-before-full (evicts only drain a full window), no-empty-ops (never "
        "empty once filled, never queried empty), ranges=R1/R2/... (query_range/query_all ranges)",
    )
    g.add_argument(
        "--timeout",
        type=float,
        default=10.0,
        metavar="S",
        help="seconds one operation may take before it is a hang (default 10; a Python class's call is "
        "interrupted, an --exec program killed)",
    )


def options_of(args: argparse.Namespace, examples: int, steps: int, *, faults: bool | None = None) -> Options:
    """The run's :class:`~swagkit.verify.options.Options` from the command line (:class:`UsageError` for a bad
    value); ``faults`` overrides ``--no-faults``. The search spends ``--budget`` seconds (default
    :data:`DEFAULT_OWN_BUDGET`) unless only ``--examples`` is given: then it runs exactly that many."""
    budget = args.budget
    if budget is None and args.examples is None:
        budget = DEFAULT_OWN_BUDGET
    return Options.of(
        kind=args.kind,
        times=args.times,
        examples=examples,
        steps=steps,
        seed=args.seed,
        max_window=args.max_window,
        tolerance=args.tolerance,
        checker=args.checker,
        combine_budget=args.combine_budget,
        budget=budget,
        jobs=args.jobs,
        shrink_budget=args.shrink_budget,
        misuse=not args.no_misuse,
        faults=not args.no_faults if faults is None else faults,
        contract=args.contract,
        timeout=args.timeout,
        empty_error=args.empty_error,
        values=args.values,
        replay_dir=args.replay_dir,
    )


def own_command(args: argparse.Namespace, examples: int, steps: int, out: TextIO, err: TextIO) -> int:
    """``swagkit verify --impl/--exec``: every monoid's PASS/FAIL, what was detected and each finding."""
    # a program computes ⊗ itself: a fault cannot be injected into it, so its runs have no fault rules
    options = options_of(args, examples, steps, faults=not args.no_faults and args.exec_cmd is None)
    label = f"--exec {args.exec_cmd}" if args.exec_cmd is not None else f"--impl {args.impl}"
    factory: Any
    try:
        if args.exec_cmd is not None:
            factory = process_factory(args.exec_cmd, args.kind, timeout=options.timeout)
            who = {"exec": args.exec_cmd}
            # a program speaks the protocol's conformance monoids: by default every one its hello lists
            choices = conformance_choices(factory, args.monoid, options.tolerance)
        else:
            factory, who = load_object(args.impl, "--impl"), {"impl": args.impl}
            monoids = list(dict.fromkeys(args.monoid or DEFAULT_MONOIDS))
            choices = [resolve_monoid(m, options.values, options.tolerance) for m in monoids]
        detected = detect(probe(factory, choices[0]), args.kind)
    except ProcessFailure as exc:  # the program died or answered garbage before the first operation
        if isinstance(exc.__cause__, OSError):  # a command that cannot start: the user's command line
            raise UsageError(f"--exec {args.exec_cmd}: {exc.reason}") from None
        print(f"swagkit verify: FAIL: {exc}", file=err)
        return 1
    problem = _usage_problem(args, detected)
    if problem:
        raise UsageError(problem)
    if options.budget is None:
        search = f"{examples} examples × {steps} steps, seed {args.seed}"
    else:
        search = (
            f"--budget {options.budget:g} s (rounds of seeds {args.seed}, {args.seed + 1}, … from {examples} examples "
            f"× {steps} steps, {options.jobs} job(s))"
        )
    print(f"swagkit verify {label} --kind {args.kind}: {len(choices)} monoid(s), {search}", file=out)
    print(_wrapped("operations offered: ", detected.offered), file=out)
    if detected.missing:
        print(_wrapped("not offered (not exercised): ", detected.missing), file=out)
    print(_families(args, options), file=out)

    def show(r: Outcome) -> None:
        counts = f"{r.examples} examples, {r.steps} steps" if r.status == "PASS" else r.headline
        if "rounds" in r.details and r.status == "PASS":
            counts += f", {r.details['rounds']} rounds"
        elif "rounds" in r.details:  # the round that failed, as a command line runs it
            counts = f"[--seed {r.details['seed']} --examples {r.details['examples']}] {counts}"
        line = f"  {r.name:<16} {r.status:<5} {r.seconds:7.2f}s  {counts}"
        print(line if len(line) <= WIDTH else line[: WIDTH - 1] + "…", file=out, flush=True)

    protocol = getattr(factory, "protocol_tail", None)
    restart = factory.restart if args.exec_cmd is not None else None  # a forked worker starts its own program
    results = run_all(factory, choices, options, who, on_result=show, protocol=protocol, after_fork=restart)
    how = f"--exec {shlex.quote(args.exec_cmd)}" if args.exec_cmd else f"--impl {args.impl}"
    if args.empty_error:
        how += f" --empty-error {args.empty_error}"
    for r in results:
        if r.failed:
            print_findings(r, how, out)
    failed = [r for r in results if r.failed]
    if failed:
        families = sorted({f.family for r in failed for f in r.findings})
        print(f"\nFAILED: {len(failed)} of {len(results)} monoid(s) ({', '.join(families)})", file=out)
        return 1
    print(f"\nOK: {len(results)} monoid(s) passed", file=out)
    return 0


def _wrapped(head: str, names: tuple[str, ...]) -> str:
    """``head`` and the names, wrapped to the screen's width."""
    lines, line = [], head
    for i, name in enumerate(names):
        piece = name + (", " if i < len(names) - 1 else "")
        if len(line) + len(piece) > WIDTH and line.strip():
            lines.append(line.rstrip())
            line = "  "
        line += piece
    lines.append(line.rstrip())
    return "\n".join(lines)


def _families(args: argparse.Namespace, options: Options) -> str:
    """Which checks and rule families run, and the flags that change them."""
    checks = ["model"] + [
        f"{what} ({algo})" for what, algo in (("invariants", args.checker), ("budget", args.combine_budget)) if algo
    ]
    misuse = "on (--no-misuse skips)" if options.misuse else "off"
    faults = "on (--no-faults skips)" if options.faults else "off" if args.exec_cmd is None else "n/a (the program's)"
    return (
        f"checks: {', '.join(checks)}; misuse rules {misuse}; ⊗ faults {faults}; "
        f"--timeout {options.timeout:g} s per operation"
    )


def _usage_problem(args: argparse.Namespace, detected: Detected) -> str:
    """Why the options cannot run on the detected object ("": they can)."""
    if detected.lacking:
        return f"the object is not a {args.kind} aggregator: it lacks {', '.join(detected.lacking)}"
    if args.checker and args.checker not in CHECKERS:
        return f"unknown checker {args.checker!r} (known: {', '.join(sorted(CHECKERS))})"
    if args.checker and "snapshot" not in detected.offered:
        return f"--checker {args.checker} reads the object's snapshot(), which it does not offer"
    if args.combine_budget and "combine_count" not in detected.offered:
        return f"--combine-budget {args.combine_budget} meters the object's combine_count, which it does not offer"
    if args.combine_budget and args.kind == "fifo" and args.combine_budget not in BUDGETS:
        return f"unknown ⊗ budget {args.combine_budget!r} (known: {', '.join(sorted(BUDGETS))})"
    return ""
