"""Invariants of FlatFIT (papers 001 §2 and 000 §7–8.1), resizable variant of :mod:`swagkit.reference.flatfit`.

The papers state FlatFIT's structure in prose, not as numbered invariants; each invariant below quotes the
sentence it encodes. Slot ``i`` is live when its window offset ``o(i) = (i − head) mod capacity`` is below ``n``;
its pointer ``j`` lets a traversal skip ``d(i) = ((j − i − 1) mod capacity) + 1`` slots, i.e. it covers the window
range ``[o(i), o(i) + d(i))``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..monoid import Monoid
from ..snapshots import FlatFITState
from ._common import Checker

WORDING = {
    "buffer": (
        "two circular arrays, Pointers and Partials, interconnected with their indices: both have capacity "
        "slots, the live ones are head … head+n−1 (mod capacity), tail = (head + n) mod capacity, and the slots "
        "outside the window are empty (None / −1)"
    ),
    "capacity": (
        "resizes FlatFIT's circular buffer using the standard array doubling/shrinking technique … the memory "
        "footprint is within a constant factor of the window size: capacity is a power of two with "
        "n ≤ capacity ≤ max(2, 4n)"
    ),
    "pointers": (
        "pointers, which are indices into the window for stitching together the partial aggregates of "
        "subranges: every live Pointers[i] is a slot index whose range [o(i), o(i) + d(i)) ends inside the "
        "window (at most at tail)"
    ),
    "partials": (
        "storing the intermediate results and their corresponding pointers, which indicate how far ahead "
        "FlatFIT can skip: Partials[i] = v_o(i) ⊗ … ⊗ v_(o(i)+d(i)−1)"
    ),
    "positions": (
        "the same stack is reused across queries. This is safe because the stack is always empty at the end of "
        "a query: Positions is empty between operations"
    ),
}


def check_flatfit(state: FlatFITState, monoid: Monoid[Any, Any, Any], window: Sequence[Any]) -> None:
    """Check every FlatFIT invariant of ``state`` against the lifted ``window``. O(n + capacity) combines."""
    c = Checker("flatfit", monoid, state, window)
    cap, n, head = state.capacity, c.n, state.head
    c.require(
        isinstance(cap, int) and cap >= 2 and cap & (cap - 1) == 0 and n <= cap <= max(2, 4 * n),
        "capacity",
        WORDING["capacity"],
        f"capacity = {cap}, window n = {n}",
    )
    c.require(
        len(state.partials) == cap
        and len(state.pointers) == cap
        and 0 <= head < cap
        and state.size == n
        and state.tail == (head + n) % cap,
        "buffer",
        WORDING["buffer"],
        f"len(Partials) = {len(state.partials)}, len(Pointers) = {len(state.pointers)}, capacity = {cap}, "
        f"head = {head}, tail = {state.tail}, size = {state.size}, window n = {n}",
    )
    slot = [(head + k) % cap for k in range(n)]  # slot of window offset k
    live = set(slot)
    for i in range(cap):
        if i not in live:
            c.require(
                state.partials[i] is None and state.pointers[i] == -1,
                "buffer",
                WORDING["buffer"],
                f"slot {i} is outside the window but holds Partials = {state.partials[i]!r}, "
                f"Pointers = {state.pointers[i]!r}",
            )
    c.require(
        len(state.positions) == 0,
        "positions",
        WORDING["positions"],
        f"Positions = {list(state.positions)!r}",
    )
    end = [0] * n  # end[k]: window offset just past the range of offset k
    for k, i in enumerate(slot):
        j = state.pointers[i]
        ok = isinstance(j, int) and 0 <= j < cap
        if ok:
            end[k] = k + (j - i - 1) % cap + 1
            ok = end[k] <= n
        c.require(
            ok,
            "pointers",
            WORDING["pointers"],
            f"Pointers[{i}] = {j!r} at window offset {k}: range ends at offset "
            f"{end[k] if isinstance(j, int) and 0 <= j < cap else '?'} > n = {n}",
        )
    # Right to left: each range is v_k followed by the ranges that start right after it (already verified), as
    # long as they stay inside it. With a single query the ranges are nested or disjoint and this tiles exactly
    # (O(n) combines); range queries that start mid-window (``query_range``) stitch ranges that may cross an
    # older one, and there the fold continues element by element -- crossing ranges are still correct ranges.
    for k in range(n - 1, -1, -1):
        want = c.window[k]
        m = k + 1
        while m < end[k]:
            if end[m] <= end[k]:
                want = monoid.combine(want, state.partials[slot[m]])
                m = end[m]
            else:
                want = monoid.combine(want, c.window[m])
                m += 1
        got = state.partials[slot[k]]
        if not c.equal(got, want):
            c.fail(
                "partials",
                WORDING["partials"],
                f"Partials[{slot[k]}] (window offsets [{k}, {end[k]})): stored {got!r}, expected {want!r}",
            )
