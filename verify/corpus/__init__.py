"""The conformance corpus: deterministic edge-case traces with their expected answers, as plain files.

``swagkit corpus export DIR`` writes one replay file (:mod:`swagkit.verify.replay`) per case, kind and
conformance monoid (:data:`swagkit.verify.process.CONFORMANCE`) as ``DIR/<kind>/<monoid>/<case>.jsonl``, and
``DIR/index.json`` listing them. Every file is a session of the line protocol (docs/protocol.md): a ``hello``
header naming the case and the set of ``ops`` it uses, ``new`` instance 1, then the operations with the
model's answers (``"expect"``) and refusals (``"error"``). A Java or Rust CI feeds each file to its driver
(``CMD < file``) and compares the replies with the expectations, without Python -- the way sqllogictest files
are used; a consumer skips a file whose ``ops`` it does not offer.

The answers come from the executable models (:mod:`swagkit.spec.adt`, :mod:`swagkit.spec.nonfifo`,
:mod:`swagkit.spec.ooo`): each case runs through its kind's debug wrapper (over a reference implementation that
offers every operation of the case), whose trace keeps the model's answer of every step
(:mod:`swagkit.verify.trace`). The cases aim at the shapes where SWAGs
break (000 §4-5 DABA/DABA Lite flips and shifts at the sublist boundaries; 002 §2.2 removal by handle; 003 §3-5
FiBA's bulk evict along the boundary path, bulk inserts whose keys sit in internal nodes or repeat inside one
bulk, trees several levels deep; the notes' errata): empty windows, single elements, fill-and-drain, see-saws
around the sizes where the sublists flip, static windows, long runs, bulk calls, range queries. Inputs are
deterministic (a multiplicative hash of the position, no random generator), so an export is the same bytes on
every run and every Python version. ``sum_f64`` inputs are multiples of 1/8, whose sums are exact in any
association, except in the ``extremes`` case.

``swagkit corpus run DIR --exec CMD | --impl MODULE:FACTORY`` replays every file through
:func:`swagkit.verify.replay.run` (the kind's checked wrapper, the model and the file's answers), skipping files
whose ops the implementation does not offer (``hello``'s capabilities, :func:`swagkit.verify.options.detect`).

The package: :mod:`.cases` (the inputs and the case builders), :mod:`.run` (``corpus run``), and here the
export (:class:`Trace`, :func:`traces`, :func:`export`) and the ``swagkit corpus`` subcommands.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from .. import replayfile
from ..kinds import kind as kind_named
from ..kinds.base import NoFacts
from ..process import CONFORMANCE
from ..replay import Target, run_steps
from ..runner import Outcome
from ..trace import Step
from .cases import CASES, Case, _Trace
from .run import INDEX, corpus_files, run_files

__all__ = [
    "VERSION",
    "INDEX",
    "KINDS",
    "CASES",
    "Case",
    "Trace",
    "Outcome",
    "traces",
    "export",
    "corpus_files",
    "run_files",
    "add_subparser",
]

#: the corpus format (the header's ``swagkit_corpus``); the files are replay files of :data:`replay.VERSION`
VERSION = 1
#: the kinds a corpus covers (``handles``: FIFO plus removal by handle, 002 §2.2; Python ``--impl`` only)
KINDS = ("fifo", "handles", "ooo")

#: the reference implementation each corpus kind's answers are recorded on (it offers every operation the kind's
#: cases make; the debug wrapper checks each answer against the model and the trace keeps the model's)
_RECORDED_ON = {"fifo": "FlatFIT", "handles": "ReactiveAggregator", "ooo": "FiBA"}


@dataclass(frozen=True)
class Trace:
    """One exported file: where it goes (``path`` under the corpus directory), its header and lines."""

    path: str
    kind: str
    monoid: str
    case: Case
    lines: list[dict[str, Any]]

    @property
    def ops(self) -> list[str]:
        return sorted({str(line["op"]) for line in self.lines})

    def text(self) -> str:
        header = {
            "op": "hello",
            "swagkit_replay": replayfile.VERSION,
            "swagkit_corpus": VERSION,
            "kind": self.kind,
            "monoid": self.monoid,
            "case": self.case.name,
            "covers": self.case.covers,
            "ops": self.ops,
            "operations": len(self.lines),
        }
        protocol_kind = "ooo" if self.kind == "ooo" else "fifo"
        new = {"op": "new", "id": replayfile.REPLAY_ID, "kind": protocol_kind, "monoid": self.monoid}
        body = [header, new] + [{"op": ln["op"], "id": replayfile.REPLAY_ID, **_rest(ln)} for ln in self.lines]
        return "".join(json.dumps(row, separators=(",", ":")) + "\n" for row in body)


def _rest(line: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in line.items() if k != "op"}


def traces(kinds: Sequence[str] | None = None, monoids: Sequence[str] | None = None) -> list[Trace]:
    """The corpus's traces (every kind and conformance monoid unless restricted), with the model's answers."""
    kinds = list(kinds or KINDS)
    monoids = list(monoids or CONFORMANCE)
    for k in kinds:
        if k not in KINDS:
            raise ValueError(f"unknown kind {k!r} (the corpus has {', '.join(KINDS)})")
    for m in monoids:
        if m not in CONFORMANCE:
            raise ValueError(f"{m!r} is not a conformance monoid ({', '.join(CONFORMANCE)})")
    out = []
    for case in CASES:
        if case.kind not in kinds:
            continue
        for m in monoids:
            t = _Trace(m)
            case.build(t)
            lines = _recorded(case.kind, m, t.calls)
            out.append(Trace(f"{case.kind}/{m}/{case.name}.jsonl", case.kind, m, case, lines))
    return out


def _recorded(kind_name: str, monoid: str, calls: Sequence[tuple[str, tuple[Any, ...]]]) -> list[dict[str, Any]]:
    """The lines of a case's calls with the model's answers: the calls run in the kind's debug wrapper."""
    import swagkit.reference as reference

    kind = kind_named(replayfile.KIND_OF_FILE[kind_name])
    target = Target(getattr(reference, _RECORDED_ON[kind_name]), facts=NoFacts())  # the model's answers only
    trace, failure = run_steps(target, kind, CONFORMANCE[monoid].monoid(), [Step(n, a) for n, a in calls])
    if failure is not None:  # a case the reference cannot pass is a bug of the corpus (or of the reference)
        raise AssertionError(f"corpus case over {monoid}: step #{failure[0]}: {failure[1]}")
    lines, _ = replayfile.step_lines(kind.name, monoid, trace.steps)
    return [{k: v for k, v in ln.items() if k != "id"} for ln in lines]


