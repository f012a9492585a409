"""Deliberately broken algorithms: the verification tools must catch each of these.

Not collected by pytest (no ``test_`` prefix); imported by tests and by CrossHair runs. The bugs ``swagkit
verify --impl`` aims at live in the corpus, one file each (``tests/planted/``); this module gathers them with
CrossHair's contracts and the erratum classes.
"""

from __future__ import annotations

from typing import Any

from planted.merge_separator_last import MergeSeparatorLast
from planted.swapped_shrink import SwappedShrink

from swagkit.reference.slickdeque import SlickDequeNonInv
from swagkit.verify.symbolic import _run, _run_fiba


def agrees_swapped_shrink(pattern: int) -> bool:
    """The planted bug under the same contract as :mod:`swagkit.verify.symbolic`.

    post: __return__
    """
    return _run(SwappedShrink, pattern)


def agrees_merge_separator_last(pattern: int) -> bool:
    """The planted FiBA bug under the same contract as :func:`swagkit.verify.symbolic.agrees_fiba`.

    post: __return__
    """
    return _run_fiba(MergeSeparatorLast, pattern)


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
