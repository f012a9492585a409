"""The ``time_decayed`` kind: out-of-order sliding-window and time-decayed aggregates over a ``T``-bit clock
(paper 004 §3-§4: window count, window quantiles, value division), checked against the exact stream
(:class:`~swagkit.spec.decay.oracle.ExactStream`, the model) and the card's error and space bounds. The parts
live in :mod:`.decay` (shared with :mod:`.sketch`); what differs between structures is read off their
capabilities (:class:`~.decay.common.Capabilities`)."""

from __future__ import annotations

from swagkit.spec.decay.oracle import ExactStream

from .base import Operation
from .decay.debug import CheckedWindowStructure, checked_time_decayed
from .decay.machine import make_time_decayed_machine
from .decay.spark import run_time_decayed_task
from .kind import Kind

__all__ = ["KIND", "CheckedWindowStructure", "checked_time_decayed"]

_VALUES = "values"
_FIXED = "fixed_decay"

KIND = Kind(
    name="time_decayed",
    title="time-decayed (sliding-window) structure",
    model=ExactStream,
    operations=(
        Operation("advance", True, "advance(t): move the clock to t (never back)"),
        Operation(
            "insert",
            True,
            "insert(timestamp, weight=1), or insert(value, timestamp, weight=1) for structures of values",
        ),
        Operation("insert_many", True, "insert_many(items): timestamps, or (value, timestamp) pairs", model=False),
        Operation("snapshot", True, "snapshot(): the state the checker compares with the exact stream", model=False),
        Operation("now", True, "now: the clock", model=False),
        Operation("total", True, "total: the weight inserted", model=False),
        Operation("time_bits", True, "time_bits: T (timestamps are 0 .. 2^T − 1)", model=False),
        Operation("count", False, "count(w): estimated weight of the last w time units", model=False),
        Operation("compress", False, "compress(): shrink to the level budget", model=False),
        Operation("alpha", False, "alpha, alpha_min: the level budget and the provable one", model=False),
        Operation("value_bits", False, "value_bits: b, for structures of values", _VALUES, model=False),
        Operation("rank", False, "rank(x, w): estimated weight of values < x in the window", _VALUES, model=False),
        Operation("range_count", False, "range_count(lo, hi, w)", _VALUES, model=False),
        Operation("quantile", False, "quantile(phi, w)", _VALUES, model=False),
        Operation("heavy_hitters", False, "heavy_hitters(phi, w)", _VALUES, model=False),
        Operation(
            "decayed_count", False, "decayed_count(decay) (no argument with a fixed decay)", _VALUES, model=False
        ),
        Operation("decayed_rank", False, "decayed_rank(x, decay)", _VALUES, model=False),
        Operation("decayed_quantile", False, "decayed_quantile(phi, decay)", _VALUES, model=False),
        Operation("decayed_heavy_hitters", False, "decayed_heavy_hitters(phi, decay)", _VALUES, model=False),
        Operation("decay", False, "decay: the fixed decay (value division)", _FIXED, model=False),
        Operation("maintain", False, "maintain(): the fixed-decay structure's compaction", _FIXED, model=False),
    ),
    checked=checked_time_decayed,
    make_machine=make_time_decayed_machine,
    diff_runner=run_time_decayed_task,
)
