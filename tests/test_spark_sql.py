"""Spark SQL window frames agree with swagkit's DABA Lite in both frame modes -- count and time frames, every
aggregate, bigint and double columns, NULLs and empty frames -- and a wrong swagkit side is caught, reported with a
minimal DataFrame whose reproduction really shows Spark's answer (issue 15 §2)."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from swagkit.verify.spark.sql import (
    AGGREGATES,
    FRAME_MODES,
    SEGMENT_TREE_CONF,
    Frame,
    compare_window_frames,
    default_frames,
    random_streams,
    session_conf,
    spark_frames,
    streams_frame,
    swagkit_frame_aggregates,
)

pytestmark = [pytest.mark.spark, pytest.mark.once]  # compiled pass only (tests/conftest.py)

KEYS, MEAN_ROWS, SEED = 6, 60, 15
FRAMES = default_frames(window=40, span=30)
#: a hand-made key: ties at times 10 and 50, a gap longer than the span, NULL runs (ival all NULL at time 50)
HAND = [
    ("hand", 0, 10, 5, 1.0),
    ("hand", 1, 10, None, None),
    ("hand", 2, 11, 7, -2.5),
    ("hand", 3, 50, None, None),
    ("hand", 4, 50, None, None),
    ("hand", 5, 50, None, 4.0),
    ("hand", 6, 51, 3, None),
]
ROWS = [*random_streams(KEYS, MEAN_ROWS, SEED), *HAND]
VALUES_PER_ROW = len(FRAMES) * 2 * len(AGGREGATES)  # frames × value columns (ival, fval) × aggregates


@pytest.fixture(scope="module")
def streams(spark: Any) -> Iterator[Any]:
    df = streams_frame(spark, ROWS).cache()
    yield df
    df.unpersist()


@pytest.fixture(scope="module")
def comparison(spark: Any, streams: Any) -> Any:
    before = spark.conf.get(SEGMENT_TREE_CONF)
    result = compare_window_frames(spark, streams, FRAMES)
    assert spark.conf.get(SEGMENT_TREE_CONF) == before  # the session's setting is restored
    return result


def _hand(frame: Frame, column: int) -> dict[str, list[Any]]:
    """swagkit's answers on the hand-made key (no Spark)."""
    lo, hi = frame.bounds([row[2] for row in HAND])
    return swagkit_frame_aggregates([row[column] for row in HAND], lo, hi, "bigint" if column == 3 else "double")


def test_swagkit_side_follows_spark_rules_for_peers_nulls_and_empty_frames() -> None:
    # rangeBetween(-30, 0) at the first row of time 10 holds its later peer (seq 1, NULL): last is that NULL
    peers = _hand(Frame("range", -30, 0), 3)
    assert (peers["sum"][0], peers["count"][0], peers["first"][0], peers["last"][0]) == (5, 1, 5, None)
    assert peers["last_ignorenulls"][0] == 5 and peers["stddev"][0] is None  # one non-NULL value: stddev_samp NULL
    # rangeBetween(-30, -1): empty before the first time and after the gap (times 10 -> 50); all-NULL at time 51
    before = _hand(Frame("range", -30, -1), 3)
    assert [before["count"][i] for i in (0, 1, 3, 6)] == [0, 0, 0, 0]
    assert {before[a][i] for a in AGGREGATES if a != "count" for i in (0, 1, 3, 6)} == {None}
    assert (before["sum"][2], before["avg"][2], before["last"][2], before["last_ignorenulls"][2]) == (5, 5.0, None, 5)
    # rowsBetween(-40, -1) at the first row: empty -> count 0, everything else NULL; doubles skip NULLs too
    rows = _hand(Frame("rows", -40, -1), 4)
    assert rows["count"][0] == 0 and rows["sum"][0] is None and rows["first"][0] is None
    assert (rows["sum"][3], rows["min"][3], rows["max"][3], rows["count"][3]) == (-1.5, -2.5, 1.0, 2)


def test_every_frame_and_aggregate_agrees_in_both_frame_modes(comparison: Any) -> None:
    assert set(comparison.modes) == set(FRAME_MODES)
    assert comparison.columns == (("ival", "bigint"), ("fval", "double"))
    for mode in comparison.modes.values():
        assert mode.ok, mode.mismatches
        assert (mode.rows, mode.keys) == (len(ROWS), KEYS + 1)
        assert mode.compared == len(ROWS) * VALUES_PER_ROW
        # double sums, averages and deviations were compared under the tolerance, not vacuously: some differ
        assert mode.inexact > 0 and 0.0 < mode.worst_tolerance_share <= 1.0


def test_segment_tree_mode_runs_spark_segment_tree_frames(comparison: Any) -> None:
    """Spark's own metrics: every key's every frame ran as a segment tree in that mode (no small-key
    fallback), none in the default mode."""
    default, tree = comparison.modes["default"], comparison.modes["segment_tree"]
    assert (default.segment_tree_frames, default.segment_tree_fallbacks) == (0, 0)
    assert (tree.segment_tree_frames, tree.segment_tree_fallbacks) == ((KEYS + 1) * len(FRAMES), 0)


