"""Rewrite the generated tables of README.md and docs/*.md from the registry (run after adding an algorithm).

Each table stands between ``<!-- generated: NAME -->`` and ``<!-- end generated -->``, where NAME is a function
of :mod:`swagkit.verify.registry` that returns the table's Markdown; a block may sit in any of :func:`pages`
(today docs/algorithms.md and docs/robustness.md). Usage::

    python tools/sync_readme.py          # rewrite the pages in place, print what changed
    python tools/sync_readme.py --check  # exit 1 when a page is not what the registry says (CI, tests)

(The performance block, ``<!-- bench:start -->``, is written by ``swagkit bench --readme`` instead.)
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
BLOCK = re.compile(r"(<!-- generated: (\w+) -->\n)(.*?)(<!-- end generated -->)", re.S)


def pages() -> list[Path]:
    """The Markdown files that may hold generated blocks: README.md, then docs/*.md."""
    return [README, *sorted(DOCS.glob("*.md"))]


def synced(text: str) -> str:
    """``text`` with every generated block rewritten (``ValueError`` for a block naming no registry function)."""
    from swagkit.verify import registry

    def block(m: re.Match[str]) -> str:
        make = getattr(registry, m.group(2), None)
        if not callable(make):
            raise ValueError(f"no registry function {m.group(2)!r} for a generated block")
        return f"{m.group(1)}{make().strip()}\n{m.group(4)}"

    return BLOCK.sub(block, text)


def main(argv: list[str]) -> int:
    stale = []
    for page in pages():
        text = page.read_text(encoding="utf-8")
        try:
            new = synced(text)
        except ValueError as exc:
            print(f"{page.relative_to(ROOT)}: {exc}", file=sys.stderr)
            return 2
        if new == text:
            continue
        stale.append(page)
        if "--check" not in argv:
            page.write_text(new, encoding="utf-8")
            print(f"{page.relative_to(ROOT)}: {len(BLOCK.findall(text))} generated tables rewritten")
    if "--check" in argv and stale:
        names = ", ".join(str(p.relative_to(ROOT)) for p in stale)
        print(f"{names}: generated tables are out of date; run python tools/sync_readme.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
