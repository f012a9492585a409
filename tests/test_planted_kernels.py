"""Issue 25 §3: planted bugs in the compiled kernels (``optimized/include/*.h``), one corpus file each in
``tests/planted/`` (``BUG["kernel"]``: the header patch). Each is compiled as a variant of its extension module
(``tests/planted/_variant.py``) and must be found by ``swagkit verify`` at its defaults -- by the array entry
points' check against their twins (:mod:`swagkit.verify.arrays`), the only check that runs those kernels --
with a replay file that fails again on the variant and passes on the real build."""

from __future__ import annotations

import importlib
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from planted import _variant

from swagkit import optimized
from swagkit.verify.cli import main

#: the compiled pass only (conftest.py): a variant replaces a compiled extension module
pytestmark = pytest.mark.once

CORPUS = Path(__file__).parent / "planted"


def _kernel_bugs() -> list[str]:
    return [path.stem for path in sorted(CORPUS.glob("kernel_*.py"))]


def _bug(module: str) -> dict[str, Any]:
    return dict(importlib.import_module(f"planted.{module}").BUG)


def test_the_kernel_corpus_covers_every_kernel_family() -> None:
    assert len(_kernel_bugs()) >= 5
    headers = {_bug(m)["kernel"]["header"] for m in _kernel_bugs()}
    assert {"window_sum.h", "fiba_inorder.h"} <= headers and any(h.startswith("slickdeque") for h in headers)
    for module in _kernel_bugs():
        bug = _bug(module)
        assert bug["origin"] and importlib.import_module(f"planted.{module}").__doc__
        if "found" in bug:
            found, seeds = (int(x) for x in bug["found"].split("/"))
            assert seeds == 20 and found >= 19, (module, bug["found"])


@pytest.mark.parametrize("module", _kernel_bugs())
def test_each_kernel_bug_is_found_at_the_defaults_and_its_replay_fails_on_the_variant_only(
    module: str, tmp_path: Path
) -> None:
    assert optimized.COMPILED  # the variant replaces a compiled extension (this module runs in the compiled pass)
    bug = _bug(module)
    so = _variant.build(bug["kernel"])
    env = {**os.environ, "SWAGKIT_REPLAY_DIR": str(tmp_path)}
    argv = ["verify", *bug["argv"], "--no-spark", "--shrink-budget", "2", "--jobs", "1"]
    run = subprocess.run(_variant.verify_command(bug["kernel"], so, argv), capture_output=True, text=True, env=env)
    assert run.returncode == 1, run.stdout[-3000:] + run.stderr[-3000:]
    assert "-- wrong answer or state (correctness)" in run.stdout and "(it reproduces the failure)" in run.stdout
    replays = sorted(tmp_path.glob("arrays-*.jsonl"))
    assert replays
    again = subprocess.run(
        _variant.verify_command(bug["kernel"], so, ["replay", str(replays[0])]), capture_output=True, text=True
    )
    assert again.returncode == 1, again.stdout + again.stderr
    assert main(["replay", str(replays[0])]) == 0  # the real build agrees with its twin on the same call
