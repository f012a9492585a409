"""``sliding_aggregate`` (issue 15 §3): per-key sliding aggregates on DataFrames agree with Spark's own window frames
and with a plain-Python fold of every frame; FiBA's out-of-order semantics; debug mode catches a planted bug; bad
arguments fail before any job runs.

Data are small (a few keys, tens of rows) and ``chunk_rows`` tiny, so every key's window is carried across many
chunks on the executor; several windows are chained into one query so each test runs few Spark jobs.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from swagkit.optimized import FlatFAT
from swagkit.optimized.spark import sliding_aggregate
from swagkit.spec.library import LIBRARY
from swagkit.spec.monoid import Monoid, fold

pytestmark = [pytest.mark.spark, pytest.mark.once]
# tests/conftest.py: sliding_aggregate's Spark plumbing does not depend on the compiled switch (its kernels are
# tested in both passes elsewhere); it runs in one pass only, the pure-Python one (it balances the two)
ONCE_PASS = "pure"

KEYS, ROWS_PER_KEY = 3, 40
SCHEMA = "key string, seq bigint, t bigint, v bigint, x double, s string"
#: one row: key, seq (unique per key), t (event time, with ties), v (bigint or NULL), x (double), s (a letter)
Row = tuple[str, int, int, int | None, float, str]


def _rows(seed: int) -> list[Row]:
    """Seeded rows: ``t`` has ties, ``v`` has NULLs (a stretch of them in the first key, so some frames hold no
    value at all), ``x`` integral doubles (sums are exact, whatever the association)."""
    rng = random.Random(seed)
    out: list[Row] = []
    for k in range(KEYS):
        t = 0
        for seq in range(ROWS_PER_KEY):
            t += rng.choice((0, 0, 1, 2, 5))
            v = None if rng.random() < 0.15 or (k == 0 and 10 <= seq < 22) else rng.randint(-50, 50)
            out.append((f"k{k}", seq, t, v, float(rng.randint(-20, 20)), rng.choice("abcde")))
    rng.shuffle(out)
    return out


@pytest.fixture(scope="module")
def data(spark: Any) -> Any:
    return spark.createDataFrame(_rows(15), SCHEMA).cache()


def _by_key_seq(rows: Sequence[Any]) -> dict[tuple[str, int], Any]:
    return {(r["key"], r["seq"]): r for r in rows}


def test_rows_and_range_frames_agree_with_spark(spark: Any, data: Any) -> None:
    """sum/min/max/count/avg over rowsBetween(-(W-1), 0) and rangeBetween(-T, 0) (peers included, NULLs skipped,
    NULL for a frame without values, 0 for count), several aggregates per call, in-order and FiBA."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    data = data.withColumn("par", F.col("seq") % 2)  # a second key column: two streams per key
    ours = data
    theirs = [F.col("key"), F.col("seq")]
    frames: list[tuple[str, Any, dict[str, Any]]] = [
        (f"r{w}", Window.partitionBy("key").orderBy("seq").rowsBetween(-(w - 1), 0), {"rows": w}) for w in (1, 5)
    ]
    two_keys = Window.partitionBy("key", "par").orderBy("seq").rowsBetween(-3, 0)
    frames.append(("p4", two_keys, {"rows": 4, "partition_by": ["key", "par"]}))
    for span in (0, 6):
        window = Window.partitionBy("key").orderBy("t").rangeBetween(-span, 0)
        frames.append((f"g{span}", window, {"range": span, "order_by": "t"}))
        frames.append((f"f{span}", window, {"range": span, "order_by": "t", "algorithm": "fiba"}))
    for tag, window, args in frames:
        args = {"order_by": "seq", "partition_by": "key", **args}
        ours = sliding_aggregate(
            ours,
            chunk_rows=5,
            aggregates={
                f"sum_{tag}": ("sum_i64", "v"),
                f"min_{tag}": ("min_i64", "v"),
                f"max_{tag}": ("max_f64", "x"),
                f"count_{tag}": ("count", "v"),
                f"avg_{tag}": ("mean", "v"),
            },
            **args,
        )
        theirs += [
            F.sum("v").over(window).alias(f"sum_{tag}"),
            F.min("v").over(window).alias(f"min_{tag}"),
            F.max("x").over(window).alias(f"max_{tag}"),
            F.count("v").over(window).alias(f"count_{tag}"),
            F.avg("v").over(window).alias(f"avg_{tag}"),
        ]
    mine, spark_rows = _by_key_seq(ours.collect()), _by_key_seq(data.select(*theirs).collect())
    assert len(mine) == len(spark_rows) == KEYS * ROWS_PER_KEY
    compared = 0
    for where, expected in spark_rows.items():
        for name in expected.asDict():
            if name in ("key", "seq"):
                continue
            got, want = mine[where][name], expected[name]
            if name.startswith("avg") and got is not None and want is not None:
                assert got == pytest.approx(want, rel=1e-12), (where, name)
            else:
                assert got == want, (where, name, got, want)
            compared += 1
    assert compared == KEYS * ROWS_PER_KEY * 5 * len(frames)
    nulls = [r for r in mine.values() if r["sum_r5"] is None]
    assert nulls and all(r["count_r5"] == 0 for r in nulls)  # the NULL stretch: frames without any value


