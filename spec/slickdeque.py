"""SlickDeque (paper 001): monoid requirements, the dominance test, the answer rule and the ⊗ budgets.

Shared by :mod:`swagkit.reference.slickdeque`, :mod:`swagkit.optimized` and the checkers, so that every layer
accepts the same monoids, raises the same errors and pops the same nodes.

* **Inv** (Algorithm 1) keeps one running aggregate per distinct range and updates it with
  ``ans ← inv(old) ⊗ (ans ⊗ new)``: the *left* inverse of the oldest partial, so it is exact for every
  invertible monoid, commutative or not (the paper's ``(ans ⊕ new) ⊖ old`` is the commutative special case;
  notes §7.5). ``inverse`` is the monoid's unary two-sided inverse; the paper's ``⊖`` is one ⊗ with it, so a
  range costs exactly **2 ⊗ per partial** (plus one ``inverse`` call, counted separately). ``sum_f64`` is not
  declared invertible (``a + b − b ≠ a`` in floats) but is accepted with drift control that keeps every answer
  within its window's own any-order bound (:mod:`swagkit.spec.f64_track`).
* **Non-Inv** (Algorithm 2) needs a **selective** monoid (``a ⊗ b ∈ {a, b}``), not merely a non-invertible one
  (OR, GCD, union are neither; notes §2.2): constructing it with a monoid not declared ``selective`` raises
  :class:`UnsupportedMonoidError` naming algorithms that accept it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from .errors import UnsupportedMonoidError
from .monoid import Monoid

__all__ = [
    "GENERAL_ALGORITHMS",
    "require_selective",
    "require_invertible",
    "normalize_ranges",
    "selects_right",
    "answer_index",
    "paper_answer_index",
    "multi_query_budget",
    "F64_UNIT_ROUNDOFF",
]

#: FIFO algorithms that accept every monoid (named in UnsupportedMonoidError messages)
GENERAL_ALGORITHMS = ("daba_lite", "two_stacks_lite", "daba", "two_stacks", "reactive", "flatfit")

#: unit roundoff of IEEE-754 binary64 (round to nearest)
F64_UNIT_ROUNDOFF = 2.0**-53


def require_selective(monoid: Monoid[Any, Any, Any], algorithm: str = "slickdeque_noninv") -> None:
    """Raise :class:`UnsupportedMonoidError` unless ``monoid`` declares ``selective=True``."""
    if monoid.selective:
        return
    alternatives = list(GENERAL_ALGORITHMS)
    if monoid.invertible or monoid.fast_path == "sum_f64":
        alternatives.insert(0, "slickdeque_inv")
    raise UnsupportedMonoidError(
        f"{algorithm} needs a selective monoid (a ⊗ b is always a or b, e.g. max, min, argmax, first); "
        f"{monoid.name!r} is not declared selective (being non-invertible is not enough: OR, GCD and set union "
        f"are neither). Algorithms that accept it: {', '.join(alternatives)}"
    )


def require_invertible(monoid: Monoid[Any, Any, Any], algorithm: str = "slickdeque_inv") -> None:
    """Raise :class:`UnsupportedMonoidError` unless ``monoid`` is invertible (or the drift-controlled ``sum_f64``)."""
    if (monoid.invertible and monoid.inverse is not None) or monoid.fast_path == "sum_f64":
        return
    alternatives = list(GENERAL_ALGORITHMS)
    if monoid.selective:
        alternatives.insert(0, "slickdeque_noninv")
    raise UnsupportedMonoidError(
        f"{algorithm} needs an invertible monoid (declared invertible=True with an inverse; sum_f64 is accepted "
        f"with periodic recomputation); {monoid.name!r} is not. Algorithms that accept it: "
        f"{', '.join(alternatives)}"
    )


def normalize_ranges(ranges: Iterable[int] | None) -> tuple[int, ...]:
    """Distinct ranges, longest first (the order Algorithm 2's single pass needs; notes §7.9).

    Raises ``ValueError`` for a range below 1 (R = 0 breaks both variants, notes §7.11) and ``TypeError`` for a
    non-integer. ``None`` or empty gives ``()`` (plain FIFO mode)."""
    if ranges is None:
        return ()
    out: set[int] = set()
    for r in ranges:
        if isinstance(r, bool) or not isinstance(r, int):
            raise TypeError(f"ranges must be ints, got {r!r}")
        if r < 1:
            raise ValueError(f"every range must be at least 1 partial, got {r}")
        out.add(r)
    return tuple(sorted(out, reverse=True))


def selects_right(monoid: Monoid[Any, Any, Any], result: Any, older: Any, newer: Any) -> bool:
    """The dominance test of Algorithm 2 line 16, ``(back ⊕ new) == new``, with **full-value** equality (notes
    §7.3): ``result`` (``= older ⊗ newer``) selected the right, younger operand when it *is* ``newer`` or equals
    it by ``==`` on the whole value — never by comparing keys only, which pops the wrong argmax node. Exact
    ``==``, not the monoid's (possibly tolerant) ``eq``, and never object identity alone, so the compiled typed
    paths (``back <= new`` for max, ``back >= new`` for min) pop exactly the same nodes. Consequences: for max
    and min an older equal value is popped (the deque is strictly monotone); ``argmax_first`` keeps an older
    tie ((7, 'b') ⊗ (7, 'c') = (7, 'b') ≠ (7, 'c')); ``argmax`` (ties → right) pops it. ``older`` and ``monoid``
    are accepted for operators with an explicit "prefers right" predicate."""
    return result is newer or bool(result == newer)


def answer_index(seqs: Sequence[int], t: int, r: int, start: int = 0) -> int:
    """Index of the answer node for range ``r`` at step ``t``: the first node (from ``start``) with
    ``seq > t − r`` (the corrected answer loop, notes §3.2: ``while it.seq <= t − R: it = it.next``)."""
    i = start
    while seqs[i] <= t - r:
        i += 1
    return i


def paper_answer_index(positions: Sequence[int], curr_pos: int, w: int, r: int, corrected: bool) -> int:
    """Algorithm 2's answer loops over ``pos mod W`` (lines 22–39), literally (``corrected=False``) or with the
    erratum fixed (``<=`` instead of ``<`` on ``startPos``). The literal loops accept the node at ``startPos``,
    which has just left the window: Example 3, steps 4 and 5, then answer 6 instead of 5 and 3. Kept so the
    regression test can show both."""
    start_pos = curr_pos - r
    crossed = start_pos < 0
    if crossed:
        start_pos += w
    i = 0

    def before(p: int) -> bool:
        return p <= start_pos if corrected else p < start_pos

    if not crossed:
        while before(positions[i]) or positions[i] > curr_pos:
            i += 1
    else:
        while before(positions[i]) and positions[i] > curr_pos:
            i += 1
    return i


def multi_query_budget(variant: str, distinct_ranges: int, steps: int) -> int:
    """⊗ budget of ``steps`` partials answered for ``distinct_ranges`` ranges (001 §4, Table 1).

    * ``"inv"``: exactly ``2 · distinct_ranges`` per partial (one ⊕ of the new partial, one ⊗ with the inverse
      of the expiring one), independent of slides and of how many queries share a range: the returned value is
      the exact count.
    * ``"noninv"``: at most ``2N − 1`` over N partials whatever the number of ranges (each partial costs one ⊗
      when pushed onto a non-empty deque and one when popped; answer loops use none): an upper bound.
    """
    if steps < 0 or distinct_ranges < 0:
        raise ValueError("steps and distinct_ranges must be non-negative")
    if variant == "inv":
        return 2 * distinct_ranges * steps
    if variant == "noninv":
        return max(2 * steps - 1, 0)
    raise ValueError(f"variant must be 'inv' or 'noninv', got {variant!r}")
