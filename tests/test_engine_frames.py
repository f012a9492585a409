"""The dataframe engine adapters (issue 24): Polars and pandas answer hand-checked window cases as the frames say.

Every expected column below is worked out by hand from the table above it (the comments give the frame of the
rows that matter). Count windows with and without ``center``, ``min_count``/``min_periods``, offset windows over
duplicate timestamps with each ``closed``, partitions with a NULL key, NULL values; unsupported queries are
declared (never raised); a forced engine error comes back as a :class:`Failure`; a repro run on its own gives
the answers :meth:`run` gives.
"""

from __future__ import annotations

import datetime as dt
import math
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from swagkit.verify.engines.engine import Engine, Failure
from swagkit.verify.engines.frames_api import (
    Program,
    RowsWindow,
    ValueWindow,
    describe,
    literal,
    rows_window,
    run_program,
    value_window,
)
from swagkit.verify.engines.model import AGGREGATES, Bound, Call, Case, Frame, Query, Table, Window
from swagkit.verify.engines.pandas_engine import PandasEngine
from swagkit.verify.engines.polars_engine import PolarsEngine

pytestmark = pytest.mark.once
ONCE_PASS = "pure"  # tests/conftest.py: this module runs in the pure-Python pass (it balances the two)

P = Bound("preceding", 1)


def rows(lo: int, hi: int) -> Frame:
    """``ROWS BETWEEN`` the rows ``lo`` .. ``hi`` relative to the current one."""

    def bound(k: int) -> Bound:
        return Bound("current_row") if k == 0 else Bound("preceding" if k < 0 else "following", abs(k))

    return Frame("rows", bound(lo), bound(hi))


def offset(width: int, closed: str, peers_follow: bool) -> Frame:
    """An offset window ``t-width .. t`` with ``closed`` as pandas spells it."""
    start_open, end_open = closed in ("right", "neither"), closed in ("left", "neither")
    return Frame(
        "range", Bound("preceding", width, start_open), Bound("current_row", None, end_open), "no_others", peers_follow
    )


def q(aggregate: str, frame: Frame | None, partitioned: bool = True, **call: Any) -> Query:
    return Query(Call(aggregate, **call), Window(partitioned=partitioned, frame=frame))


def answers(engine: Any, table: Table, queries: list[Query]) -> list[Any]:
    """The engine's answers, after checking it declared every query supported."""
    for query in queries:
        assert engine.unsupported(table, query) is None, describe(query)
    out = engine.run(table, queries)
    assert not any(isinstance(a, Failure) for a in out), out
    return out


# ----------------------------------------------------------------------------------------------------------------
# count windows: id, p, o, x -- partition p=1 in order: ids 0 (1), 1 (10), 3 (NULL), 4 (1000);
# p=NULL: ids 2 (100), 5 (10000)

COUNT_TABLE = Table(
    "int",
    "double",
    tuple(
        (i, p, o, x, "s", None)
        for i, p, o, x in [
            (0, 1, 1, 1.0),
            (1, 1, 2, 10.0),
            (2, None, 1, 100.0),
            (3, 1, 3, None),
            (4, 1, 4, 1000.0),
            (5, None, 2, 10000.0),
        ]
    ),
)

