"""Element names through the reference: a traced monoid whose aggregates carry the word of elements they cover.

The papers write a partial aggregate by the elements it covers (000 §5: ``cd..l`` is c ⊗ d ⊗ … ⊗ l). To print
states that way, ``swagkit explain`` runs the reference over :func:`traced` ``(monoid)``: every aggregate is a
:class:`Traced` pair of the real value and the *word* of element ids ⊗ put together, so a snapshot names what
each stored partial is made of -- no guessing from values (a sum of 6 could be many things).

Words: ids count from 1 in insertion order, an inverse is the negated id. Over an invertible monoid words are
reduced as in a free group (``a ⊗ a⁻¹`` cancels; for a commutative one, as a multiset), so Subtract-on-Evict's
``abc ⊗ a⁻¹`` reads ``bc``. Equality of two :class:`Traced` compares the values only: SlickDeque (Non-Inv)'s
dominance test (``back ⊗ new == new``, 001 Algorithm 2) must decide exactly as over the plain monoid.

>>> from swagkit.spec.library import LIBRARY
>>> m = traced(LIBRARY["sum"].factory())
>>> ab = m.combine(m.lift(Element(1, 3)), m.lift(Element(2, 4)))
>>> ab.value, ab.word, m.combine(m.inverse(m.lift(Element(1, 3))), ab).word
(7, (1, 2), (2,))
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from swagkit.spec.monoid import Monoid

__all__ = ["Element", "Traced", "traced", "join_words"]


@dataclass(frozen=True)
class Element:
    """An input value as ``swagkit explain`` feeds it to the reference: the value and the element's id."""

    id: int
    value: Any


@dataclass(frozen=True, eq=False)
class Traced:
    """An aggregate: the real ``value`` and the ``word`` of element ids it was combined from (oldest first)."""

    value: Any
    word: tuple[int, ...]

    def __eq__(self, other: object) -> bool:
        # values only: an algorithm's comparisons (SlickDeque's dominance test) must not see the words
        return isinstance(other, Traced) and bool(self.value == other.value)

    def __hash__(self) -> int:
        try:
            return hash(self.value)
        except TypeError:
            return 0


def join_words(
    left: tuple[int, ...], right: tuple[int, ...], *, invertible: bool, commutative: bool
) -> tuple[int, ...]:
    """The word of ``left ⊗ right``: concatenation, reduced when the monoid has inverses.

    >>> join_words((1, 2, 3), (-3,), invertible=True, commutative=False)
    (1, 2)
    >>> join_words((-1,), (1, 2), invertible=True, commutative=True)
    (2,)
    >>> join_words((1,), (1,), invertible=False, commutative=True)
    (1, 1)
    """
    if not invertible:
        return left + right
    if commutative:  # a multiset with signed multiplicities, shown in insertion order
        counts: Counter[int] = Counter()
        for e in left + right:
            counts[abs(e)] += 1 if e > 0 else -1
        return tuple(e if counts[e] > 0 else -e for e in sorted(counts) for _ in range(abs(counts[e])))
    stack: list[int] = list(left)
    for e in right:
        if stack and stack[-1] == -e:
            stack.pop()
        else:
            stack.append(e)
    return tuple(stack)


def traced(monoid: Monoid[Any, Any, Any]) -> Monoid[Any, Any, Any]:
    """``monoid`` with :class:`Traced` aggregates: the same properties (so the same cards accept it), no typed
    fast path (the reference takes its generic path, whose structure the fast paths mirror exactly); ``lift``
    takes an :class:`Element`, ``lower`` keeps the word (``query`` answers say what they cover)."""
    base_inverse = monoid.inverse
    inv, comm = monoid.invertible, monoid.commutative

    def combine(a: Traced, b: Traced) -> Traced:
        return Traced(monoid.combine(a.value, b.value), join_words(a.word, b.word, invertible=inv, commutative=comm))

    def lift(e: Element) -> Traced:
        return Traced(monoid.lift(e.value), (e.id,))

    def lower(a: Traced) -> Traced:
        return Traced(monoid.lower(a.value), a.word)

    inverse: Callable[[Traced], Traced] | None = None
    if base_inverse is not None:
        invert = base_inverse

        def inverse(a: Traced) -> Traced:
            return Traced(invert(a.value), tuple(-e for e in reversed(a.word)))

    return Monoid(
        identity=Traced(monoid.identity, ()),
        combine=combine,
        lift=lift,
        lower=lower,
        name=monoid.name,
        commutative=comm,
        invertible=inv,
        selective=monoid.selective,
        inverse=inverse,
        tolerance=monoid.tolerance,
    )
