"""The engine checks' exact oracle, judge and case generator (verify/engines/oracle.py, judge.py, generate.py;
issue 24): frames and answers worked out by hand per frame kind, the fast path held to the brute-force definition,
every class of wrong answer produced by a crafted answer, generated cases deterministic, valid (DuckDB parses and
binds every one) and shrinkable."""

from __future__ import annotations

import datetime as dt
import decimal
import math
from collections import Counter
from dataclasses import replace
from fractions import Fraction
from typing import Any

import pytest

from swagkit.verify.engines.generate import (
    DATAFRAME,
    SQL,
    Features,
    case_size,
    generate_case,
    simplify,
    sql_problem,
)
from swagkit.verify.engines.judge import CLASSES, judge, judge_row, membership_probe, share
from swagkit.verify.engines.model import (
    AGGREGATES,
    Bound,
    Call,
    Frame,
    Query,
    Table,
    Window,
    case_from_json,
    case_to_json,
)
from swagkit.verify.engines.oracle import (
    ROUNDOFF,
    Expected,
    brute_force_expected,
    brute_force_frames,
    expected,
    frames,
    gamma,
)

pytestmark = pytest.mark.once
ONCE_PASS = "pure"  # tests/conftest.py: this module runs in the pure-Python pass (it balances the two)

UP = Bound("unbounded_preceding")
UF = Bound("unbounded_following")
CUR = Bound("current_row")


def pre(k: Any, open: bool = False) -> Bound:
    return Bound("preceding", k, open)


def fol(k: Any) -> Bound:
    return Bound("following", k)


def make_table(rows: list[tuple[Any, ...]], order_type: str = "int", value_type: str = "int") -> Table:
    """Rows ``(id, o, x)`` (one partition; ``s`` is ``str(x)``, ``b`` whether ``x`` is positive), given out of
    order on purpose: answers must follow the table's order, not the frame's."""
    full = [(i, 0, o, x, None if x is None else str(x), None if x is None else x > 0) for i, o, x in rows]
    return Table(order_type, value_type, tuple(reversed(full)))  # type: ignore[arg-type]


def by_id(table: Table, aggregate: str, frame: Frame | None, **window: Any) -> dict[int, Any]:
    query = Query(Call(aggregate), Window(frame=frame, **window))
    return {row[0]: e.value for row, e in zip(table.rows, expected(table, query), strict=True)}


def members(table: Table, window: Window) -> dict[int, list[int]]:
    ids = [row[0] for row in table.rows]
    return {ids[r]: [ids[m] for m in frame] for r, frame in enumerate(frames(table, window))}


# o: 1, 2, 2, 3 -- rows 2 and 3 tie
TIES = make_table([(1, 1, 10), (2, 2, 20), (3, 2, 30), (4, 3, 40)])


# ----------------------------------------------------------------------------------------------------------------
# frames by hand


def test_rows_frames_order_peers_by_id() -> None:
    # ROWS orders by o, id: 1, 2, 3, 4; one row back and the current one
    assert by_id(TIES, "sum", Frame("rows", pre(1), CUR)) == {1: 10, 2: 30, 3: 50, 4: 70}
    assert members(TIES, Window(frame=Frame("rows", pre(1), CUR))) == {1: [1], 2: [1, 2], 3: [2, 3], 4: [3, 4]}


def test_range_current_row_takes_every_peer() -> None:
    # the default frame runs to the current row's last peer: rows 2 and 3 both see 10 + 20 + 30
    assert by_id(TIES, "sum", None) == {1: 10, 2: 60, 3: 60, 4: 100}
    assert by_id(TIES, "sum", Frame("range", CUR, CUR)) == {1: 10, 2: 50, 3: 50, 4: 40}


def test_groups_count_peer_groups() -> None:
    # groups {1}, {2, 3}, {4}: one group back and the current one
    assert by_id(TIES, "sum", Frame("groups", pre(1), CUR)) == {1: 10, 2: 60, 3: 60, 4: 90}
    assert by_id(TIES, "count_star", Frame("groups", fol(1), fol(1))) == {1: 2, 2: 1, 3: 1, 4: 0}


def test_range_offsets_reach_values_not_rows() -> None:
    # o - 1 <= key <= o + 1: for o = 2 every row, for o = 3 the keys 2 and 3
    assert by_id(TIES, "sum", Frame("range", pre(1), fol(1))) == {1: 60, 2: 100, 3: 100, 4: 90}
    assert by_id(TIES, "sum", Frame("range", pre(0), pre(0))) == {1: 10, 2: 50, 3: 50, 4: 40}


