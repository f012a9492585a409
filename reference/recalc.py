"""Recalculate-from-scratch (paper 000 §8.1), the baseline: the ADT model itself.

O(1) insert and evict, n−1 combines per query, n stored values.
"""

from __future__ import annotations

from typing import Any

from swagkit.spec.adt import FifoSwag


class Recalc(FifoSwag[Any, Any, Any]):
    """Keeps the window in a queue and folds it on every query (``algorithm`` id ``recalc``)."""

    algorithm = "recalc"


__all__ = ["Recalc"]
