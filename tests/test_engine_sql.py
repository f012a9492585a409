"""The SQL engine adapters (issue 24): SQLite, DuckDB, DataFusion and Spark SQL answer hand-checked window cases
right -- every frame kind each one has (ROWS, RANGE with ties, GROUPS, EXCLUDE, DESC NULLS FIRST, empty and
reversed frames, date/timestamp keys, ±inf, NULL runs) --, declare what they lack as unsupported, pin a refused
query on itself, and their standalone repro gives the same answers as their run.

Every expected value is worked out by hand in the comments (rows of a partition listed in window order). Where
an engine is known to refuse a valid query (a finding, :data:`KNOWN_REFUSALS`), the test accepts that refusal or
the right answer: it never depends on a bug persisting.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from swagkit.verify.engines.adapters import ENGINE_NAMES, EngineUnavailable, installed_engines, make_engine
from swagkit.verify.engines.engine import Engine, Failure
from swagkit.verify.engines.model import Bound, Call, Case, Frame, Query, Table, Window
from swagkit.verify.engines.sql import SqlEngine

pytestmark = pytest.mark.once
ONCE_PASS = "pure"  # tests/conftest.py: this module runs in the pure-Python pass (it balances the two)

INF = float("inf")
UP, CUR, UF = Bound("unbounded_preceding"), Bound("current_row"), Bound("unbounded_following")


def pre(n: int | float) -> Bound:
    return Bound("preceding", n)


def fol(n: int | float) -> Bound:
    return Bound("following", n)


def q(call: Call, unit: str | None = None, start: Bound = UP, end: Bound = CUR, **window: Any) -> Query:
    exclude = window.pop("exclude", "no_others")
    frame = None if unit is None else Frame(unit, start, end, exclude)  # type: ignore[arg-type]
    return Query(call, Window(frame=frame, **window))


# ------------------------------------------------------------------------------------------------------------------
# Table INT: int keys and values, three partitions, rows stored out of id order.
#   p=1 by (o ASC NULLS LAST, id): 1(o=1,x=1) 2(o=2,x=2) 3(o=2,x=NULL) 4(o=4,x=2) 5(o=NULL,x=16)
#       groups of peers: g0={1} g1={2,3} g2={4} g3={5}; total of x = 21
#   p=2: 6(o=1,x=32)      p=NULL: 7(o=3,x=64) 8(o=3,x=NULL)   (a NULL partition and a NULL run)
#   s: 1 'a', 2 "it's", 3 NULL, 4 'c\nd', 5 'back\slash', 6 '', 7 'g', 8 NULL
#   b: 1 T, 2 F, 3 NULL, 4 T, 5 T, 6 F, 7 NULL, 8 NULL
INT = Table(
    "int",
    "int",
    (
        (4, 1, 4, 2, "c\nd", True),
        (1, 1, 1, 1, "a", True),
        (7, None, 3, 64, "g", None),
        (2, 1, 2, 2, "it's", False),
        (8, None, 3, None, None, None),
        (5, 1, None, 16, "back\\slash", True),
        (3, 1, 2, None, None, None),
        (6, 2, 1, 32, "", False),
    ),
)

INT_CASES: dict[str, tuple[Query, dict[int, Any]]] = {
    # 1 PRECEDING..CURRENT: 3 = 2+NULL, 4 = NULL+2, 5 = 2+16
    "rows": (q(Call("sum"), "rows", pre(1)), {1: 1, 2: 3, 3: 2, 4: 2, 5: 18, 6: 32, 7: 64, 8: 64}),
    # o±1 with ties: o=1 and o=2 see rows 1,2,3 (x 1,2,NULL); o=4 sees itself; a NULL key its NULL peers
    "range_ties": (
        q(Call("count"), "range", pre(1), fol(1)),
        {1: 2, 2: 2, 3: 2, 4: 1, 5: 1, 6: 1, 7: 1, 8: 1},
    ),
    # previous group + own group: 4 = g1+g2 = 2+2, 5 = g2+g3 = 2+16
    "groups": (q(Call("sum"), "groups", pre(1)), {1: 1, 2: 3, 3: 3, 4: 4, 5: 18, 6: 32, 7: 64, 8: 64}),
    # whole partition minus the row: 21-x; 6 alone -> empty; 7 leaves only 8's NULL
    "exclude_current_row": (
        q(Call("sum"), "rows", UP, UF, exclude="current_row"),
        {1: 20, 2: 19, 3: 21, 4: 19, 5: 5, 6: None, 7: None, 8: 64},
    ),
    # neighbouring groups without the own group: 1 -> g1 = 2, 2 -> g0+g2 = 3, 4 -> g1+g3 = 18, 5 -> g2 = 2
    "exclude_group": (
        q(Call("sum"), "groups", pre(1), fol(1), exclude="group"),
        {1: 2, 2: 3, 3: 3, 4: 18, 5: 2, 6: None, 7: None, 8: None},
    ),
    # running sum without the row's peers: 2 -> 1+2 (3 out), 3 -> 1+NULL (2 out), 8 -> its own NULL (7 out)
    "exclude_ties": (
        q(Call("sum"), "range", UP, CUR, exclude="ties"),
        {1: 1, 2: 3, 3: 1, 4: 5, 5: 21, 6: 32, 7: 64, 8: None},
    ),
    # DESC NULLS FIRST, id: p=1 runs 5(16) 4(2) 2(2) 3(NULL) 1(1)
    "desc_nulls_first": (
        q(Call("sum"), "rows", pre(1), descending=True, nulls_first=True),
        {5: 16, 4: 18, 2: 4, 3: 2, 1: 1, 6: 32, 7: 64, 8: 64},
    ),
    # the default frame (RANGE UNBOUNDED PRECEDING..CURRENT ROW, peers in) in the same order
    "default_frame": (
        q(Call("count_star"), descending=True, nulls_first=True),
        {5: 1, 4: 2, 2: 4, 3: 4, 1: 5, 6: 1, 7: 2, 8: 2},
    ),
    # 2..3 FOLLOWING: 1 -> rows 3,4 (NULL,2), 2 -> rows 4,5, 3 -> row 5, then empty frames
    "empty_frames": (q(Call("count"), "rows", fol(2), fol(3)), {1: 1, 2: 2, 3: 1, 4: 0, 5: 0, 6: 0, 7: 0, 8: 0}),
    # 1 PRECEDING..2 PRECEDING: valid SQL, always empty
    "reversed": (q(Call("count_star"), "rows", pre(1), pre(2)), {i: 0 for i in range(1, 9)}),
    # offsets of 0: the row's peers
    "range_zero": (q(Call("sum"), "range", pre(0), fol(0)), {1: 1, 2: 2, 3: 2, 4: 2, 5: 16, 6: 32, 7: 64, 8: 64}),
    # CURRENT..1 FOLLOWING, first non-NULL: 3 -> row 4's 2, 8 -> none
    "first_ignore_nulls": (
        q(Call("first_value", ignore_nulls=True), "rows", CUR, fol(1)),
        {1: 1, 2: 2, 3: 2, 4: 2, 5: 16, 6: 32, 7: 64, 8: None},
    ),
    # CURRENT..1 FOLLOWING, the last row's value, NULL or not
    "last_value": (
        q(Call("last_value"), "rows", CUR, fol(1)),
        {1: 2, 2: None, 3: 2, 4: 16, 5: 16, 6: 32, 7: None, 8: None},
    ),
    "nth_value": (
        q(Call("nth_value", param=2), "rows"),
        {1: None, 2: 2, 3: 2, 4: 2, 5: 2, 6: None, 7: None, 8: None},
    ),
    # running concatenation in frame order; NULLs skipped, '' kept, quote/newline/backslash survive the literal
    "string_agg": (
        q(Call("string_agg", param="-"), "rows"),
        {
            1: "a",
            2: "a-it's",
            3: "a-it's",
            4: "a-it's-c\nd",
            5: "a-it's-c\nd-back\\slash",
            6: "",
            7: "g",
            8: "g",
        },
    ),
    "string_agg_sliding": (
        q(Call("string_agg", param="-"), "rows", pre(1), fol(1)),
        {
            1: "a-it's",
            2: "a-it's",
            3: "it's-c\nd",
            4: "c\nd-back\\slash",
            5: "c\nd-back\\slash",
            6: "",
            7: "g",
            8: "g",
        },
    ),
    "array_agg": (
        q(Call("array_agg"), "rows", pre(1)),
        {1: [1], 2: [1, 2], 3: [2, None], 4: [None, 2], 5: [2, 16], 6: [32], 7: [64], 8: [64, None]},
    ),
    # running count of distinct x: p=1 sees 1, 2, (NULL), 2 again, 16
    "count_distinct": (
        q(Call("count", distinct=True), "rows"),
        {1: 1, 2: 2, 3: 2, 4: 2, 5: 3, 6: 1, 7: 1, 8: 1},
    ),
    # 1|2 = 3, 2|NULL = 2, NULL|2 = 2, 2|16 = 18
    "bit_or": (q(Call("bit_or"), "rows", pre(1)), {1: 1, 2: 3, 3: 2, 4: 2, 5: 18, 6: 32, 7: 64, 8: 64}),
    # running AND of b: T, F, then F stays; 7 and 8 see only NULLs
    "bool_and": (
        q(Call("bool_and"), "rows"),
        {1: True, 2: False, 3: False, 4: False, 5: False, 6: False, 7: None, 8: None},
    ),
    # running median of {1}, {1,2}, {1,2}, {1,2,2}, {1,2,2,16}
    "median": (q(Call("median"), "rows"), {1: 1, 2: 1.5, 3: 1.5, 4: 2, 5: 2, 6: 32, 7: 64, 8: 64}),
    # sample variance of {1,2} = 0.5; {1,2,2}: mean 5/3, squares 4/9+1/9+1/9 -> 1/3; {1,2,2,16}: mean 5.25,
    # squares 18.0625+10.5625+10.5625+115.5625 = 154.75 -> /3
    "var_samp": (
        q(Call("var_samp"), "rows"),
        {1: None, 2: 0.5, 3: 0.5, 4: 1 / 3, 5: 154.75 / 3, 6: None, 7: None, 8: None},
    ),
    # linear interpolation at 0.25*(n-1): {1,2} -> 1.25, {1,2,2} -> 1.5, {1,2,2,16} -> 1.75
    "quantile_cont": (
        q(Call("quantile_cont", param=0.25), "rows"),
        {1: 1, 2: 1.25, 3: 1.25, 4: 1.5, 5: 1.75, 6: 32, 7: 64, 8: 64},
    ),
    # the first value whose cumulative share reaches 0.25: always the smallest here
    "quantile_disc": (
        q(Call("quantile_disc", param=0.25), "rows"),
        {1: 1, 2: 1, 3: 1, 4: 1, 5: 1, 6: 32, 7: 64, 8: 64},
    ),
}

# ------------------------------------------------------------------------------------------------------------------
# Table DATE: date keys, double values with ±inf, one partition.
#   by (o, id): 1(01-01, 1.5) 2(01-02, inf) 3(01-02, 2.5) 6(01-04, NULL) 4(01-05, -inf) 5(NULL, 0.25)
DATE = Table(
    "date",
    "double",
    tuple(
        (i, 1, None if day is None else dt.date(2024, 1, day), x, None, None)
        for i, day, x in [(3, 2, 2.5), (1, 1, 1.5), (6, 4, None), (2, 2, INF), (4, 5, -INF), (5, None, 0.25)]
    ),
)
DATE_CASES: dict[str, tuple[Query, dict[int, Any]]] = {
    # [day-1, day]: 01-02 sees 1.5+inf+2.5; 01-04 only its NULL; 01-05 NULL + -inf; the NULL key its peers
    "date_range": (q(Call("sum"), "range", pre(1)), {1: 1.5, 2: INF, 3: INF, 6: None, 4: -INF, 5: 0.25}),
    # [day-2, day-1]: 01-01 none; 01-02 row 1; 01-04 rows 2,3; 01-05 row 6 (NULL x)
    "date_range_before": (
        q(Call("count"), "range", pre(2), pre(1)),
        {1: 0, 2: 1, 3: 1, 6: 2, 4: 0, 5: 1},  # a NULL key's offset frame is its NULL peers (5 itself)
    ),
    "max_inf": (q(Call("max"), "rows", pre(1)), {1: 1.5, 2: INF, 3: INF, 6: 2.5, 4: -INF, 5: 0.25}),
    "min_inf": (q(Call("min"), "rows", pre(1)), {1: 1.5, 2: 1.5, 3: 2.5, 6: 2.5, 4: -INF, 5: -INF}),
}

# ------------------------------------------------------------------------------------------------------------------
# Table TS: timestamp keys (seconds after 2024-01-01 00:00:00): 1 at 0, 5 at 0.000001, 2 at 1.5, 3 and 4 at 3
T0 = dt.datetime(2024, 1, 1)
TS = Table(
    "timestamp",
    "int",
    tuple(
        (i, 1, T0 + dt.timedelta(seconds=s), x, None, None)
        for i, s, x in [(3, 3, 4), (5, 1e-6, 16), (1, 0, 1), (4, 3, 8), (2, 1.5, 2)]
    ),
)
TS_CASES: dict[str, tuple[Query, dict[int, Any]]] = {
    # [t-1s, t]: 5 reaches back to 1; 3 and 4 are peers at 3 s
    "ts_before": (q(Call("sum"), "range", pre(1)), {1: 1, 5: 17, 2: 2, 3: 12, 4: 12}),
    # [t, t+1s]: 1 reaches 5 (1 us later) but not 2
    "ts_after": (q(Call("sum"), "range", CUR, fol(1)), {1: 17, 5: 16, 2: 2, 3: 12, 4: 12}),
    # DESC: PRECEDING is later: 5 -> [1 us, 1 s + 1 us] holds only itself; 1 -> [0, 1 s] holds 1 and 5
    "ts_desc": (q(Call("sum"), "range", pre(1), descending=True), {3: 12, 4: 12, 2: 2, 5: 16, 1: 17}),
}

# ------------------------------------------------------------------------------------------------------------------
# Table DKEY: double keys with ±inf: 1(-inf) 2(0.0) 3(0.5) 4(1.25) 5(inf) 6(inf); x = 1, 2, 4, 8, 16, 32
DKEY = Table(
    "double",
    "int",
    tuple((i + 1, 1, o, 2**i, None, None) for i, o in enumerate([-INF, 0.0, 0.5, 1.25, INF, INF])),
)
DKEY_CASES: dict[str, tuple[Query, dict[int, Any]]] = {
    # [o-0.5, o]: -inf-0.5 = -inf holds only -inf; 0.5 holds 0.0; inf-0.5 = inf holds both infs
    "double_range": (q(Call("sum"), "range", pre(0.5)), {1: 1, 2: 2, 3: 6, 4: 8, 5: 48, 6: 48}),
    # [o, o+0.75]: 0.0 -> 0.0, 0.5; 0.5 -> 0.5, 1.25
    "double_range_following": (q(Call("sum"), "range", CUR, fol(0.75)), {1: 1, 2: 6, 3: 12, 4: 8, 5: 48, 6: 48}),
}

TABLES: list[tuple[Table, dict[str, tuple[Query, dict[int, Any]]]]] = [
    (INT, INT_CASES),
    (DATE, DATE_CASES),
    (TS, TS_CASES),
    (DKEY, DKEY_CASES),
]

#: what each engine documents it lacks (its docs, not the adapter's tables): these cases must be declared
#: unsupported, every other one supported
LACKS: dict[str, set[str]] = {
    "sqlite": {
        "first_ignore_nulls",  # no IGNORE NULLS
        "count_distinct",  # "DISTINCT is not supported for window functions"
        "array_agg",  # no arrays
        "bit_or",
        "bool_and",
        "median",
        "var_samp",
        "quantile_cont",
        "quantile_disc",  # none built in
        "date_range",
        "date_range_before",
        "ts_before",
        "ts_after",
        "ts_desc",  # dates are text: RANGE offsets need a numeric key
    },
    "duckdb": set(),
    "datafusion": {"exclude_current_row", "exclude_group", "exclude_ties", "quantile_disc"},
    "spark": {
        "groups",
        "exclude_current_row",
        "exclude_group",
        "exclude_ties",
        "reversed",  # SPECIFIED_WINDOW_FRAME_WRONG_COMPARISON
        "count_distinct",  # DISTINCT_WINDOW_FUNCTION_UNSUPPORTED
        "array_agg",  # collect_list drops NULLs
        "quantile_disc",  # no percentile_disc over an ordered window
    },
}

#: valid queries an engine is known to refuse (candidate findings, reported): a refusal or the right answer passes
KNOWN_REFUSALS: dict[str, set[str]] = {
    # DataFusion 55: "Invalid window frame: start bound (1 PRECEDING) cannot be larger than end bound (2 PRECEDING)"
    # and "Aggregate can not be used as a sliding accumulator because `retract_batch` is not implemented"
    "datafusion": {"reversed", "string_agg_sliding", "bit_or"},
}

#: answers an engine is known to get wrong (candidate findings, reported), by case: the rows not asserted
KNOWN_WRONG: dict[str, dict[str, set[int]]] = {
    # SQLite 3.40.1: group_concat as a window function answers NULL for a frame whose only value is '' (as a
    # plain aggregate it answers '')
    "sqlite": {"string_agg": {6}, "string_agg_sliding": {6}},
    # DataFusion 55: a sliding DOUBLE sum turns NaN once an inf has left the frame (inf - inf on retract)
    "datafusion": {"date_range": {4, 5}},
}

FAST_ENGINES = ("sqlite", "duckdb", "datafusion")


def _close(got: Any, want: Any) -> bool:
    """``got`` is ``want``: NULLs and bools exactly, lists element-wise, numbers up to 1e-12 relative."""
    if want is None or isinstance(want, bool) or isinstance(got, bool):
        return got is want
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(_close(g, w) for g, w in zip(got, want))
    if isinstance(want, (int, float)) and isinstance(got, (int, float)):
        return got == want or math.isclose(got, want, rel_tol=1e-12)
    return bool(got == want)


def _in_table_order(table: Table, by_id: Mapping[int, Any]) -> list[Any]:
    """The expected answers in the table's row order; a row the case does not state (a NULL partition key left
    out of an unpartitioned query) keeps None."""
    return [by_id.get(i) for i in table.column("id")]


@pytest.fixture(scope="module", params=FAST_ENGINES)
def engine(request: pytest.FixtureRequest) -> Iterator[Engine]:
    try:
        made = make_engine(request.param)
    except EngineUnavailable as error:
        pytest.skip(str(error))
    yield made
    made.close()


def _check_cases(engine: Engine, table: Table, cases: Mapping[str, tuple[Query, dict[int, Any]]]) -> list[str]:
    """Run every supported case of ``table`` in one batch; the names of the cases answered wrong."""
    lacks, known = LACKS[engine.name], KNOWN_REFUSALS.get(engine.name, set())
    declared = {name: engine.unsupported(table, query) for name, (query, _) in cases.items()}
    wrong_declaration = [name for name, reason in declared.items() if (reason is not None) != (name in lacks)]
    assert not wrong_declaration, {name: declared[name] for name in wrong_declaration}
    names = [name for name, reason in declared.items() if reason is None]
    answers = engine.run(table, [cases[name][0] for name in names])
    assert len(answers) == len(names)
    wrong = []
    for name, got in zip(names, answers):
        if isinstance(got, Failure):
            if not (name in known and got.kind == "refused"):
                wrong.append(f"{name}: {got}")
            continue
        skip = KNOWN_WRONG.get(engine.name, {}).get(name, set())
        want = _in_table_order(table, cases[name][1])
        ids = table.column("id")
        if len(got) != len(want) or not all(_close(g, w) or i in skip for i, g, w in zip(ids, got, want)):
            wrong.append(f"{name}: got {got}, expected {want}")
    return wrong


@pytest.mark.parametrize("which", range(len(TABLES)), ids=["int", "date", "timestamp", "double_keys"])
def test_hand_checked_cases(engine: Engine, which: int) -> None:
    table, cases = TABLES[which]
    assert _check_cases(engine, table, cases) == []


def test_a_refused_query_is_pinned_on_itself(engine: Engine) -> None:
    """A spelling the engine cannot parse fails its own query (``refused``) while the batch's others answer."""
    assert isinstance(engine, SqlEngine)
    good = INT_CASES["rows"][0]
    broken = Query(Call("max"), good.window)
    engine.functions = {**engine.functions, "max": "no_such_aggregate({arg})"}
    try:
        answers = engine.run(INT, [good, broken])
    finally:
        del engine.functions  # back to the class's spellings
    assert answers[0] == _in_table_order(INT, INT_CASES["rows"][1])
    assert isinstance(answers[1], Failure) and answers[1].kind == "refused", answers[1]


