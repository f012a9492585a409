"""``swagkit corpus export|run``: the conformance corpus as plain protocol sessions with expected answers.

The export is the same bytes on every run; every file is a replay file and a protocol session (a ``hello``
header naming its ``ops``, ``new`` instance 1, operations with ``expect``/``error``) listed in the index; every
expected answer is what swagkit's reference implementations answer (DABA Lite, FlatFIT for ``query_range``, the
Reactive Aggregator for handles, FiBA out of order), run directly -- not through the model that wrote them. The
C DABA Lite (tests/protocol/daba_lite.c) passes ``corpus run`` and its planted bugs fail it; a file fed to it
with a plain shell redirect (no Python in between) gets the file's answers.
"""

from __future__ import annotations

import io
import json
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from swagkit import reference
from swagkit.spec.errors import SwagkitError
from swagkit.verify import corpus, replayfile
from swagkit.verify.cli import main
from swagkit.verify.kinds.base import NO_ANSWER, same_output
from swagkit.verify.process import CONFORMANCE

PROTOCOL = Path(__file__).parent / "protocol"

#: independent of swagkit.optimized: run once, in tools/check.sh's pure-Python pass (conftest.py balances them)
pytestmark = pytest.mark.once
ONCE_PASS = "pure"

needs_cc = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("corpus")
    with redirect_stdout(io.StringIO()):
        assert main(["corpus", "export", str(directory)]) == 0
    return directory


@pytest.fixture
def daba_lite_c(c_driver: Callable[[str], str]) -> Callable[[str], str]:
    """``daba_lite_c(flag)``: the C driver compiled with ``-D<flag>`` (conftest's ``c_driver``)."""
    return c_driver


def _files(directory: Path) -> dict[str, bytes]:
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


def _run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    with redirect_stdout(out):
        status = main(["corpus", "run", *argv])
    return status, out.getvalue()


# -------------------------------------------------------------------------------------------------- export


def test_export_is_the_same_bytes_every_run(exported: Path, tmp_path: Path) -> None:
    again = corpus.export(str(tmp_path))
    assert _files(tmp_path) == _files(exported)
    files = again["files"]
    assert len(files) == len(corpus.CASES) * len(CONFORMANCE) and len(files) >= 150
    assert {f["kind"] for f in files} == set(corpus.KINDS) and {f["monoid"] for f in files} == set(CONFORMANCE)


def test_every_file_is_a_protocol_session_listed_in_the_index(exported: Path) -> None:
    index = json.loads((exported / corpus.INDEX).read_text())
    listed = {f["path"]: f for f in index["files"]}
    assert set(listed) == {str(p.relative_to(exported)) for p in exported.rglob("*.jsonl")}
    for path, entry in listed.items():
        rows = [json.loads(line) for line in (exported / path).read_text().splitlines()]
        head, new, ops = rows[0], rows[1], rows[2:]
        assert head["op"] == "hello" and head["swagkit_replay"] == replayfile.VERSION
        assert (head["kind"], head["monoid"], head["case"]) == (entry["kind"], entry["monoid"], entry["case"])
        assert path == f"{entry['kind']}/{entry['monoid']}/{entry['case']}.jsonl"
        assert new == {
            "op": "new",
            "id": 1,
            "kind": "ooo" if head["kind"] == "ooo" else "fifo",
            "monoid": head["monoid"],
        }
        assert head["ops"] == entry["ops"] == sorted({row["op"] for row in ops}) and "size" in head["ops"]
        assert head["operations"] == entry["operations"] == len(ops) and all(row["id"] == 1 for row in ops)
        assert not any("expect" in row and "error" in row for row in ops)
        rows = replayfile.read(str(exported / path)).rows
        assert [{k: v for k, v in row.items() if k != "id"} for row in rows] == [
            {k: v for k, v in row.items() if k != "id"} for row in ops
        ]


def test_the_corpus_reaches_the_edges_it_names(exported: Path) -> None:
    """Errors of every kind, windows past the flips, trees several levels deep, long runs."""

    def rows(path: str) -> list[dict[str, Any]]:
        return [json.loads(line) for line in (exported / path).read_text().splitlines()[2:]]

    errors = {row.get("error") for p in exported.rglob("*.jsonl") for row in rows(str(p.relative_to(exported)))}
    assert errors == {None, "empty", "bad_input", "missing", "unordered"}
    sizes = [row["expect"] for row in rows("ooo/max_i64/deep_tree.jsonl") if row["op"] == "size"]
    assert max(sizes) == 401
    assert max(r["expect"] for r in rows("fifo/sum_i64/fill_drain.jsonl") if r["op"] == "size") == 40
    assert all(len(rows(f"{k}/affine_int/long_run.jsonl")) >= 2000 for k in ("fifo", "ooo"))
    repeated = rows("ooo/string_concat/bulk_insert_repeated.jsonl")[0]
    assert repeated["op"] == "bulk_insert" and [t for t, _ in repeated["items"]] == [1, 1, 2, 2, 2]


def _reference_for(header: dict[str, Any], monoid: Any) -> Any:
    if header["kind"] == "ooo":
        return reference.FiBA(monoid)
    if header["kind"] == "handles":
        return reference.ReactiveAggregator(monoid)
    return (reference.FlatFIT if "query_range" in header["ops"] else reference.DABALite)(monoid)


