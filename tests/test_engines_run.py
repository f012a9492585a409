"""``swagkit engines`` end to end on planted-bug engines (tests/planted_engines.py) and on SQLite: each planted bug
class is found at the default budget, classified, shrunk to at most 5 rows and written as a standalone repro that
exits 1 on the buggy engine and 0 on the correct one; known findings keep a run green; the repro's standalone
checker accepts exactly what the judge accepts; the command's usage errors are one line and exit 2."""

from __future__ import annotations

import io
import json
import math
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from planted_engines import PlantedEngine

from swagkit.verify.cli import main
from swagkit.verify.cli.engines_cmd import DEFAULT_BUDGET
from swagkit.verify.engines.generate import generate_case
from swagkit.verify.engines.judge import judge
from swagkit.verify.engines.known import KnownFinding, load_known, write_known
from swagkit.verify.engines.model import Case, case_from_json, case_to_json
from swagkit.verify.engines.oracle import Expected, expected
from swagkit.verify.engines.repro import CHECKER, run_repro, write_repro
from swagkit.verify.engines.run import check_case, run_engine

pytestmark = pytest.mark.once
ONCE_PASS = "pure"  # tests/conftest.py: this module runs in the pure-Python pass (it balances the two)

#: bug -> the class it must be reported as
PLANTED = {"ties": "membership", "subtract": "outside_bound", "null0": "null_vs_value"}


@pytest.mark.parametrize("bug", sorted(PLANTED))
def test_each_planted_bug_is_found_classified_and_shrunk_at_the_default_budget(bug: str, tmp_path: Path) -> None:
    engine = PlantedEngine(bug)
    started = time.monotonic()
    # (tables of at most 300 rows: the planted engine folds each frame from scratch in Python, O(rows²) a query)
    run = run_engine(engine, seed=0, budget=DEFAULT_BUDGET, cases=400, max_rows=300)
    assert run.findings, f"{bug}: nothing found in {run.cases} cases"
    classes = {sig[3] for sig in run.findings}
    assert PLANTED[bug] in classes, (bug, classes)
    finding = next(f for f in run.findings.values() if f.signature[3] == PLANTED[bug])
    assert len(finding.case.table.rows) <= 5 and len(finding.case.queries) == 1, finding.case
    assert time.monotonic() - started < DEFAULT_BUDGET
    # the repro fails on the buggy engine and passes once the engine is fixed
    buggy = write_repro(tmp_path / "buggy", engine, finding.case, f"planted {bug}")
    status, output = run_repro(buggy.parent)
    assert status == 1 and "WRONG" in output, output
    fixed = write_repro(tmp_path / "fixed", PlantedEngine(""), finding.case, "the same case, correct engine")
    status, output = run_repro(fixed.parent)
    assert status == 0 and "0 wrong" in output, output
    # the case is data: it round-trips through its JSON
    assert case_from_json((buggy.parent / "case.json").read_text()) == finding.case


def test_the_correct_planted_engine_passes_and_counts_what_it_skips() -> None:
    run = run_engine(PlantedEngine(""), seed=1, budget=DEFAULT_BUDGET, cases=150, max_rows=300)
    assert not run.findings, [f.failed.detail for f in run.findings.values()]
    totals = run.matrix.totals("planted_correct")
    assert totals.answers > 0 and totals.exact + totals.within == totals.answers
    assert totals.skipped > 0  # the generator draws what the engine cannot run too; skipped, never failed


def test_known_findings_keep_the_run_green_and_new_ones_red(tmp_path: Path) -> None:
    run = run_engine(PlantedEngine("null0"), seed=0, budget=DEFAULT_BUDGET, cases=400)
    assert run.new_findings
    known = [KnownFinding(*sig, note="planted") for sig in run.findings]
    path = tmp_path / "known.json"
    write_known(path, known)
    again = run_engine(PlantedEngine("null0"), seed=0, budget=DEFAULT_BUDGET, cases=400, known=load_known(path))
    assert again.findings and not again.new_findings
    wildcard = [KnownFinding("planted_null0", "*", "*", "null_vs_value")]
    assert not run_engine(PlantedEngine("null0"), seed=0, cases=400, known=wildcard).new_findings


@pytest.mark.parametrize("seed", [0, 1])
def test_the_standalone_checker_accepts_exactly_what_the_judge_accepts(seed: int) -> None:
    """The repro's CHECKER against the judge, on every answer of generated cases and on perturbed answers."""
    namespace: dict[str, Any] = {}
    exec("import math\nfrom decimal import Decimal\nfrom fractions import Fraction\n" + CHECKER, namespace)
    agrees = namespace["agrees"]
    compared = 0
    for index in range(60):
        case = generate_case(seed, index)
        for query in case.queries:
            for want in expected(case.table, query):
                for got in _answers_near(want):
                    separator = want.param if isinstance(want.param, str) else ","
                    standalone = agrees(got, want.value, want.allowed, want.candidates, separator)
                    assert standalone == judge(want, got).ok, (query, want, got)
                    compared += 1
    assert compared > 500


def _answers_near(want: Expected) -> list[Any]:
    """Answers an engine might give: the exact value as a double, nudged within and beyond the bound, NULL, 0."""
    value = want.value
    out: list[Any] = [None, 0]
    if isinstance(value, Fraction | int) and not isinstance(value, bool):
        near = float(value)
        out += [near, near + want.allowed * 0.5, near + max(want.allowed * 4, 1e-3), math.nan]
    elif value is not None:
        out.append(value)
    if want.candidates and not isinstance(want.candidates[0], tuple):
        out += list(want.candidates)
    return out


