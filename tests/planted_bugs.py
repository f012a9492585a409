"""Deliberately broken algorithms: the verification tools must catch each of these.

Not collected by pytest (no ``test_`` prefix); imported by tests and by CrossHair runs.
"""

from __future__ import annotations

from typing import Any

from swagkit.reference.daba_lite import DABALite
from swagkit.reference.fiba import FiBA, Node
from swagkit.reference.slickdeque import SlickDequeNonInv
from swagkit.verify.symbolic import _run, _run_fiba


class SwappedShrink(DABALite):
    """DABA Lite with the operands of shrink's second ⊗ swapped (``ΠA ⊗ *(A−1)`` instead of
    ``*(A−1) ⊗ ΠA``): correct for every commutative monoid, wrong for non-commutative ones."""

    def _fixup(self) -> None:
        if self.F == self.B or self.L == self.B or self.L == self.R:
            super()._fixup()
            return
        d = self.deque
        new_l = self._otimes(self._pi_L(), self.aggRA)
        new_am1 = self._otimes(self._pi_A(), d.get(self.A - 1))  # swapped: ΠA ⊗ *(A−1)
        d.set(self.L, new_l)  # both ⊗ returned (atomic like the real fixup: only the operand order is wrong)
        d.set(self.A - 1, new_am1)
        self.L = self.L + 1
        self.A = self.A - 1
        self.last_case = "shrink"


def agrees_swapped_shrink(pattern: int) -> bool:
    """The planted bug under the same contract as :mod:`swagkit.verify.symbolic`.

    post: __return__
    """
    return _run(SwappedShrink, pattern)


class MergeSeparatorLast(FiBA):
    """FiBA whose merge appends the separator after the right sibling's entries instead of between the two
    nodes' entries: times out of order inside the merged node, and a wrong fold for non-commutative ⊗."""

    def _merge(self, parent: Node, i: int) -> None:
        assert parent.children is not None
        right = parent.children[i + 1]
        sep: Any = (parent.times[i], parent.values[i])
        right.times.append(sep[0])
        right.values.append(sep[1])
        parent.times[i], parent.values[i] = right.times.pop(0), right.values.pop(0)
        super()._merge(parent, i)


def agrees_merge_separator_last(pattern: int) -> bool:
    """The planted FiBA bug under the same contract as :func:`swagkit.verify.symbolic.agrees_fiba`.

    post: __return__
    """
    return _run_fiba(MergeSeparatorLast, pattern)


class ForgetsFailedCombine(FiBA):
    """FiBA that swallows a ⊗ failing in the middle of its tree surgery and stays usable: its aggregates are stale,
    so later answers are silently wrong (issue 12). The machines' ``combine_raises`` rule must catch it."""

    def _finish(self) -> None:
        self._fault = None
        self._broken = False


class PaperAnswerLoop(SlickDequeNonInv):
    """SlickDeque (Non-Inv) with 001 Algorithm 2's answer loop as printed (the erratum, notes §3.2): the loop
    stops at a node with ``seq == t − R``, the partial that has just *left* range R, instead of skipping it
    (``<`` where ``<=`` is right). Only ``query_all`` (the multi-query answer loop, cursor carried across ranges)
    has it: plain-mode ``query``/``query_range`` are unaffected, so only a machine that drives the multi-query
    mode can see it."""

    def _query_all(self) -> dict[int, Any]:
        lower = self.monoid.lower
        if not self.nodes:
            e = lower(self._one)
            return {r: e for r in self.ranges}
        out: dict[int, Any] = {}
        it = iter(self.nodes)
        seq, val = next(it)
        t = self.inserted - 1
        for r in self.ranges:
            while seq < t - r:  # the erratum: the paper's `i.pos < startPos`
                seq, val = next(it)
            out[r] = lower(val)
        return out
