"""Invariants of the Reactive Aggregator (paper 002 §5) over :class:`~swagkit.spec.snapshots.ReactiveState`.

The standard checker signature ``(state, monoid, window)``: ``window`` is the lifted window, oldest first (the
FIFO model's contents, or the live elements of :class:`~swagkit.spec.nonfifo.OrderedMultisetWindow`).

* ``capacity`` / ``node``: those of FlatFAT (power of two, (4.1) at every internal node);
* ``capacity bounds``: ``min_capacity ≤ capacity``, ``size ≤ capacity`` and ``capacity = min_capacity ∨
  4·size ≥ capacity`` (double when full and more than 3/4 full, compact when full otherwise, halve below 1/4);
* ``pointers``: ``0 ≤ F < capacity``, ``size ≤ span ≤ capacity``; an empty buffer has ``F = span = 0``; a
  non-empty one has live slots at ``F`` and at its last slot ``(F + span − 1) mod capacity``;
* ``empty leaves``: every slot without a live element (a hole, or outside the buffer) holds the identity ⊥;
* ``window order``: the live slots, read circularly from ``F``, hold the window in order (arrival order) and
  their handles increase strictly.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..monoid import Monoid
from ..snapshots import ReactiveState
from ._common import Checker
from .flatfat import check_tree

#: default capacity floor of the resize policy (paper 002 names none; notes P9)
DEFAULT_MIN_CAPACITY = 2

WORDING = {
    "capacity bounds": "min_capacity ≤ capacity, size ≤ capacity, and capacity = min_capacity ∨ 4·size ≥ capacity "
    "(double when full and > 3/4 full, compact when full, halve when < 1/4 full)",
    "pointers": "0 ≤ F < capacity, size ≤ span ≤ capacity; empty: F = span = 0; else slots F and F+span−1 are live",
    "empty leaves": "empty slots hold the neutral element ⊥ (x ⊕ ⊥ = x = ⊥ ⊕ x)",
    "window order": "the circular buffer from F holds the window's live tuples in arrival order",
}


def check_reactive(state: ReactiveState, monoid: Monoid[Any, Any, Any], window: Sequence[Any]) -> None:
    """Check every Reactive Aggregator invariant of ``state`` against the lifted ``window``. O(capacity) combines."""
    c = Checker("reactive", monoid, state, window)
    cap, F, span, size = state.capacity, state.F, state.span, state.size
    check_tree(c, cap, state.nodes)
    c.require(
        len(state.handles) == cap,
        "capacity",
        "one handle entry per leaf slot",
        f"len(handles) = {len(state.handles)}, capacity = {cap}",
    )
    c.require(
        state.min_capacity <= cap and size <= cap and (cap == state.min_capacity or 4 * size >= cap),
        "capacity bounds",
        WORDING["capacity bounds"],
        f"capacity = {cap}, size = {size}, min_capacity = {state.min_capacity}",
    )
    c.require(
        size == c.n,
        "window order",
        WORDING["window order"],
        f"size = {size}, window n = {c.n}",
    )
    ok = 0 <= F < cap and size <= span <= cap
    if ok and size == 0:
        ok = F == 0 and span == 0
    elif ok:
        ok = state.handles[F] is not None and state.handles[(F + span - 1) % cap] is not None
    c.require(ok, "pointers", WORDING["pointers"], f"F = {F}, span = {span}, size = {size}, capacity = {cap}")
    leaves = state.nodes[cap:]
    in_buffer = {(F + k) % cap for k in range(span)}
    live: list[tuple[int, int]] = []  # (slot, handle) in buffer order
    for k in range(span):
        slot = (F + k) % cap
        h = state.handles[slot]
        if h is not None:
            live.append((slot, h))
    for slot in range(cap):
        h = state.handles[slot]
        if slot not in in_buffer and h is not None:
            c.fail("pointers", WORDING["pointers"], f"slot {slot} outside the buffer holds handle {h}")
        if h is None and not c.equal(leaves[slot], monoid.identity):
            c.fail("empty leaves", WORDING["empty leaves"], f"empty slot {slot} holds {leaves[slot]!r}")
    c.require(
        len(live) == size,
        "window order",
        WORDING["window order"],
        f"{len(live)} live slots in the buffer, size = {size}",
    )
    for k, (slot, h) in enumerate(live):
        if k > 0 and not live[k - 1][1] < h:
            c.fail("window order", WORDING["window order"], f"handles not increasing: {live[k - 1][1]} then {h}")
        if not c.equal(leaves[slot], c.window[k]):
            c.fail(
                "window order",
                WORDING["window order"],
                f"window index i={k} at slot {slot}: stored {leaves[slot]!r}, expected {c.window[k]!r}",
            )


def check_reactive_masked(state: ReactiveState, monoid: Monoid[Any, Any, Any], window: Sequence[Any]) -> None:
    """Invariants of the FIFO optimization (002 §5.2, notes §3.4): no holes (``span = size``), the occupied
    leaves O = ``[F, F + size)`` (circular) hold the window in order, and every node ``h`` with ``R(h) ∩ O ≠ ∅``
    holds the fold of the occupied leaves of ``R(h)`` in index order (other nodes are unconstrained)."""
    c = Checker("reactive_fifo", monoid, state, window)
    cap, F, size = state.capacity, state.F, state.size
    c.require(
        len(state.nodes) == 2 * cap and cap >= 1 and cap & (cap - 1) == 0,
        "capacity",
        "capacity is a power of two; 2·capacity node slots",
        f"capacity = {cap}, len(nodes) = {len(state.nodes)}",
    )
    c.require(
        state.min_capacity <= cap and size <= cap and (cap == state.min_capacity or 4 * size >= cap),
        "capacity bounds",
        WORDING["capacity bounds"],
        f"capacity = {cap}, size = {size}, min_capacity = {state.min_capacity}",
    )
    c.require(
        state.span == size == c.n and 0 <= F < cap and (size > 0 or F == 0),
        "pointers",
        "FIFO: no holes (span = size), 0 ≤ F < capacity",
        f"F = {F}, span = {state.span}, size = {size}, window n = {c.n}",
    )
    occupied = {(F + k) % cap for k in range(size)}
    for k in range(size):
        slot = (F + k) % cap
        if not c.equal(state.nodes[cap + slot], c.window[k]):
            c.fail(
                "window order",
                WORDING["window order"],
                f"window index i={k} at slot {slot}: stored {state.nodes[cap + slot]!r}, expected {c.window[k]!r}",
            )
    top = cap.bit_length() - 1
    for h in range(1, cap):
        level = top - (h.bit_length() - 1)
        lo = (h << level) - cap
        inside = [state.nodes[cap + i] for i in range(lo, lo + (1 << level)) if i in occupied]
        if not inside:
            continue
        want = inside[0]
        for v in inside[1:]:
            want = monoid.combine(want, v)
        if not c.equal(state.nodes[h], want):
            c.fail(
                "masked node",
                "T(h) = ⊕ of the occupied leaves of R(h), ascending, whenever R(h) ∩ O ≠ ∅",
                f"node h={h}: stored {state.nodes[h]!r}, expected {want!r}",
            )