#: (query, expected in table order) that both engines spell
COUNT_CASES: list[tuple[Query, list[Any]]] = [
    # 2 rows ending at the current one; id3's frame is [10, NULL], id4's [NULL, 1000]
    (q("sum", rows(-1, 0)), [1, 11, 100, 10, 1000, 10100]),
    # min_count 2: only frames with two non-NULL values answer
    (q("sum", rows(-1, 0), min_count=2), [None, 11, None, None, None, 10100]),
    # centre k=3: id3's frame is [10, NULL, 1000]
    (q("sum", rows(-1, 1)), [11, 11, 10100, 1010, 1000, 10100]),
    # centre k=4 is 2 PRECEDING .. 1 FOLLOWING: id3's frame is [1, 10, NULL, 1000]
    (q("sum", rows(-2, 1)), [11, 11, 10100, 1011, 1010, 10100]),
    (q("count", rows(-2, 0)), [1, 2, 1, 2, 2, 2]),
    # count(*) counts rows: fewer than 3 rows is NULL
    (q("count_star", rows(-2, 0), min_count=3), [None, None, None, 3, 3, None]),
    # the two rows before the current one (pandas: closed="left"): id0 has none, id4's are [10, NULL]
    (q("max", rows(-2, -1)), [None, 1, None, 10, 10, 100]),
    # the current row and the next (pandas: FixedForwardWindowIndexer)
    (q("min", rows(0, 1)), [1, 10, 100, 1000, 1000, 10000]),
    (q("median", rows(-2, 0)), [1, 5.5, 100, 5.5, 505, 5050]),
    (q("quantile_cont", rows(-2, 0), param=0.25), [1, 3.25, 100, 3.25, 257.5, 2575]),
    # var_samp of [1, 10] is 2 * 4.5**2 = 40.5; of [10, 1000]: 2 * 495**2; of [100, 10000]: 2 * 4950**2
    (q("var_samp", rows(-2, 0)), [None, 40.5, None, 40.5, 490050, 49005000]),
    (q("stddev_pop", rows(-1, 0)), [0, 4.5, 0, 0, 0, 4950]),
]

#: unpartitioned, ORDER BY o DESC NULLS FIRST, id: ids 4 (1000), 3 (NULL), 1 (10), 5 (10000), 0 (1), 2 (100)
DESC_CASE = (
    Query(Call("avg"), Window(partitioned=False, descending=True, nulls_first=True, frame=rows(-1, 0))),
    [5000.5, 10, 50.5, 1000, 1000, 5005],
)

#: Polars alone: value functions, quantile_disc (its 'equiprobable' interpolation), count through DataFrame.rolling
POLARS_COUNT_CASES: list[tuple[Query, list[Any]]] = [
    (q("first_value", rows(-1, 0)), [1, 1, 100, 10, None, 100]),
    (q("first_value", rows(-1, 0), ignore_nulls=True), [1, 1, 100, 10, 1000, 100]),
    (q("last_value", rows(-1, 1)), [10, None, 10000, 1000, 1000, 10000]),
    (q("nth_value", rows(-2, 0), param=2), [None, 10, None, 10, None, 10000]),
    # the smallest value whose cumulative share reaches 0.5: of [1, 10] it is 1
    (q("quantile_disc", rows(-2, 0), param=0.5), [1, 1, 100, 1, 10, 100]),
    # a frame that is not a rolling window: 2 PRECEDING .. 1 PRECEDING (count of no value is 0)
    (q("count", rows(-2, -1)), [0, 1, 0, 2, 1, 1]),
    (q("array_agg", rows(-1, 0)), [[1.0], [1.0, 10.0], [100.0], [10.0, None], [None, 1000.0], [100.0, 10000.0]]),
]


def _close(got: list[Any], expected: list[Any]) -> bool:
    return len(got) == len(expected) and all(
        g == e
        if e is None or isinstance(e, list)
        else g is not None and math.isclose(g, e, rel_tol=1e-12, abs_tol=1e-12)
        for g, e in zip(got, expected, strict=True)
    )


@pytest.mark.parametrize("engine", [PolarsEngine(), PandasEngine()], ids=lambda e: e.name)
def test_count_windows(engine: Any) -> None:
    cases = [*COUNT_CASES, DESC_CASE]
    got = answers(engine, COUNT_TABLE, [query for query, _ in cases])
    for (query, expected), column in zip(cases, got, strict=True):
        assert _close(column, expected), (describe(query), column, expected)


def test_polars_value_functions_and_general_rows_frames() -> None:
    got = answers(PolarsEngine(), COUNT_TABLE, [query for query, _ in POLARS_COUNT_CASES])
    for (query, expected), column in zip(POLARS_COUNT_CASES, got, strict=True):
        assert _close(column, expected), (describe(query), column, expected)


# ----------------------------------------------------------------------------------------------------------------
# offset windows over duplicate order values: p=1: ids 0 (t=0, 1), 1 (t=1, 10), 2 (t=1, 100), 3 (t=3, 1000),
# 4 (t=4, NULL); p=NULL: id 5 (t=1, 10000). The window is 2 units wide.

TIMES = [0, 1, 1, 3, 4, 1]
VALUES = [1.0, 10.0, 100.0, 1000.0, None, 10000.0]
PARTITIONS = [1, 1, 1, 1, 1, None]


