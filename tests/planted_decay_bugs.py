"""Deliberately broken paper-004 structures for the Spark stage's tests (a module of its own so that Spark
workers can import it: the tests ship it with ``SparkContext.addPyFile``). Not collected by pytest."""

from __future__ import annotations

from typing import Any

from swagkit.reference._ladder import compress_fixed_cap
from swagkit.reference.qdigest import QDigest
from swagkit.reference.window_quantiles import SlidingWindowQuantiles


class DropsLastRange(QDigest):
    """A q-digest whose merge forgets the other digest's last stored range (an off-by-one in the union loop)
    but still adds its whole total: the counts no longer sum to N."""

    def merge(self, other: Any) -> None:
        for node, count in sorted(other._iter_nodes())[:-1]:
            self._nodes[node] = self._nodes.get(node, 0) + count
        self._total += other.total
        self.compress()


class NeverCompresses(QDigest):
    """A q-digest whose compress (explicit or periodic) returns before merging anything but still reports itself
    compressed: its size grows with the number of distinct values (paper 004 §3.1 box: compress keeps
    O(log M/ε) ranges)."""

    def _compress(self) -> None:
        self._pending = 0


class CompressesTooRarely(QDigest):
    """A q-digest whose periodic compress runs every eight size bounds' worth of inserts instead of every one
    (an explicit compress still works): between compressions it outgrows the space claim."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.compress_period *= 8


class QuantilesCompressTooRarely(SlidingWindowQuantiles):
    """Window quantiles whose SWCOMPRESS runs every eight α updates instead of every α."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.compress_period *= 8


class CompressRoundsTheThresholdDown(QDigest):
    """A q-digest whose compress merges a family only when its sum is below ``⌊γ⌋`` (``⌈γ⌉`` is right: integer sums
    below γ): where γ is not an integer, families summing to ``⌊γ⌋`` stay split. Its size stays far inside
    ``4N/⌈γ⌉ + 1``; only P2 after compress shows it (issue 25: a held-out bug class that escaped the size checks)."""

    def _merge_limit(self) -> int:
        return (self._eps_num * self._total) // (self._eps_den * self._bits)


class QuantilesMergeLeftUncompressed(SlidingWindowQuantiles):
    """Window quantiles whose SWCOMPRESS merges the children's value digests into the parent's (the union) but never
    compresses the union (issue 25: a held-out bug class; the merged digest stays within its size bound)."""

    def _compress_level(self, level: Any) -> None:
        for parent, left, right in compress_fixed_cap(level.nodes, level.gamma):
            d = level.digests.get(parent)
            if d is None:
                d = level.digests[parent] = self._new_digest()
            for child in (left, right):
                c = level.digests.pop(child, None)
                if c is not None:
                    d._absorb(c)


#: planted bugs that cost space only (answers within their error bounds)
PLANTED_SPACE = {
    cls.__name__: cls
    for cls in (
        NeverCompresses,
        CompressesTooRarely,
        QuantilesCompressTooRarely,
        CompressRoundsTheThresholdDown,
        QuantilesMergeLeftUncompressed,
    )
}
