"""Deliberately broken paper-004 structures for the Spark stage's tests (a module of its own so that Spark
workers can import it: the tests ship it with ``SparkContext.addPyFile``). Not collected by pytest."""

from __future__ import annotations

from typing import Any

from swagkit.reference.qdigest import QDigest


class DropsLastRange(QDigest):
    """A q-digest whose merge forgets the other digest's last stored range (an off-by-one in the union loop)
    but still adds its whole total: the counts no longer sum to N."""

    def merge(self, other: Any) -> None:
        for node, count in sorted(other._iter_nodes())[:-1]:
            self._nodes[node] = self._nodes.get(node, 0) + count
        self._total += other.total
        self.compress()