@pytest.mark.parametrize(
    ("unit", "exclude", "want"),
    [
        ("range", "current_row", {1: 90, 2: 80, 3: 70, 4: 60}),  # 100 minus the row itself
        ("range", "group", {1: 90, 2: 50, 3: 50, 4: 60}),  # rows 2 and 3 drop both peers (50)
        ("range", "ties", {1: 100, 2: 100 - 30, 3: 100 - 20, 4: 100}),  # rows 2 and 3 drop the other peer
        ("rows", "group", {1: 90, 2: 80, 3: 70, 4: 60}),  # ROWS orders by o, id: every row is its own group
        ("rows", "ties", {1: 100, 2: 100, 3: 100, 4: 100}),  # ... and has no ties
    ],
)
def test_exclude(unit: str, exclude: str, want: dict[int, int]) -> None:
    assert by_id(TIES, "sum", Frame(unit, UP, UF, exclude)) == want  # type: ignore[arg-type]


# ids 2 and 4 have NULL keys; x doubles every row so that each sum names its rows
NULL_KEYS = make_table([(1, 1, 1), (2, None, 2), (3, 2, 4), (4, None, 8), (5, 4, 16)])


def test_desc_nulls_first_range() -> None:
    # DESC: PRECEDING means larger keys, o <= key <= o + 1; NULL current keys get their NULL peers (2 + 8)
    frame = Frame("range", pre(1), CUR)
    got = by_id(NULL_KEYS, "sum", frame, descending=True, nulls_first=True)
    assert got == {2: 10, 4: 10, 5: 16, 3: 4, 1: 4 + 1}
    order = members(NULL_KEYS, Window(False, True, True, Frame("rows", UP, UF)))
    assert order[1] == [2, 4, 5, 3, 1]  # NULLs first, then 4, 2, 1 (ties by id)


def test_null_keys_lie_beyond_every_value() -> None:
    # NULLS FIRST: a NULL key passes "key <= o - 1"; a NULL current row's offset bound is its NULL group
    frame = Frame("range", UP, pre(1))
    assert by_id(NULL_KEYS, "sum", frame, nulls_first=True) == {1: 10, 3: 10 + 1, 5: 10 + 1 + 4, 2: 10, 4: 10}
    # NULLS LAST: a NULL key passes "key >= o + 1"
    frame = Frame("range", fol(1), UF)
    assert by_id(NULL_KEYS, "sum", frame, nulls_first=False) == {1: 4 + 16 + 10, 3: 16 + 10, 5: 10, 2: 10, 4: 10}


def test_empty_and_reversed_frames() -> None:
    reversed_rows = Frame("rows", pre(1), pre(3))  # starts after it ends
    assert by_id(TIES, "sum", reversed_rows) == dict.fromkeys((1, 2, 3, 4))
    assert by_id(TIES, "count", reversed_rows) == dict.fromkeys((1, 2, 3, 4), 0)
    assert by_id(TIES, "count_star", Frame("rows", fol(5), UF)) == dict.fromkeys((1, 2, 3, 4), 0)
    assert by_id(TIES, "array_agg", Frame("rows", fol(3), fol(9))) == {1: [40], 2: None, 3: None, 4: None}


def test_date_keys_take_offsets_in_days() -> None:
    days = [dt.date(2024, 1, d) for d in (1, 3, 4, 7)]
    table = make_table([(i + 1, day, 2**i) for i, day in enumerate(days)], order_type="date")
    # key - 2 days <= d <= key: Jan 3 reaches Jan 1, Jan 4 only Jan 3, Jan 7 nothing earlier
    assert by_id(table, "sum", Frame("range", pre(2), CUR)) == {1: 1, 2: 1 + 2, 3: 2 + 4, 4: 8}


def test_timestamp_keys_take_offsets_in_seconds() -> None:
    base = dt.datetime(2024, 1, 1, 12)
    times = [
        base,
        base + dt.timedelta(milliseconds=500),
        base + dt.timedelta(seconds=1),
        base + dt.timedelta(seconds=2),
    ]
    table = make_table([(i + 1, t, 2**i) for i, t in enumerate(times)], order_type="timestamp")
    assert by_id(table, "sum", Frame("range", pre(1), CUR)) == {1: 1, 2: 1 + 2, 3: 1 + 2 + 4, 4: 4 + 8}