def test_wrong_rows_and_foreign_errors_are_crashes(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows that do not match the table's ids, and an error that is not the engine's, are ``crash``es."""
    assert isinstance(engine, SqlEngine)
    fetch = engine._fetch
    monkeypatch.setattr(engine, "_fetch", lambda select: fetch(select)[1:])
    (answer,) = engine.run(INT, [INT_CASES["rows"][0]])
    assert isinstance(answer, Failure) and answer.kind == "crash" and "rows" in answer.message

    def broken(select: str) -> list[tuple[Any, ...]]:
        raise KeyError("not the engine's")

    monkeypatch.setattr(engine, "_fetch", broken)
    assert (
        engine.run(INT, [INT_CASES["rows"][0], INT_CASES["groups"][0]])
        == [Failure("crash", 'KeyError: "not the engine\'s"')] * 2
    )


def test_empty_table(engine: Engine) -> None:
    empty = Table("timestamp", "double", ())
    queries = [TS_CASES["ts_before"][0], INT_CASES["rows"][0], INT_CASES["string_agg"][0]]
    supported = [query for query in queries if engine.unsupported(empty, query) is None]
    assert len(supported) >= 2
    assert engine.run(empty, supported) == [[] for _ in supported]


def test_repro_runs_standalone_and_agrees(engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The repro's code, run with ``exec`` beside its files, answers what :meth:`run` answers."""
    names = ["rows", "string_agg", "desc_nulls_first", "empty_frames"]
    case = Case(INT, tuple(INT_CASES[name][0] for name in names))
    repro = engine.repro(case)
    assert "swagkit" not in repro.code
    for name, text in repro.files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, Any] = {"__name__": "repro"}
    exec(compile(repro.code, "repro.py", "exec"), namespace)
    assert namespace["answers"] == engine.run(case.table, case.queries)
    assert namespace["answers"][0] == _in_table_order(INT, INT_CASES["rows"][1])
    assert namespace["version"] == engine.version()
    assert repro.files["case.sql"] == engine.render(case.table, case.queries)


