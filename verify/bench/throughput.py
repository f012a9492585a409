"""Experiment ``throughput``: operations per second of swagkit's verification paths (issue 25 §5).

One FIFO trace (the scale run's ``see_saw`` pattern: inserts and evicts around a window of a few hundred, a query
after every update) is checked in lock-step against a compiled oracle (:func:`swagkit.verify.spark.scale.lockstep`,
the loop of ``swagkit verify --spark``), through each path a subject can take:

* **registry**: a registered algorithm's compiled class (``swagkit.optimized.TwoStacksLite``);
* **--impl**: a user's own Python class (the pure-Python ``swagkit.reference.TwoStacksLite`` stands in for it);
* **--exec**: a program speaking docs/protocol.md -- the C driver of ``tests/protocol/daba_lite.c``, built here
  with ``cc`` (skipped with a note without a compiler or outside a checkout) -- one request line per operation
  with its reply awaited, and pipelined (:data:`~swagkit.verify.spark.scale.PIPELINE` operations per ``batch``).

Rates are operations per second of one Python process (the ``--exec`` program runs beside it); the claim is the
pipelined protocol's speed-up over one line at a time, measured in the same run.
"""

from __future__ import annotations

import random
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import swagkit.optimized as opt
from swagkit import reference
from swagkit.spec.library import LIBRARY

from . import timing
from .report import Check, Outcome, Ratio, Row

__all__ = ["ID", "TITLE", "Sizes", "FULL", "QUICK", "TINY", "run"]

ID = "throughput"
TITLE = "Operations per second of the verification paths: registry, --impl, --exec one at a time and pipelined"
#: the speed-up the pipelined protocol must bring over one request line per reply (issue 25 §5)
PIPELINE_TARGET = 10.0
MONOIDS = ("sum_i64", "string_concat")


@dataclass(frozen=True)
class Sizes:
    """Operations of the trace, runs per path (the best is kept)."""

    operations: int
    repeat: int


FULL = Sizes(200_000, 2)
QUICK = Sizes(100_000, 2)
TINY = Sizes(4_000, 1)

#: the C driver's source, in a checkout (not shipped in the wheel)
DRIVER_SOURCE = Path(__file__).resolve().parents[2] / "tests" / "protocol" / "daba_lite.c"


@contextmanager
def _c_driver(notes: list[str]) -> Iterator[str | None]:
    """The C protocol driver built in a temporary directory (``None``, with a note, when it cannot be)."""
    cc = shutil.which("cc")
    if cc is None or not DRIVER_SOURCE.exists():
        notes.append("--exec not measured: " + ("no C compiler (cc)" if cc is None else f"no {DRIVER_SOURCE}"))
        yield None
        return
    with tempfile.TemporaryDirectory() as tmp:
        exe = str(Path(tmp) / "daba_lite")
        flags = ["-O2", "-std=c99", "-D_POSIX_C_SOURCE=200809L"]
        done = subprocess.run([cc, *flags, "-o", exe, str(DRIVER_SOURCE)], capture_output=True, text=True)
        if done.returncode != 0:
            notes.append(f"--exec not measured: cc failed ({done.stderr.strip()[:200]})")
            yield None
        else:
            yield exe


def _calls(monoid_id: str, n: int) -> list[tuple[str, tuple[Any, ...]]]:
    from ..spark.patterns import trace

    values: list[Any] = list(range(-40, 24)) if monoid_id != "string_concat" else [chr(97 + k % 26) for k in range(64)]
    return list(trace("fifo", "see_saw", random.Random(5), values, n, 300, frozenset({"insert", "evict"})))


def _best_rate(
    make: Callable[[Any], Any], calls: list[tuple[str, tuple[Any, ...]]], monoid: Any, repeat: int, **kw: Any
) -> float:
    """Operations per second of the best of ``repeat`` lock-step runs of a fresh ``make(monoid)`` (a finding is an
    error of the benchmark: every subject here is correct)."""
    from ..spark.scale import lockstep

    best = float("inf")
    for _ in range(repeat):
        subject, oracle = make(monoid), opt.TwoStacksLite(monoid)
        started = time.perf_counter()
        finding = lockstep(subject, oracle, calls, monoid, **kw)
        best = min(best, time.perf_counter() - started)
        if finding is not None:
            raise AssertionError(f"throughput: a correct subject disagreed with the oracle: {finding}")
    return len(calls) / best


def run(sizes: Sizes, progress: timing.Progress) -> Outcome:
    from ..process import conformance_monoids_registered, process_factory

    outcome = Outcome(ID, TITLE)
    table: dict[str, dict[str, float]] = {}  # path -> monoid -> operations/s
    with _c_driver(outcome.notes) as exe, conformance_monoids_registered():
        factory = process_factory(exe, "fifo") if exe is not None else None
        try:
            for monoid_id in MONOIDS:
                monoid = LIBRARY[monoid_id].factory()
                calls = _calls(monoid_id, sizes.operations)
                paths: list[tuple[str, Callable[[Any], Any], dict[str, Any]]] = [
                    ("registry (compiled class)", opt.TwoStacksLite, {}),
                    ("--impl (a Python class)", reference.TwoStacksLite, {}),
                ]
                if factory is not None:
                    paths += [
                        ("--exec, one line per reply", factory, {"pipelined": False}),
                        ("--exec, pipelined", factory, {}),
                    ]
                rates: dict[str, float] = {}
                for name, make, kw in paths:
                    rates[name] = _best_rate(make, calls, monoid, sizes.repeat, **kw)
                    progress.step(ID, f"{monoid_id}: {name}: {rates[name]:,.0f} operations/s")
                    table.setdefault(name, {})[monoid_id] = rates[name]
                    outcome.rows.append(
                        Row(
                            "throughput", name, monoid_id, "see_saw", "operations", len(calls), "ops_per_s", rates[name]
                        )
                    )
                if factory is not None:
                    single, piped = rates["--exec, one line per reply"], rates["--exec, pipelined"]
                    outcome.ratios.append(
                        Ratio(
                            f"{monoid_id}, operations/s",
                            "--exec, pipelined",
                            "--exec, one line per reply",
                            piped / single,
                            sizes.repeat,
                        )
                    )
                    outcome.checks.append(
                        Check(
                            f"{monoid_id}: --exec pipelined ≥ {PIPELINE_TARGET:g}× one line per reply",
                            f"{piped / single:.1f}× ({piped:,.0f} vs {single:,.0f} operations/s)",
                            piped / single >= PIPELINE_TARGET,
                        )
                    )
        finally:
            if factory is not None:
                factory.close()
    lines = [f"| path ({sizes.operations:,} operations) | " + " | ".join(MONOIDS) + " |"]
    lines.append("|---|" + "---:|" * len(MONOIDS))
    for name, by_monoid in table.items():
        cells = [f"{by_monoid[m]:,.0f} ops/s" if m in by_monoid else "-" for m in MONOIDS]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    outcome.tables.append("\n".join(lines))
    return outcome
