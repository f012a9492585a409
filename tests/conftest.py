"""Hypothesis profiles for the test suite, the one Spark session of a test run, and the protocol driver in C
compiled once per session (``c_driver``).

``ci`` (used by ``tools/check.sh``): no deadline (shared CI machines are noisy), derandomized and without an
example database, so every run explores the same examples. ``dev`` (default): no deadline, random exploration.
Select with ``HYPOTHESIS_PROFILE=ci``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

settings.register_profile("ci", deadline=None, derandomize=True, database=None, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """tools/check.sh runs the suite twice, compiled and pure-Python (``SWAGKIT_PASS``); a test marked ``once``
    does not depend on that switch and runs in one pass only: the compiled one, unless its module says
    ``ONCE_PASS = "pure"`` (which keeps the two passes about equally long). The pure pass also leaves out the
    ``reference`` cases of tests parametrized over implementations (:func:`_reference_case`). Without
    ``SWAGKIT_PASS`` every test runs."""
    which = os.environ.get("SWAGKIT_PASS")
    if which not in ("compiled", "pure"):
        return
    keep, drop = [], []
    for item in items:
        home = getattr(getattr(item, "module", None), "ONCE_PASS", "compiled")
        once_elsewhere = item.get_closest_marker("once") is not None and home != which
        (drop if once_elsewhere or _other_pass_case(item, which) else keep).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


def _other_pass_case(item: pytest.Item, which: str) -> bool:
    """Whether ``item`` is an implementation case the other pass runs: the pure pass leaves out the ``reference``
    cases (the compiled pass runs them); a module that sets ``SPLIT_IMPLEMENTATIONS = True`` runs its ``optimized``
    cases in the compiled pass and its ``reference`` cases in the pure pass only (there the optimized classes are
    the reference's own subclasses: the same code)."""
    reference = _reference_case(item)
    split = getattr(getattr(item, "module", None), "SPLIT_IMPLEMENTATIONS", False)
    if split and _optimized_case(item):
        return which == "pure"
    if reference:
        return which == ("compiled" if split else "pure")
    return False


def _optimized_case(item: pytest.Item) -> bool:
    callspec = getattr(item, "callspec", None)
    return callspec is not None and "optimized" in callspec.id.split("-")


def _reference_case(item: pytest.Item) -> bool:
    """Whether ``item`` is the ``reference`` case of a test parametrized over implementations (its id has the
    component ``reference``, e.g. ``[two_stacks-affine-reference]``). swagkit.reference is pure Python and does not
    look at SWAGKIT_PUREPYTHON: the compiled pass runs these cases already, so the pure pass leaves them out and
    runs the ``optimized`` cases (the fallback) instead."""
    callspec = getattr(item, "callspec", None)
    return callspec is not None and "reference" in callspec.id.split("-")


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    """The one local Spark session of a test run (the JVM takes 8-16 s to start): every Spark test asks for
    it, and the CLI's Spark stage finds it through ``getOrCreate``."""
    from swagkit.verify.spark import local_session

    session = local_session("swagkit-tests")
    yield session
    session.stop()


#: tests that compile tests/protocol/daba_lite.c
needs_cc = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")


@pytest.fixture(scope="session")
def c_driver(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], str]:
    """``c_driver(flag)``: the path of tests/protocol/daba_lite.c compiled with ``-D<flag>`` (``""``: the correct
    program; ``BUG_FLIP_ORDER``, ``BUG_SIZE``, ``BUG_HANG``, ``BUG_GARBAGE`` ... plant its bugs), once per session."""
    out = tmp_path_factory.mktemp("protocol")
    built: dict[str, str] = {}
    source = Path(__file__).parent / "protocol" / "daba_lite.c"

    def compile_variant(flag: str) -> str:
        if flag not in built:
            exe = out / f"daba_lite{'_' + flag.lower() if flag else ''}"
            cmd = ["cc", "-O2", "-Wall", "-Werror", "-std=c99", "-D_POSIX_C_SOURCE=200809L"]
            cmd += [f"-D{flag}"] if flag else []
            subprocess.run([*cmd, "-o", str(exe), str(source)], check=True)
            built[flag] = str(exe)
        return built[flag]

    return compile_variant
