"""Invariant checkers, one per algorithm, over plain snapshots (:mod:`swagkit.spec.snapshots`).

Each ``check_<algorithm>(state, monoid, window)`` takes the snapshot, the monoid and the lifted window contents
(oldest first, as kept by the ADT model) and raises :class:`~swagkit.spec.errors.InvariantViolation` naming the
first invariant that fails, in the paper's words, with the offending state. ``CHECKERS`` maps algorithm ids to
checkers.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from ..monoid import Monoid
from .daba import check_daba
from .daba_lite import check_daba_lite
from .fiba import check_fiba
from .flatfat import check_flatfat
from .flatfit import check_flatfit
from .reactive import check_reactive
from .recalc import check_recalc
from .slickdeque import check_slickdeque_inv, check_slickdeque_noninv
from .two_stacks import check_two_stacks
from .two_stacks_lite import check_two_stacks_lite

CheckerFn = Callable[[Any, Monoid[Any, Any, Any], Sequence[Any]], None]

CHECKERS: dict[str, CheckerFn] = {
    "recalc": check_recalc,
    "two_stacks": check_two_stacks,
    "two_stacks_lite": check_two_stacks_lite,
    "daba": check_daba,
    "daba_lite": check_daba_lite,
    "slickdeque_inv": check_slickdeque_inv,
    "slickdeque_noninv": check_slickdeque_noninv,
    "reactive": check_reactive,
    "flatfit": check_flatfit,
    "fiba": check_fiba,  # window: (time, lifted value) pairs of the out-of-order model (swagkit.spec.ooo)
}

__all__ = ["CHECKERS", "check_recalc", "check_two_stacks", "check_two_stacks_lite", "check_daba", "check_daba_lite", "check_slickdeque_inv", "check_slickdeque_noninv", "check_flatfat", "check_reactive", "check_flatfit"]
__all__ += ["check_fiba"]