def offset_table(order_type: str) -> Table:
    start = {"int": 0, "date": dt.date(2024, 2, 28), "timestamp": dt.datetime(2024, 1, 1, 23, 59, 59)}[order_type]

    def key(t: int) -> Any:
        if order_type == "date":
            return start + dt.timedelta(days=t)
        if order_type == "timestamp":
            return start + dt.timedelta(seconds=t)
        return t

    return Table(
        order_type,  # type: ignore[arg-type]
        "double",
        tuple((i, PARTITIONS[i], key(TIMES[i]), VALUES[i], None, None) for i in range(6)),
    )


#: pandas: the frame ends at the current row itself (id1's frame holds id0, id1; id2's id0, id1, id2)
PANDAS_OFFSET = {
    "right": [1, 11, 111, 1000, 1000, 10000],  # (t-2, t]: id3's frame is (1, 3]: id3 alone
    "both": [1, 11, 111, 1110, 1000, 10000],  # [t-2, t]: id3's frame is [1, 3]: id1, id2, id3
    "left": [None, 1, 1, 110, 1000, None],  # [t-2, t): no row of the current value; id0's frame is empty
    "neither": [None, 1, 1, None, 1000, None],  # (t-2, t): id3's frame (1, 3) is empty
}
#: Polars: windows are by value, so id1's frame holds its later peer id2 too; an open end leaves all peers out
POLARS_OFFSET = {
    "right": [1, 111, 111, 1000, 1000, 10000],
    "both": [1, 111, 111, 1110, 1000, 10000],
    "left": PANDAS_OFFSET["left"],
    "neither": PANDAS_OFFSET["neither"],
}


@pytest.mark.parametrize("order_type", ["date", "timestamp"])
def test_pandas_offset_windows_end_at_the_current_row(order_type: str) -> None:
    table = offset_table(order_type)
    closed = list(PANDAS_OFFSET)
    queries = [q("sum", offset(2, c, peers_follow=False)) for c in closed]
    # count of non-NULL x in (t-2, t]: id4's frame (2, 4] holds id3 (1000) and id4 (NULL)
    queries.append(q("count", offset(2, "right", peers_follow=False)))
    got = answers(PandasEngine(), table, queries)
    assert got[: len(closed)] == [PANDAS_OFFSET[c] for c in closed]
    assert got[-1] == [1, 2, 3, 1, 1, 1]


@pytest.mark.parametrize("order_type", ["int", "date", "timestamp"])
def test_polars_offset_windows_hold_later_peers(order_type: str) -> None:
    table = offset_table(order_type)
    closed = list(POLARS_OFFSET)
    # where the end is open, peers_follow does not matter: spelled with False to show Polars takes it
    queries = [q("sum", offset(2, c, peers_follow=c in ("right", "both"))) for c in closed]
    got = answers(PolarsEngine(), table, queries)
    assert got == [POLARS_OFFSET[c] for c in closed]


def test_polars_range_frames_beyond_the_current_row() -> None:
    table = offset_table("int")
    around = Frame("range", P, Bound("following", 1))
    ahead = Frame("range", Bound("following", 1), Bound("following", 2))
    got = answers(
        PolarsEngine(),
        table,
        [
            q("sum", around),  # [t-1, t+1]: id3's is [2, 4]: id3, id4 (NULL)
            q("count_star", around),
            # [t+1, t+2]: id3's frame holds only id4 (NULL), id4's and id5's are empty: SQL's NULL, not Polars' 0
            q("sum", ahead),
            q("bool_and", ahead),
        ],
    )
    assert got[:3] == [
        [111, 111, 111, 1000, 1000, 10000],
        [3, 3, 3, 2, 2, 1],
        [110, 1000, 1000, None, None, None],
    ]
    assert got[3] == [None] * 6  # b is NULL everywhere


# ----------------------------------------------------------------------------------------------------------------
# what the adapters declare


def test_the_adapters_are_engines() -> None:
    for engine in [PolarsEngine(), PandasEngine()]:
        assert isinstance(engine, Engine) and engine.version()
        engine.close()
        engine.close()  # idempotent


