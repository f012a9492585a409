"""PNG figures of ``swagkit bench`` through matplotlib, which is optional (the ``bench`` extra).

:func:`draw` renders the :class:`~.report.Figure` data the experiments return: line plots on log axes (the
papers' throughput-versus-window figures) and violin plots of latency samples with tail percentiles marked
(000 Fig. 9). Without matplotlib it draws nothing and says so; the CSV and Markdown report are written anyway.
"""

from __future__ import annotations

import importlib
import importlib.util
import math
import os
import textwrap
from collections.abc import Sequence
from typing import Any

from .report import Figure

__all__ = ["available", "draw", "violin_sample"]


def _pyplot() -> Any:
    """matplotlib's pyplot on the non-interactive Agg backend, or None when matplotlib is not installed."""
    try:
        matplotlib = importlib.import_module("matplotlib")
    except ImportError:
        return None
    matplotlib.use("Agg")
    return importlib.import_module("matplotlib.pyplot")


def available() -> bool:
    """True when matplotlib can be imported."""
    return importlib.util.find_spec("matplotlib") is not None


def draw(figures: Sequence[Figure], directory: str) -> list[str]:
    """Write ``directory/<name>.png`` for every figure; returns the names drawn (empty without matplotlib)."""
    plt = _pyplot()
    if plt is None:
        return []
    drawn: list[str] = []
    for fig in figures:
        canvas, ax = plt.subplots(figsize=(7.5, 4.5), dpi=110)
        if fig.kind == "violin":
            _violins(ax, fig)
        else:
            _lines(ax, fig)
        ax.set_title(textwrap.fill(fig.title, 100), fontsize=10)  # a long title would run off the canvas
        ax.set_xlabel(fig.xlabel)
        ax.set_ylabel(fig.ylabel)
        ax.grid(True, which="major", alpha=0.3)
        canvas.tight_layout()
        canvas.savefig(os.path.join(directory, fig.name + ".png"))
        plt.close(canvas)
        drawn.append(fig.name)
    return drawn


def _lines(ax: Any, fig: Figure) -> None:
    for label, (xs, ys) in fig.series.items():
        pts = [(x, y) for x, y in zip(xs, ys) if not math.isnan(y) and (y > 0 or not fig.logy)]
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", markersize=3, label=label)
    if fig.logx:
        ax.set_xscale("log", base=2)
    if fig.logy:
        ax.set_yscale("log")
    if fig.series:
        ax.legend(fontsize=7, ncol=2)


def violin_sample(sorted_data: Sequence[float], body: int = 4096) -> list[float]:
    """What a violin is drawn from: ``body`` evenly spaced order statistics of ``sorted_data``, the minimum and the
    maximum included (the same density shape, median and extremes; a kernel density over 10^6 samples takes
    matplotlib tens of seconds). The tail marks are computed from all the samples."""
    n = len(sorted_data)
    if n <= body:
        return list(sorted_data)
    step = (n - 1) / (body - 1)
    return [sorted_data[round(i * step)] for i in range(body)]


def _violins(ax: Any, fig: Figure) -> None:
    labels = list(fig.samples)
    # log10 of the latencies: the tails of Two-Stacks' flips sit orders of magnitude above the median
    data = [sorted(math.log10(max(v, 1.0)) for v in fig.samples[label]) for label in labels]
    positions = list(range(1, len(labels) + 1))
    ax.violinplot([violin_sample(d) for d in data], positions=positions, showmedians=True, widths=0.8)
    for q, style in zip(fig.marks, ("r_", "k_", "b_")):
        ys = [d[min(len(d) - 1, int(q / 100 * len(d)))] if d else math.nan for d in data]
        ax.plot(positions, ys, style, markersize=18, label=f"p{q:g}")
    ax.set_xticks(positions)
    ax.set_xticklabels(labels, fontsize=8)
    ax.legend(fontsize=7)