def _frames(rows: list[Row], order: Callable[[Row], Any], rows_w: int | None, span: int | None) -> dict[Any, list[Row]]:
    """(key, seq) -> the rows of its frame in frame order, by definition."""
    out: dict[Any, list[Row]] = {}
    for key in {r[0] for r in rows}:
        mine = sorted((r for r in rows if r[0] == key), key=order)
        for i, row in enumerate(mine):
            if rows_w is not None:
                out[(key, row[1])] = mine[max(0, i - rows_w + 1) : i + 1]
            else:
                assert span is not None
                out[(key, row[1])] = [r for r in mine if row[2] - span <= r[2] <= row[2]]
    return out


def _fold(monoid: Monoid[Any, Any, Any], values: Sequence[Any], empty: Any = None) -> Any:
    present = [monoid.lift(v) for v in values if v is not None]
    return monoid.lower(fold(monoid, present)) if present else empty


def _spread_times(rows: list[Row]) -> list[Row]:
    """The rows with distinct times per key (3 * seq): the fold order of a range frame is then fully defined."""
    return [(k, seq, 3 * seq, v, x, s) for k, seq, _, v, x, s in rows]


def test_non_commutative_non_invertible_and_user_monoids_match_a_plain_fold(spark: Any) -> None:
    """string_concat (non-commutative), max_i64 (non-invertible) and argmax over a struct, over rows and range
    frames (integer and double times), on in-order algorithms and on FiBA, and a user's Monoid with its own output
    type, against a plain-Python fold."""
    from pyspark.sql import functions as F

    rows = _spread_times(_rows(16))
    df = spark.createDataFrame(rows, SCHEMA).withColumn("pair", F.struct("x", "s")).withColumn("half", F.col("t") / 2)
    spread = Monoid(
        identity=(None, None),
        combine=lambda a, b: b if a[0] is None else a if b[0] is None else (min(a[0], b[0]), max(a[1], b[1])),
        lift=lambda x: (x, x),
        lower=lambda a: None if a[0] is None else a[1] - a[0],
        name="spread",
        commutative=True,
    )
    aggregates = {
        "cat": ("string_concat", "s"),
        "top": ("max_i64", "v"),
        "spread": (spread, "v", "bigint"),
        "arg": ("argmax", "pair"),  # struct<x, s> in, the payload (a string) out; ties: the younger wins
    }
    cases = [("rows", {"rows": 4, "order_by": "seq", "algorithm": "two_stacks_lite"}, 4, None)]
    cases += [("range", {"range": 7, "order_by": "t", "algorithm": "fiba"}, None, 7)]
    cases += [("fibarows", {"rows": 5, "order_by": "seq", "algorithm": "fiba_mu2"}, 5, None)]
    # a double time column (half = t / 2): range 3.5 over it is range 7 over t, for FiBA and an in-order algorithm
    cases += [(f"half_{a}", {"range": 3.5, "order_by": "half", "algorithm": a}, None, 7) for a in ("fiba", "daba")]
    out = df
    for tag, args, _, _ in cases:
        renamed = {f"{name}_{tag}": agg for name, agg in aggregates.items()}
        out = sliding_aggregate(out, partition_by="key", aggregates=renamed, chunk_rows=6, **args)
    got = _by_key_seq(out.collect())
    concat, top, arg = (LIBRARY[m].factory() for m in ("string_concat", "max_i64", "argmax"))
    for tag, _args, rows_w, span in cases:
        for where, frame in _frames(rows, lambda r: r[1], rows_w, span).items():
            row = got[where]
            assert row[f"cat_{tag}"] == _fold(concat, [r[5] for r in frame]), (tag, where)
            assert row[f"top_{tag}"] == _fold(top, [r[3] for r in frame]), (tag, where)
            assert row[f"spread_{tag}"] == _fold(spread, [r[3] for r in frame]), (tag, where)
            assert row[f"arg_{tag}"] == _fold(arg, [(r[4], r[5]) for r in frame]), (tag, where)