def test_sqlite_through_the_command_writes_the_matrix_and_exits_by_finding(tmp_path: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    import contextlib

    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(["engines", "--engine", "sqlite", "--cases", "40", "--out", str(tmp_path)])
    text = out.getvalue()
    assert status in (0, 1), err.getvalue()
    assert "sqlite" in text and (tmp_path / "matrix.md").exists() and (tmp_path / "matrix.csv").exists()
    findings = json.loads((tmp_path / "findings.json").read_text())
    assert (status == 1) == any(not f["known"] for f in findings)
    for f in findings:  # every finding's repro is on disk and its case reads back
        name = "-".join(part.replace("+", "_") for part in f["signature"])
        assert (tmp_path / name / "repro.py").exists()
        assert isinstance(case_from_json(json.dumps(f["case"])), Case)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--engine", "oracle9"], "unknown oracle9"),
        (["--budget", "-1"], "--budget must be a positive"),
        (["--budget", "nan"], "--budget must be a positive"),
        (["--cases", "0"], "--cases: '0' is not a number of cases of at least 1"),
        (["--cases", "10", "sqlite=x"], "--cases: 'sqlite=x' is not a number"),
        (["--engine", "sqlite", "--cases", "duckdb=5"], "--cases: duckdb is not among the engines of this run"),
        (["--known", "/nonexistent/known.json"], "cannot read it"),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["engines", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1, err


def test_a_malformed_known_file_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "known.json"
    bad.write_text('{"known": [{"engine": "duckdb"}]}')
    assert main(["engines", "--engine", "sqlite", "--known", str(bad)]) == 2
    assert "not a known-findings file" in capsys.readouterr().err


def test_check_case_counts_every_answer() -> None:
    case = generate_case(0, 3)
    engine = PlantedEngine("")
    from swagkit.verify.engines.matrix import Matrix

    matrix = Matrix()
    check_case(engine, case, matrix)
    total = matrix.totals(engine.name)
    supported = [q for q in case.queries if engine.unsupported(case.table, q) is None]
    assert total.queries == len(supported) and total.skipped == len(case.queries) - len(supported)
    assert total.answers == len(supported) * len(case.table.rows)
    assert case_from_json(case_to_json(case)) == case


class _Scripted:
    """An engine that answers every query with the same column, or refuses it: for the runner's own rules."""

    name = "scripted"

    def __init__(self, column: Any, nan_is_null: bool = False) -> None:
        self.column = column
        self.nan_is_null = nan_is_null

    def version(self) -> str:
        return "1"

    def unsupported(self, table: Any, query: Any) -> None:
        return None

    def run(self, table: Any, queries: Any) -> list[Any]:
        return [self.column(table) for _ in queries]

    def render(self, table: Any, queries: Any) -> str:
        return ""

    def repro(self, case: Any) -> Any:
        raise NotImplementedError

    def close(self) -> None:
        pass


def _nan_case() -> Case:
    from swagkit.verify.engines.model import Bound, Call, Frame, Query, Table, Window

    rows = ((1, None, 1, math.inf, None, None), (2, None, 2, -math.inf, None, None))
    whole = Window(frame=Frame("rows", Bound("unbounded_preceding"), Bound("unbounded_following")))
    return Case(Table("int", "double", rows), (Query(Call("sum"), whole),), 0, 0)


def test_an_engine_without_nan_may_answer_null_where_nan_is_exact() -> None:
    case = _nan_case()  # inf + -inf: NaN in every order
    nulls = lambda table: [None] * len(table.rows)  # noqa: E731
    assert check_case(_Scripted(nulls, nan_is_null=True), case) == []
    assert [f.klass for f in check_case(_Scripted(nulls), case)] == ["null_vs_value"]
    zeros = lambda table: [0.0] * len(table.rows)  # noqa: E731
    assert [f.klass for f in check_case(_Scripted(zeros, nan_is_null=True), case)] == ["wrong"]


def test_a_refused_distinct_window_aggregate_is_skipped_not_a_finding() -> None:
    from dataclasses import replace

    from swagkit.verify.engines.engine import Failure
    from swagkit.verify.engines.matrix import Matrix

    case = _nan_case()
    query = case.queries[0]
    distinct = replace(case, queries=(replace(query, call=replace(query.call, distinct=True)), query))
    refusing = _Scripted(lambda table: Failure("refused", "no DISTINCT in window functions"))
    matrix = Matrix()
    failed = check_case(refusing, distinct, matrix)
    assert [(f.query_index, f.klass) for f in failed] == [(1, "refused")]  # the plain query's refusal only
    total = matrix.totals("scripted")
    assert (total.skipped, total.refused) == (1, 1)


@pytest.mark.parametrize("cases", [7, {"fast": 23, "slow": 3, "unused": 0}])
def test_spark_chunks_cover_each_engines_cases_once_and_advance_together(cases: Any) -> None:
    from swagkit.verify.engines.fanout import chunks

    engines = ["fast", "slow", "unused"]
    work = chunks(engines, 5, cases, 4)
    for name in engines:
        total = cases if isinstance(cases, int) else cases[name]
        numbers = [n for engine, seed, start, count in work if engine == name for n in range(start, start + count)]
        assert sorted(numbers) == list(range(total)), name
        assert all(seed == 5 and 1 <= count <= 4 for engine, seed, _, count in work if engine == name)
    # every engine's share advances at the same pace: the chunks come in order of how far into its share each starts
    shares = [start / (cases if isinstance(cases, int) else cases[engine]) for engine, _, start, _ in work]
    assert shares == sorted(shares)
