"""Deliberately broken paper-004 structures for the Spark stage's tests (a module of its own so that Spark
workers can import it: the tests ship it with ``SparkContext.addPyFile``). Not collected by pytest."""

from __future__ import annotations

from typing import Any

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


#: planted bugs that cost space only (answers within their error bounds)
PLANTED_SPACE = {cls.__name__: cls for cls in (NeverCompresses, CompressesTooRarely, QuantilesCompressTooRarely)}
