"""Re-entrant and concurrent use (issue 12, guarantee 1), for every structure that takes a monoid, in both
implementations. Each check runs in a child process (``hardening.py`` as a script), so that a crash of compiled
code is a failed test with its output, not a dead test run.

* re-entry: from inside every ⊗ of every operation of the kind's script, every operation of the structure is
  called again; it must raise :class:`ReentrantCallError` before changing anything, and the outer operation then
  completes correctly (refusal swallowed by ``combine``) or fails keeping the exception guarantee (propagated);
* threads: a writer and a reader thread share a structure whose ``combine`` yields the GIL on every call; every
  call succeeds or is refused, the reader only ever sees states of the writer's history, and the final state is
  the model's.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from hardening import CASES_BY_ID

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = list(CASES_BY_ID.values())


def _child(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, os.path.join(HERE, "hardening.py"), *args],
        capture_output=True, text=True, timeout=900, env={**os.environ, "PYTHONFAULTHANDLER": "1"},
    )


@pytest.mark.parametrize("case", CASES, ids=str)
def test_reentrant_calls_are_refused_before_any_change(case) -> None:  # type: ignore[no-untyped-def]
    done = _child("reentry", case.algorithm, case.implementation)
    assert done.returncode == 0, f"exit {done.returncode}\n{done.stdout}\n{done.stderr[-4000:]}"


@pytest.mark.parametrize("case", [c for c in CASES if c.kind.name in ("fifo", "handles")], ids=str)
def test_two_threads_share_a_structure(case) -> None:  # type: ignore[no-untyped-def]
    done = _child("threads", case.algorithm, case.implementation)
    assert done.returncode == 0, f"exit {done.returncode}\n{done.stdout}\n{done.stderr[-4000:]}"
    assert "'writes'" in done.stdout
