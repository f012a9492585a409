"""The ``sketch`` kind: mergeable quantile sketches of weighted values over a ``b``-bit universe (paper 004
§3.1's q-digest), checked against the exact multiset of what was inserted (the model) and the card's error and
space bounds. The parts live in :mod:`.decay` (shared with :mod:`.time_decayed`)."""

from __future__ import annotations

from swagkit.spec.decay.oracle import RankProfile

from .base import Operation
from .decay.debug import CheckedQDigest, checked_sketch
from .decay.machine import make_sketch_machine
from .decay.spark import merge_stage, run_sketch_task
from .kind import Kind

__all__ = ["KIND", "CheckedQDigest", "checked_sketch"]

KIND = Kind(
    name="sketch",
    title="mergeable quantile sketch",
    model=RankProfile,
    operations=(
        Operation("insert", True, "insert(x, weight=1): add a weighted value of the universe", model=False),
        Operation("insert_many", True, "insert_many(values): add each value once", model=False),
        Operation("compress", True, "compress(): shrink to the space bound", model=False),
        Operation("merge", True, "merge(other): add another sketch of the same parameters", model=False),
        Operation("rank", True, "rank(x): estimated weight of values < x (r̂ <= r <= r̂ + εN)", model=False),
        Operation("frequency", True, "frequency(x): estimated weight of x", model=False),
        Operation("quantile", True, "quantile(phi): a value of estimated rank phi·N", model=False),
        Operation("snapshot", True, "snapshot(): the state the checker compares with the multiset", model=False),
        Operation("universe_bits", True, "universe_bits: b (values are 0 .. 2^b − 1)", model=False),
        Operation("eps", True, "eps: the error parameter ε", model=False),
        Operation("total", True, "total: N, the weight inserted", model=False),
    ),
    checked=checked_sketch,
    make_machine=make_sketch_machine,
    diff_runner=run_sketch_task,
    spark_stages=(merge_stage,),
)
