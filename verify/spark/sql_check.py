"""The comparison of Spark's window columns with swagkit's side, one key at a time on a Spark worker (issue 15 §2).

:func:`make_partition_checker` returns the function ``mapInArrow`` runs: it gets each key's rows with Spark's
answers in the columns ``<aggregate>__<value column>__f<frame index>``, puts them in ``seq`` order,
computes swagkit's side for every frame and value column (:func:`.sql_frames.swagkit_frame_aggregates` by
default) and compares value by value under :func:`agree`. It returns one row per key: the number of values
compared, of those equal only within tolerance (and the largest share of its tolerance one used), of mismatches,
and the first few mismatches as JSON (:data:`DETAIL_FIELDS`).

Tolerance rules (``u = 2**-53``, the unit roundoff of a double; ``n`` the frame's non-NULL values, ``A = Σ|x|``,
``Q = Σx²`` over them):

* exact: ``count``, ``min``, ``max``, ``first``/``last`` (both kinds), and on ``bigint`` columns ``sum`` and
  ``avg`` (an int64 sum is exact; Spark's ``avg`` adds the longs as doubles, exact while sums stay below 2**53 --
  the generated values keep them far below -- and both sides divide once, correctly rounded);
* ``sum`` of doubles: ``|spark - swagkit| <= 2·n·u·A``. Summation in any order (Spark's default frame adds left
  to right; its segment tree merges block and node partials; DABA Lite combines its own partials) is within
  ``(n-1)·u·A`` of the exact sum (Higham, *Accuracy and Stability of Numerical Algorithms*, §4.2), so two such
  sums are within ``2(n-1)·u·A``; relative to the *sum* the difference is unbounded under cancellation, hence
  ``A``;
* ``avg`` of doubles: that bound divided by ``n``, plus one rounding of the quotient on each side
  (``2·u·|avg|``);
* ``stddev`` (``stddev_samp``, either column type): the squares differ by at most ``8·n·u·Q/(n-1)`` -- Welford
  updates (Spark's default frame) and Chan et al.'s pairwise merges (Spark's tree, swagkit's ``stddev`` monoid)
  compute ``M2`` with an error ``O(n·u·Q)`` (Chan, Golub & LeVeque, 1983), and ``Q >= M2``; the constant 8 is a
  margin, not a proof.

The ``sum``/``avg`` bounds hold with room to spare (two sums differ by at most ``(n-1)/n`` of the allowance); on
2·10^5 generated rows in both frame modes the largest share used was 0.54 (a double sum of 3 values, two units in
the last place), and at most 0.33 for ``stddev`` (``worst_by_aggregate`` in the report). NULL must meet NULL; NaN
never occurs (swagkit's float monoids refuse it; the generated values are finite).
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from .sql_frames import AGGREGATES, Frame, SwagkitSide, frame_magnitudes, swagkit_frame_aggregates

__all__ = [
    "DETAIL_FIELDS",
    "CHECK_SCHEMA",
    "ROUNDOFF",
    "agree",
    "arrow",
    "column_name",
    "KeySplitError",
    "make_partition_checker",
    "tolerance",
]

#: unit roundoff of IEEE double precision
ROUNDOFF = 2.0**-53
#: the schema of the checker's rows: one per key
CHECK_SCHEMA = (
    "key string, rows bigint, compared bigint, inexact bigint, worst string, mismatches bigint, detail string"
)
#: the fields of one mismatch in ``detail``: frame index, value column, aggregate, the row's seq and position in
#: its key, the frame's positions ``[lo, hi)``, Spark's answer, swagkit's answer and the tolerance applied
DETAIL_FIELDS = ("frame", "column", "aggregate", "seq", "index", "lo", "hi", "spark", "swagkit", "tolerance")
_FLOAT_SCALED = {"sum", "avg"}


def column_name(aggregate: str, column: str, frame_index: int) -> str:
    """Spark's output column of ``aggregate`` over ``column`` in frame number ``frame_index``."""
    return f"{aggregate}__{column}__f{frame_index}"


def tolerance(aggregate: str, value_type: str, n: int, abs_sum: float, square_sum: float, answer: Any) -> float:
    """The allowed ``|spark - swagkit|`` (for ``stddev``: between the squares) under the module's rules."""
    if aggregate == "stddev":
        return 8.0 * n * ROUNDOFF * square_sum / max(n - 1, 1)
    if value_type != "double" or aggregate not in _FLOAT_SCALED:
        return 0.0
    if aggregate == "sum":
        return 2.0 * n * ROUNDOFF * abs_sum
    return 2.0 * ROUNDOFF * abs_sum + 2.0 * ROUNDOFF * abs(float(answer))


def agree(aggregate: str, spark_value: Any, swagkit_value: Any, allowed: float) -> bool:
    """Whether the two answers agree: both NULL, or both non-NULL and equal or within ``allowed``."""
    if spark_value is None or swagkit_value is None:
        return spark_value is None and swagkit_value is None
    return bool(spark_value == swagkit_value) or _difference(aggregate, spark_value, swagkit_value) <= allowed


def _difference(aggregate: str, spark_value: Any, swagkit_value: Any) -> float:
    """What the tolerance bounds: ``|a - b|``, for ``stddev`` ``|a² - b²|`` (NaN, never within, for NaN or inf)."""
    a, b = float(spark_value), float(swagkit_value)
    return abs(a * a - b * b) if aggregate == "stddev" else abs(a - b)


