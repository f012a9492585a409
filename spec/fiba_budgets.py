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

**What the theorem's constants give for in-order inserts, and why a guard is added.** 003 proves only coin
counts (appendix, "Further Discussion of Lemma 2": 2 coins per inserted entry; a split of an arity-(2μ+1) node
frees 4 coins, keeps 1 on its arity-μ piece and sends 2 up with the separator, so 1 coin pays the split), never
the ⊗ a coin buys. A coin pays one split level: the two pieces and their parent recomputed, ``≤ 2μ + (2μ−2) + u``
⊗. So the theorem's in-order insert costs at most ``1 + 2·(8μ−4)`` ⊗ amortized (25 at μ = 2, 57 at μ = 4),
above the ``2u`` credit of the table (12, 28) -- and a FiBA that recomputes the whole right spine after every
in-order insert (O(log n) per insert, answers right) stays under either at the window sizes a test can afford:
on a sliding window (insert youngest, evict oldest) of n = 40–200 entries it spends 12.6–38.9 ⊗ per in-order
insert at μ = 2–8, the correct FiBA 3.4–5.1.

**The in-order regression guard** (:func:`inorder_credit`, :func:`inorder_potential`; a check separate from the
theorem's budget, derived by counting the recomputations of the algorithm, not a theorem of 003). For an
insert at the youngest end that leaves the root's arity and the height alone (003 §1.3's d = 0; FiBA 2019's
finger search stops at the right finger), the structural work is: append to the right-finger leaf (1 ⊗,
``pushBackEntry``, FiBA 2019) or split a chain of right-spine nodes from the leaf up and recompute the first node
that does not overflow (the top), then pass down the right spine below it (003 §5 Step 3; notes §3.2). With the
potential ``P = Σ over the right spine's non-root nodes of s(level)·max(0, a − μ)/μ`` -- ``s = 6μ−4`` for the
leaf (pieces ``μ−1 + μ−1`` ⊗, top ``u``), ``s = 8μ−4`` for internal nodes (pieces ``2μ + 2μ−2``, top ``u``) -- a
node about to split (a = 2μ, the append makes it 2μ+1) holds exactly the split's cost and its right piece (a = μ)
holds 0, so every such insert satisfies ``⊗ + ΔP ≤ (8μ−4)/μ`` (6 at μ = 2, 7 at μ = 4, 7.5 at μ = 8; an
append without a split costs ``1 + (6μ−4)/μ`` at most). The meter sums this inequality over the run, with no
slack at all: a FiBA that recomputes the spine after an append pays at least ``e`` ⊗ (e ≥ μ entries in the leaf,
more with internal spine nodes) against an allowance of 2. Inserts that change the root (its arity or the height:
a root split walks the left spine too, O(log n) once per Θ(μ^L) appends) are left to the theorem's budget.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from .errors import BudgetExceeded
from .snapshots import FiBAState

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
    "INORDER_SOURCE",
    "inorder_credit",
    "inorder_potential",
]

SOURCE = "003 Theorems 1 and 3; FiBA 2019 (derived constants, see swagkit.spec.fiba_budgets)"

INORDER_SOURCE = (
    "in-order regression guard: recomputations of FiBA 2019's append and split and 003 §5's pass down "
    "(swagkit.spec.fiba_budgets; not a theorem of 003)"
)

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


def inorder_credit(mu: int) -> float:
    """The in-order guard's ⊗ credit per insert at the youngest end: ``(8μ−4)/μ`` (module docstring)."""
    return (8 * mu - 4) / mu


def inorder_potential(state: Any, mu: int) -> tuple[float, tuple[int, int]] | None:
    """The guard's potential of a FiBA snapshot -- ``Σ s(level)·max(0, a − μ)/μ`` over the right spine
    below the root -- and the root's ``(arity, height)``; ``None`` when ``state`` is not a
    :class:`~swagkit.spec.snapshots.FiBAState` of this μ (an implementation with another state format)."""
    if not isinstance(state, FiBAState) or state.min_arity != mu:
        return None
    root = state.root
    node, height, potential = root, 1, 0.0
    while node.children:
        node = node.children[-1]
        height += 1
        split_cost = 6 * mu - 4 if not node.children else 8 * mu - 4
        potential += split_cost * max(0, node.arity - mu) / mu
    return potential, (root.arity, height)


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
    #: the in-order guard's running sums: ⊗ + ΔP of the guarded inserts, and their credit
    inorder_combines: float = 0.0
    inorder_allowed: float = 0.0
    inorder_inserts: int = 0

    #: the debug wrapper passes the snapshots around each operation (``before``/``after``) and whether an insert
    #: is in order, for the in-order guard
    reads_states = True

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
        in_order: bool = False,
        before: Any = None,
        after: Any = None,
    ) -> None:
        """Check one operation that used ``combines`` ⊗ and ``touched`` node visits. ``in_order``: an insert
        younger than every entry; ``before``/``after``: the snapshots around the operation (for the in-order
        guard; without them the guard is skipped)."""
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
        if op == "insert" and in_order:
            self._guard_inorder(label, combines, before, after)
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

    def _guard_inorder(self, label: str, combines: int, before: Any, after: Any) -> None:
        """The in-order regression guard (module docstring): ``Σ (⊗ + ΔP) ≤ (8μ−4)/μ · #inserts`` over the
        in-order inserts that leave the root's arity and the height alone; no slack."""
        was, now = inorder_potential(before, self.mu), inorder_potential(after, self.mu)
        if was is None or now is None or was[1] != now[1]:
            return
        self.inorder_inserts += 1
        self.inorder_combines += combines + now[0] - was[0]
        self.inorder_allowed += inorder_credit(self.mu)
        if self.inorder_combines > self.inorder_allowed + 1e-9:
            raise BudgetExceeded(
                self.algorithm,
                f"in-order inserts (⊗ + ΔP after {self.inorder_inserts} of them, the last {label})",
                math.ceil(self.inorder_combines),
                self.inorder_allowed,
                INORDER_SOURCE,
            )