def test_every_expected_answer_is_the_reference_implementations_answer(exported: Path) -> None:
    """Each file run straight on a reference class (no model, no checked wrapper): every answer equals the
    file's ``expect`` and exactly the file's ``error`` lines are refused."""
    for path in corpus.corpus_files(str(exported)):
        file = replayfile.read(str(exported / path))
        header = file.header
        monoid = CONFORMANCE[header["monoid"]].monoid()
        agg = _reference_for(header, monoid)
        for number, step in enumerate(file.steps, 1):
            name, args = step.name, step.args
            where = f"{path} #{number} {name}{args}"
            try:
                got = len(agg) if name == "size" else getattr(agg, name)(*args)
            except (SwagkitError, ValueError, KeyError) as exc:
                assert step.refused, f"{where} raised {exc!r}"
                continue
            assert not step.refused, f"{where} returned {got!r}, the file says {step.refused}"
            if step.answer is not NO_ANSWER:
                assert got == step.answer or same_output(monoid, got, step.answer), where


# ----------------------------------------------------------------------------------------------------- run


@needs_cc
def test_the_correct_c_daba_lite_passes_and_skips_what_it_lacks(
    exported: Path, daba_lite_c: Callable[[str], str]
) -> None:
    status, out = _run(str(exported), "--exec", daba_lite_c(""))
    assert status == 0 and "FAIL" not in out, out[-2000:]
    passed = [ln for ln in out.splitlines() if ln.startswith("PASS ")]
    assert len(passed) == sum(1 for c in corpus.CASES if c.kind == "fifo" and c.name != "query_range") * 5
    skipped = [ln for ln in out.splitlines() if ln.startswith("SKIP ")]
    assert all(" ooo/" in ln or " handles/" in ln or "query_range" in ln for ln in skipped) and skipped


@needs_cc
@pytest.mark.parametrize("bug", ["BUG_FLIP_ORDER", "BUG_SIZE", "BUG_EMPTY_QUERY"])
def test_planted_bugs_fail_the_corpus(exported: Path, daba_lite_c: Callable[[str], str], bug: str) -> None:
    status, out = _run(str(exported), "--exec", daba_lite_c(bug), "--kind", "fifo")
    failed = [ln for ln in out.splitlines() if ln.startswith("FAIL ")]
    assert status == 1 and failed and "FAILED:" in out
    if bug == "BUG_FLIP_ORDER":  # operand order: only the non-commutative monoids can show it
        assert {ln.split("/")[1] for ln in failed} == {"string_concat", "affine_int"}


@needs_cc
@pytest.mark.parametrize("monoid", list(CONFORMANCE))
def test_a_file_through_a_shell_redirect_gets_the_files_answers(
    exported: Path, daba_lite_c: Callable[[str], str], monoid: str
) -> None:
    """``CMD < file``, no Python in between: one reply per line, the file's values and refusals."""
    path = exported / "fifo" / monoid / "bulk_mixed.jsonl"
    command = f"{shlex.quote(daba_lite_c(''))} < {shlex.quote(str(path))}"
    stdout = subprocess.run(command, shell=True, capture_output=True, text=True, timeout=60, check=True).stdout
    replies = [json.loads(line) for line in stdout.splitlines()]
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(replies) == len(lines) and replies[0]["ok"] and monoid in replies[0]["monoids"]
    assert sum(1 for line in lines if "expect" in line) > 50
    for line, reply in zip(lines, replies):
        if "error" in line:
            assert reply == {**reply, "ok": False, "error": line["error"]}, line
        elif monoid == "sum_f64" and line["op"] == "query":  # hex strings: C's %a is shorter than float.hex
            assert reply["ok"] and float.fromhex(reply["value"]) == float.fromhex(line["expect"]), (line, reply)
        elif "expect" in line:
            assert reply["ok"] and reply["value"] == line["expect"], (line, reply)
        else:
            assert reply["ok"], (line, reply)


def test_python_implementations_run_their_kinds_and_skip_the_rest(exported: Path) -> None:
    """``--impl``: FiBA runs the ooo files (an out-of-order insert takes a time: the FIFO files are skipped),
    the Reactive Aggregator the fifo and handles ones; a program over the protocol lacking the bulk ops skips
    the files that use them."""
    status, out = _run(str(exported), "--impl", "swagkit.reference:FiBA")
    assert status == 0 and out.count("PASS ooo/") == 15 * 5 and "PASS fifo/" not in out
    status, out = _run(str(exported), "--impl", "swagkit.reference:ReactiveAggregator", "--monoid", "affine_int")
    assert status == 0 and out.count("PASS handles/") == 3 and "SKIP fifo/affine_int/query_range" in out
    driver = shlex.join([sys.executable, str(PROTOCOL / "py_driver.py"), "--ops", "new,insert,evict,query,size"])
    status, out = _run(str(exported), "--exec", driver, "--kind", "fifo", "--monoid", "max_i64")
    assert status == 0 and "SKIP fifo/max_i64/bulk.jsonl: needs evict_many, insert_many" in out
    assert "PASS fifo/max_i64/seesaw_8.jsonl" in out


def test_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["corpus", "run", "."]) == 2  # neither --impl nor --exec
    assert main(["corpus", "run", "/nonexistent/corpus", "--impl", "swagkit.reference:FiBA"]) == 2
    assert main(["corpus", "export", ".", "--monoid", "geomean"]) == 2  # not a conformance monoid
    assert "not a directory" in capsys.readouterr().err