def test_frames_read_as_rolling_windows() -> None:
    assert rows_window(rows(-3, 0)) == RowsWindow(-3, 0) and RowsWindow(-3, 0).trailing == 4
    assert RowsWindow(-2, 1).centred == 4 and RowsWindow(-1, 1).centred == 3 and RowsWindow(-1, 2).centred is None
    open_rows = Frame("rows", Bound("preceding", 3, open=True), Bound("current_row", open=True))
    assert rows_window(open_rows) == RowsWindow(-2, -1)
    window = value_window(offset_table("int"), offset(5, "right", False))
    assert window == ValueWindow(-5, 0, True, False) and window.width == 5 and window.closed == "right"
    assert isinstance(value_window(Table("double", "int", ()), offset(1, "both", True)), str)
    assert isinstance(rows_window(Frame("rows", Bound("unbounded_preceding"), Bound("current_row"))), str)


UNSUPPORTED = [
    ("both", COUNT_TABLE, q("sum", None)),  # the default frame
    ("both", COUNT_TABLE, q("sum", Frame("groups", P, Bound("current_row")))),
    ("both", COUNT_TABLE, q("sum", Frame("rows", P, Bound("current_row"), "current_row"))),
    ("both", COUNT_TABLE, q("sum", rows(-1, 0), distinct=True)),
    ("both", COUNT_TABLE, q("bit_and", rows(-1, 0))),  # doubles
    ("both", offset_table("date"), Query(Call("sum"), Window(descending=True, frame=offset(2, "both", False)))),
    ("both", Table("int", "int", ((0, 1, None, 1, None, None),)), q("sum", offset(2, "both", True))),  # NULL o
    ("pandas", COUNT_TABLE, q("quantile_disc", rows(-1, 0), param=0.5)),
    ("pandas", COUNT_TABLE, q("first_value", rows(-1, 0))),
    ("pandas", COUNT_TABLE, q("count", rows(-1, 0), min_count=1)),  # pandas' count counts rows for min_periods
    ("pandas", COUNT_TABLE, q("sum", rows(-3, -2))),
    ("pandas", offset_table("int"), q("sum", offset(2, "both", False))),  # offsets need datetimes
    ("pandas", offset_table("date"), q("sum", offset(2, "both", True))),  # later peers in
    ("polars", offset_table("int"), q("sum", offset(2, "both", False))),  # later peers out
    # the frame holds the current value whatever its end's kind: peers_follow matters
    ("pandas", offset_table("date"), q("max", Frame("range", Bound("current_row"), Bound("following", 0)))),
    ("polars", offset_table("int"), q("max", Frame("range", P, Bound("following", 1), "no_others", False))),
    ("polars", offset_table("int"), q("sum", Frame("range", Bound("current_row"), Bound("current_row")))),
    ("polars", COUNT_TABLE, q("sum", rows(1, -1))),  # always empty
]


@pytest.mark.parametrize(("which", "table", "query"), UNSUPPORTED, ids=lambda v: v if isinstance(v, str) else "")
def test_unsupported_is_declared(which: str, table: Table, query: Query) -> None:
    for engine in [PolarsEngine(), PandasEngine()]:
        if which in ("both", engine.name):
            reason = engine.unsupported(table, query)
            assert isinstance(reason, str) and reason, (engine.name, describe(query))
            with pytest.raises(ValueError, match="cannot run"):
                engine.render(table, [query])


def _sweep_queries() -> list[Query]:
    frames: list[Frame | None] = [None, rows(-2, 0), rows(-1, 1), rows(-3, -1), rows(0, 2), rows(2, 3)]
    frames += [offset(1, c, f) for c in ("right", "both", "left", "neither") for f in (True, False)]
    frames += [Frame("range", P, Bound("following", 2)), Frame("groups", P, Bound("current_row"))]
    params = {"nth_value": 2, "string_agg": ",", "quantile_cont": 0.5, "quantile_disc": 0.5}
    return [
        Query(Call(a, param=params.get(a), min_count=m, ignore_nulls=i), Window(partitioned=part, frame=f))
        for a in AGGREGATES
        for f in frames
        for m, i, part in ((0, False, True), (2, a.endswith("_value"), False))
    ]


