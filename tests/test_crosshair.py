"""CrossHair symbolic execution of the reference layer (pure Python, where CrossHair stays symbolic).

Two runs: the contracts of :mod:`swagkit.verify.symbolic` hold (the four in-order algorithms, FiBA, and 003's
Claim 1 on split pieces), and the same contracts catch planted order bugs in DABA Lite and FiBA (so a clean run
means something).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

# Symbolic runs touch only spec and reference, so tools/check.sh runs them once (in the compiled pass).
pytestmark = pytest.mark.crosshair

TESTS = Path(__file__).resolve().parent


def _crosshair(target: str, timeout: int) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in [str(TESTS), os.environ.get("PYTHONPATH", "")] if p))
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "crosshair",
            "check",
            "--analysis_kind=PEP316",
            f"--per_condition_timeout={timeout}",
            target,
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )


def test_reference_contracts_hold_symbolically() -> None:
    import swagkit.verify.symbolic as symbolic

    result = _crosshair(str(symbolic.__file__), 5)  # a file path: module names trip over the namespace package
    assert result.returncode == 0, result.stdout + result.stderr
    assert "error" not in result.stdout


def test_crosshair_finds_the_planted_order_bug() -> None:
    result = _crosshair(str(TESTS / "planted_bugs.py"), 40)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "agrees_swapped_shrink" in result.stdout and "false when calling" in result.stdout
    assert "agrees_merge_separator_last" in result.stdout  # FiBA: a merge that misplaces the separator
