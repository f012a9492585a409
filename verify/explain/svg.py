"""The pictures of ``swagkit explain`` as one SVG file: plain SVG text, no dependency.

One ``<g class="step">`` per operation, stacked top to bottom: a frame, the operation and its outcome as the
heading, then the same lines the terminal shows in a monospace font (``xml:space="preserve"`` keeps the
columns of the deque tables and the tree levels aligned).

>>> from swagkit.verify.explain.session import Step
>>> svg = to_svg("demo", [Step(1, "insert a", "", ("elem │ a",))])
>>> svg.count('<g class="step"'), svg.startswith("<svg")
(1, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from xml.sax.saxutils import escape

from .session import Step

__all__ = ["to_svg"]

FONT_SIZE = 13
CHAR_WIDTH = 7.9  # of the monospace font at FONT_SIZE, generous so lines stay inside their frame
LINE_HEIGHT = 17
PAD = 10


def _text(x: float, y: float, line: str, weight: str = "normal") -> str:
    return f'<text x="{x:.0f}" y="{y:.0f}" font-weight="{weight}" xml:space="preserve">{escape(line)}</text>'


def to_svg(title: str, steps: Sequence[Step]) -> str:
    """An SVG document of ``steps`` under ``title``."""
    longest = max([len(title)] + [len(ln) for s in steps for ln in (_heading(s), *s.picture)])
    width = int(longest * CHAR_WIDTH) + 4 * PAD
    parts: list[str] = [_text(PAD, PAD + FONT_SIZE, title, "bold")]
    y = PAD + LINE_HEIGHT + PAD
    for step in steps:
        height = (len(step.picture) + 1) * LINE_HEIGHT + 2 * PAD
        body = [
            f'<rect x="{PAD}" y="0" width="{width - 2 * PAD}" height="{height}" rx="4" fill="#f8f8f8" stroke="#999"/>',
            _text(2 * PAD, PAD + FONT_SIZE, _heading(step), "bold"),
        ]
        body += [_text(2 * PAD, PAD + FONT_SIZE + (i + 1) * LINE_HEIGHT, ln) for i, ln in enumerate(step.picture)]
        parts.append(f'<g class="step" id="step-{step.number}" transform="translate(0,{y})">' + "".join(body) + "</g>")
        y += height + PAD
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{y}" viewBox="0 0 {width} {y}" '
        f'font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="{FONT_SIZE}">'
    )
    return "\n".join([head, f"<title>{escape(title)}</title>", *parts, "</svg>"]) + "\n"


def _heading(step: Step) -> str:
    return f"#{step.number} {step.text}" + (f"  {step.outcome}" if step.outcome else "")
