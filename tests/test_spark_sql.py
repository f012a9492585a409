"""``swagkit verify --spark-sql``: Spark SQL's window frames as two of the window engines (issue 24 §1: one code
path) -- ``spark`` (the default frame) and ``spark-segment-tree`` (Spark 4.2+'s segment tree, small blocks) --
judged by the engines' exact oracle: hand cases of ROWS and RANGE frames with ties and NULLs agree in both frame
modes, Spark's own metrics show the tree ran (and the session's settings are restored), the tree's repros set the
tree's settings, and the command reports, writes repros and exits by finding, usage error or failed job."""

from __future__ import annotations

from typing import Any

import pytest

from swagkit.verify.engines.model import Bound, Call, Case, Frame, Query, Table, Window
from swagkit.verify.engines.run import check_case
from swagkit.verify.engines.spark_engine import (
    SEGMENT_TREE_CONF,
    SparkEngine,
    SparkSegmentTreeEngine,
    segment_tree_conf,
)

pytestmark = [pytest.mark.spark, pytest.mark.once]
ONCE_PASS = "pure"  # tests/conftest.py: this module runs in the pure-Python pass (it balances the two)

#: (id, p, o, x, s, b): two partitions, ties at o = 10 and 50, a gap, NULL runs, a NULL order key
ROWS = (
    (1, 0, 10, 5, "a", True),
    (2, 0, 10, None, None, None),
    (3, 0, 11, 7, "b", False),
    (4, 0, 50, None, None, None),
    (5, 0, 50, None, "c", True),
    (6, 0, 50, -4, "d", False),
    (7, 0, 51, 3, None, None),
    (8, 0, None, 9, "e", True),
    (9, 1, 1, 2, "f", True),
    (10, 1, 2, -8, "g", False),
)
TABLE = Table("int", "int", ROWS)
UP, CUR = Bound("unbounded_preceding"), Bound("current_row")


def _queries() -> tuple[Query, ...]:
    frames = [
        Frame("rows", Bound("preceding", 2), CUR),
        Frame("rows", Bound("preceding", 3), Bound("preceding", 1)),
        Frame("range", Bound("preceding", 30), CUR),
        Frame("range", Bound("preceding", 1), Bound("following", 1)),
        Frame("range", UP, Bound("preceding", 1)),
    ]
    calls = [Call("sum"), Call("count"), Call("min"), Call("max"), Call("avg"), Call("first_value")]
    return tuple(Query(call, Window(partitioned=True, frame=frame)) for frame in frames for call in calls)


CASE = Case(TABLE, _queries(), 0, 0)


def test_both_frame_modes_answer_hand_cases_exactly_and_the_tree_runs(spark: Any) -> None:
    before = spark.conf.get(SEGMENT_TREE_CONF)
    default, tree = SparkEngine(spark), SparkSegmentTreeEngine(spark)
    assert all(default.unsupported(TABLE, q) is None for q in CASE.queries)
    assert check_case(default, CASE) == []
    assert check_case(tree, CASE) == []
    assert tree.segment_tree_frames > 0 and tree.segment_tree_fallbacks == 0  # Spark's metrics: the tree ran
    assert spark.conf.get(SEGMENT_TREE_CONF) == before  # the session's own setting is back
    assert "segment tree, block 16, fanout 2" in tree.version()


def test_the_tree_engine_repro_sets_the_tree_settings(spark: Any) -> None:
    repro = SparkSegmentTreeEngine(spark, block_size=32, fanout=3).repro(CASE)
    for name, value in segment_tree_conf(32, 3).items():
        assert f'spark.conf.set("{name}", "{value}")' in repro.code
    assert SEGMENT_TREE_CONF not in SparkEngine(spark).repro(CASE).code
    with pytest.raises(ValueError, match="block size >= 16"):
        segment_tree_conf(8, 2)


def test_cli_runs_both_engines_and_exits_by_finding(
    spark: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Any
) -> None:
    from swagkit.verify.cli import engines_cmd, main

    monkeypatch.setenv("SWAGKIT_REPLAY_DIR", str(tmp_path))
    tiny = ["verify", "--spark-sql", "--spark-sql-cases", "4", "--spark-sql-rows", "40", "--seed", "4"]
    status = main(tiny)
    out = capsys.readouterr().out
    assert status in (0, 1) and (status == 1) == ("\nNEW: " in out)  # never dependent on what Spark gets wrong
    table = out.splitlines()
    assert any(line.startswith("spark ") for line in table)
    assert any(line.startswith("spark-segment-tree ") for line in table)
    frames = next(line for line in table if "segment-tree frames" in line)
    assert "Spark's metrics counted 0 " not in frames and "(0 fell back" in frames
    assert (tmp_path / "matrix.md").exists()  # the engines' report, written beside the replay files

    assert main([*tiny, "--spark-sql-block-size", "8"]) == 2  # Spark's minimum block is 16
    assert main([*tiny, "--spark-sql-modes", "sliding"]) == 2
    assert "--spark-sql needs" in capsys.readouterr().err

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("executor lost")

    monkeypatch.setattr(engines_cmd, "engines_command", broken)
    assert main(tiny) == 4
    assert "spark sql: FAILED TO RUN (RuntimeError): executor lost" in capsys.readouterr().out