def test_open_bounds() -> None:
    # (o - 1, o]: pandas' closed='right'
    assert by_id(TIES, "sum", Frame("range", pre(1, open=True), CUR)) == {1: 10, 2: 50, 3: 50, 4: 40}
    # [o - 1, o): every row with the current value is out, the current row too (closed='left')
    end_open = Frame("range", pre(1), Bound("current_row", open=True))
    assert by_id(TIES, "sum", end_open) == {1: None, 2: 10, 3: 10, 4: 50}
    # ROWS: the row at the open offset is out
    assert by_id(TIES, "sum", Frame("rows", pre(2, open=True), CUR)) == {1: 10, 2: 30, 3: 50, 4: 70}
    assert by_id(TIES, "sum", Frame("rows", pre(1), Bound("current_row", open=True))) == {1: None, 2: 10, 3: 20, 4: 30}


def test_peers_not_following_end_the_frame_at_the_current_row() -> None:
    frame = Frame("range", UP, CUR, peers_follow=False)
    assert by_id(TIES, "sum", frame) == {1: 10, 2: 30, 3: 60, 4: 100}
    # the order is total then (peers by id): last_value is determined, no candidates
    query = Query(Call("last_value"), Window(frame=frame))
    assert all(e.candidates is None for e in expected(TIES, query))
    assert by_id(TIES, "last_value", frame) == {1: 10, 2: 20, 3: 30, 4: 40}


# ----------------------------------------------------------------------------------------------------------------
# answers by hand


def whole(table: Table, call: Call) -> Expected:
    """The answer over the whole partition (every row has it)."""
    answers = expected(table, Query(call, Window(frame=Frame("rows", UP, UF))))
    assert all(repr(a) == repr(answers[0]) for a in answers)
    return answers[0]


ONE_TWO_FOUR = make_table([(1, 1, 1), (2, 2, 2), (3, 3, 4), (4, 4, None)])


@pytest.mark.parametrize(
    ("call", "want"),
    [
        (Call("sum"), 7),
        (Call("count"), 3),
        (Call("count_star"), 4),
        (Call("avg"), Fraction(7, 3)),
        # deviations from 7/3: -4/3, -1/3, 5/3; squares 16/9 + 1/9 + 25/9 = 42/9
        (Call("var_pop"), Fraction(42, 9) / 3),
        (Call("var_samp"), Fraction(42, 9) / 2),
        (Call("median"), 2),
        (Call("quantile_cont", param=0.25), Fraction(3, 2)),  # position 0.25·2 = 0.5: halfway from 1 to 2
        (Call("quantile_disc", param=0.5), 2),  # the first value whose share k/3 reaches 1/2
        (Call("quantile_disc", param=0.0), 1),
        (Call("quantile_disc", param=1.0), 4),
        (Call("bit_and"), 0),
        (Call("bit_or"), 7),
        (Call("bit_xor"), 7),
        (Call("bool_and"), True),  # b = x > 0, NULL skipped
        (Call("min"), 1),
        (Call("max"), 4),
        (Call("first_value"), 1),
        (Call("last_value"), None),  # the last row's value, NULL
        (Call("last_value", ignore_nulls=True), 4),
        (Call("nth_value", param=4), None),
        (Call("nth_value", param=4, ignore_nulls=True), None),  # only 3 non-NULL values
        (Call("string_agg", param="-"), "1-2-4"),
        (Call("array_agg"), [1, 2, 4, None]),
        (Call("sum", min_count=4), None),  # 3 non-NULL values
        (Call("count_star", min_count=4), 4),
    ],
)
def test_exact_values(call: Call, want: Any) -> None:
    assert whole(ONE_TWO_FOUR, call).value == want


def test_standard_deviation_is_the_square_root_of_the_variance() -> None:
    want = whole(ONE_TWO_FOUR, Call("stddev_samp"))
    sd = want.value
    assert isinstance(sd, Fraction) and abs(sd * sd - Fraction(7, 3)) < Fraction(1, 2**110)
    assert judge(want, math.sqrt(7 / 3)).ok and judge(want, math.sqrt(7 / 3) * (1 + 1e-9)).klass == "outside_bound"


def test_null_rules() -> None:
    nulls = make_table([(1, 1, None), (2, 2, None)])
    for aggregate in ("sum", "avg", "min", "max", "var_pop", "median", "bit_or", "bool_or", "string_agg"):
        assert whole(nulls, Call(aggregate, param="," if aggregate == "string_agg" else None)).value is None
    assert whole(nulls, Call("count")).value == 0
    assert whole(nulls, Call("count_star")).value == 2
    assert whole(nulls, Call("array_agg")).value == [None, None]
    single = make_table([(1, 1, 5)])
    assert whole(single, Call("var_samp")).value is None and whole(single, Call("stddev_samp")).value is None
    assert whole(single, Call("var_pop")).value == 0 and whole(single, Call("stddev_pop")).value == 0


