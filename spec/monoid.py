"""Monoids, the algebra every SWAG algorithm in swagkit is generic over.

Paper 000 §2.1–2.2: a monoid is ``(S, ⊗, 1)`` with an associative ``⊗`` and an identity ``1``. Aggregations that
are not monoids themselves are couched as ``lift`` (input → aggregate), ``combine`` (the monoid's ``⊗``) and
``lower`` (aggregate → output). A :class:`Monoid` carries all four plus *declared* algebraic properties:

* ``commutative`` -- ``a ⊗ b == b ⊗ a``;
* ``invertible`` -- an ``inverse`` exists with ``inverse(a) ⊗ a ⊗ b == b`` and ``a ⊗ b ⊗ inverse(b) == a``
  (for the papers' "left inverse" of 000 §2.1, ``a ⊗ b ⊗ inv(a) == b``, commutativity is also needed);
* ``selective`` -- ``a ⊗ b`` is always one of ``a`` or ``b`` (max, min, first, last, argmax ...).

Declared properties are claims, not facts: :func:`check_laws` (and the per-law functions below) search sample
values for a counterexample and return it, so a wrong declaration is reported rather than trusted.

Algorithms call ``combine`` directly; they never rely on a property the monoid does not declare.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Generic, TypeVar

In = TypeVar("In")
Agg = TypeVar("Agg")
Out = TypeVar("Out")

__all__ = [
    "Monoid",
    "as_monoid",
    "LawViolation",
    "CombineCounter",
    "counted",
    "fold",
    "check_laws",
    "check_associativity",
    "check_identity",
    "check_commutativity",
    "check_inverse",
    "check_selectivity",
]


def _same(x: Any) -> Any:
    return x


def _exact_eq(a: Any, b: Any) -> bool:
    return bool(a == b)


@dataclass(frozen=True, eq=False)
class Monoid(Generic[In, Agg, Out]):
    """An aggregation monoid with lift and lower (paper 000 §2.2).

    >>> m = Monoid(identity="", combine=lambda a, b: a + b, name="concat")
    >>> m.lower(m.combine(m.lift("ab"), m.lift("c")))
    'abc'

    Parameters
    ----------
    identity:
        The identity element ``1`` (query of an empty window returns ``lower(identity)``).
    combine:
        The associative binary operator ``⊗`` on aggregates.
    lift, lower:
        Input → aggregate and aggregate → output; both default to the identity function.
    commutative, invertible, selective:
        Declared algebraic properties (see the module docstring). ``invertible`` requires ``inverse``.
    inverse:
        The inverse for invertible monoids.
    eq:
        Equality on aggregates used by checkers; exact ``==`` by default. Float monoids pass a tolerant
        comparison and state the tolerance in ``tolerance``.
    fast_path:
        A tag such as ``"sum_f64"`` that lets :mod:`swagkit.optimized` pick a typed fast path in which no Python
        call happens per combine (C doubles or int64). ``None`` means "generic": ``combine`` is called.
    """

    identity: Agg
    combine: Callable[[Agg, Agg], Agg]
    lift: Callable[[In], Agg] = field(default=_same)
    lower: Callable[[Agg], Out] = field(default=_same)
    name: str = "monoid"
    commutative: bool = False
    invertible: bool = False
    selective: bool = False
    inverse: Callable[[Agg], Agg] | None = None
    eq: Callable[[Agg, Agg], bool] = field(default=_exact_eq)
    tolerance: str = "exact"
    fast_path: str | None = None

    def __post_init__(self) -> None:
        if self.invertible and self.inverse is None:
            raise ValueError(f"monoid {self.name!r} is declared invertible but has no inverse function")
        if not callable(self.combine):
            raise TypeError(f"monoid {self.name!r}: combine must be callable")

    def __repr__(self) -> str:
        props = [p for p in ("commutative", "invertible", "selective") if getattr(self, p)]
        return f"<Monoid {self.name}{' ' + ','.join(props) if props else ''}>"

    def properties(self) -> dict[str, bool]:
        """The declared algebraic properties as a dict."""
        return {
            "commutative": self.commutative,
            "invertible": self.invertible,
            "selective": self.selective,
        }

    def renamed(self, name: str) -> Monoid[In, Agg, Out]:
        """A copy with another name (handy when one operator is registered under several ids)."""
        return replace(self, name=name)


_MONOID_PARTS = ("identity", "combine", "lift", "lower")
_M = TypeVar("_M")


def as_monoid(obj: _M, owner: str) -> _M:
    """``obj`` if it can serve as a monoid (a :class:`Monoid`, or any object with ``identity``, a callable
    ``combine`` and callable ``lift``/``lower``), else a ``TypeError`` that says what was passed and what to pass.
    Every structure's constructor calls it first, so a library id or an uncalled factory fails clearly.

    >>> as_monoid("sum_f64", "two_stacks")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: two_stacks: expected a Monoid, got the string 'sum_f64'; pass swagkit.spec.library.sum_f64() ...
    """
    if isinstance(obj, Monoid):
        return obj
    if isinstance(obj, str):
        raise TypeError(
            f"{owner}: expected a Monoid, got the string {obj!r}; pass swagkit.spec.library.{obj}() "
            f"(or LIBRARY[{obj!r}].factory())"
        )
    missing = [p for p in _MONOID_PARTS if not hasattr(obj, p)]
    if missing:
        name = getattr(obj, "__qualname__", None) or type(obj).__name__
        hint = (
            f"; {name} looks like a factory: call it, {name}()"
            if callable(obj) and missing == list(_MONOID_PARTS)
            else ""
        )
        raise TypeError(f"{owner}: expected a Monoid, got {obj!r} (no {', '.join(missing)}){hint}")
    bad = [p for p in ("combine", "lift", "lower") if not callable(getattr(obj, p))]
    if bad:
        raise TypeError(f"{owner}: the monoid's {', '.join(bad)} must be callable")
    return obj


def fold(monoid: Monoid[Any, Agg, Any], aggregates: Iterable[Agg]) -> Agg:
    """Left-to-right ordered product ``a0 ⊗ a1 ⊗ … ⊗ a(n-1)``, or ``identity`` when empty.

    This is the meaning of every SWAG query (paper 000 §2.1); it is O(n) combines.
    """
    result = monoid.identity
    first = True
    for a in aggregates:
        result = a if first else monoid.combine(result, a)
        first = False
    return result


class CombineCounter:
    """Counts calls of a wrapped ``combine``; see :func:`counted`."""

    __slots__ = ("calls",)

    def __init__(self) -> None:
        self.calls = 0

    def reset(self) -> int:
        """Return the count so far and start again from zero."""
        calls, self.calls = self.calls, 0
        return calls


def counted(monoid: Monoid[In, Agg, Out]) -> tuple[Monoid[In, Agg, Out], CombineCounter]:
    """Wrap ``monoid`` so every ``combine`` call is counted (budgets of 000 Theorems 3.2–6.2).

    The wrapped monoid has ``fast_path=None`` so that optimized code takes the generic path and really calls it.

    >>> from swagkit.spec.library import sum_monoid
    >>> m, counter = counted(sum_monoid())
    >>> m.combine(1, 2), counter.calls
    (3, 1)
    """
    counter = CombineCounter()
    inner = monoid.combine

    def combine(a: Agg, b: Agg) -> Agg:
        counter.calls += 1
        return inner(a, b)

    return replace(monoid, combine=combine, fast_path=None, name=monoid.name), counter


# --------------------------------------------------------------------------------------------------------------
# Law checkers. Each returns ``None`` when no counterexample is found among the samples, else a LawViolation.


@dataclass(frozen=True)
class LawViolation:
    """A counterexample to a monoid law: which law, for which monoid, on which operands, and what went wrong."""

    law: str
    monoid: str
    operands: tuple[Any, ...]
    detail: str

    def __str__(self) -> str:
        ops = ", ".join(repr(o) for o in self.operands)
        return f"{self.monoid}: {self.law} fails for ({ops}): {self.detail}"


def _triples(samples: Sequence[Any], limit: int) -> Iterable[tuple[Any, Any, Any]]:
    return itertools.islice(itertools.product(samples, repeat=3), limit)


def check_associativity(
    monoid: Monoid[Any, Agg, Any], samples: Sequence[Agg], limit: int = 20_000
) -> LawViolation | None:
    """``a ⊗ (b ⊗ c) == (a ⊗ b) ⊗ c`` for sample aggregates (up to ``limit`` triples)."""
    c = monoid.combine
    for a, b, d in _triples(samples, limit):
        left, right = c(c(a, b), d), c(a, c(b, d))
        if not monoid.eq(left, right):
            return LawViolation("associativity", monoid.name, (a, b, d), f"(a⊗b)⊗c = {left!r} but a⊗(b⊗c) = {right!r}")
    return None


def check_identity(monoid: Monoid[Any, Agg, Any], samples: Sequence[Agg]) -> LawViolation | None:
    """``1 ⊗ a == a == a ⊗ 1``."""
    one = monoid.identity
    for a in samples:
        for got, side in ((monoid.combine(one, a), "1⊗a"), (monoid.combine(a, one), "a⊗1")):
            if not monoid.eq(got, a):
                return LawViolation("identity", monoid.name, (a,), f"{side} = {got!r}, expected {a!r}")
    return None


def check_commutativity(
    monoid: Monoid[Any, Agg, Any], samples: Sequence[Agg], limit: int = 5_000
) -> LawViolation | None:
    """``a ⊗ b == b ⊗ a`` (only meaningful when the monoid declares ``commutative``)."""
    for a, b in itertools.islice(itertools.product(samples, repeat=2), limit):
        ab, ba = monoid.combine(a, b), monoid.combine(b, a)
        if not monoid.eq(ab, ba):
            return LawViolation("commutativity", monoid.name, (a, b), f"a⊗b = {ab!r} but b⊗a = {ba!r}")
    return None


def check_inverse(monoid: Monoid[Any, Agg, Any], samples: Sequence[Agg], limit: int = 5_000) -> LawViolation | None:
    """``inv(a) ⊗ (a ⊗ b) == b`` and ``(a ⊗ b) ⊗ inv(b) == a`` (two-sided cancellation)."""
    inv = monoid.inverse
    if inv is None:
        return LawViolation("inverse", monoid.name, (), "declared invertible but no inverse function")
    c = monoid.combine
    for a, b in itertools.islice(itertools.product(samples, repeat=2), limit):
        left = c(inv(a), c(a, b))
        if not monoid.eq(left, b):
            return LawViolation("inverse", monoid.name, (a, b), f"inv(a)⊗(a⊗b) = {left!r}, expected {b!r}")
        right = c(c(a, b), inv(b))
        if not monoid.eq(right, a):
            return LawViolation("inverse", monoid.name, (a, b), f"(a⊗b)⊗inv(b) = {right!r}, expected {a!r}")
    return None


def check_selectivity(monoid: Monoid[Any, Agg, Any], samples: Sequence[Agg], limit: int = 5_000) -> LawViolation | None:
    """``a ⊗ b`` is ``a`` or ``b`` (by the monoid's equality)."""
    for a, b in itertools.islice(itertools.product(samples, repeat=2), limit):
        ab = monoid.combine(a, b)
        if not (monoid.eq(ab, a) or monoid.eq(ab, b)):
            return LawViolation("selectivity", monoid.name, (a, b), f"a⊗b = {ab!r} is neither operand")
    return None


def check_laws(monoid: Monoid[In, Agg, Any], inputs: Sequence[In]) -> list[LawViolation]:
    """Check the monoid laws and every *declared* property on the lifted ``inputs`` plus the identity.

    Returns the counterexamples found (empty when none). Associativity and identity are always checked;
    commutativity, inverse and selectivity only when declared.

    >>> from swagkit.spec.library import sum_monoid
    >>> check_laws(sum_monoid(), [0, 1, -3, 7])
    []
    """
    samples: list[Agg] = [monoid.lift(x) for x in inputs] + [monoid.identity]
    checks: list[Callable[[Monoid[Any, Agg, Any], Sequence[Agg]], LawViolation | None]] = [
        check_associativity,
        check_identity,
    ]
    if monoid.commutative:
        checks.append(check_commutativity)
    if monoid.invertible:
        checks.append(check_inverse)
    if monoid.selective:
        checks.append(check_selectivity)
    found = [v for v in (check(monoid, samples) for check in checks) if v is not None]
    return found
