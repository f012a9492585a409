"""q-digest (paper 004 §3.1 box; Shrivastava et al.): a mergeable quantile sketch of weighted values over a
``b``-bit universe. Not generic over a monoid (it adds integer weights): listed under the ``count`` monoid and
run once. Its checker compares a snapshot with the exact multiset (``swagkit.verify.kinds.decay.debug`` calls it); its
error and space contracts are in :mod:`swagkit.spec.decay.bounds`."""

from __future__ import annotations

from ..checkers.qdigest import check_qdigest
from ..decay.snapshots import QDigestState
from .card import AlgorithmCard, approximate

CARD = AlgorithmCard(
    id="qdigest",
    title="q-digest (mergeable quantile sketch)",
    paper="004 §3.1 box",
    class_name="QDigest",
    adt="sketch",
    snapshot=QDigestState,
    checker=check_qdigest,
    params={"universe_bits": 10, "eps": 0.05},
    takes_monoid=False,
    monoids=("count",),
    guarantees=approximate(error="r̂(q) <= r(q) <= r̂(q) + εN", space="4·b/ε+1 ranges"),
    # coarse universes and ε: the digest compresses within a differential run
    stress_params=({"universe_bits": 6, "eps": 0.3}, {"universe_bits": 3, "eps": 0.5}),
)
