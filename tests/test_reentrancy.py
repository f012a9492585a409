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
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "PYTHONFAULTHANDLER": "1"},
    )


#: variants of ``fiba`` (another μ, bulk operations as loops) re-enter at every third ⊗ position, ``fiba`` itself at
#: every second, and test_hardening_fiba.py re-enters from inside every kind of surgery
SAMPLED = {"fiba": 2, "fiba_mu2": 3, "fiba_mu8": 3, "fiba_loop": 3}


@pytest.mark.parametrize("case", CASES, ids=str)
def test_reentrant_calls_are_refused_before_any_change(case) -> None:  # type: ignore[no-untyped-def]
    done = _child("reentry", case.algorithm, case.implementation, str(SAMPLED.get(case.algorithm, 1)))
    assert done.returncode == 0, f"exit {done.returncode}\n{done.stdout}\n{done.stderr[-4000:]}"


@pytest.mark.parametrize("case", [c for c in CASES if c.kind.name in ("fifo", "handles")], ids=str)
def test_two_threads_share_a_structure(case) -> None:  # type: ignore[no-untyped-def]
    done = _child("threads", case.algorithm, case.implementation)
    assert done.returncode == 0, f"exit {done.returncode}\n{done.stdout}\n{done.stderr[-4000:]}"
    assert "'writes'" in done.stdout


_DEL_SCRIPT = r"""
import gc, sys
import swagkit.reference as ref, swagkit.optimized as opt
from swagkit.spec import Monoid, ReentrantCallError

impl = ref if sys.argv[1] == "reference" else opt
seen = []
budget = [0]

class Noisy:
    '''A value whose __del__ calls back into the structure (dropped while an operation runs).'''
    def __init__(self, text):
        self.text = text
    def __del__(self):
        if budget[0] <= 0:  # every callback drops more values: bound the cascade
            return
        budget[0] -= 1
        try:
            agg.insert(Noisy("!"))
            seen.append("accepted")
        except ReentrantCallError:
            seen.append("refused")

def cat(a, b):
    return Noisy(a.text + b.text)

for name in ("TwoStacks", "TwoStacksLite", "DABA", "DABALite", "FlatFIT", "ReactiveAggregator"):
    agg = getattr(impl, name)(Monoid(identity=Noisy(""), combine=cat, name="noisy"))
    budget[0] = 40
    for ch in "abcdefgh":
        agg.insert(Noisy(ch))
    for _ in range(5):
        agg.evict()
        agg.query()
    budget[0] = 0
    gc.collect()
    answer = agg.query().text
    letters = answer.replace("!", "")
    # one character per value held, the letters a suffix of the inserted ones, in order
    assert len(answer) == len(agg) and "abcdefgh".endswith(letters), (name, answer, len(agg))
print("survived", seen.count("refused"))
"""


@pytest.mark.parametrize("implementation", ["reference", "optimized"])
def test_a_values_del_calling_back_in_is_refused_or_harmless(implementation: str) -> None:
    """Decrefs inside an operation can run a value's ``__del__``; if it calls back into the structure the guard
    refuses it (the running operation is undisturbed) or, between operations, it is an ordinary call."""
    done = subprocess.run(
        [sys.executable, "-c", _DEL_SCRIPT, implementation],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONFAULTHANDLER": "1"},
    )
    assert done.returncode == 0 and "survived" in done.stdout, (
        f"exit {done.returncode}\n{done.stdout}\n{done.stderr[-3000:]}"
    )
    assert int(done.stdout.split()[-1]) > 0  # some __del__ ran while an operation held the guard


# tests/conftest.py: the compiled pass runs the optimized cases, the pure pass the reference ones (in the pure pass
# the optimized classes are the reference's own subclasses: running both there would run the same code twice)
SPLIT_IMPLEMENTATIONS = True
