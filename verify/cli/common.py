"""What the ``swagkit`` subcommands print the same way: tables, the progress line, findings, the version and the
check that the swagkit running is the installed one."""

from __future__ import annotations

import os
import shlex
import sys
import time
from collections.abc import Sequence
from importlib import metadata
from typing import TextIO

import swagkit

from ..errors import without_history
from ..runner import Finding, Outcome

__all__ = [
    "version",
    "shadowing_warning",
    "table",
    "Progress",
    "print_findings",
    "WIDTH",
]

#: the widest line the subcommands print on their own (a terminal of 100 columns shows every line whole)
WIDTH = 100


def version() -> str:
    """The installed distribution's version (``unknown`` when swagkit runs from a source tree only)."""
    try:
        return metadata.version("swagkit")
    except metadata.PackageNotFoundError:
        return "unknown (not installed)"


def shadowing_warning() -> str:
    """A loud warning when the running swagkit comes from a ``swagkit`` folder in the working directory (a clone
    of the repository, say) instead of the installed package: its compiled extensions are then not used, and its
    code may not be the installed version's. ``""`` when all is well."""
    here = os.path.realpath(os.getcwd())
    # (an editable install adds a path hook's name, not a folder: only folders can shadow)
    paths = [os.path.realpath(p) for p in getattr(swagkit, "__path__", []) if os.path.isdir(p)]
    local = [p for p in paths if os.path.dirname(p) == here]
    if not local:
        return ""
    return (
        f"swagkit: WARNING: swagkit is being imported from {local[0]}, a folder in the working directory, not from "
        "the installed package; its compiled extensions are not used and its code may differ. Run swagkit from "
        "another directory."
    )


def table(rows: Sequence[Sequence[str]], right: set[int]) -> list[str]:
    """``rows`` (the first is the heading) as aligned columns, the columns in ``right`` right-aligned."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for r in rows:
        cells = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))]
        lines.append("  ".join(cells).rstrip())
    return lines


class Progress:
    """One progress line on ``err``: rewritten in place on a terminal, else printed every ``every`` seconds;
    ``verbose`` prints one line per finished task instead."""

    def __init__(self, total: int, err: TextIO, *, verbose: bool = False, every: float = 10.0) -> None:
        self.total, self.err, self.verbose, self.every = total, err, verbose, every
        self.done = 0
        self.failed = 0
        self.start = time.perf_counter()
        self._last = 0.0
        self._tty = bool(getattr(err, "isatty", lambda: False)())

    def __call__(self, outcome: Outcome) -> None:
        self.done += 1
        self.failed += outcome.failed
        now = time.perf_counter()
        if self.verbose:
            width = len(str(self.total))
            counts = "-" if outcome.failed else f"{outcome.examples} ex"
            note = f"  {outcome.headline}" if outcome.failed else ""
            print(
                f"[{self.done:>{width}}/{self.total}] {outcome.name:<45} {outcome.status:<5} {counts:>7} "
                f"{outcome.seconds:7.2f}s{note}"[: WIDTH * 2],
                file=self.err,
                flush=True,
            )
            return
        if self._tty or now - self._last >= self.every or self.done == self.total:
            self._last = now
            line = (f"[{self.done}/{self.total}] {self.failed} failed, {now - self.start:.0f}s -- {outcome.name}")[
                : WIDTH - 1
            ]
            end = "" if self._tty and self.done < self.total else "\n"
            print(("\r\033[K" if self._tty else "") + line, end=end, file=self.err, flush=True)


def print_findings(outcome: Outcome, how: str, out: TextIO) -> None:
    """Every finding of ``outcome``: its family (and the flag that skips it), the counterexample's trace, the
    failure, the replay file (and whether it reproduces) and the command that re-runs it (``how``: the replay's
    ``--impl``/``--exec`` part, ``""`` for a registered algorithm)."""
    if outcome.error:
        print(f"\n{'=' * 20} ERROR: {outcome.name} {'=' * 20}", file=out)
        print("swagkit itself failed (please report it):\n" + outcome.error, file=out)
    for f in outcome.findings:
        print(f"\n{'=' * 20} FAIL: {outcome.name} -- {_family_title(f)} {'=' * 20}", file=out)
        if f.trace:
            more = f"; {f.shrunk_from} before delta debugging" if f.shrunk_from else ""
            print(f"counterexample ({len(f.trace)} steps, shrunk{more}):", file=out)
            print("\n".join("  " + line for line in f.describe().splitlines()), file=out)
        print(without_history(f.failure), file=out)
        if f.protocol:
            print("protocol lines of the failing instance (-> sent, <- received):", file=out)
            print("\n".join("  " + line for line in f.protocol.splitlines()), file=out)
        if f.skip_flag:
            print(f"(a {f.family} finding: {_skip_text(f)})", file=out)
        if f.replay:
            state = {True: "it reproduces the failure", False: "WARNING: it does NOT reproduce the failure"}
            note = f" ({state[f.reproduces]})" if f.reproduces is not None else ""
            print(f"replay file: {f.replay}{note}", file=out)
            print(f"reproduce: swagkit replay {shlex.quote(f.replay)}{(' ' + how) if how else ''}", file=out)
    if outcome.reproduce:
        print(f"re-run the search: {outcome.reproduce}", file=out)


_FAMILY_TITLES = {
    "correctness": "wrong answer or state (correctness)",
    "misuse": "misuse rule (an operation the model refuses)",
    "faults": "fault injection (a ⊗ call raising once)",
    "budget": "⊗ budget (the theorem's count)",
    "laws": "monoid laws",
}


def _family_title(f: Finding) -> str:
    return _FAMILY_TITLES.get(f.family, f.family)


def _skip_text(f: Finding) -> str:
    if f.family == "misuse":
        return (
            "correctness was searched on without the misuse rules; skip them with --no-misuse, or name your own "
            "empty-window exception with --empty-error MODULE:EXC"
        )
    if f.family == "faults":
        return "correctness was searched on without faults; skip them with --no-faults"
    return f"skip them with {f.skip_flag}"


def stderr_is_tty() -> bool:
    return sys.stderr.isatty()