def _arrival_rows(seed: int) -> list[tuple[str, int, int, int | None, str, int]]:
    """(key, seq, t, v, s, arrival): event times out of order w.r.t. arrival; pairs of rows share an arrival
    value (they arrive together) and never a time, so the fold order (time, then arrival) is fully defined."""
    rng = random.Random(seed)
    out = []
    for k in range(KEYS):
        arrivals = list(range(ROWS_PER_KEY))
        rng.shuffle(arrivals)
        used: set[tuple[int, int]] = set()
        for seq, arrival in enumerate(arrivals):
            group = arrival // 2
            t = 2 * group + rng.randint(0, 8)  # out of order by at most a few groups
            while (group, t) in used:
                t = 2 * group + rng.randint(0, 8)
            used.add((group, t))
            v = None if rng.random() < 0.2 else rng.randint(-9, 9)
            out.append((f"k{k}", seq, t, v, rng.choice("xyz"), group))
    return out


def _disorder(rows: list[tuple[str, int, int, int | None, str, int]]) -> int:
    """How far behind the latest event time already arrived (in an earlier arrival group) a row arrives, at most."""
    worst = 0
    for key in {r[0] for r in rows}:
        latest = None
        mine = sorted((r for r in rows if r[0] == key), key=lambda r: r[5])
        for group in sorted({r[5] for r in mine}):
            times = [r[2] for r in mine if r[5] == group]
            if latest is not None:
                worst = max(worst, latest - min(times))
            latest = max(times) if latest is None else max(latest, max(times))
    return worst


def test_fiba_with_arrival_order_matches_a_fold_over_the_arrived_rows(spark: Any) -> None:
    """Each row's output is the fold, in (time, arrival) order, of the rows of its key that have arrived so far
    (its own arrival group included) with times in [t - T, t]; a lateness bound that the data respect changes
    nothing, one they break fails the task."""
    rows = _arrival_rows(17)
    df = spark.createDataFrame(rows, "key string, seq bigint, t bigint, v bigint, s string, arrival bigint")
    span = 6
    aggregates = {"total": ("sum_i64", "v"), "cat": ("string_concat", "s"), "n": ("count", "v")}
    ooo: dict[str, Any] = {"partition_by": "key", "order_by": "t", "range": span, "algorithm": "fiba"}
    ooo.update(arrival="arrival", chunk_rows=5)
    disorder = _disorder(rows)  # the lateness these rows need; with it, rows older than m - disorder - T are evicted
    assert 0 < disorder < max(r[2] for r in rows) - span
    out = sliding_aggregate(df, aggregates=aggregates, **ooo)
    late = {f"{name}_late": agg for name, agg in aggregates.items()}
    bounded = sliding_aggregate(df, aggregates=late, lateness=disorder, **ooo)
    got, got_bounded = _by_key_seq(out.collect()), _by_key_seq(bounded.collect())
    sum_i64, concat, count = (LIBRARY[m].factory() for m in ("sum_i64", "string_concat", "count"))
    for row in rows:
        key, seq, t, _, _, arrival = row
        frame = sorted(
            (r for r in rows if r[0] == key and r[5] <= arrival and t - span <= r[2] <= t), key=lambda r: (r[2], r[5])
        )
        expected = {
            "total": _fold(sum_i64, [r[3] for r in frame]),
            "cat": _fold(concat, [r[4] for r in frame]),
            "n": _fold(count, [r[3] for r in frame], empty=0),
        }
        for name, want in expected.items():
            assert got[(key, seq)][name] == want, (key, seq, name)
            assert got_bounded[(key, seq)][f"{name}_late"] == want, (key, seq, name)
    strict = sliding_aggregate(df, aggregates={"total": ("sum_i64", "v")}, lateness=disorder - 1, **ooo)
    with pytest.raises(Exception, match="LateRowError"):
        strict.collect()


