"""FiBA whose merge appends the separator after the right sibling's entries instead of between the two nodes':
times out of order in the merged node and a wrong fold for non-commutative ⊗ (paper 003 §4's merge). Also
CrossHair's target in ``tests/planted_bugs.py``."""

from __future__ import annotations

from typing import Any

from swagkit.reference.fiba import FiBA, Node

BUG = {
    "argv": ["--kind", "ooo", "--monoid", "string_concat"],
    "origin": "paper 003 §4: a B-tree merge placing the separator wrong",
    # tools/find_rates.py --seeds 20 --shrunk 1 at the defaults (--budget 30, --jobs 2), 2026-11-28 (stop 32): seeds
    # that find it, median seconds to the first failure (shrinking off), seconds to a shrunk replay, its steps
    "found": "20/20",
    "find_s": 0.31,
    "shrink_s": 20.21,
    "replay_steps": 6,
}


class MergeSeparatorLast(FiBA):
    """FiBA whose merge appends the separator after the right sibling's entries instead of between the two
    nodes' entries: times out of order inside the merged node, and a wrong fold for non-commutative ⊗."""

    def _merge(self, parent: Node, i: int) -> None:
        assert parent.children is not None
        right = parent.children[i + 1]
        sep: Any = (parent.times[i], parent.values[i])
        right.times.append(sep[0])
        right.values.append(sep[1])
        parent.times[i], parent.values[i] = right.times.pop(0), right.values.pop(0)
        super()._merge(parent, i)
