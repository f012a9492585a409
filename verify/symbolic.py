"""Contracts for CrossHair: symbolic execution of the pure-Python layers (spec and reference).

CrossHair explores the *paths* of a function with symbolic inputs, which suits the fixup cases of DABA (a
short symbolic operation sequence reaches singleton, flip, shift and shrink) and FiBA's rebalancing (splits,
merges, moves and spine repairs at μ = 2). It is symbolic only on pure Python, so the optimized layer is checked
differentially elsewhere. ``split_pieces_claim1`` states 003's Claim 1 (as corrected in the notes) over
symbolic ``p`` and ``μ``.

Each ``agrees_*`` function runs an operation list through one algorithm and the ADT model and returns True;
its PEP 316 postcondition (``post: __return__``) is what CrossHair tries to falsify, and the assertions inside
(model equality, invariant checker, budgets) are the real contract::

    crosshair check --analysis_kind=PEP316 --per_condition_timeout=20 swagkit.verify.symbolic

``swagkit verify --crosshair`` and the test suite run the same check.
"""

from __future__ import annotations

from typing import Any

from swagkit.reference.daba import DABA
from swagkit.reference.daba_lite import DABALite
from swagkit.reference.fiba import FiBA
from swagkit.reference.two_stacks import TwoStacks
from swagkit.reference.two_stacks_lite import TwoStacksLite
from swagkit.spec.adt import FifoSwag
from swagkit.spec.budgets import BUDGETS, BudgetMeter
from swagkit.spec.checkers import CHECKERS
from swagkit.spec.errors import SwagkitError
from swagkit.spec.fiba import split_pieces
from swagkit.spec.library import matrix2x2, string_concat
from swagkit.spec.ooo import TimedWindow

_GENERATORS = ((1, 1, 0, 1), (0, 1, 1, 0), (2, 0, 0, 1), (1, 0, 3, 1))  # non-commuting 2×2 matrices
STEPS = 14


def _run(cls: Any, pattern: int) -> bool:
    """Run ``STEPS`` operations: bit i of ``pattern`` set → insert ``_GENERATORS[i % 4]``, clear → evict
    (when non-empty). After each, check model equality and the budget; at the end, the invariant checker.

    Only the insert/evict *pattern* is symbolic: that is what selects DABA's fixup cases, and keeping the
    values concrete keeps CrossHair's path search on the control flow that matters.
    """
    monoid = matrix2x2()
    agg = cls(monoid)
    model: FifoSwag[Any, Any, Any] = FifoSwag(monoid)
    meter = BudgetMeter(BUDGETS[cls.algorithm])
    try:
        for i in range(STEPS):
            n = len(agg)
            before = agg.combine_count
            if (pattern >> i) & 1:
                value = _GENERATORS[i % 4]
                agg.insert(value)
                model.insert(value)
                meter.record("insert", n, agg.combine_count - before)
            elif n:
                agg.evict()
                model.evict()
                meter.record("evict", n, agg.combine_count - before)
            if agg.query() != model.query():
                return False
        # The O(n) checker runs once, at the end: per step it would multiply CrossHair's cost per path.
        CHECKERS[cls.algorithm](agg.snapshot(), monoid, model.values())
    except SwagkitError:  # a broken invariant or budget is a counterexample, reported as ``False``
        return False
    return True


def agrees_two_stacks(pattern: int) -> bool:
    """Two-Stacks agrees with the model, keeps its invariants and budgets.

    post: __return__
    """
    return _run(TwoStacks, pattern)


def agrees_two_stacks_lite(pattern: int) -> bool:
    """Two-Stacks Lite agrees with the model, keeps its invariants and budgets.

    post: __return__
    """
    return _run(TwoStacksLite, pattern)


def agrees_daba(pattern: int) -> bool:
    """DABA agrees with the model, keeps its invariants and budgets.

    post: __return__
    """
    return _run(DABA, pattern)


def agrees_daba_lite(pattern: int) -> bool:
    """DABA Lite agrees with the model, keeps its invariants and budgets.

    post: __return__
    """
    return _run(DABALite, pattern)


def split_pieces_claim1(p: int, mu: int) -> list[int]:
    """003 Claim 1, the corrected form of the notes: a temporary arity ``2μ < p`` splits into pieces of arity
    μ+1 and one last piece of arity in [μ, 2μ] (symbolic in both ``p`` and ``μ``, over the range the issue
    asks for: p in (2μ, 20μ]).

    pre: 2 <= mu <= 16
    pre: 2 * mu < p <= 20 * mu
    post: sum(__return__) == p
    post: len(__return__) >= 2
    post: all(b == mu + 1 for b in __return__[:-1])
    post: mu <= __return__[-1] <= 2 * mu
    """
    return split_pieces(p, mu)


_FIBA_STEPS = 10


def _run_fiba(cls: Any, pattern: int) -> bool:
    """Two bits of ``pattern`` per step choose the operation: an insert at a time that collides with earlier
    ones (old ⊗ new at an existing time, or a new key between existing ones), evict, remove of the youngest, or
    a bulk evict of the oldest time; the values are concrete, so CrossHair's search is over the tree's control
    flow (splits, merges, moves, spine repairs). μ = 2 and a non-commutative monoid. Model equality after each
    step, the invariant checker at the end."""
    monoid = string_concat()
    agg = cls(monoid, 2)
    model: TimedWindow[Any, Any, Any] = TimedWindow(monoid)
    try:
        for i in range(_FIBA_STEPS):
            op = (pattern >> (2 * i)) & 3
            if op == 0 or not len(model):
                t, v = (i * 7) % 11, "abcdefghij"[i]
                agg.insert(t, v)
                model.insert(t, v)
            elif op == 1:
                agg.evict()
                model.evict()
            elif op == 2:
                t = model.youngest()
                agg.remove(t)
                model.remove(t)
            else:
                t = model.oldest() + 1
                if agg.bulk_evict(t) != model.bulk_evict(t):
                    return False
            if agg.query() != model.query() or len(agg) != len(model):
                return False
        CHECKERS["fiba"](agg.snapshot(), monoid, model.items())
    except SwagkitError:
        return False
    return True


def agrees_fiba(pattern: int) -> bool:
    """The reference FiBA agrees with the out-of-order model, keeps its invariants and never raises on valid
    input.

    post: __return__
    """
    return _run_fiba(FiBA, pattern)
