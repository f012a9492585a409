"""Invariants of SlickDeque (paper 001 Algorithms 1 and 2; the numbering I1–I4 and N1–N6 of the notes).

Both checkers take the standard ``(state, monoid, window)``: the snapshot, the monoid and the lifted FIFO window
contents (oldest first). Sequence numbers are absolute: the window holds partials ``v_(t−n+1) … v_t`` with
``t = inserted − 1``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import f64_track
from ..monoid import Monoid
from ..slickdeque import answer_index, selects_right
from ..snapshots import SlickDequeInvState, SlickDequeNonInvState
from ._common import Checker

INV_WORDING = {
    "ring": "I1 (ring contents): partials[(t−k) mod W] = v_(t−k) for k in 0…W−1, or e if v_(t−k) is not in the window",
    "answers": "I2 (running aggregates): answers[R] = v_(t−R+1) ⊕ … ⊕ v_t for every distinct range R (e padding); "
    "for sum_f64 a value some summation order of those partials gives (within their any-order bound)",
    "cursor": "I3 (cursor): currPos = (t+1) mod W",
    "keys": "I4 (keys): the keys of answers are exactly the distinct ranges, 1 ≤ R ≤ W, W = max R",
    "size": "the window holds n ≤ W partials, as many as were inserted and not evicted",
}

NONINV_WORDING = {
    "tail": "N1 (non-empty, tail is newest): m ≥ 1, p_m = t, u_m = v_t",
    "order": "N2 (chronological, inside the longest window): t−n+1 ≤ p_1 < p_2 < … < p_m = t and u_k = v_(p_k)",
    "suffix": "N3 (suffix-aggregate property): v_j ⊕ … ⊕ v_t = u_(k(j)) with k(j) = min{k : p_k ≥ j}",
    "dominance": "N4 (dominance chain): u_k ⊕ u_(k+1) = u_k and ⊕ does not select the right operand",
    "answer": "N5 (answers): range R gets u_(k*), k* = min{k : p_k > t−R}, = v_(max(0,t−R+1)) ⊕ … ⊕ v_t",
    "size": "N6 (size): 1 ≤ m ≤ min(W, n) for a non-empty window; the window holds n ≤ W partials",
}


def _check_keys(c: Checker, ranges: Sequence[int | None], capacity: int | None, wording: str) -> None:
    if capacity is None:
        c.require(list(ranges) in ([], [None]), "keys", wording, f"plain FIFO mode with ranges {list(ranges)}")
        return
    rs = [r for r in ranges if r is not None]
    c.require(
        len(rs) == len(ranges)
        and rs == sorted(set(rs), reverse=True)
        and bool(rs)
        and rs[0] == capacity
        and rs[-1] >= 1,
        "keys",
        wording,
        f"ranges {list(ranges)} with W = {capacity}",
    )


def check_slickdeque_inv(state: SlickDequeInvState, monoid: Monoid[Any, Any, Any], window: Sequence[Any]) -> None:
    """Check I1–I4 of SlickDeque (Inv) against the lifted ``window``. O(W + Σ R) combines."""
    c = Checker("slickdeque_inv", monoid, state, window)
    n, W = c.n, state.capacity
    c.require(state.length == n, "size", INV_WORDING["size"], f"length = {state.length}, window n = {n}")
    _check_keys(c, [r for r, _ in state.answers], W, INV_WORDING["keys"])
    tracked = f64_track.tracked(monoid)
    if W is None:
        c.require(len(state.partials) == n, "ring", INV_WORDING["ring"], f"{len(state.partials)} stored, n = {n}")
        c.check_range("ring", INV_WORDING["ring"], state.partials, c.window, 0, "partial")
        got = state.answers[0][1]
        if tracked:
            ok = f64_track.any_order_ok(got, c.window)
            c.require(ok, "answers", INV_WORDING["answers"], f"whole window: {got!r}, outside its any-order bound")
            return
        want = c.fold(0, n - 1)
        c.require(c.equal(got, want), "answers", INV_WORDING["answers"], f"whole window: {got!r}, expected {want!r}")
        return
    c.require(n <= W and n <= state.inserted, "size", INV_WORDING["size"], f"n = {n}, W = {W}, t+1 = {state.inserted}")
    c.require(len(state.partials) == W, "ring", INV_WORDING["ring"], f"{len(state.partials)} slots, W = {W}")
    c.require(
        state.cursor == state.inserted % W,
        "cursor",
        INV_WORDING["cursor"],
        f"currPos = {state.cursor}, t+1 = {state.inserted}, W = {W}",
    )
    t = state.inserted - 1
    for k in range(W):
        slot = (t - k) % W
        want = c.window[n - 1 - k] if k < n else monoid.identity
        got = state.partials[slot]
        if not c.equal(got, want):
            c.fail("ring", INV_WORDING["ring"], f"k={k}: partials[{slot}] = {got!r}, expected {want!r}")
    if tracked:
        for r, got in state.answers:
            assert r is not None
            ok = f64_track.any_order_ok(got, c.window[max(n - r, 0) :])
            c.require(ok, "answers", INV_WORDING["answers"], f"answers[{r}] = {got!r}, outside its any-order bound")
        return
    suffix = c.suffixes(0, n)
    for r, got in state.answers:
        assert r is not None
        want = suffix[n - r] if r < n else (suffix[0] if n else monoid.identity)
        c.require(c.equal(got, want), "answers", INV_WORDING["answers"], f"answers[{r}] = {got!r}, expected {want!r}")


def check_slickdeque_noninv(state: SlickDequeNonInvState, monoid: Monoid[Any, Any, Any], window: Sequence[Any]) -> None:
    """Check N1–N6 of SlickDeque (Non-Inv) against the lifted ``window``. O(n) combines."""
    c = Checker("slickdeque_noninv", monoid, state, window)
    n, W, nodes = c.n, state.capacity, state.nodes
    t = state.inserted - 1
    c.require(
        state.inserted - state.first == n and (W is None or n <= W),
        "size",
        NONINV_WORDING["size"],
        f"window seqs {state.first}…{t} but n = {n} (W = {W})",
    )
    _check_keys(c, list(state.ranges), W, NONINV_WORDING["size"] + "; ranges longest first, W = max R")
    if n == 0:
        c.require(not nodes, "tail", NONINV_WORDING["tail"], f"empty window but {len(nodes)} nodes")
        return
    c.require(bool(nodes), "tail", NONINV_WORDING["tail"], "the deque is empty but the window is not")
    c.require(len(nodes) <= n, "size", NONINV_WORDING["size"], f"m = {len(nodes)} nodes, n = {n}")
    tail_seq, tail_val = nodes[-1]
    c.require(
        tail_seq == t and c.equal(tail_val, c.window[-1]),
        "tail",
        NONINV_WORDING["tail"],
        f"tail node ({tail_seq}, {tail_val!r}), newest partial ({t}, {c.window[-1]!r})",
    )
    seqs = [s for s, _ in nodes]
    for k, (s, u) in enumerate(nodes):
        ok = state.first <= s <= t and (k == 0 or seqs[k - 1] < s) and c.equal(u, c.window[s - state.first])
        if not ok:
            want = c.window[s - state.first] if state.first <= s <= t else "outside the window"
            c.fail("order", NONINV_WORDING["order"], f"node {k} = ({s}, {u!r}); v_{s} = {want!r}; seqs {seqs}")
    suffix = c.suffixes(0, n)
    k = 0
    for j in range(n):
        while seqs[k] < state.first + j:
            k += 1
        if not c.equal(nodes[k][1], suffix[j]):
            c.fail(
                "suffix",
                NONINV_WORDING["suffix"],
                f"j = {state.first + j}: u_k(j) = {nodes[k][1]!r} (node {k}), v_j ⊕ … ⊕ v_t = {suffix[j]!r}",
            )
    for k in range(len(nodes) - 1):
        older, newer = nodes[k][1], nodes[k + 1][1]
        result = monoid.combine(older, newer)
        if not c.equal(result, older) or selects_right(monoid, result, older, newer):
            c.fail(
                "dominance",
                NONINV_WORDING["dominance"],
                f"nodes {k}, {k + 1}: {older!r} ⊕ {newer!r} = {result!r}",
            )
    for r in state.ranges:
        i = answer_index(seqs, t, r)
        want = suffix[max(n - r, 0)]
        c.require(
            c.equal(nodes[i][1], want),
            "answer",
            NONINV_WORDING["answer"],
            f"range {r}: node {i} = {nodes[i]!r}, expected {want!r}",
        )
