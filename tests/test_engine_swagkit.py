"""swagkit as an engine (issue 24 §8): ``window_sum``, ``window_array`` and ``sliding_aggregate`` answer
hand-checked window cases through the same adapter protocol as the other engines.

Not marked ``once``: the first two paths run swagkit.optimized, compiled in one pass and pure Python in the other.
The Spark path runs on the test session's Spark (one small case).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from swagkit.verify.engines.engine import Engine, Failure
from swagkit.verify.engines.model import Bound, Call, Case, Frame, Query, Table, Window
from swagkit.verify.engines.swagkit_engine import SwagkitEngine

#: id, p, o, x -- partition p=1 in window order: ids 0 (o=1, 1), 2 (o=2, 100), 4 (o=2, 10000), 5 (o=5, 100000);
#: p=NULL: ids 1 (o=1, 10), 3 (o=3, 1000)
INTS = Table(
    "int",
    "int",
    tuple(
        (i, p, o, x, None, None)
        for i, p, o, x in [
            (0, 1, 1, 1),
            (1, None, 1, 10),
            (2, 1, 2, 100),
            (3, None, 3, 1000),
            (4, 1, 2, 10000),
            (5, 1, 5, 100000),
        ]
    ),
)


def trailing(k: int, **window: Any) -> Window:
    """``ROWS BETWEEN k-1 PRECEDING AND CURRENT ROW``."""
    start = Bound("current_row") if k == 1 else Bound("preceding", k - 1)
    return Window(frame=Frame("rows", start, Bound("current_row")), **window)


def q(aggregate: str, window: Window, **call: Any) -> Query:
    return Query(Call(aggregate, **call), window)


#: (query, the path it takes, expected in table order)
CASES: list[tuple[Query, str, list[Any]]] = [
    (q("sum", trailing(2)), "window_sum", [1, 10, 101, 1010, 10100, 110000]),
    (q("max", trailing(2)), "window_array", [1, 10, 100, 1000, 10000, 100000]),
    (q("min", trailing(3)), "window_array", [1, 10, 1, 10, 1, 100]),
    (q("avg", trailing(2)), "window_array", [1.0, 10.0, 50.5, 505.0, 5050.0, 55000.0]),
    # var_samp of [1, 100] = 2 * 49.5**2
    (q("var_samp", trailing(2)), "window_array", [None, None, 4900.5, 490050.0, 49005000.0, 4050000000.0]),
    (q("count_star", trailing(3)), "window_array", [1, 1, 2, 2, 3, 3]),
    (q("first_value", trailing(2)), "window_array", [1, 10, 1, 10, 100, 10000]),
    (q("last_value", trailing(3)), "window_array", [1, 10, 100, 1000, 10000, 100000]),
    (q("array_agg", trailing(2)), "window_array", [[1], [10], [1, 100], [10, 1000], [100, 10000], [10000, 100000]]),
    # ORDER BY o DESC NULLS FIRST, id: p=1 is ids 5, 2, 4, 0 (ties by id ascending); p=NULL ids 3, 1
    (
        q("sum", trailing(3, descending=True, nulls_first=True)),
        "window_sum",
        [10101, 1010, 100100, 1000, 110100, 100000],
    ),
    # unpartitioned, o then id: ids 0, 1, 2, 4, 3, 5
    (q("sum", trailing(2, partitioned=False)), "window_sum", [1, 11, 110, 11000, 10100, 101000]),
]


def test_hand_checked_windows_on_each_path() -> None:
    engine = SwagkitEngine()
    queries = [query for query, _, _ in CASES]
    assert [engine.path_of(INTS, query) for query in queries] == [path for _, path, _ in CASES]
    assert engine.run(INTS, queries) == [expected for _, _, expected in CASES]
    # the moments monoid rounds (Chan's merge): the population stddev of [1, 100] is 49.5
    (stddev,) = engine.run(INTS, [q("stddev_pop", trailing(2))])
    assert stddev == pytest.approx([0.0, 0.0, 49.5, 495.0, 4950.0, 45000.0], rel=1e-12)


def test_pinned_paths_agree_where_both_run() -> None:
    query = q("sum", trailing(3))
    pinned = SwagkitEngine(path="window_array")
    assert isinstance(pinned, Engine) and SwagkitEngine().name == "swagkit"
    assert pinned.name == "swagkit-window_array" and pinned.path_of(INTS, query) == "window_array"
    assert pinned.run(INTS, [query]) == SwagkitEngine(path="window_sum").run(INTS, [query])


DOUBLES = Table("int", "double", tuple((i, 1, i, x, None, None) for i, x in enumerate([0.5, 2.0, 1e300, 4.0])))
NULLS = Table("int", "int", tuple((i, 1, i, x, None, None) for i, x in enumerate([1, None, 3])))


def test_what_swagkit_does_not_define_is_declared() -> None:
    engine = SwagkitEngine()
    rows = trailing(2)
    # window_sum keeps each double sum within its own frame's bound: doubles run there too
    assert engine.path_of(DOUBLES, q("sum", rows)) == "window_sum"
    assert engine.run(DOUBLES, [q("sum", rows)]) == [[0.5, 2.5, 1e300, 1e300]]
    range_frame = Frame("range", Bound("preceding", 1), Bound("current_row"))
    following = Frame("rows", Bound("current_row"), Bound("following", 1))
    reasons = {
        "median": engine.unsupported(INTS, q("median", rows)),
        "range": engine.unsupported(INTS, q("sum", Window(frame=range_frame))),
        "following": engine.unsupported(INTS, q("sum", Window(frame=following))),
        "min_count": engine.unsupported(INTS, q("sum", rows, min_count=2)),
        "null sum": engine.unsupported(NULLS, q("sum", rows)),
        "double avg": engine.unsupported(DOUBLES, q("avg", rows)),
        "ignore nulls": engine.unsupported(NULLS, q("first_value", rows, ignore_nulls=True)),
    }
    assert all(isinstance(r, str) and "sliding_aggregate needs a Spark session" in r for r in reasons.values()), reasons
    # sums that could wrap in int64 take the exact sum monoid
    big = Table("int", "int", ((0, 1, 0, 2**62, None, None), (1, 1, 1, 2**62, None, None)))
    assert engine.path_of(big, q("sum", rows)) == "window_array"
    assert engine.run(big, [q("sum", rows)]) == [[2**62, 2**63]]
    assert "wraps" in str(SwagkitEngine(path="window_sum").unsupported(big, q("sum", rows)))
    # NULLs: the monoids that answer as SQL does over them still run
    assert engine.run(NULLS, [q("count_star", rows), q("first_value", rows)]) == [[1, 2, 2], [1, 1, None]]
    with pytest.raises(ValueError, match="unknown swagkit path"):
        SwagkitEngine(path="fold")  # type: ignore[arg-type]


def test_a_forced_error_is_a_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    import swagkit.optimized as optimized
    from swagkit.spec.library import LIBRARY

    real = optimized.window_sum
    queries = [q("sum", trailing(2)), q("max", trailing(2))]

    def refuses(monoid: Any, values: Any, window: int) -> Any:
        return real(LIBRARY["max_i64"].factory(), values, window)  # swagkit's own UnsupportedMonoidError

    monkeypatch.setattr(optimized, "window_sum", refuses)
    got = SwagkitEngine().run(INTS, queries)
    assert isinstance(got[0], Failure) and got[0].kind == "refused" and "window_sum" in got[0].message
    assert got[1] == [1, 10, 100, 1000, 10000, 100000]

    def breaks(monoid: Any, values: Any, window: int) -> Any:
        return [0]  # one answer for a partition of several rows

    monkeypatch.setattr(optimized, "window_sum", breaks)
    got = SwagkitEngine().run(INTS, queries)
    assert isinstance(got[0], Failure) and got[0].kind == "crash"


def test_the_repro_runs_alone_and_gives_the_answers_of_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    engine = SwagkitEngine()
    queries = [q("sum", trailing(2)), q("array_agg", trailing(2, descending=True))]
    repro = engine.repro(Case(INTS, tuple(queries)))
    assert engine.render(INTS, queries) in repro.code
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, Any] = {"__name__": "__main__"}
    exec(compile(repro.code, "repro.py", "exec"), namespace)  # noqa: S102 -- running the repro is the test
    assert namespace["answers"] == engine.run(INTS, queries)
    assert engine.version().startswith(namespace["version"])


@pytest.mark.spark
def test_sliding_aggregate_on_spark(spark: Any) -> None:
    """NULLs skipped, a frame without a value NULL (count: 0); range=T holds the current row's peers."""
    table = Table(
        "int",
        "int",
        tuple(
            (i, p, o, x, None, None)
            for i, p, o, x in [(0, 1, 1, 1), (1, 1, 2, None), (2, 1, 2, 100), (3, None, 3, None), (4, 1, 4, 10000)]
        ),
    )
    engine = SwagkitEngine(path="sliding_aggregate", session=spark)
    range_1 = Window(frame=Frame("range", Bound("preceding", 1), Bound("current_row")))
    queries = [
        q("sum", trailing(2)),  # p=1 in order: ids 0, 1, 2, 4 -- id1's frame is [1, NULL], id3 alone and NULL
        q("count", range_1),  # [t-1, t]: id0's holds id0; id1's and id2's ids 0, 1, 2; id4's id4 (t=3 is p NULL)
    ]  # each query is a Spark job (about a second each on a warm session): two are enough
    assert all(engine.unsupported(table, query) is None for query in queries)
    assert engine.run(table, queries) == [[1, 1, 100, None, 10100], [1, 2, 2, 0, 1]]