@pytest.mark.parametrize("order_type", ["int", "timestamp"])
def test_whatever_is_declared_supported_runs(order_type: str) -> None:
    """Every aggregate over every kind of frame: ``unsupported`` answers without raising, and every query
    declared supported is answered, one value per row."""
    table = offset_table(order_type)
    queries = _sweep_queries()
    for engine in [PolarsEngine(), PandasEngine()]:
        supported = [query for query in queries if engine.unsupported(table, query) is None]
        assert len(supported) >= 40, engine.name
        got = engine.run(table, supported)
        failures = [(describe(s), a) for s, a in zip(supported, got, strict=True) if isinstance(a, Failure)]
        assert not failures, failures
        assert all(len(a) == len(table.rows) for a in got)


# ----------------------------------------------------------------------------------------------------------------
# errors and repros


def test_a_forced_engine_error_is_a_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    import pandas as pd
    import polars as pl
    from pandas.core.window.rolling import Rolling

    queries = [q("sum", rows(-1, 0)), q("max", rows(-1, 0))]

    def polars_refuses(self: Any, *args: Any, **kwargs: Any) -> Any:
        raise pl.exceptions.ComputeError("forced")

    monkeypatch.setattr(pl.Expr, "rolling_sum", polars_refuses)
    got = PolarsEngine().run(COUNT_TABLE, queries)
    assert isinstance(got[0], Failure) and got[0].kind == "refused" and "forced" in got[0].message
    assert got[1] == [1, 10, 100, 10, 1000, 10000]  # one query's error costs the others nothing

    def polars_panics(self: Any, *args: Any, **kwargs: Any) -> Any:
        raise pl.exceptions.PanicException("forced panic")

    monkeypatch.setattr(pl.Expr, "rolling_sum", polars_panics)
    got = PolarsEngine().run(COUNT_TABLE, queries)
    assert isinstance(got[0], Failure) and got[0].kind == "crash"

    def pandas_refuses(self: Any, *args: Any, **kwargs: Any) -> Any:
        return pd.Series([1.0]).rolling(-1)  # pandas' own ValueError, raised inside pandas

    monkeypatch.setattr(Rolling, "sum", pandas_refuses)
    got = PandasEngine().run(COUNT_TABLE, queries)
    assert isinstance(got[0], Failure) and got[0].kind == "refused"

    def pandas_breaks(self: Any, *args: Any, **kwargs: Any) -> Any:
        return pd.Series([1.0])  # one row for six: the program's own check fails

    monkeypatch.setattr(Rolling, "sum", pandas_breaks)
    got = PandasEngine().run(COUNT_TABLE, queries)
    assert isinstance(got[0], Failure) and got[0].kind == "crash" and "1 rows for 6" in got[0].message


def test_run_program_isolates_blocks_and_lets_interrupts_through() -> None:
    def refuse(error: BaseException) -> Failure:
        return Failure("refused", type(error).__name__)

    program = Program("answers = []", ("answers.append([1])", "1 / 0", "answers.extend([[1], [2]])"))
    got = run_program(program, {}, refuse)
    assert got[0] == [1] and got[1] == Failure("refused", "ZeroDivisionError")
    assert isinstance(got[2], Failure) and got[2].kind == "crash"
    with pytest.raises(KeyboardInterrupt):
        run_program(Program("answers = []", ("raise KeyboardInterrupt",)), {}, refuse)


@pytest.mark.parametrize("value", [None, True, 3, -2.5, math.inf, -math.inf, 'it\'s "x"', dt.date(2024, 2, 29)])
def test_literals_evaluate_to_their_value(value: Any) -> None:
    assert eval(literal(value), {"datetime": dt}) == value  # noqa: S307 -- the point is that it evaluates
    assert eval(literal(dt.datetime(2024, 1, 2, 3, 4, 5, 6)), {"datetime": dt}) == dt.datetime(2024, 1, 2, 3, 4, 5, 6)  # noqa: S307


@pytest.mark.parametrize("engine", [PolarsEngine(), PandasEngine()], ids=lambda e: e.name)
def test_the_repro_runs_alone_and_gives_the_answers_of_run(
    engine: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = offset_table("timestamp")
    queries = [q("sum", offset(2, "left", peers_follow=False)), q("count_star", rows(-1, 0), partitioned=False)]
    case = Case(table, tuple(queries))
    repro = engine.repro(case)
    assert repro.files == {} and engine.render(table, queries) in repro.code  # one spelling
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, Any] = {"__name__": "__main__"}
    exec(compile(repro.code, "repro.py", "exec"), namespace)  # noqa: S102 -- running the repro is the test
    assert namespace["answers"] == engine.run(table, queries)
    assert namespace["version"] == engine.version()


