"""FiBA facts that are not invariants of one snapshot: Claim 1's split decomposition (003 §5 and appendix A) and
the operation budgets of Theorems 1 and 3 (see :mod:`swagkit.spec.fiba_budgets`).
"""

from __future__ import annotations

__all__ = ["split_pieces"]


def split_pieces(p: int, mu: int) -> list[int]:
    """Claim 1 (003 §5, proof in appendix A): a temporary arity ``p > 2μ`` as ``b0 + … + bt`` with
    ``b0 = … = b(t−1) = μ+1`` and ``μ ≤ bt ≤ 2μ``: the arities of the t+1 pieces of ``bulkSplit``, which
    promotes t separators. ``p ≤ 2μ`` needs no split: ``[p]``.

    With ``k = ⌊p/(μ+1)⌋`` and ``r = p − k(μ+1)``: if ``r = μ`` the last piece is an arity-μ node (t = k),
    otherwise the remainder is folded into the last arity-(μ+1) piece, ``bt = μ+1+r ≤ 2μ`` (t = k−1). The
    appendix writes "μ+1+k" and "t ≥ 2" for this; the notes' errata: it is μ+1+r, and t ≥ 1 (p = 2μ+1 gives
    μ+1 | μ, exactly the single-insert split).

    >>> split_pieces(11, 4), split_pieces(16, 2), split_pieces(5, 2)
    ([5, 6], [3, 3, 3, 3, 4], [3, 2])
    """
    if mu < 2:
        raise ValueError(f"min arity μ must be at least 2, got {mu}")
    if p <= 2 * mu:
        return [p]
    k, r = divmod(p, mu + 1)
    if r == mu:
        return [mu + 1] * k + [mu]
    return [mu + 1] * (k - 1) + [mu + 1 + r]