def test_check_mode_agrees_and_catches_a_planted_bug(spark: Any) -> None:
    """check=True on every key gives the same answers (in-order algorithms over rows and range frames, FiBA over
    rows and out of order); with DABA Lite whose shrink swaps the operands of a ⊗ (wrong only for non-commutative
    monoids) the answers are silently wrong unchecked, and check=True fails the task with FrameCheckError."""
    from planted import swapped_shrink
    from pyspark import cloudpickle
    from pyspark.sql import functions as F

    df = spark.createDataFrame(_rows(18), SCHEMA).withColumn("arrival", (F.col("seq") * 7) % ROWS_PER_KEY)
    args: dict[str, Any] = {"partition_by": "key", "order_by": "seq", "rows": 6, "chunk_rows": 7}
    aggregates = {"cat": ("string_concat", "s"), "top": ("max_f64", "x"), "n": ("sum_i64", "v")}
    frames: list[dict[str, Any]] = [
        {"rows": 6, "order_by": "seq"},
        {"range": 4, "order_by": "t"},
        {"rows": 5, "order_by": "seq", "algorithm": "fiba"},
        {"range": 4, "order_by": "t", "algorithm": "fiba", "arrival": "arrival"},
    ]
    plain, checked = df, df
    for i, frame in enumerate(frames):
        renamed = {f"{name}{i}": agg for name, agg in aggregates.items()}
        plain = sliding_aggregate(plain, partition_by="key", aggregates=renamed, chunk_rows=7, **frame)
        checked = sliding_aggregate(
            checked, partition_by="key", aggregates=renamed, chunk_rows=7, check=True, check_fraction=1.0, **frame
        )
    plain_rows, checked_rows = _by_key_seq(plain.collect()), _by_key_seq(checked.collect())
    assert plain_rows == checked_rows
    cloudpickle.register_pickle_by_value(swapped_shrink)  # the executors cannot import the tests' corpus module
    try:
        planted: dict[str, Any] = {
            "aggregates": {"cat": ("string_concat", "s")},
            "algorithm": swapped_shrink.SwappedShrink,
        }
        wrong = _by_key_seq(sliding_aggregate(df, **planted, **args).collect())
        assert any(wrong[where]["cat"] != row["cat0"] for where, row in plain_rows.items())
        with pytest.raises(Exception, match="FrameCheckError"):
            sliding_aggregate(df, **planted, check=True, check_fraction=1.0, **args).collect()
    finally:
        cloudpickle.unregister_pickle_by_value(swapped_shrink)


