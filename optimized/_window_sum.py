"""``window_sum``: sliding-window sums of a whole array, each float answer within its own frame's any-order bound.

The C kernel (``include/window_sum.h``) -- as fast as bottleneck's ``move_sum`` -- or, without the compiled
extension (or with ``SWAGKIT_PUREPYTHON``), this module's Python twin, which performs the same IEEE additions on
the same operands, so both give bit-identical answers.

* ``sum_i64`` (wrapping modulo 2**64, a group): the subtract-on-evict running sum of SlickDeque (Inv) in plain mode
  (paper 001 Algorithm 1; paper 000 §8.3), ``a ← a + (x[i] − x[i−w])``; every answer is the exact wrapped window
  sum, equal to ``window_array(SlickDequeInv, sum_i64(), …)`` and ``window_array(SubtractOnEvict, …)``.
* ``sum_f64``: no subtraction (issue 24: a running sum that subtracts evicted values keeps their rounding residue,
  so a huge value that left the frame still ruins the answers). The stream is cut into blocks of ``w`` items from
  index 0. In block 0 the i-th answer is the prefix fold ``x[0] + … + x[i]``. For ``i`` in block ``k ≥ 1`` (first
  index ``b``) the frame ``x[i−w+1 .. i]`` is a suffix of block ``k−1`` and a prefix of block ``k``, and the answer
  is ``fl(R + L)``: ``R`` the right-to-left fold ``x[i−w+1] + (… + x[b−1])`` (computed for every start of the
  block at once, as one backward chain over it), ``L`` the left-to-right fold ``x[b] + … + x[i]`` (one forward
  chain); at a block's last item the frame is the block and the answer is ``L``. Not the ⊗ sequence of
  ``window_array(SlickDequeInv, sum_f64(), …)`` (SlickDeque's own subtract-on-evict sequence, kept within the
  bound by refolds: :mod:`swagkit.spec.f64_track`), hence a separate function.

**Error bound (sum_f64).** With ``u = 2**-53`` and ``γ_m = m·u / (1 − m·u)``, barring overflow, the i-th answer
``ŝ_i`` of a frame of ``n`` values (``n = min(i + 1, w)``) satisfies ``|ŝ_i − s_i| ≤ γ_{n−1}·A_i``, where ``s_i``
is the exact sum of the frame and ``A_i = Σ|x|`` over the frame alone -- the bound :func:`error_bound` computes.
Proof: ``ŝ_i`` is computed by ``n − 1`` floating-point additions whose operands are, recursively, values of the
frame or results of earlier additions in the same computation, each frame value used once: a summation tree over
exactly the frame's ``n`` values (a fold is such a tree; ``fl(R + L)`` joins two trees over disjoint parts of the
frame). Any summation tree over ``n`` values errs by at most ``γ_{n−1}·Σ|x|`` (Higham, *Accuracy and Stability of
Numerical Algorithms*, 2nd ed., §4.2, (4.4): each addition errs by at most ``u`` times its result, and each value
takes part in at most ``n − 1`` additions). So every answer is a value that some summation order of the frame's
own values produces; the values before the frame take no part in it. A window of one value answers that value
(exact), a frame of two the correctly rounded sum. Overflow: an answer is ±inf when a partial sum of its own
frame's tree overflows (the bound holds barring that, as for any summation order).

**Infinities.** An answer is computed from its frame's values only, so an infinity makes exactly the answers of the
frames that hold it infinite (NaN when a frame holds both +inf and −inf), as IEEE addition of those values does;
every other answer is unaffected. (Until issue 24, an infinity poisoned every answer until the next refold after
it left the window.) NaN inputs are refused (``ValueError``), like ``insert``.

**Cost.** Three additions per item, none conditional on the data: worst-case O(1) per item, no recomputation ever
(no data can make it slower). The C loop runs the prefix chain of one block and the suffix chain of the block two
back side by side (``include/window_sum.h``).
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


def error_bound(frame_size: int, abs_sum: float) -> float:
    """The stated bound ``γ_{n−1}·abs_sum`` on ``|window_sum(sum_f64) − exact|`` for a frame of ``n = frame_size``
    values whose absolute values sum to ``abs_sum`` (see the module docstring): Higham's any-order bound of the
    frame's own values. (As a float product it is rounded; compare with a margin or exactly.)"""
    k = frame_size - 1
    return k * _UNIT_ROUNDOFF / (1.0 - k * _UNIT_ROUNDOFF) * abs_sum


def _wrap64(v: int) -> int:
    return ((v + (1 << 63)) & ((1 << 64) - 1)) - (1 << 63)


def _prefix_folds(x: list[float], b: int, e: int, out: array.array[float]) -> None:
    """``out[b .. e)`` = the left-to-right folds ``x[b]``, ``x[b] + x[b+1]``, ... (``swag_prefix_folds_f64``)."""
    acc = x[b]
    out[b] = acc
    for i in range(b + 1, e):
        acc = acc + x[i]
        out[i] = acc


def _add_suffix_folds(x: list[float], b: int, w: int, out: array.array[float]) -> None:
    """Block starting at ``b ≥ w`` holds its prefix folds: add block ``b − w``'s right-to-left folds,
    ``out[b + m − 1] ← R_m + out[b + m − 1]`` with ``R_m = x[b−w+m] + (… + x[b−1])`` for ``m = w−1 .. 1``
    (``swag_add_suffix_folds_f64``; slots past the end are skipped)."""
    n = len(x)
    acc = x[b - 1]
    for m in range(w - 1, 0, -1):
        if m < w - 1:
            acc = acc + x[b - w + m]
        if b + m - 1 < n:
            out[b + m - 1] = acc + out[b + m - 1]


def _sums_f64(x: list[float], w: int) -> array.array[float]:
    """The Python twin of ``swag_window_sum_f64``: the same folds and final additions (the C loop interleaves
    them differently, on the same operands)."""
    n = len(x)
    if w == 1:
        return array.array("d", x)
    out = array.array("d", bytes(8 * n))
    for b in range(0, n, w):
        _prefix_folds(x, b, min(b + w, n), out)
    for b in range(w, n, w):
        _add_suffix_folds(x, b, w, out)
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
    ``sum_f64`` (each answer within its own frame's any-order bound, :func:`error_bound`; an ``array('d')``).
    Values are validated like ``insert`` (``ValueError`` for NaN, ``TypeError``/``OverflowError`` as
    ``as_f64``/``as_i64``); any other monoid raises :class:`~swagkit.spec.errors.UnsupportedMonoidError`. O(1) per
    item (worst case); ``array.array``, ``memoryview`` and numpy buffers of C doubles (int64 for either kind) are
    read in place."""
    _sum_kind(monoid)
    w = check_window(window)
    kernel = _compiled_kernel()
    if kernel is None:
        return window_sum_python(monoid, values, w)
    return kernel(monoid, values, w)
