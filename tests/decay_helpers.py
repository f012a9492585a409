"""Shared helpers of the paper-004 tests (not collected: no ``test_`` prefix).

``IMPLS`` maps implementation names to modules: ``reference``, ``optimized`` (compiled, or the fallback when
``SWAGKIT_PUREPYTHON`` is set) and ``fallback`` (always the pure-Python subclasses), so every test runs on all
of them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import pytest

import swagkit.optimized as opt
import swagkit.reference as ref
from swagkit.optimized import _fallback
from swagkit.spec.decay.streams import Arrival

IMPLS: dict[str, Any] = {"reference": ref, "optimized": opt, "fallback": _fallback}
IMPL_IDS = list(IMPLS)


def impl_class(impl: str, name: str) -> Any:
    return getattr(IMPLS[impl], name)


def drive(
    structure: Any,
    arrivals: Iterable[Arrival],
    oracle: Any = None,
    *,
    values: bool = True,
    every: int = 0,
    on_check: Callable[[int], None] | None = None,
) -> None:
    """Feed arrivals (advance + insert) to ``structure`` and ``oracle``; call ``on_check(i)`` every ``every``."""
    for i, a in enumerate(arrivals):
        if a.now != structure.now:
            structure.advance(a.now)
            if oracle is not None:
                oracle.advance(a.now)
        if values:
            structure.insert(a.value, a.timestamp, a.weight)
        else:
            structure.insert(a.timestamp, a.weight)
        if oracle is not None:
            oracle.insert(a.value, a.timestamp, a.weight)
        if every and on_check is not None and (i + 1) % every == 0:
            on_check(i)


def refuses_and_keeps(
    structure: Any, action: Callable[[], Any], error: type[BaseException], builtin: type[BaseException]
) -> None:
    """``action`` raises ``error`` (also a ``builtin``) and the snapshot is unchanged."""
    before = structure.snapshot()
    with pytest.raises(error) as info:
        action()
    assert isinstance(info.value, builtin)
    assert structure.snapshot() == before