def export(directory: str, kinds: Sequence[str] | None = None, monoids: Sequence[str] | None = None) -> dict[str, Any]:
    """Write the corpus under ``directory`` (created; files of the same names are replaced) and its index;
    the index (also written as ``directory/index.json``)."""
    files = []
    for tr in traces(kinds, monoids):
        text = tr.text()
        path = os.path.join(directory, *tr.path.split("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        files.append(
            {
                "path": tr.path,
                "kind": tr.kind,
                "monoid": tr.monoid,
                "case": tr.case.name,
                "covers": tr.case.covers,
                "ops": tr.ops,
                "operations": len(tr.lines),
                "bytes": len(text.encode()),
            }
        )
    index = {
        "swagkit_corpus": VERSION,
        "protocol": "docs/protocol.md (each file: hello, new id 1, operations with expect/error)",
        "files": files,
    }
    with open(os.path.join(directory, INDEX), "w", encoding="utf-8", newline="\n") as f:
        f.write(json.dumps(index, indent=1, ensure_ascii=False) + "\n")
    return index


# ------------------------------------------------------------------------------------------------------- CLI


def export_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``swagkit corpus export DIR``: write the corpus and print what was written."""
    start = time.perf_counter()
    try:
        index = export(args.dir, args.kind, args.monoid)
    except (OSError, ValueError) as exc:
        print(f"swagkit corpus export: {exc}", file=err)
        return 2
    files = index["files"]
    print(
        f"swagkit corpus export: {len(files)} files, {sum(f['operations'] for f in files):,} operations, "
        f"{sum(f['bytes'] for f in files):,} bytes in {args.dir} ({INDEX}) in {time.perf_counter() - start:.1f}s",
        file=out,
    )
    return 0


def run_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``swagkit corpus run DIR``: PASS/FAIL/SKIP per file and a summary; 1 on any failure, 3 when nothing ran."""
    start = time.perf_counter()

    def show(o: Outcome) -> None:
        detail = o.findings[0].failure if o.findings else o.note
        first = detail.splitlines()[0] if detail and o.status != "PASS" else f"{o.steps} operations"
        print(f"{o.status:<4} {o.name}: {first}", file=out, flush=True)
        if o.status == "FAIL" and "\n" in detail:
            print("\n".join("     " + ln for ln in detail.splitlines()[1:]), file=out)

    try:
        outcomes = run_files(
            args.dir,
            impl=args.impl,
            exec_cmd=args.exec_cmd,
            kinds=args.kind,
            monoids=args.monoid,
            timeout=args.timeout,
            on_outcome=show,
        )
    except (OSError, ValueError, KeyError) as exc:
        print(f"swagkit corpus run: {exc}", file=err)
        return 2
    except AssertionError as exc:  # the program did not start (a usage error) or did not greet (a FAIL)
        print(f"swagkit corpus run: FAIL: {exc}", file=err)
        return 2 if isinstance(exc.__cause__, OSError) else 1
    counts = {s: sum(1 for o in outcomes if o.status == s) for s in ("PASS", "FAIL", "SKIP")}
    verdict = "FAILED" if counts["FAIL"] else "OK" if counts["PASS"] else "NOTHING RAN"
    print(
        f"\n{verdict}: {counts['PASS']} passed, {counts['FAIL']} failed, {counts['SKIP']} skipped of "
        f"{len(outcomes)} corpus files ({sum(o.steps for o in outcomes if o.status != 'SKIP'):,} operations "
        f"in the files run) in {time.perf_counter() - start:.1f}s",
        file=out,
    )
    return 1 if counts["FAIL"] else 0 if counts["PASS"] else 3


def add_subparser(sub: Any) -> None:
    """``swagkit corpus export|run`` on the ``swagkit`` parser's subcommands (``args.corpus_command`` runs it)."""
    corpus = sub.add_parser(
        "corpus",
        help="export the conformance corpus as plain files, or run it",
        description="The conformance corpus: edge-case traces with expected answers, one protocol session per file "
        "(docs/protocol.md, 'Conformance corpus'), runnable without Python as `CMD < file`.",
    )
    actions = corpus.add_subparsers(dest="corpus_action", metavar="ACTION", required=True)
    exp = actions.add_parser("export", help="write DIR/<kind>/<monoid>/<case>.jsonl and DIR/index.json")
    run_p = actions.add_parser("run", help="replay every corpus file on an implementation: PASS/FAIL per file")
    for p in (exp, run_p):
        p.add_argument("dir", metavar="DIR", help="the corpus directory")
        p.add_argument("--kind", action="extend", nargs="+", choices=KINDS, help="kinds (default: all)")
        p.add_argument("--monoid", action="extend", nargs="+", choices=list(CONFORMANCE), help="default: all")
    who = run_p.add_mutually_exclusive_group(required=True)
    who.add_argument("--impl", metavar="MODULE:FACTORY", help="a Python factory (importable from . or PYTHONPATH)")
    who.add_argument("--exec", dest="exec_cmd", metavar="CMD", help="a program speaking docs/protocol.md")
    run_p.add_argument("--timeout", type=float, default=10.0, metavar="S", help="--exec: seconds per reply")
    exp.set_defaults(corpus_command=export_command)
    run_p.set_defaults(corpus_command=run_command)
