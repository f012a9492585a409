"""Spark SQL window frames agree with swagkit's DABA Lite in both frame modes, and a wrong swagkit side is caught."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from swagkit.verify.spark.sql import (
    AGGREGATES,
    FRAME_MODES,
    SEGMENT_TREE_CONF,
    compare_window_frames,
    random_streams,
    streams_frame,
    swagkit_aggregates,
)

pytestmark = pytest.mark.spark

WINDOWS = (1, 3, 16)
KEYS, ROWS_PER_KEY = 3, 300


@pytest.fixture(scope="module")
def streams(spark: Any) -> Any:
    return streams_frame(spark, random_streams(KEYS, ROWS_PER_KEY, seed=15)).cache()


def test_spark_frames_agree_with_daba_lite_in_both_frame_modes(spark: Any, streams: Any) -> None:
    before = spark.conf.get(SEGMENT_TREE_CONF)
    result = compare_window_frames(spark, streams, WINDOWS)
    assert spark.conf.get(SEGMENT_TREE_CONF) == before  # the session's setting is restored
    assert set(result.frames) == set(FRAME_MODES)
    for frame in result.frames.values():
        assert frame.rows == KEYS * ROWS_PER_KEY
        assert frame.compared == KEYS * ROWS_PER_KEY * len(WINDOWS) * len(AGGREGATES)
        assert frame.ok, frame.mismatches
    assert result.ok


def test_segment_tree_mode_runs_spark_segment_tree_frames(spark: Any, streams: Any) -> None:
    """The conf exists (Spark >= 4.2) and is off by default; the ``segment_tree`` mode really runs Spark's
    segment-tree frames (its own metrics say so, with no fallback) and the ``default`` mode none."""
    assert spark.conf.get(SEGMENT_TREE_CONF) == "false"
    result = compare_window_frames(spark, streams, (16,))
    default, tree = result.frames["default"], result.frames["segment_tree"]
    assert default.segment_tree_frames == 0
    assert tree.segment_tree_frames > 0 and tree.segment_tree_fallbacks == 0
    assert result.ok


def test_an_off_by_one_swagkit_side_is_reported(spark: Any, streams: Any) -> None:
    def one_short(values: Sequence[int], window: int) -> dict[str, list[Any]]:
        return swagkit_aggregates(values, max(1, window - 1))

    result = compare_window_frames(spark, streams, (3,), swagkit_side=one_short, max_reported=3)
    assert not result.ok
    for frame in result.frames.values():
        assert frame.mismatch_count > 0 and len(frame.mismatches) == 3
        first = frame.mismatches[0]
        assert first.window == 3 and first.spark != first.swagkit
        # the minimal rows are the frame's own: the window's rows ending at the disagreeing one, of one key
        assert [row[1] for row in first.rows] == list(range(first.seq - len(first.rows) + 1, first.seq + 1))
        assert {row[0] for row in first.rows} == {first.key} and len(first.rows) <= 3
