"""What an experiment of ``swagkit bench`` returns, and how it is written: CSV rows and a Markdown report.

An experiment returns an :class:`Outcome`: tidy :class:`Row` measurements (one value per row, with the ``⊗``
calls per item beside every timing), the :class:`Ratio` table it is judged by (medians of paired ratios measured
in one run, :mod:`.timing`), :class:`Check` lines for the papers' claims it tests, and :class:`Figure` data that
:mod:`.figures` draws when matplotlib is installed. Everything here is plain data, so the experiments and the
report work without matplotlib.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import TextIO

__all__ = [
    "COLUMNS",
    "Row",
    "Ratio",
    "Check",
    "Figure",
    "Outcome",
    "merge_reports",
    "merge_summaries",
    "write_csv",
    "write_markdown",
    "write_summary",
]

#: CSV columns, in order (one row per measured value)
COLUMNS = ("experiment", "figure", "contender", "monoid", "data", "x_name", "x", "metric", "value", "combines")


@dataclass(frozen=True)
class Row:
    """One measured value: ``metric`` (e.g. ``items_per_s``, ``ratio``, ``p99.999_ns``) of ``contender`` at
    ``x_name = x``; ``combines`` the ``⊗`` calls per item (or per operation) of the same run, NaN if none."""

    figure: str
    contender: str
    monoid: str
    data: str
    x_name: str
    x: float
    metric: str
    value: float
    combines: float = math.nan


@dataclass(frozen=True)
class Ratio:
    """A line of the report's ratio table: ``contender / baseline`` (median of per-round ratios, ``rounds``)."""

    what: str
    contender: str
    baseline: str
    ratio: float
    rounds: int


@dataclass(frozen=True)
class Check:
    """A paper's claim as measured: ``ok`` None when it is informational (no pass/fail)."""

    claim: str
    measured: str
    ok: bool | None


@dataclass
class Figure:
    """Data of one PNG: ``kind`` "lines" (``series``: label -> (xs, ys)) or "violin" (``samples``: label ->
    values, with ``marks``: percentiles drawn on each violin)."""

    name: str
    title: str
    xlabel: str
    ylabel: str
    kind: str = "lines"
    logx: bool = True
    logy: bool = True
    series: dict[str, tuple[list[float], list[float]]] = field(default_factory=dict)
    samples: dict[str, list[float]] = field(default_factory=dict)
    marks: tuple[float, ...] = ()


@dataclass
class Outcome:
    """Everything one experiment produced."""

    experiment: str
    title: str
    rows: list[Row] = field(default_factory=list)
    ratios: list[Ratio] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: Markdown tables written after the ratio table (e.g. the engines experiment's rates beside correctness)
    tables: list[str] = field(default_factory=list)
    seconds: float = 0.0


def write_csv(outcome: Outcome, path: str) -> None:
    """``path`` gets one row per :class:`Row`, columns :data:`COLUMNS`."""
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(COLUMNS)
        for r in outcome.rows:
            w.writerow(
                [outcome.experiment, r.figure, r.contender, r.monoid, r.data, r.x_name, _num(r.x), r.metric]
                + [_num(r.value), _num(r.combines)]
            )


def _num(x: float) -> str:
    if math.isnan(x):
        return ""
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e15 else f"{x:.6g}"


def write_markdown(
    outcomes: Sequence[Outcome], out: TextIO, header: Sequence[str], figures_note: str, drawn: Collection[str]
) -> None:
    """The report: a header (machine, mode), then per experiment its claims, ratio table, the figures that were
    drawn (names in ``drawn``) and notes."""
    out.write("# swagkit bench\n\n")
    for line in header:
        out.write(f"- {line}\n")
    out.write(f"- {figures_note}\n\n")
    out.write(
        "Ratios are medians of per-round ratios, the contenders run alternately in one run (robust to the load "
        "of a shared machine; absolute rates are not). ⊗ counts are machine-independent.\n"
    )
    for o in outcomes:
        out.write(f"\n## {o.experiment}: {o.title}\n\n_{o.seconds:.1f} s; CSV: `{o.experiment}.csv`_\n\n")
        if o.checks:
            out.write("| claim | measured | |\n|---|---|---|\n")
            for c in o.checks:
                verdict = "" if c.ok is None else ("OK" if c.ok else "MISSED")
                out.write(f"| {c.claim} | {c.measured} | {verdict} |\n")
            out.write("\n")
        if o.ratios:
            out.write("| ratio | contender | baseline | median paired ratio | rounds |\n|---|---|---|---:|---:|\n")
            for r in o.ratios:
                out.write(f"| {r.what} | {r.contender} | {r.baseline} | {r.ratio:.2f} | {r.rounds} |\n")
            out.write("\n")
        for table in o.tables:
            out.write(f"{table}\n\n")
        for fig in o.figures:
            if fig.name in drawn:
                out.write(f"![{fig.title}]({fig.name}.png)\n\n")
        for note in o.notes:
            out.write(f"- {note}\n")


def write_summary(outcomes: Sequence[Outcome], path: str | TextIO, header: Sequence[str]) -> None:
    """``path`` gets the run's header and, per experiment, its claims, ratio table and Markdown tables as JSON: what
    :mod:`.readme` renders into the README (the CSV files keep every measured value)."""
    summary = {
        "header": list(header),
        "experiments": [
            {
                "id": o.experiment,
                "title": o.title,
                "checks": [{"claim": c.claim, "measured": c.measured, "ok": c.ok} for c in o.checks],
                "ratios": [
                    {"what": r.what, "contender": r.contender, "baseline": r.baseline, "ratio": r.ratio}
                    for r in o.ratios
                ],
                "tables": list(o.tables),
            }
            for o in outcomes
        ],
    }
    if not isinstance(path, str):
        json.dump(summary, path, ensure_ascii=False, indent=1, sort_keys=True)
        return
    with open(path, "w", encoding="utf-8") as f:
        json.dump(summary, f, ensure_ascii=False, indent=1, sort_keys=True)
        f.write("\n")


def _sections(report: str) -> tuple[str, dict[str, str]]:
    """A report's preamble and its experiment sections (``## <id>: ...`` up to the next one), by id, in order."""
    preamble, *parts = report.split("\n## ")
    return preamble, {part.split(":", 1)[0]: "\n## " + part for part in parts}


def merge_reports(
    old: str, outcomes: Sequence[Outcome], header: Sequence[str], note: str, drawn: Collection[str]
) -> str:
    """``old`` (a report.md) with the sections of the experiments in ``outcomes`` replaced by this run's (new
    experiments appended) under ``header`` (:func:`merge_summaries`'s): ``swagkit bench --merge``."""
    fresh = io.StringIO()
    write_markdown(outcomes, fresh, header, note, drawn)
    preamble, new_sections = _sections(fresh.getvalue())
    merged = dict(_sections(old)[1])
    merged.update(new_sections)
    return preamble + "".join(merged.values())


def merge_summaries(old: dict[str, object], outcomes: Sequence[Outcome], header: Sequence[str]) -> dict[str, object]:
    """``old`` (a summary.json) with the entries of the experiments in ``outcomes`` replaced (new ones appended),
    under ``header`` (the old run's lines and one for this run: ``swagkit bench --merge``)."""
    fresh = io.StringIO()
    write_summary(outcomes, fresh, header)
    new = json.loads(fresh.getvalue())
    old_experiments: list[dict[str, object]] = old["experiments"]  # type: ignore[assignment]
    experiments = {e["id"]: e for e in old_experiments}
    experiments.update({e["id"]: e for e in new["experiments"]})
    return {"header": list(header), "experiments": list(experiments.values())}
