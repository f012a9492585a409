"""``swagkit explain``: run operations on the reference and print its state after each, in the papers' notation.

``swagkit explain --algorithm ID --monoid ID "insert a; insert b; evict; query"`` (or ``--replay FILE``, the
operations of a replay file written by :mod:`swagkit.verify.replay`) builds the reference implementation of the
algorithm, applies the operations one by one and prints each state the way the papers draw it (:mod:`.render`):
000's deques with their sublists and pointers, partial aggregates named by the elements they cover (``cd..g``),
FlatFAT's tree, SlickDeque's deque, FiBA's tree with spines and fingers, a q-digest's ranges. ``--svg OUT.svg``
writes the same pictures as one SVG (:mod:`.svg`). An operation the reference refuses (evict on an empty window)
prints its error and the session goes on; a script that cannot be parsed is a usage error (exit 2).

>>> from swagkit.verify.explain import explain_text
>>> print(explain_text("two_stacks", "string_concat", "insert a; insert b; evict"))
swagkit explain: Two-Stacks (000 §3 (Thm 3.2)) over string_concat, reference implementation
#1 insert a
    elem │ a │
    val  │ a │
    agg  │ a │
           ^F,B ^E
    sublists: back=[a] aggregated to the right
#2 insert b
    elem │ a │ b  │
    val  │ a │ b  │
    agg  │ a │ ab │
           ^F,B    ^E
    sublists: back=[a b] aggregated to the right
#3 evict
    elem │ b │
    val  │ b │
    agg  │ b │
           ^F ^B,E
    sublists: front=[b] aggregated to the left
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from .. import registry
from ..replayfile import read
from ..trace import NO_ANSWER
from .ops import OPERATIONS, ExplainUsageError, Op, parse, plain_operations
from .session import Step, explain, kind_of
from .svg import to_svg

__all__ = ["add_arguments", "run", "explain", "explain_text", "replay_ops", "ExplainUsageError", "Step"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``swagkit explain``."""
    parser.add_argument("script", nargs="?", metavar="OPS", help='operations, e.g. "insert a; insert b; evict; query"')
    parser.add_argument("--algorithm", required=True, metavar="ID", help="registered algorithm id (swagkit list)")
    parser.add_argument(
        "--monoid", default=None, metavar="ID", help="library monoid id (default string_concat, or the replay's)"
    )
    parser.add_argument("--replay", metavar="FILE", help="take the operations of a replay file instead of OPS")
    parser.add_argument("--svg", metavar="OUT.svg", help="also write the pictures as one SVG file")
    parser.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="constructor parameter overriding the registered one (e.g. capacity=4, eps=0.5)",
    )


def _params(pairs: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise ExplainUsageError(f"bad --param {pair!r} (KEY=VALUE)")
        try:
            out[key] = json.loads(raw)
        except ValueError:
            out[key] = raw
    return out


def _title(algorithm_id: str, monoid_id: str) -> str:
    info = registry.algorithm(algorithm_id)
    over = f" over {monoid_id}" if info.takes_monoid else ""
    return f"swagkit explain: {info.title} ({info.paper}){over}, reference implementation"


def format_steps(title: str, steps: list[Step]) -> str:
    """The terminal text of ``steps``: a heading per operation and its picture indented."""
    lines = [title]
    for s in steps:
        lines.append(f"#{s.number} {s.text}" + (f"  {s.outcome}" if s.outcome else ""))
        lines.extend(f"    {ln}".rstrip() for ln in s.picture)
    return "\n".join(lines)


def _operations(algorithm_id: str) -> tuple[str, dict[str, tuple[str, ...]]]:
    kind = kind_of(algorithm_id)
    if kind == "plain":
        cls = registry.resolve_class(algorithm_id)
        return kind, plain_operations(cls if isinstance(cls, type) else type(cls))
    return kind, OPERATIONS[kind]


def explain_text(algorithm_id: str, monoid_id: str, script: str) -> str:
    """The text ``swagkit explain`` prints for ``script`` (raises :class:`ExplainUsageError`)."""
    kind, known = _operations(algorithm_id)
    steps = explain(algorithm_id, monoid_id, parse(script, kind, monoid_id, known))
    return format_steps(_title(algorithm_id, monoid_id), steps)


def replay_ops(path: str, algorithm_id: str) -> tuple[str, list[Op]]:
    """The monoid id and the operations of a replay file, in ``algorithm_id``'s operation language. Handles
    (the model's answers in the file) become element ids (``#3``), which ``remove`` accepts."""
    file = read(path)
    header = file.header
    kind, known = _operations(algorithm_id)
    file_kind = str(header["kind"])
    if (file_kind in ("ooo", "out_of_order")) != (kind == "ooo"):
        raise ExplainUsageError(f"{path} is a {file_kind} trace; {algorithm_id} is a {kind} algorithm")
    monoid_id = str(header["monoid"])
    ops: list[Op] = []
    handles: dict[Any, int] = {}  # the file's handle -> the id explain gives that element
    inserted = 0
    for step in file.steps:  # explain numbers them as the trace does (#1 ...) while each step is one call
        name, args = step.name, step.args
        calls: list[tuple[str, tuple[Any, ...]]] = [(name, args)]
        if name in ("insert_with_handle", "insert_many_with_handles"):
            values = [args[0]] if name == "insert_with_handle" else list(args[0])
            expect = None if step.answer is NO_ANSWER else step.answer
            got = [expect] if name == "insert_with_handle" else list(expect or [])
            handles.update({repr(h): inserted + i + 1 for i, h in enumerate(got)})
            calls = [("insert", (v,)) for v in values]
        elif name in ("remove", "remove_many") and kind != "ooo":
            hs = [args[0]] if name == "remove" else list(args[0])
            calls = [("remove", (f"#{handles.get(repr(h), 0)}",)) for h in hs]
        elif name == "batch":
            calls = [("insert", (ev[1],)) if ev[0] == "insert" else (str(ev[0]), tuple(ev[1:])) for ev in args[0]]
        elif name == "handles":
            continue
        for call, call_args in calls:
            if call not in known:
                raise ExplainUsageError(f"{path}: operation {call!r} is not one {algorithm_id} explains")
            if call in ("insert", "insert_many", "bulk_insert", "update"):
                inserted += len(call_args[0]) if call in ("insert_many", "bulk_insert") else 1
            ops.append(Op(call, call_args, " ".join([call, *(repr(a) for a in call_args)])))
    return monoid_id, ops


def run(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """``swagkit explain``: 0, or 2 on a usage error (printed to ``err``, naming the bad token)."""
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        info = registry.algorithm(args.algorithm)
        if (args.replay is None) == (args.script is None):
            raise ExplainUsageError("give either OPS or --replay FILE")
        if args.replay is not None:
            monoid_id, ops = replay_ops(args.replay, info.id)
            monoid_id = args.monoid or monoid_id
        else:
            monoid_id = args.monoid or (info.monoids[0] if info.monoids else "string_concat")
            kind, known = _operations(info.id)
            ops = parse(args.script, kind, monoid_id, known)
        steps = explain(info.id, monoid_id, ops, _params(args.param))
    except (ExplainUsageError, registry.RegistryError, OSError, ValueError, TypeError) as exc:
        print(f"swagkit explain: {exc}", file=err)
        return 2
    title = _title(info.id, monoid_id)
    print(format_steps(title, steps), file=out)
    if args.svg:
        with open(args.svg, "w", encoding="utf-8") as f:
            f.write(to_svg(title, steps))
        print(f"wrote {args.svg} ({len(steps)} steps)", file=out)
    return 0
