"""Every ``>>>`` example in the four packages runs (sortedcontainers' habit: docstrings that cannot drift).

Modules are found by walking the installed packages, so a new module's examples run without editing this file;
modules without examples are left out."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

PACKAGES = ("swagkit.spec", "swagkit.reference", "swagkit.optimized", "swagkit.verify")


def _modules() -> list[str]:
    names: list[str] = []
    for package in PACKAGES:
        pkg = importlib.import_module(package)
        names.append(package)
        for info in pkgutil.walk_packages(pkg.__path__, prefix=package + "."):
            if info.name.rsplit(".", 1)[-1] == "__main__":
                continue  # running it would start the command line
            names.append(info.name)
    return names


def _has_examples(name: str) -> bool:
    return any(t.examples for t in doctest.DocTestFinder().find(importlib.import_module(name)))


MODULES = [m for m in _modules() if _has_examples(m)]


def test_the_examples_are_found() -> None:
    assert len(MODULES) >= 15  # 16 modules carried examples when this test was written


@pytest.mark.parametrize("name", MODULES)
def test_module_examples_run(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert result.attempted > 0 and result.failed == 0, f"{name}: {result.failed} of {result.attempted} failed"
