"""The conformance matrix: engine × aggregate × frame kind, what each engine answered (issue 24 §7).

A :class:`Cell` counts the *queries* of that kind the engine was given (a query is one window column over one
table), those it skipped as unsupported and refused, and the *answers* (one per row) it returned: exact, within
the any-order float bound (:mod:`.judge`), wrong by class. :class:`Matrix` adds cells up (runs merge, Spark
workers' partial matrices merge) and writes itself as Markdown, CSV and a heat-map PNG (matplotlib, when
installed) of the share of wrong answers.
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Cell", "Matrix"]

#: a cell's key: (engine, aggregate, frame kind)
Key = tuple[str, str, str]


@dataclass
class Cell:
    """The counts of one engine × aggregate × frame kind."""

    queries: int = 0
    skipped: int = 0
    refused: int = 0
    crashed: int = 0
    answers: int = 0
    exact: int = 0
    within: int = 0
    wrong: Counter[str] = field(default_factory=Counter)

    def add(self, other: Cell) -> None:
        self.queries += other.queries
        self.skipped += other.skipped
        self.refused += other.refused
        self.crashed += other.crashed
        self.answers += other.answers
        self.exact += other.exact
        self.within += other.within
        self.wrong.update(other.wrong)

    @property
    def wrong_total(self) -> int:
        return sum(self.wrong.values())

    def to_json(self) -> dict[str, Any]:
        return {
            "queries": self.queries,
            "skipped": self.skipped,
            "refused": self.refused,
            "crashed": self.crashed,
            "answers": self.answers,
            "exact": self.exact,
            "within": self.within,
            "wrong": dict(self.wrong),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Cell:
        counts = {k: int(v) for k, v in data.items() if k != "wrong"}
        cell = cls(**counts)  # type: ignore[arg-type]
        cell.wrong.update({str(k): int(v) for k, v in data.get("wrong", {}).items()})
        return cell


class Matrix:
    """Cells by (engine, aggregate, frame kind)."""

    def __init__(self) -> None:
        self.cells: dict[Key, Cell] = {}

    def cell(self, engine: str, aggregate: str, frame_kind: str) -> Cell:
        return self.cells.setdefault((engine, aggregate, frame_kind), Cell())

    def merge(self, other: Matrix) -> None:
        for key, cell in other.cells.items():
            self.cells.setdefault(key, Cell()).add(cell)

    def totals(self, engine: str) -> Cell:
        """One engine's cells added up."""
        total = Cell()
        for (name, _, _), cell in self.cells.items():
            if name == engine:
                total.add(cell)
        return total

    @property
    def engines(self) -> list[str]:
        return sorted({k[0] for k in self.cells})

    def to_json(self) -> list[dict[str, Any]]:
        return [{"key": list(k), **c.to_json()} for k, c in sorted(self.cells.items())]

    @classmethod
    def from_json(cls, rows: Iterable[Mapping[str, Any]]) -> Matrix:
        matrix = cls()
        for row in rows:
            engine, aggregate, frame_kind = row["key"]
            matrix.cell(engine, aggregate, frame_kind).add(Cell.from_json({k: v for k, v in row.items() if k != "key"}))
        return matrix

    # -- writing ---------------------------------------------------------------------------------------------

    def rows(self) -> list[list[str]]:
        """The table's rows (header first), sorted by engine, aggregate, frame kind."""
        header = ["engine", "aggregate", "frame", "queries", "answers", "exact", "within bound", "wrong"]
        header += ["refused", "crashed", "skipped"]
        table = [header]
        for (engine, aggregate, frame_kind), c in sorted(self.cells.items()):
            wrong = ", ".join(f"{k} {v}" for k, v in sorted(c.wrong.items())) or "0"
            counts = [c.queries, c.answers, c.exact, c.within]
            table.append([engine, aggregate, frame_kind, *map(str, counts), wrong, *map(str, _tail(c))])
        return table

    def to_csv(self) -> str:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        header = ["engine", "aggregate", "frame", "queries", "answers", "exact", "within_bound"]
        header += ["wrong_total", "wrong_by_class", "refused", "crashed", "skipped"]
        writer.writerow(header)
        for (engine, aggregate, frame_kind), c in sorted(self.cells.items()):
            by_class = ";".join(f"{k}={v}" for k, v in sorted(c.wrong.items()))
            counts = [c.queries, c.answers, c.exact, c.within, c.wrong_total]
            writer.writerow([engine, aggregate, frame_kind, *counts, by_class, *_tail(c)])
        return out.getvalue()

    def to_markdown(self, title: str = "Engine conformance", preamble: str = "") -> str:
        """A summary per engine, then the whole matrix."""
        lines = [f"# {title}", ""]
        if preamble:
            lines += [preamble, ""]
        lines += ["| engine | queries | answers | exact | within bound | wrong | refused | crashed | skipped |"]
        lines += ["|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for engine in self.engines:
            t = self.totals(engine)
            counts = [t.queries, t.answers, t.exact, t.within, t.wrong_total, *_tail(t)]
            lines.append(f"| {engine} | " + " | ".join(map(str, counts)) + " |")
        rows = self.rows()
        lines += ["", "| " + " | ".join(rows[0]) + " |", "|" + "---|" * len(rows[0])]
        lines += ["| " + " | ".join(r) + " |" for r in rows[1:]]
        return "\n".join(lines) + "\n"

    def write(self, directory: str | Path, title: str = "Engine conformance", preamble: str = "") -> list[Path]:
        """``matrix.md``, ``matrix.csv`` and (with matplotlib) ``matrix.png`` in ``directory``: the paths
        written."""
        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        written = [out / "matrix.md", out / "matrix.csv"]
        written[0].write_text(self.to_markdown(title, preamble), encoding="utf-8")
        written[1].write_text(self.to_csv(), encoding="utf-8")
        png = out / "matrix.png"
        if self.heat_map(png):
            written.append(png)
        return written

    def heat_map(self, path: Path) -> bool:
        """A heat map of the share of wrong answers (rows: engine × frame kind, columns: aggregates; grey where
        nothing ran). False when matplotlib is not installed."""
        try:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            return False
        aggregates = sorted({k[1] for k in self.cells})
        lanes = sorted({(k[0], k[2]) for k in self.cells})
        if not aggregates or not lanes:
            return False
        grid: list[list[float]] = []
        for engine, frame_kind in lanes:
            row = []
            for aggregate in aggregates:
                c = self.cells.get((engine, aggregate, frame_kind))
                wrong = (c.wrong_total + c.refused + c.crashed) if c else 0
                total = (c.answers + c.refused + c.crashed) if c else 0
                row.append(wrong / total if total else float("nan"))
            grid.append(row)
        figure, axes = plt.subplots(figsize=(1.0 + 0.45 * len(aggregates), 1.0 + 0.3 * len(lanes)))
        cmap = plt.get_cmap("Reds").with_extremes(bad="#dddddd")
        image = axes.imshow(
            grid, cmap=cmap, vmin=0.0, vmax=max(0.05, max((v for r in grid for v in r if v == v), default=0))
        )
        axes.set_xticks(range(len(aggregates)), aggregates, rotation=60, ha="right", fontsize=7)
        axes.set_yticks(range(len(lanes)), [f"{e} · {f}" for e, f in lanes], fontsize=7)
        axes.set_title("share of wrong answers (grey: not run)", fontsize=9)
        figure.colorbar(image, ax=axes, fraction=0.03)
        figure.tight_layout()
        figure.savefig(path, dpi=110)
        plt.close(figure)
        return True


def _tail(c: Cell) -> list[int]:
    return [c.refused, c.crashed, c.skipped]
