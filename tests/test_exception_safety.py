"""Exception safety under a raising ⊗ (issue 12, guarantee 3), for every structure that takes a monoid, in both
implementations: ``combine`` fails once at every ⊗ position of every operation of a script that reaches every
case of the algorithm (flips, fixup cases, splits and merges, bulk operations). The structure keeps its documented
guarantee (``exception_safety``) and then answers the rest of the script exactly like the model; never a silent
wrong answer. See ``hardening.py``."""

from __future__ import annotations

import pytest
from hardening import CASES_BY_ID, InjectedFault, run_faults

CASES = list(CASES_BY_ID.values())


@pytest.mark.parametrize("case", CASES, ids=str)
def test_combine_raising_at_every_position(case) -> None:  # type: ignore[no-untyped-def]
    assert run_faults(case) > 20


@pytest.mark.parametrize("case", CASES, ids=str)
def test_keyboard_interrupt_inside_combine(case) -> None:  # type: ignore[no-untyped-def]
    """Ctrl-C arrives as a ``KeyboardInterrupt`` raised inside ``combine`` (a ``BaseException``, not an
    ``Exception``): the roll-back must not depend on catching ``Exception`` only."""
    assert run_faults(case, exc=KeyboardInterrupt, every=3) > 5


def test_injected_fault_is_not_a_swagkit_error() -> None:
    from swagkit.spec.errors import SwagkitError

    assert not issubclass(InjectedFault, SwagkitError)
