"""Python-level helpers shared by the compiled modules and the pure-Python fallback of :mod:`swagkit.optimized`."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from swagkit.spec.monoid import Monoid

__all__ = ["TYPED_KINDS", "typed_kind", "lower_is_identity", "DEFAULT_LOWER"]

#: typed kinds with a compiled fast path, and their codes (must match ``K_*`` in ``_common.pxi``)
TYPED_KINDS: dict[str, int] = {
    "sum_f64": 1,
    "max_f64": 2,
    "min_f64": 3,
    "sum_i64": 4,
    "max_i64": 5,
    "min_i64": 6,
}

#: the default ``lower`` of :class:`~swagkit.spec.monoid.Monoid` (the identity function)
DEFAULT_LOWER: Any = next(f.default for f in fields(Monoid) if f.name == "lower")


def typed_kind(monoid: Any) -> int:
    """Code of ``monoid.fast_path`` when it names a typed fast path, else 0 (generic)."""
    kind = getattr(monoid, "fast_path", None)
    if isinstance(kind, str):
        return TYPED_KINDS.get(kind, 0)
    return 0


def lower_is_identity(monoid: Any) -> bool:
    """Whether ``monoid.lower`` is the default identity function (then typed results need no Python call)."""
    return getattr(monoid, "lower", DEFAULT_LOWER) is DEFAULT_LOWER


def is_f64_kind(code: int) -> bool:
    """Whether a typed kind code is a float64 kind (else int64)."""
    return 1 <= code <= 3