def test_not_sql_is_unsupported_everywhere() -> None:
    """Dataframe knobs and frames the standard's syntax forbids are skipped by every SQL dialect, with a reason."""
    not_sql = [
        Query(Call("sum", min_count=2), Window(frame=Frame("rows", pre(1), CUR))),
        Query(Call("sum"), Window(frame=Frame("range", Bound("preceding", 1, open=True), CUR))),
        Query(Call("sum"), Window(frame=Frame("range", pre(1), CUR, peers_follow=False))),
        Query(Call("sum"), Window(frame=Frame("rows", CUR, pre(1)))),
        Query(Call("sum"), Window(frame=Frame("rows", fol(1), CUR))),
        Query(Call("sum"), Window(frame=Frame("rows", pre(1.5), CUR))),
        Query(Call("first_value", distinct=True), Window()),
        Query(Call("sum", ignore_nulls=True), Window()),
        Query(Call("nth_value", param=0), Window()),
    ]
    for name in ("sqlite", "duckdb", "datafusion", "spark"):
        if name not in installed_engines():
            continue
        adapter = make_engine(name)
        reasons = [adapter.unsupported(INT, query) for query in not_sql]
        assert all(reason and reason.startswith("not SQL") for reason in reasons), (name, reasons)
        assert adapter.unsupported(DKEY, Query(Call("bit_or"), Window())) is None or name == "sqlite"
        assert adapter.unsupported(DATE, Query(Call("bit_or"), Window())) is not None
        adapter.close()