def test_distinct() -> None:
    table = make_table([(1, 1, 3), (2, 2, 3), (3, 3, 5), (4, 4, None)])
    assert whole(table, Call("count", distinct=True)).value == 2
    assert whole(table, Call("sum", distinct=True)).value == 8
    assert whole(table, Call("avg", distinct=True)).value == 4


def test_infinities_give_the_ieee_answer() -> None:
    def doubles(*xs: float) -> Table:
        return make_table([(i + 1, i, x) for i, x in enumerate(xs)], value_type="double")

    assert whole(doubles(math.inf, 1.0), Call("sum")).value == math.inf
    assert math.isnan(whole(doubles(math.inf, -math.inf), Call("avg")).value)
    assert math.isnan(whole(doubles(math.inf), Call("var_pop")).value)
    assert whole(doubles(1.0, math.inf), Call("median")).value == math.inf
    assert whole(doubles(-math.inf, 1.0), Call("min")).value == -math.inf
    # exact rationals otherwise: 0.1 + 0.2 is the sum of the two doubles, not 0.3
    assert whole(doubles(0.1, 0.2), Call("sum")).value == Fraction(0.1) + Fraction(0.2)


def test_open_peer_order_gives_candidates() -> None:
    frame = Frame("range", CUR, CUR)  # rows 2 and 3 are peers: either may come first
    query = Query(Call("first_value"), Window(frame=frame))
    second = expected(TIES, query)[[r[0] for r in TIES.rows].index(2)]
    assert set(second.candidates or ()) == {20, 30}
    assert judge(second, 30).ok and judge(second, 20).ok and not judge(second, 10).ok
    listing = expected(TIES, Query(Call("array_agg"), Window(frame=frame)))[[r[0] for r in TIES.rows].index(3)]
    assert listing.candidates == ((20, 30),)
    assert judge(listing, [30, 20]).ok and judge(listing, [20, 30]).ok and not judge(listing, [20, 20]).ok
    text = expected(TIES, Query(Call("string_agg", param=", "), Window(frame=Frame("range", UP, UF))))[0]
    assert text.value == "10, 20, 30, 40"
    assert judge(text, "10, 30, 20, 40").ok and not judge(text, "20, 10, 30, 40").ok


# ----------------------------------------------------------------------------------------------------------------
# the fast path against the definition


def _same(a: list[Expected], b: list[Expected]) -> bool:
    return [repr(x) for x in a] == [repr(x) for x in b]  # repr: NaN equals NaN


@pytest.mark.parametrize("features", [SQL, DATAFRAME], ids=["sql", "dataframe"])
def test_fast_path_equals_brute_force(features: Features) -> None:
    seen: Counter[str] = Counter()
    for index in range(90):
        case = generate_case(11, index, features=features, max_rows=40)
        for query in case.queries:
            seen[query.call.aggregate] += 1
            seen[query.frame_kind.split("+")[0]] += 1
            assert frames(case.table, query.window) == brute_force_frames(case.table, query.window), (index, query)
            assert _same(expected(case.table, query), brute_force_expected(case.table, query)), (index, query)
    assert set(AGGREGATES) <= set(seen) and {"rows", "range", "groups", "default"} <= set(seen)