@dataclass(frozen=True)
class _CheckSpec:
    frames: tuple[Frame, ...]
    columns: tuple[tuple[str, str], ...]  # (value column, value type)
    aggregates: tuple[str, ...]
    swagkit_side: SwagkitSide
    max_reported: int


class KeySplitError(RuntimeError):
    """A key's rows were not contiguous in one partition of the windowed DataFrame: the checker would have seen
    part of a stream, so it stops (a failure of the harness's assumption about Spark's plan, not a finding)."""


def make_partition_checker(
    frames: Sequence[Frame],
    columns: Sequence[tuple[str, str]],
    aggregates: Sequence[str] = tuple(AGGREGATES),
    swagkit_side: SwagkitSide = swagkit_frame_aggregates,
    max_reported: int = 5,
) -> Callable[[Iterable[Any]], Iterator[Any]]:
    """The ``mapInArrow`` function comparing a partition of the windowed DataFrame, one key at a time (memory: one
    key's rows); ``columns`` are ``(value column, value type)`` pairs. It relies on what the window operator
    leaves behind -- each key in one partition (hash-partitioned by key), its rows contiguous (sorted by key
    first) -- and raises :class:`KeySplitError` if a key comes back after another one; the driver checks that no
    key is reported twice. (``groupBy("key").applyInArrow`` would not rely on it but costs about 5x more.)"""
    spec = _CheckSpec(tuple(frames), tuple(columns), tuple(aggregates), swagkit_side, max_reported)

    def check(batches: Iterable[Any]) -> Iterator[Any]:
        pa = arrow()
        schema = _arrow_schema(pa)
        seen: set[str] = set()
        current: dict[str, list[Any]] = {}
        for batch in batches:
            data = batch.to_pydict()
            keys = data["key"]
            done = []
            start = 0
            while start < len(keys):
                key = keys[start]
                end = start + 1
                while end < len(keys) and keys[end] == key:
                    end += 1
                if not current or current["key"][0] != key:
                    if current:
                        done.append(_check_key(spec, current))
                    if key in seen:
                        raise KeySplitError(f"the rows of key {key!r} are not contiguous in their partition")
                    seen.add(key)
                    current = {name: [] for name in data}
                for name, values in data.items():
                    current[name] += values[start:end]
                start = end
            if done:
                yield pa.RecordBatch.from_pylist(done, schema=schema)
        if current:
            yield pa.RecordBatch.from_pylist([_check_key(spec, current)], schema=schema)

    return check


def arrow() -> Any:
    """The ``pyarrow`` module (imported when used: it is an optional dependency, and has no type stubs)."""
    return importlib.import_module("pyarrow")


def _arrow_schema(pa: Any) -> Any:
    return pa.schema(
        [
            ("key", pa.string()),
            ("rows", pa.int64()),
            ("compared", pa.int64()),
            ("inexact", pa.int64()),
            ("worst", pa.string()),
            ("mismatches", pa.int64()),
            ("detail", pa.string()),
        ]
    )


def _check_key(spec: _CheckSpec, data: dict[str, list[Any]]) -> dict[str, Any]:
    seqs = data["seq"]
    in_order = all(a < b for a, b in zip(seqs, seqs[1:], strict=False))  # as the time-ordered window leaves them
    order = range(len(seqs)) if in_order else sorted(range(len(seqs)), key=seqs.__getitem__)

    def column(name: str) -> list[Any]:
        values = data[name]
        return values if in_order else [values[j] for j in order]

    times = column("time") if any(f.kind == "range" for f in spec.frames) else [0] * len(order)
    if any(b < a for a, b in zip(times, times[1:], strict=False)):
        raise ValueError(f"key {data['key'][0]!r}: time must be non-decreasing in seq (range frames need it)")
    seq_sorted = column("seq")
    compared = inexact = mismatches = 0
    worst: dict[str, float] = {}  # per aggregate: the largest |difference| / tolerance among the inexact values
    details: list[list[Any]] = []
    for index, frame in enumerate(spec.frames):
        lo, hi = frame.bounds(times)
        for value_column, value_type in spec.columns:
            values = column(value_column)
            ours = spec.swagkit_side(values, lo, hi, value_type)
            magnitudes: tuple[list[int], list[float], list[float]] | None = None  # when a first difference needs them
            for aggregate in spec.aggregates:
                theirs = column(column_name(aggregate, value_column, index))
                mine = ours[aggregate]
                compared += len(theirs)
                for i, (a, b) in enumerate(zip(theirs, mine, strict=True)):
                    if a == b:
                        continue  # the common case (NULL == NULL included), without the tolerance computation
                    counts, abs_sums, square_sums = magnitudes = magnitudes or frame_magnitudes(values, lo, hi)
                    allowed = tolerance(aggregate, value_type, counts[i], abs_sums[i], square_sums[i], b)
                    if agree(aggregate, a, b, allowed):
                        inexact += 1
                        share = _difference(aggregate, a, b) / allowed if allowed else 0.0
                        worst[aggregate] = max(worst.get(aggregate, 0.0), share)
                        continue
                    mismatches += 1
                    if len(details) < spec.max_reported:
                        details.append([index, value_column, aggregate, seq_sorted[i], i, lo[i], hi[i], a, b, allowed])
    key = data["key"][0] if data["key"] else ""
    return {
        "key": key,
        "rows": len(order),
        "compared": compared,
        "inexact": inexact,
        "worst": json.dumps(worst),
        "mismatches": mismatches,
        "detail": json.dumps(details) if details else "",
    }