@pytest.mark.once
def test_peers_reach_the_windows_in_seq_order_without_a_sort_of_spark(streams: Any) -> None:
    """The only sort in the plan is the comparison's own (key, time, seq): every window's ORDER BY is a prefix of
    it, so the order of peers does not depend on the stability of a sort Spark would add."""
    plan = spark_frames(streams, FRAMES, (("ival", "bigint"),), ("first",))._jdf.queryExecution().executedPlan()
    sorts = [line.strip() for line in plan.toString().splitlines() if "Sort [" in line]
    assert len(sorts) == 1 and "Sort [key#" in sorts[0] and "time#" in sorts[0] and "seq#" in sorts[0], sorts


@pytest.mark.once
def test_the_streams_have_ties_gaps_nulls_and_empty_frames() -> None:
    """What the comparison above is about is really in the generated streams."""
    by_key: dict[str, list[Any]] = {}
    for row in ROWS:
        by_key.setdefault(row[0], []).append(row)
    times = {key: [r[2] for r in rows] for key, rows in by_key.items()}
    assert any(len(set(t)) < len(t) for t in times.values())  # ties
    assert any(b - a > 30 for t in times.values() for a, b in zip(t, t[1:], strict=False))  # gaps > span
    assert sum(r[3] is None for r in ROWS) > 10 and sum(r[4] is None for r in ROWS) > 10
    empty = 0
    for t in times.values():
        lo, hi = Frame("range", -30, -1).bounds(t)
        empty += sum(a == b for a, b in zip(lo, hi, strict=True))
    assert empty > KEYS  # beyond each key's first time


def test_a_wrong_swagkit_side_is_reported_with_a_reproduction_that_shows_spark(spark: Any, streams: Any) -> None:
    def last_one_early(values: Sequence[Any], lo: Sequence[int], hi: Sequence[int], kind: str) -> dict[str, Any]:
        ours = swagkit_frame_aggregates(values, lo, hi, kind)
        shorter = [max(low, high - 1) for low, high in zip(lo, hi, strict=True)]  # drops each frame's last row
        ours["last"] = swagkit_frame_aggregates(values, lo, shorter, kind)["last"]
        return ours

    frames = (Frame("range", -30, 0), Frame("rows", -3, 0))
    result = compare_window_frames(spark, streams, frames, swagkit_side=last_one_early, max_reported=1)
    assert not result.ok
    for mode in result.modes.values():
        assert mode.mismatch_count > 1 and len(mode.mismatches) == 1  # all counted, the first reproduced
        assert mode.compared == len(ROWS) * len(frames) * 2 * len(AGGREGATES)
        for m in mode.mismatches:
            assert m.aggregate == "last" and m.spark != m.swagkit and m.reproduced
            # the minimal DataFrame: rows of that key around the frame, far fewer than the key has
            assert {row[0] for row in m.rows} == {m.key} and len(m.rows) <= 40
            assert m.seq in {row[1] for row in m.rows}
            namespace: dict[str, Any] = {}
            with session_conf(spark, mode.conf):
                exec(compile(m.repro, "<repro>", "exec"), namespace)  # the script, against the test session
            assert namespace["spark_value"] == m.repro_spark == m.spark
            assert namespace["swagkit_value"] == m.swagkit


def test_cli_reports_frame_modes_and_exits_by_finding(
    spark: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Any
) -> None:
    from swagkit.verify.cli import main
    from swagkit.verify.spark import sql

    tiny = ["verify", "--spark-sql", "--spark-sql-keys", "3", "--spark-sql-rows", "30", "--seed", "4"]
    assert main([*tiny, "--spark-sql-modes", "segment_tree"]) == 0
    out = capsys.readouterr().out
    assert "OK: spark sql" in out and "rangeBetween(-30, -1)" in out
    tree_line = next(line for line in out.splitlines() if line.startswith("segment_tree"))
    assert "(fallbacks 0)" in tree_line and not tree_line.split()[-3] == "0"  # segment-tree frames were used

    assert main([*tiny, "--spark-sql-block-size", "8"]) == 2  # Spark's minimum block is 16

    original = sql.compare_window_frames

    def planted(*args: Any, **kwargs: Any) -> Any:
        def off(values: Sequence[Any], lo: Sequence[int], hi: Sequence[int], kind: str) -> dict[str, Any]:
            ours = swagkit_frame_aggregates(values, lo, hi, kind)
            ours["count"] = [c + 1 for c in ours["count"]]
            return ours

        return original(*args, **{**kwargs, "swagkit_side": off, "max_reported": 1})

    monkeypatch.setenv("SWAGKIT_REPLAY_DIR", str(tmp_path))
    monkeypatch.setattr(sql, "compare_window_frames", planted)
    assert main([*tiny, "--spark-sql-modes", "default"]) == 1
    out = capsys.readouterr().out
    assert "==================== SPARK SQL: default: F.count('ival') over" in out and "FAILED: spark sql" in out
    path = next(line.split()[-1] for line in out.splitlines() if line.startswith("repro: python "))
    assert os.path.dirname(path) == str(tmp_path) and "spark_value = " in open(path, encoding="utf-8").read()

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("executor lost")

    monkeypatch.setattr(sql, "run_at_scale", broken)
    assert main([*tiny]) == 4
    assert "spark sql: FAILED TO RUN (RuntimeError): executor lost" in capsys.readouterr().out