def test_fast_path_scales() -> None:
    """2,000 rows, frames of hundreds: sliding windows, not refolds (about 0.3 s each here)."""
    rows = tuple((i, i % 2, i // 3, float((i * 7919) % 1000) / 8, "a", True) for i in range(2000))
    table = Table("int", "double", rows)
    query = Query(Call("var_samp"), Window(frame=Frame("range", pre(100), fol(20), "ties")))
    answers = expected(table, query)
    assert len(answers) == 2000 and all(isinstance(a.value, Fraction) for a in answers)


# ----------------------------------------------------------------------------------------------------------------
# the judge


CANCEL = make_table([(1, 1, 1e17), (2, 2, 1.0), (3, 3, -1e17)], value_type="double")


def test_classes_are_documented() -> None:
    assert set(CLASSES) == {
        "membership",
        "outside_bound",
        "nan_inf",
        "sign",
        "null_vs_value",
        "order",
        "wrong",
        "refused",
        "crash",
    }


def test_float_answers_within_the_any_order_bound() -> None:
    total = whole(CANCEL, Call("sum"))
    assert total.value == 1 and total.n == 3
    # three values, two additions in any order: γ_2 · Σ|x| plus a final rounding
    assert total.allowed == pytest.approx(gamma(2) * (2e17 + 1) + ROUNDOFF)
    assert judge(total, 1.0).exact
    # left to right, 1e17 + 1 rounds to 1e17 and the sum comes out 0: one summation order, so right
    within = judge(total, (1e17 + 1.0) - 1e17)
    assert within.ok and not within.exact and 0 < share(total, 0.0) <= 1
    far = judge(total, 1000.0)
    assert far.klass == "outside_bound" and "× the bound" in far.detail
    assert share(total, 1000.0) == pytest.approx(999 / total.allowed)


def test_int_sums_answered_in_floating_point() -> None:
    small = whole(ONE_TWO_FOUR, Call("sum"))
    assert small.allowed == 0 and judge(small, 7.0).exact and judge(small, 7.5).klass == "wrong"
    big = whole(make_table([(1, 1, 2**62), (2, 2, 1), (3, 3, 1)]), Call("sum"))
    assert big.allowed > 0 and judge(big, float(2**62)).ok  # the two 1s round away in any double order
    assert judge(big, 2**62).klass == "wrong"  # an int answer must be exact


def test_average_of_ints_takes_one_rounding() -> None:
    mean = whole(ONE_TWO_FOUR, Call("avg"))
    assert judge(mean, 7 / 3).ok and judge(mean, decimal.Decimal("2.3333333333333333")).ok
    assert judge(mean, 2).klass == "wrong"  # an int answer does not round
    assert judge(mean, 7 / 3 + 1e-9).klass == "outside_bound"


def test_variance_bound_admits_stable_algorithms_not_the_textbook_formula() -> None:
    xs = [1e9 + d for d in (4.0, 7.0, 13.0, 16.0, 1.0, 9.0)]  # large mean, small spread: cancellation
    table = make_table([(i + 1, i, x) for i, x in enumerate(xs)], value_type="double")
    exact = whole(table, Call("var_pop"))
    n, mean = len(xs), 0.0
    m2 = 0.0
    for k, x in enumerate(xs, 1):  # Welford
        delta = x - mean
        mean += delta / k
        m2 += delta * (x - mean)
    assert judge(exact, m2 / n).ok
    two_pass_mean = sum(xs) / n
    assert judge(exact, sum((x - two_pass_mean) ** 2 for x in xs) / n).ok
    textbook = (sum(x * x for x in xs) - sum(xs) ** 2 / n) / n
    assert judge(exact, textbook).klass in ("outside_bound", "sign")


def test_crafted_wrong_answers_fall_in_their_classes() -> None:
    total = whole(CANCEL, Call("sum"))
    assert judge(total, math.nan).klass == "nan_inf"
    assert judge(total, -math.inf).klass == "nan_inf"
    assert judge(total, None).klass == "null_vs_value"
    assert judge(whole(make_table([(1, 1, None)]), Call("sum")), 0).klass == "null_vs_value"
    variance = whole(CANCEL, Call("var_pop"))
    assert judge(variance, -1e-300).klass == "sign"
    assert judge(whole(ONE_TWO_FOUR, Call("min")), 3).klass == "wrong"
    assert judge(whole(ONE_TWO_FOUR, Call("string_agg", param="-")), 124).klass == "wrong"
    nan = whole(make_table([(1, 1, math.inf), (2, 2, -math.inf)], value_type="double"), Call("sum"))
    assert judge(nan, math.nan).exact and judge(nan, math.inf).klass == "wrong" and judge(nan, 0.0).klass == "wrong"


def test_lists_in_another_order_are_their_own_class() -> None:
    """The frame's items in another order (SQL leaves array_agg/string_agg's order to the engine without an ORDER
    BY in the call) are class ``order``; other items are ``wrong``."""
    strings = whole(ONE_TWO_FOUR, Call("string_agg", param="-"))
    assert judge(strings, "1-2-4").exact
    assert judge(strings, "4-1-2").klass == "order"
    assert judge(strings, "1-2").klass == "wrong" and judge(strings, "1-2-4-4").klass == "wrong"
    arrays = whole(ONE_TWO_FOUR, Call("array_agg"))
    assert judge(arrays, [1, 2, 4, None]).exact
    assert judge(arrays, [None, 4, 2, 1]).klass == "order"
    assert judge(arrays, [1, 2, 4]).klass == "wrong"


@pytest.mark.parametrize("separator", [",", ""])
def test_string_agg_over_thousands_of_rows_is_judged_without_recursion(separator: str) -> None:
    """A frame of 3,000 items: the judge walks them on its own stack (it once recursed per item, past Python's
    recursion limit on a 1,071-row frame)."""
    items = [str(i % 7) for i in range(3000)]
    want = Expected("string_agg", separator.join(items), n=len(items), param=separator, items=tuple(items))
    assert judge(want, separator.join(items)).exact
    assert judge(want, separator.join(reversed(items))).klass == "order"
    assert not judge(want, separator.join(items[:-1] + ["9"])).ok
    peers = replace(want, candidates=(tuple(items[:1500]), tuple(items[1500:])))  # two groups of open order
    assert judge(peers, separator.join(items[1499::-1] + items[1500:])).ok


def test_membership_names_the_frame_without_tied_peers() -> None:
    # the default frame holds row 2's peer, row 3 (10 + 20 + 30); an engine that stops at the current row says 30
    query = Query(Call("sum"), Window(frame=None))
    row = [r[0] for r in TIES.rows].index(2)
    want = expected(TIES, query)[row]
    assert judge(want, 30).klass == "wrong"
    verdict = judge_row(TIES, query, row, want, 30)
    assert verdict.klass == "membership" and "id 3" in verdict.detail
    found = membership_probe(TIES, query, row, 30)
    assert found is not None and found.startswith("the frame that leaves out the current row's 1 tied peer row (id 3)")
    # an answer no neighbouring frame has stays wrong
    assert judge_row(TIES, query, row, want, 31).klass == "wrong"
    assert membership_probe(TIES, query, row, 31) is None


def test_membership_names_a_frame_that_ignores_exclude() -> None:
    query = Query(Call("sum"), Window(frame=Frame("range", UP, UF, "group")))
    row = [r[0] for r in TIES.rows].index(2)
    found = membership_probe(TIES, query, row, 100)
    assert found is not None and "ignores EXCLUDE GROUP" in found


def test_share() -> None:
    total = whole(CANCEL, Call("sum"))
    assert share(total, 1.0) == 0 and share(total, None) == math.inf and share(total, math.nan) == math.inf
    assert share(whole(ONE_TWO_FOUR, Call("min")), 2) == math.inf  # exact aggregate, allowed 0


# ----------------------------------------------------------------------------------------------------------------
# the generator


def test_generate_case_is_deterministic() -> None:
    first, again = generate_case(7, 3), generate_case(7, 3)
    assert first == again and case_to_json(first) == case_to_json(again)
    assert generate_case(7, 4) != first and generate_case(8, 3) != first
    assert case_from_json(case_to_json(first)) == first


def test_generated_cases_are_valid_and_aim_at_the_hard_shapes() -> None:
    seen: Counter[str] = Counter()
    for index in range(300):
        case = generate_case(1, index)
        table = case.table
        ids = [row[0] for row in table.rows]
        assert len(set(ids)) == len(ids) and 1 <= len(table.rows) <= SQL.max_rows
        sizes = Counter(row[1] for row in table.rows)
        seen["single-row partition"] += 1 in sizes.values() and len(sizes) > 1
        seen["NULL partition"] += None in sizes
        keys = [row[2] for row in table.rows]
        seen["NULL key"] += None in keys
        seen["tied keys"] += len({k for k in keys if k is not None}) < sum(k is not None for k in keys)
        values = [row[3] for row in table.rows]
        seen["inf value"] += any(isinstance(v, float) and math.isinf(v) for v in values)
        seen["mixed magnitudes"] += any(v is not None and abs(v) >= 1e15 for v in values)
        for query in case.queries:
            assert sql_problem(table, query) is None, (index, query)
            frame = query.window.frame
            assert frame is None or frame.is_sql
            seen[query.call.aggregate] += 1
            seen["desc"] += query.window.descending
            seen["nulls first"] += query.window.nulls_first
            seen["distinct"] += query.call.distinct
            seen["ignore nulls"] += query.call.ignore_nulls
            if frame is not None:
                seen[frame.unit] += 1
                seen[frame.exclude] += 1
                seen["empty frames"] += any(not f for f in frames(table, query.window))
                offsets = [b.offset for b in (frame.start, frame.end) if b.offset is not None]
                seen["offset 0"] += 0 in offsets
                seen["offset wider than the partition"] += any(o > max(sizes.values()) for o in offsets)
    wanted = {*AGGREGATES, "rows", "range", "groups", "current_row", "group", "ties", "desc", "nulls first"}
    wanted |= {"distinct", "ignore nulls", "empty frames", "offset 0", "offset wider than the partition"}
    wanted |= {"single-row partition", "NULL partition", "NULL key", "tied keys", "inf value", "mixed magnitudes"}
    assert wanted <= {k for k, v in seen.items() if v}, wanted - {k for k, v in seen.items() if v}


def test_features_restrict_what_is_generated() -> None:
    narrow = Features(
        aggregates=frozenset({"sum", "min"}),
        units=frozenset({"rows"}),
        excludes=frozenset(),
        order_types=frozenset({"date"}),
        value_types=frozenset({"int"}),
        nulls=frozenset({"last"}),
        descending=False,
        null_keys=False,
        distinct=False,
        max_rows=12,
        max_queries=2,
    )
    for index in range(60):
        case = generate_case(2, index, features=narrow)
        assert case.table.order_type == "date" and case.table.value_type == "int" and len(case.table.rows) <= 12
        assert all(row[2] is not None for row in case.table.rows) and 1 <= len(case.queries) <= 2
        for query in case.queries:
            frame = query.window.frame
            assert query.call.aggregate in ("sum", "min") and not query.call.distinct
            assert not query.window.descending and not query.window.nulls_first
            assert frame is None or (frame.unit == "rows" and frame.exclude == "no_others")


def test_dataframe_shapes() -> None:
    only = Features(dataframe=True, sql=False, min_count=True)
    shapes: Counter[str] = Counter()
    for index in range(80):
        case = generate_case(4, index, features=only)
        for query in case.queries:
            frame = query.window.frame
            assert frame is not None and frame.end.kind in ("current_row", "following")
            shapes["not sql"] += not frame.is_sql
            shapes["peers not following"] += not frame.peers_follow
            shapes["min_count"] += query.call.min_count > 0
            expected(case.table, query)  # the oracle defines every one
    assert all(shapes[k] for k in ("not sql", "peers not following", "min_count")), shapes


def test_probe_reads_features_off_an_adapter() -> None:
    def unsupported(table: Table, query: Query) -> str | None:
        frame = query.window.frame
        if query.call.aggregate in ("median", "string_agg") or query.call.distinct:
            return "not this aggregate"
        if frame is not None and (frame.unit == "groups" or frame.exclude != "no_others"):
            return "no GROUPS, no EXCLUDE"
        if query.window.descending or table.order_type == "timestamp":
            return "no DESC, no timestamps"
        return None

    features = Features.probe(unsupported)
    assert "median" not in features.aggregates and "sum" in features.aggregates and not features.distinct
    assert features.units == {"rows", "range"} and not features.excludes and not features.descending
    assert "timestamp" not in features.order_types and "date" in features.order_types
    skipped = sum(
        unsupported(case.table, query) is not None
        for case in (generate_case(9, i, features=features) for i in range(40))
        for query in case.queries
    )
    assert skipped == 0
    everything = Features.probe(lambda table, query: None)
    assert everything.aggregates == SQL.aggregates and everything.units == SQL.units
    assert everything.excludes == SQL.excludes and everything.order_types == SQL.order_types
    assert everything.descending and everything.distinct and everything.dataframe and everything.min_count


def test_simplify_shrinks_strictly_and_terminates() -> None:
    for index in range(12):
        case = generate_case(6, index, max_rows=15)
        size = case_size(case)
        for candidate in simplify(case):
            assert case_size(candidate) < size
            assert all(sql_problem(candidate.table, q) is None for q in candidate.queries)
            assert len(candidate.table.rows) >= 1 and len(candidate.queries) >= 1
        # greedy shrinking with a predicate that always holds ends at one row and one query
        current, steps = case, 0
        while (step := next(simplify(current), None)) is not None:
            current, steps = step, steps + 1
            assert steps < 10_000
        assert len(current.table.rows) == 1 and len(current.queries) == 1


def _duckdb_sql(table: Table, query: Query) -> str:
    """A minimal DuckDB spelling of one query (this test's own, independent of the SQL adapters)."""
    call, window, frame = query.call, query.window, query.window.frame
    name = {"count_star": "count", "array_agg": "list"}.get(call.aggregate, call.aggregate)
    argument = {"count_star": "*", "string_agg": f"s, '{call.param}'"}.get(call.aggregate, "x")
    if call.aggregate in ("bool_and", "bool_or"):
        argument = "b"
    if call.aggregate in ("nth_value", "quantile_cont", "quantile_disc"):
        argument = f"x, {call.param}"
    inner = ("DISTINCT " if call.distinct else "") + argument + (" IGNORE NULLS" if call.ignore_nulls else "")
    order = f"ORDER BY o {'DESC' if window.descending else 'ASC'} NULLS {'FIRST' if window.nulls_first else 'LAST'}"
    over = ("PARTITION BY p " if window.partitioned else "") + order + (", id" if window.order_by_id else "")
    if frame is not None:
        unit = {"date": "DAY", "timestamp": "SECOND"}.get(table.order_type) if frame.unit == "range" else None

        def bound(b: Bound) -> str:
            if b.offset is None or unit is None:
                return b.sql
            return f"INTERVAL ({b.offset}) {unit} {b.kind.upper()}"

        over += f" {frame.unit.upper()} BETWEEN {bound(frame.start)} AND {bound(frame.end)}"
        if frame.exclude != "no_others":
            over += " EXCLUDE" + frame.sql.split("EXCLUDE")[1]
    return f"SELECT id, {name}({inner}) OVER ({over}) FROM t"


def test_generated_sql_cases_run_on_duckdb() -> None:
    duckdb = pytest.importorskip("duckdb")
    types = {"int": "BIGINT", "double": "DOUBLE", "date": "DATE", "timestamp": "TIMESTAMP"}
    connection = duckdb.connect()
    for index in range(25):
        case = generate_case(5, index, max_rows=20)
        table = case.table
        connection.execute("DROP TABLE IF EXISTS t")
        connection.execute(
            f"CREATE TABLE t(id BIGINT, p BIGINT, o {types[table.order_type]}, x {types[table.value_type]}, "
            "s VARCHAR, b BOOLEAN)"
        )
        connection.executemany("INSERT INTO t VALUES (?, ?, ?, ?, ?, ?)", [list(row) for row in table.rows])
        for query in case.queries:
            assert len(connection.execute(_duckdb_sql(table, query)).fetchall()) == len(table.rows)


def test_array_agg_over_thousands_of_rows_is_judged_in_linear_time() -> None:
    """A 3,000-item list with peers in open order: counted by item keys (it once took a pairwise search per item,
    100 s for one 1,258-row DataFusion case)."""
    items = [Fraction(i % 11, 4) if i % 13 else None for i in range(3000)]
    want = Expected("array_agg", items, n=len(items), items=tuple(items))
    peers = replace(want, candidates=(tuple(items[:1500]), tuple(items[1500:])))
    answer = [None if x is None else float(x) for x in items[1499::-1] + items[1500:]]
    assert judge(peers, answer).ok
    assert not judge(peers, answer[:-1] + [99.0]).ok


VALUES = [None, 0, 1, 2, -0.0, 0.0, 1.0, math.nan, math.inf, -math.inf, True, False, "1", "", "a"]
VALUES += [Fraction(1, 2), 0.5, decimal.Decimal("0.5"), decimal.Decimal("NaN")]


@pytest.mark.parametrize("seed", range(40))
def test_keyed_multiset_agrees_with_the_pairwise_definition(seed: int) -> None:
    import random

    from swagkit.verify.engines.judge import _same_item, _same_multiset

    def pairwise(got: list[Any], want: list[Any]) -> bool:
        left = list(want)
        for item in got:
            match = next((k for k, w in enumerate(left) if _same_item(item, w)), None)
            if match is None:
                return False
            left.pop(match)
        return True

    rng = random.Random(seed)
    for _ in range(200):
        want = [rng.choice(VALUES) for _ in range(rng.randrange(5))]
        got = rng.sample(want, len(want))
        got = [rng.choice(VALUES) if rng.random() < 0.4 else x for x in got]
        assert _same_multiset(got, want) == pairwise(got, want), (got, want)


def test_weighted_calls_are_generated_round_trip_and_average_a_constant_to_itself() -> None:
    """Weighted sum/avg (the dataframe knob): generated for dataframe features only, kept through JSON; over a
    table whose values are all 3, every weighted average is 3 and every weighted sum 3·Σw of the rows present."""
    from swagkit.verify.engines.model import weight_values
    from swagkit.verify.engines.oracle import weighted_frame

    weighted = 0
    for index in range(200):
        assert not any(q.call.weights for q in generate_case(5, index).queries)  # SQL: never
        case = generate_case(5, index, features=DATAFRAME, max_rows=40)
        assert case_from_json(case_to_json(case)) == case
        threes = replace(case.table, rows=tuple((*r[:3], 3.0, *r[4:]) for r in case.table.rows))
        for query in case.queries:
            if query.call.weights is None:
                continue
            weighted += 1
            lo, weights = weighted_frame(query) or (0, ())
            assert weights == weight_values(query.call.weights, len(weights)) and all(w > 0 for w in weights)
            for answer in expected(threes, query):
                if answer.value is not None and query.call.aggregate == "avg":
                    assert answer.value == 3
                elif answer.value is not None:  # the rows present are a run of the frame's positions
                    runs = {sum(weights[i:j]) for i in range(len(weights)) for j in range(i + 1, len(weights) + 1)}
                    assert answer.value / 3 in runs
    assert weighted >= 10


def test_weights_are_validated() -> None:
    with pytest.raises(ValueError, match="weights apply to avg and sum"):
        Call("min", weights="ramp")
    with pytest.raises(ValueError, match="unknown weights"):
        Call("sum", weights="hann")
    default = Query(Call("sum", weights="ramp"), Window(frame=None))
    with pytest.raises(ValueError, match="ROWS frame"):
        expected(TIES, default)
