"""Rewrite the README's generated tables from the registry (run after adding an algorithm).

Each table stands between ``<!-- generated: NAME -->`` and ``<!-- end generated -->``, where NAME is a function
of :mod:`swagkit.verify.registry` that returns the table's Markdown. Usage::

    python tools/sync_readme.py          # rewrite README.md in place, print what changed
    python tools/sync_readme.py --check  # exit 1 when README.md is not what the registry says (CI, tests)
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"
BLOCK = re.compile(r"(<!-- generated: (\w+) -->\n)(.*?)(<!-- end generated -->)", re.S)


def synced(text: str) -> str:
    """``text`` with every generated block rewritten (``ValueError`` for a block naming no registry function)."""
    from swagkit.verify import registry

    def block(m: re.Match[str]) -> str:
        make = getattr(registry, m.group(2), None)
        if not callable(make):
            raise ValueError(f"README: no registry function {m.group(2)!r} for a generated block")
        return f"{m.group(1)}{make().strip()}\n{m.group(4)}"

    return BLOCK.sub(block, text)


def main(argv: list[str]) -> int:
    text = README.read_text(encoding="utf-8")
    new = synced(text)
    if "--check" in argv:
        if new != text:
            print("README.md: generated tables are out of date; run python tools/sync_readme.py", file=sys.stderr)
            return 1
        return 0
    if new != text:
        README.write_text(new, encoding="utf-8")
        print(f"README.md: {len(BLOCK.findall(text))} generated tables rewritten")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
