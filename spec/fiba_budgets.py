"""Operation budgets of FiBA (paper 003 Theorems 1 and 3, FiBA 2019 for single operations) as checkable contracts.

Two counters are metered: ``⊗`` calls (``combine_count``) and node visits (``touched_count``: nodes a search
inspects, aggregate recomputations, node allocations). The unit of ⊗ work is one node recomputation, which
folds at most ``2a − 1 ≤ 4μ − 1`` operands, i.e. ``u = 4μ − 2`` ⊗ (:func:`unit`). ``L(n)`` is the largest
number of levels of a FiBA with n entries (:func:`levels`); n, m (bulk size: distinct new or existing times for
bulk insert, entries removed for bulk evict) and d (out-of-order distance) as in the paper.

**Worst case, per operation** (checked after every operation). Derived by counting recomputations: every
level of a structural pass recomputes O(1) nodes and each pass down is one recomputation per level.

=============  ======================================  =====================================
operation      ⊗ calls                                  node visits
=============  ======================================  =====================================
query          2                                        0
insert         1 + u·(5L + 1)                           8L + 4
evict          u·(5L + 2)                               6L + 4
remove         u·(6L + 2)                               9L + 4
bulk_evict     u·(8L + 4)                               12L + 6
bulk_insert    m_raw + u·(3(m+1)·L + 2)                 6(m+1)·L + 4
=============  ======================================  =====================================

(``m_raw`` counts the pairs given, duplicates included: folding a duplicate costs one ⊗.) These are the
paper's O(log n) and O(log d + m·log((m+n)/m)) worst cases up to constants; the bulk insert bound is the
weaker O(m log n) form.

**Amortized** (the paper's claims; checked as potential inequalities at every step, like
:mod:`swagkit.spec.budgets`): over a run, the total of each counter is at most the sum of the per-operation
credits below plus a slack proportional to the current number of nodes (the imaginary coins of 003 §3.2 and
FiBA 2019 Lemma 9: a node stores at most 2 + 2k coins, k ≤ 0 outside an operation, each paying O(1)
recomputations). With ``lg(x) = log_μ(1 + x)``:

=============  =================================================  =============================================
operation      ⊗ credit                                           node-visit credit
=============  =================================================  =============================================
insert         u·(2 + 2·lg d)       (O(log d); O(1) in order)     8 + 6·lg d
evict          u·2                  (O(1))                        8
remove         u·(2 + 2·lg d)       (O(log d))                    8 + 8·lg d
bulk_evict     u·(3 + 3·lg m)       (Theorem 1: O(log m))         10 + 8·lg m
bulk_insert    m_raw + u·(2 + 2·lg d + 3m·(1 + lg(d/m)))          8 + 4·lg d + 6m·(1 + lg(d/m))
               (Theorem 3: O(log d + m(1 + log(d/m))))
slack          u·2·(n/(μ−1) + 2)                                  4·(n/(μ−1) + 2)
=============  =================================================  =============================================

For a single insert or remove d is the distance to the nearer end of the window (FiBA 2019), min(#older,
#younger); for a bulk insert it is the number of entries younger than its smallest time (003 §1.3: the search
starts at the right finger). ``query()`` stays out of the amortized claim (bounded by 2).

For ``fiba_loop`` (bulk operations as loops of single ones) the bulk credits are the loop's: ``bulk_evict``
m·u·2 and 8m node visits, ``bulk_insert`` m_raw single inserts at distance ≤ d + m each.

The constants are not the paper's (it states none); they were checked with margin on adversarial workloads
(in-order streams, sawtooth windows around node boundaries, bulks at both extremes, random out-of-order
mixtures) for μ = 2, 3, 4, 8, and every Hypothesis run meters them (:mod:`swagkit.verify.kinds.out_of_order.debug`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from .errors import BudgetExceeded

__all__ = [
    "levels",
    "unit",
    "worst_combines",
    "worst_touched",
    "amortized_combines",
    "amortized_touched",
    "slack_combines",
    "slack_touched",
    "FiBABudgetMeter",
    "NodeVisitsExceeded",
    "SOURCE",
]

SOURCE = "003 Theorems 1 and 3; FiBA 2019 (derived constants, see swagkit.spec.fiba_budgets)"

OPERATIONS = ("query", "insert", "evict", "remove", "bulk_evict", "bulk_insert")


def levels(n: int, mu: int) -> int:
    """The most levels a FiBA with n entries can have: a root with 1 entry, non-root nodes with ≥ μ−1 entries,
    so n ≥ 2μ^(L−1) − 1 for L levels."""
    if n <= 1:
        return 1
    return 1 + int(math.floor(math.log((n + 1) / 2, mu) + 1e-9))


def unit(mu: int) -> int:
    """⊗ calls of one node recomputation at most: ``2a − 1`` operands with ``a ≤ 2μ``."""
    return 4 * mu - 2


def _lg(x: float, mu: int) -> float:
    return math.log(1 + max(x, 0), mu)


def worst_combines(op: str, mu: int, n: int, m: int = 1, m_raw: int | None = None) -> float:
    """Worst-case ⊗ calls of ``op`` where ``n`` is the larger of the window sizes before and after."""
    u, L = unit(mu), levels(n, mu)
    raw = m if m_raw is None else m_raw
    return {
        "query": 2,
        "insert": 1 + u * (5 * L + 1),
        "evict": u * (5 * L + 2),
        "remove": u * (6 * L + 2),
        "bulk_evict": u * (8 * L + 4),
        "bulk_insert": raw + u * (3 * (m + 1) * L + 2),
    }[op]


def worst_touched(op: str, mu: int, n: int, m: int = 1) -> float:
    """Worst-case node visits of ``op`` (``n`` as in :func:`worst_combines`)."""
    L = levels(n, mu)
    return {
        "query": 0,
        "insert": 8 * L + 4,
        "evict": 6 * L + 4,
        "remove": 9 * L + 4,
        "bulk_evict": 12 * L + 6,
        "bulk_insert": 6 * (m + 1) * L + 4,
    }[op]


def amortized_combines(op: str, mu: int, m: int = 1, d: int = 0, m_raw: int | None = None, loop: bool = False) -> float:
    """The ⊗ credit of one ``op`` in the potential inequality (see the module docstring)."""
    u = unit(mu)
    raw = m if m_raw is None else m_raw
    if op == "query":
        return 0.0
    if op == "evict":
        return u * 2.0
    if op in ("insert", "remove"):
        return u * (2 + 2 * _lg(d, mu))
    if op == "bulk_evict":
        return u * 2.0 * m if loop else u * (3 + 3 * _lg(m, mu))
    if loop:
        return raw * (1 + u * (2 + 2 * _lg(d + raw, mu)))
    return raw + u * (2 + 2 * _lg(d, mu) + 3 * m * (1 + _lg(d / max(m, 1), mu)))


def amortized_touched(op: str, mu: int, m: int = 1, d: int = 0, m_raw: int | None = None, loop: bool = False) -> float:
    """The node-visit credit of one ``op`` in the potential inequality."""
    raw = m if m_raw is None else m_raw
    if op == "query":
        return 0.0
    if op == "evict":
        return 8.0
    if op == "insert":
        return 8 + 6 * _lg(d, mu)
    if op == "remove":
        return 8 + 8 * _lg(d, mu)
    if op == "bulk_evict":
        return 8.0 * m if loop else 10 + 8 * _lg(m, mu)
    if loop:
        return raw * (8 + 6 * _lg(d + raw, mu))
    return 8 + 4 * _lg(d, mu) + 6 * m * (1 + _lg(d / max(m, 1), mu))


def slack_combines(mu: int, n: int) -> float:
    """Coins in store: at most 2 per node, one recomputation each; at most n/(μ−1) + 2 nodes."""
    return unit(mu) * 2.0 * (n / (mu - 1) + 2)


def slack_touched(mu: int, n: int) -> float:
    return 4.0 * (n / (mu - 1) + 2)


class NodeVisitsExceeded(BudgetExceeded):
    """An operation (or a run) visited more nodes than its contract allows (``used`` counts node visits)."""

    def __init__(self, algorithm: str, operation: str, used: int, allowed: float, source: str) -> None:
        super().__init__(algorithm, operation, used, allowed, source)
        self.args = (f"{algorithm}: {operation} visited {used} nodes, budget is {allowed:g} ({source})",)


@dataclass
class FiBABudgetMeter:
    """Follows one FiBA's run; :meth:`record` raises :class:`~swagkit.spec.errors.BudgetExceeded` as soon as an
    operation breaks its worst-case bound or the run breaks an amortized potential inequality."""

    mu: int
    algorithm: str = "fiba"
    loop: bool = False
    combines: int = 0
    touched: int = 0
    credit_combines: float = 0.0
    credit_touched: float = 0.0
    max_seen: dict[str, int] = field(default_factory=dict)

    def record(
        self,
        op: str,
        n_before: int,
        n_after: int,
        combines: int,
        touched: int,
        m: int = 1,
        d: int = 0,
        m_raw: int | None = None,
    ) -> None:
        """Check one operation that used ``combines`` ⊗ and ``touched`` node visits."""
        if op not in OPERATIONS:
            raise ValueError(f"unknown FiBA operation {op!r}")
        n = max(n_before, n_after)
        label = (
            f"{op} (n={n_before}"
            + (f", m={m}" if op.startswith("bulk") else "")
            + (f", d={d})" if op in ("insert", "remove", "bulk_insert") else ")")
        )
        if self.loop and op.startswith("bulk"):  # a loop of single operations: m_raw inserts or m evicts
            k = (m if m_raw is None else m_raw) if op == "bulk_insert" else m
            single = "insert" if op == "bulk_insert" else "evict"
            worst_c = k * worst_combines(single, self.mu, n)
            worst_t = k * worst_touched(single, self.mu, n) + 1
        else:
            worst_c = worst_combines(op, self.mu, n, m, m_raw)
            worst_t = worst_touched(op, self.mu, n, m)
        if combines > worst_c:
            raise BudgetExceeded(self.algorithm, label, combines, worst_c, SOURCE + ", worst case")
        if touched > worst_t:
            raise NodeVisitsExceeded(self.algorithm, label, touched, worst_t, SOURCE + ", worst case")
        self.max_seen[op] = max(self.max_seen.get(op, 0), combines)
        if op == "query":
            return
        self.combines += combines
        self.touched += touched
        self.credit_combines += amortized_combines(op, self.mu, m, d, m_raw, self.loop)
        self.credit_touched += amortized_touched(op, self.mu, m, d, m_raw, self.loop)
        allowed = self.credit_combines + slack_combines(self.mu, n)
        if self.combines > allowed:
            raise BudgetExceeded(
                self.algorithm,
                f"amortized ⊗ after {label}",
                self.combines,
                allowed,
                SOURCE + " (amortized, potential inequality)",
            )
        allowed_t = self.credit_touched + slack_touched(self.mu, n)
        if self.touched > allowed_t:
            raise NodeVisitsExceeded(
                self.algorithm,
                f"amortized, after {label},",
                self.touched,
                allowed_t,
                SOURCE + " (amortized, potential inequality)",
            )
