"""``window_sum``: sliding-window sums of a whole array by subtract-on-evict, with a stated float error bound.

The array form of SlickDeque (Inv) in plain mode (paper 001 Algorithm 1; Subtract-on-Evict, paper 000 §8.3) for
the two invertible typed kinds, as one C loop (``include/window_sum.h``) -- about as fast as bottleneck's
``move_sum`` -- or, without the compiled extension (or with ``SWAGKIT_PUREPYTHON``), this module's Python twin,
which performs the same IEEE operations in the same order, so both give bit-identical answers.

* ``sum_i64`` (wrapping modulo 2**64, a group): ``a ← a + (x[i] − x[i−w])``; every answer is the exact wrapped
  window sum, equal to ``window_array(SlickDequeInv, sum_i64(), …)`` and ``window_array(SubtractOnEvict, …)``.
* ``sum_f64``: the same update, but the running sum is refolded once per ``w`` items (the stream is cut into
  blocks of ``w`` items from index 0; at a block's last item the window is exactly the block, and the answer
  there is the block's left-to-right fold, computed alongside as an independent chain). Not the ⊗ sequence of
  ``window_array(SlickDequeInv, sum_f64(), …)`` (whose answers, and ``recompute_every`` schedule, are unchanged),
  hence a separate function.

**Error bound (sum_f64).** With ``u = 2**-53`` and ``γ_m = m·u / (1 − m·u)``, barring overflow, the i-th answer
``ŝ_i`` satisfies ``|ŝ_i − s_i| ≤ 2·γ_{3w−3}·A_i`` where ``s_i`` is the exact sum of the window
``x[max(0, i−w+1) .. i]`` and ``A_i = Σ |x_t|`` over ``x[max(0, i−2w+2) .. i]`` -- the window and at most the
``w − 1`` items evicted since the last refold. Proof: ``ŝ_i`` is a summation tree over at most ``3w − 2`` terms
(the previous block's ``w`` items, then ``x[t]`` and ``−x[t−w]`` per update since; the evicted ``x[t−w]`` are
items of the previous block, counted twice, so ``Σ|terms| ≤ 2·A_i``), and any summation tree over ``m`` terms
errs by at most ``γ_{m−1}·Σ|terms|`` (Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed., §4.2,
(4.4)). Hence the bound that :func:`error_bound` computes: ``|ŝ_i − s_i| ≤ 2·γ_{3w−3}·A_i``. A relative bound
over the window alone is impossible for any subtract-on-evict sum (an evicted value's rounding error stays in the
running sum until the next refold); the refold caps that memory at ``w − 1`` items, where bottleneck's
``move_sum`` (never refolded) carries it forever. An infinity poisons (NaN) only the
answers computed until the refold after it leaves the window.
"""

from __future__ import annotations

import array
from collections.abc import Iterable
from typing import Any

from swagkit.reference.driver import check_window
from swagkit.spec.errors import UnsupportedMonoidError

from ._loader import CLASSES
from ._support import lower_is_identity, typed_kind

__all__ = ["window_sum", "window_sum_python", "error_bound"]

_SUM_F64, _SUM_I64 = 1, 4  # TYPED_KINDS codes
_UNIT_ROUNDOFF = 2.0**-53


def error_bound(window: int, abs_sum: float) -> float:
    """The stated bound ``2·γ_{3w−3}·abs_sum`` on ``|window_sum(sum_f64) − exact|`` (see the module docstring),
    ``abs_sum`` being Σ|x| over the window and the ``w − 1`` items before it."""
    m = 3 * window - 3
    return 2.0 * (m * _UNIT_ROUNDOFF / (1.0 - m * _UNIT_ROUNDOFF)) * abs_sum


def _wrap64(v: int) -> int:
    return ((v + (1 << 63)) & ((1 << 64) - 1)) - (1 << 63)


def _sums_f64(x: list[float], w: int) -> array.array[float]:
    """The Python twin of ``swag_window_sum_f64``: the same additions in the same order."""
    n = len(x)
    out = array.array("d", bytes(8 * n))
    a = 0.0
    for i in range(min(w, n)):
        a = x[0] if i == 0 else a + x[i]
        out[i] = a
    for b in range(w, n, w):
        last = b + w - 1
        f = x[b]
        for i in range(b, min(last, n)):
            if i > b:
                f = f + x[i]
            a = a + (x[i] - x[i - w])
            out[i] = a
        if last < n:
            if last > b:
                f = f + x[last]
            a = f
            out[last] = a
    return out


def _sums_i64(x: list[int], w: int) -> array.array[int]:
    """The Python twin of ``swag_window_sum_i64`` (exact wrapped sums)."""
    out = array.array("q", bytes(8 * len(x)))
    a = 0
    for i, v in enumerate(x):
        a = _wrap64(a + v - (x[i - w] if i >= w else 0))
        out[i] = a
    return out


def _sum_kind(monoid: Any) -> int:
    kind = typed_kind(monoid)
    if kind not in (_SUM_F64, _SUM_I64) or not lower_is_identity(monoid):
        name = getattr(monoid, "name", type(monoid).__name__)
        raise UnsupportedMonoidError(f"window_sum needs the library's sum_f64 or sum_i64 monoid, not {name}")
    return kind


def window_sum_python(monoid: Any, values: Iterable[Any], window: int) -> Any:
    """:func:`window_sum` in pure Python (the fallback; bit-identical answers)."""
    kind = _sum_kind(monoid)
    w = check_window(window)
    lift = monoid.lift
    items = [lift(v) for v in values]  # validated like ``insert`` (as_f64/as_i64) before any answer
    return _sums_f64(items, w) if kind == _SUM_F64 else _sums_i64(items, w)


def _compiled_kernel() -> Any:
    """``_slickdeque._window_sum`` when the compiled extension is in use, else None."""
    if CLASSES["SlickDequeInv"].__module__ != f"{__package__}._slickdeque":
        return None
    from ._slickdeque import _window_sum

    return _window_sum


def window_sum(monoid: Any, values: Iterable[Any], window: int) -> Any:
    """Sums of a count-based window of size ``window`` slid over ``values``: the i-th answer is the sum of
    ``values[max(0, i−window+1) : i+1]``, for the library's ``sum_i64`` (exact, wrapping; an ``array('q')``) or
    ``sum_f64`` (within :func:`error_bound`; an ``array('d')``). Values are validated like ``insert``
    (``ValueError`` for NaN, ``TypeError``/``OverflowError`` as ``as_f64``/``as_i64``); any other monoid raises
    :class:`~swagkit.spec.errors.UnsupportedMonoidError`. O(1) per item; ``array.array``, ``memoryview`` and numpy
    buffers of C doubles (int64 for either kind) are read in place."""
    _sum_kind(monoid)
    w = check_window(window)
    kernel = _compiled_kernel()
    if kernel is None:
        return window_sum_python(monoid, values, w)
    return kernel(monoid, values, w)