def test_spark_declarations_need_no_session() -> None:
    """Spark's capability table answers without starting a JVM (the session is made on first run)."""
    if "spark" not in installed_engines():
        pytest.skip("pyspark is not installed")
    adapter = make_engine("spark")
    for table, cases in TABLES:
        for name, (query, _) in cases.items():
            assert (adapter.unsupported(table, query) is not None) == (name in LACKS["spark"]), name
    assert adapter._session is None  # type: ignore[attr-defined]


def test_registry() -> None:
    names = ("sqlite", "duckdb", "datafusion", "polars", "pandas", "spark", "spark-segment-tree", "swagkit")
    assert ENGINE_NAMES == names
    assert set(installed_engines()) <= set(ENGINE_NAMES)
    with pytest.raises(ValueError, match="unknown engine 'oracle'"):
        make_engine("oracle")
    assert make_engine("sqlite").name == "sqlite"


def test_a_missing_package_is_engine_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "duckdb" else real(name, *a))
    assert "duckdb" not in installed_engines()
    with pytest.raises(EngineUnavailable, match=r"duckdb is not installed: pip install 'swagkit\[engines\]'"):
        make_engine("duckdb")


@pytest.mark.spark
def test_spark_hand_checked_cases_and_repro(spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Spark SQL on the INT table in one batch, and the timestamp table through its standalone repro."""
    adapter = make_engine("spark", session=spark)
    assert _check_cases(adapter, INT, INT_CASES) == []
    case = Case(TS, tuple(query for query, _ in TS_CASES.values()))
    repro = adapter.repro(case)
    for name, text in repro.files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, Any] = {}
    exec(compile(repro.code, "repro.py", "exec"), namespace)
    assert namespace["version"] == spark.version == adapter.version()
    assert namespace["answers"] == [_in_table_order(TS, want) for _, want in TS_CASES.values()]
    adapter.close()


def test_engines_package_imports_without_engines() -> None:
    """The adapters import their engine only when made (the SQL ones: on first use or construction)."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "import swagkit.verify.engines.adapters, swagkit.verify.engines.sql\n"
        "import swagkit.verify.engines.duckdb_engine, swagkit.verify.engines.datafusion_engine\n"
        "import swagkit.verify.engines.spark_engine\n"
        "assert not {'duckdb', 'datafusion', 'pyspark', 'pyarrow'} & set(sys.modules), sorted(sys.modules)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