# ----------------------------------------------------------------------------------------------------------------
# weighted windows: ids 0..3 in partition 1 (x = 1, 10, 100, 1000), id 4 alone in partition 2 (x = 10000); in the
# unpartitioned order the five rows follow one another

WEIGHT_TABLE = Table(
    "int",
    "double",
    tuple((i, 1 if i < 4 else 2, i, 10.0**i, "s", None) for i in range(5)),
)

#: (engines, query, expected in table order): weights apply to the frame's positions, first position first; rows
#: outside the partition are missing (their weights too: an average divides by the weights of the rows present)
WEIGHTED_CASES: list[tuple[tuple[str, ...], Query, list[Any]]] = [
    # triang(3) = (1/2, 1, 1/2) over the 3 rows ending at the current one: id1's frame is (-, 1, 10) -> 1 + 5
    (("polars", "pandas"), q("sum", rows(-2, 0), False, weights="triang"), [0.5, 6, 60.5, 605, 6050]),
    (("polars", "pandas"), q("avg", rows(-2, 0), False, weights="triang"), [1, 4, 30.25, 302.5, 3025]),
    # centred: id4's frame is (1000, 10000, -) -> 500 + 10000
    (("polars", "pandas"), q("sum", rows(-1, 1), False, weights="triang"), [6, 60.5, 605, 6050, 10500]),
    # ramp(3) = (1, 2, 3), partitioned: id1's frame is (-, 1, 10) -> 2 + 30; id4 is alone -> 3 * 10000
    (("polars",), q("sum", rows(-2, 0), weights="ramp"), [3, 32, 321, 3210, 30000]),
    (("polars",), q("avg", rows(-2, 0), weights="ramp"), [1, 6.4, 53.5, 535, 10000]),
    # centred ramp: id3's frame is (100, 1000, -) -> 100 + 2000; min_count 2 leaves id4 (alone) NULL
    (("polars",), q("sum", rows(-1, 1), weights="ramp", min_count=2), [32, 321, 3210, 2100, None]),
]


@pytest.mark.parametrize("engine", [PolarsEngine(), PandasEngine()], ids=lambda e: e.name)
def test_weighted_windows(engine: Any) -> None:
    from swagkit.verify.engines.oracle import expected

    cases = [(query, want) for engines, query, want in WEIGHTED_CASES if engine.name in engines]
    got = answers(engine, WEIGHT_TABLE, [query for query, _ in cases])
    for (query, want), column in zip(cases, got, strict=True):
        assert _close(column, want), (describe(query), column, want)
        exact = [None if w is None else Fraction(str(w)) for w in want]  # the decimals above, exactly
        assert [e.value for e in expected(WEIGHT_TABLE, query)] == exact, describe(query)  # the oracle agrees


WEIGHTED_UNSUPPORTED = [
    ("pandas", q("sum", rows(-2, 0), False, weights="ramp")),  # SciPy has no ramp window
    ("both", q("sum", rows(-2, -1), False, weights="triang")),  # neither trailing nor centred
]


def test_weighted_windows_declare_what_they_cannot_spell() -> None:
    from swagkit.verify.engines.adapters import make_engine

    for which, query in WEIGHTED_UNSUPPORTED:
        for engine in [PolarsEngine(), PandasEngine()]:
            assert (engine.unsupported(WEIGHT_TABLE, query) is None) == (which not in ("both", engine.name))
    nulls = Table("int", "double", ((0, 1, 1, None, "s", None), (1, 1, 2, 2.0, "s", None)))
    reason = PolarsEngine().unsupported(nulls, q("sum", rows(-1, 0), weights="ramp"))
    assert reason is not None and "panics" in reason  # Polars panics on weights over NULLs
    for name in ("sqlite", "swagkit"):
        assert make_engine(name).unsupported(WEIGHT_TABLE, q("sum", rows(-1, 0), weights="triang")) is not None
