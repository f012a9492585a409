"""Invariant checkers, one per algorithm, over plain snapshots (:mod:`swagkit.spec.snapshots`).

Each ``check_<algorithm>(state, monoid, window)`` takes the snapshot, the monoid and the lifted window contents
(oldest first, as kept by the ADT model) and raises :class:`~swagkit.spec.errors.InvariantViolation` naming the
first invariant that fails, in the paper's words, with the offending state. ``CHECKERS`` maps checker ids to
checkers; it is filled from the algorithm cards (:mod:`swagkit.spec.algorithms`, which lists each card's
``checker`` under its ``checker_id``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

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

#: Checkers by checker id (e.g. ``"daba"``; FiBA's variants share ``"fiba"``). Empty until
#: :mod:`swagkit.spec.algorithms` is imported, which ``import swagkit.spec`` always does first: the cards there
#: import the modules of this package, so this package cannot import them back to build the dict itself.
CHECKERS: dict[str, CheckerFn] = {}

__all__ = [
    "CHECKERS",
    "check_recalc",
    "check_two_stacks",
    "check_two_stacks_lite",
    "check_daba",
    "check_daba_lite",
    "check_slickdeque_inv",
    "check_slickdeque_noninv",
    "check_flatfat",
    "check_reactive",
    "check_flatfit",
    "check_fiba",
]