@pytest.mark.parametrize(
    ("changes", "error", "match"),
    [
        ({"partition_by": "nope"}, ValueError, "partition_by column 'nope'"),
        ({"order_by": ["seq", "gone"]}, ValueError, "order_by column 'gone'"),
        ({"rows": None}, ValueError, "exactly one of rows"),
        ({"range": 3}, ValueError, "exactly one of rows"),
        ({"rows": 0}, ValueError, "rows must be >= 1"),
        ({"rows": 2.5}, TypeError, "rows must be an int"),
        ({"rows": None, "range": 2, "order_by": "s"}, TypeError, "numeric order_by"),
        ({"rows": None, "range": 1.5, "order_by": "t"}, TypeError, "range must be an int"),
        ({"rows": None, "range": -1, "order_by": "t"}, ValueError, "range must be >= 0"),
        ({"aggregates": {"o": ("no_such_monoid", "v")}}, ValueError, "unknown monoid id 'no_such_monoid'"),
        ({"aggregates": {"o": ("sum_i64", "missing")}}, ValueError, "column 'missing'"),
        ({"aggregates": {"o": ("sum_i64", "x")}}, TypeError, "needs an integer column"),
        ({"aggregates": {"o": ("string_concat", "v")}}, TypeError, "needs a string column"),
        ({"aggregates": {"o": ("collect", "v")}}, ValueError, "no default output type"),
        ({"aggregates": {"v": ("sum_i64", "v")}}, ValueError, "already a column"),
        ({"aggregates": {"o": (len, "v")}}, TypeError, "expected a library monoid id"),
        ({"aggregates": {}}, ValueError, "aggregates is empty"),
        ({"algorithm": "no_such_algorithm"}, ValueError, "unknown algorithm"),
        ({"algorithm": "slickdeque_noninv"}, TypeError, "does not declare"),
        ({"algorithm": list}, TypeError, "lacks evict, query of a fifo aggregator"),  # what the executor calls
        ({"algorithm": FlatFAT}, TypeError, "implements flatfat, of the tree kind"),
        ({"arrival": "seq"}, ValueError, "arrival= needs range=T"),
        ({"lateness": 3}, ValueError, "lateness applies"),
        ({"check": True, "check_fraction": 0.0}, ValueError, "check_fraction"),
    ],
)
def test_bad_arguments_fail_before_any_job(
    spark: Any, data: Any, changes: dict[str, Any], error: type, match: str
) -> None:
    args: dict[str, Any] = {
        "partition_by": "key",
        "order_by": "seq",
        "rows": 3,
        "aggregates": {"o": ("sum_i64", "v"), "m": ("mean", "v")},
        **changes,
    }
    if args.get("algorithm") == "slickdeque_noninv":
        args["aggregates"] = {"o": ("sum_i64", "v")}  # sum is not selective: SlickDeque Non-Inv refuses it
    tracker = spark.sparkContext.statusTracker()
    jobs_before = tracker.getJobIdsForGroup(None)
    with pytest.raises(error, match=match):
        sliding_aggregate(data, **args)
    assert tracker.getJobIdsForGroup(None) == jobs_before


def test_chunking_does_not_change_answers() -> None:
    """The executor's pass alone (no Spark): one sorted partition as Arrow batches, with chunks of every size from
    one row (each key carried across many chunks; range groups held back) to all rows at once."""
    import pyarrow as pa

    import swagkit.optimized
    from swagkit.optimized.spark.frames_exec import PartitionRunner
    from swagkit.optimized.spark.frames_spec import AggregateSpec, FrameSpec

    rows = _rows(19)
    specs = [
        AggregateSpec("sum", "v", "sum_i64", None, "i64", pa.int64()),
        AggregateSpec("cat", "s", "string_concat", None, "object", pa.string()),
        AggregateSpec("mean", "v", "mean", None, "object", pa.float64(), to_double=True),
    ]

    def run(rows_w: int | None, span: int | None, algorithm: str, chunk: int) -> list[dict[str, Any]]:
        order = ("seq",) if rows_w is not None else ("t",)
        in_order = sorted(rows, key=lambda r: (r[0], r[1] if rows_w is not None else r[2]))  # as the sort leaves them
        table = pa.table({name: [r[i] for r in in_order] for i, name in enumerate(("key", "seq", "t", "v", "x", "s"))})
        frame = FrameSpec(
            keys=("key",),
            order_by=order,
            rows=rows_w,
            range=span,
            arrival=None,
            lateness=None,
            algorithm=algorithm,
            algorithm_class=getattr(swagkit.optimized, {"daba_lite": "DABALite", "fiba": "FiBA"}[algorithm]),
            algorithm_params=(),
            out_of_order=algorithm == "fiba",
            time_is_float=False,
            check_fraction=0.0,
            chunk_rows=chunk,
        )
        batches = PartitionRunner(frame, specs).run(table.to_batches(max_chunksize=4))
        return pa.Table.from_batches(list(batches)).select(["sum", "cat", "mean"]).to_pylist()

    for rows_w, span, algorithm in ((5, None, "daba_lite"), (None, 4, "daba_lite"), (None, 4, "fiba")):
        whole = run(rows_w, span, algorithm, len(rows))
        assert any(r["sum"] is None for r in whole) and any(r["cat"] for r in whole)
        for chunk in (1, 3, 16):
            assert run(rows_w, span, algorithm, chunk) == whole, (rows_w, span, algorithm, chunk)
