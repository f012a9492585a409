"""Make ``build/tree/swagkit/`` a symlink view of the root folders, as the installed package lays them out.

mypy does not follow setuptools' package-dir mapping, so type checking (and quick in-tree experiments with
``PYTHONPATH=build/tree``) use this view. Usage: ``python tools/link_tree.py`` → prints the tree root.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SUBPACKAGES = ("spec", "reference", "optimized", "verify")


def main() -> int:
    pkg = ROOT / "build" / "tree" / "swagkit"
    pkg.mkdir(parents=True, exist_ok=True)
    for name in SUBPACKAGES:
        link = pkg / name
        if link.is_symlink() or link.exists():
            link.unlink()
        os.symlink(ROOT / name, link, target_is_directory=True)
    print(pkg.parent)
    return 0


if __name__ == "__main__":
    sys.exit(main())
