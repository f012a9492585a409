"""``swagkit explain``: every registered algorithm draws, and the drawings say what the papers' definitions imply.

The expected pictures are derived by hand from the papers (000 §3/§6 invariants, 001 Algorithm 2's dominance
test, 002's tree, 003's spines and fingers, 004's QDCOMPRESS), not copied from the program's output.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from swagkit.verify import registry, replayfile
from swagkit.verify.cli import main
from swagkit.verify.explain import ExplainUsageError, explain_text, replay_ops
from swagkit.verify.explain.ops import parse
from swagkit.verify.explain.session import Step, explain, kind_of
from swagkit.verify.trace import Step as TraceStep

pytestmark = pytest.mark.once
ONCE_PASS = "pure"  # tests/conftest.py: this module runs in the pure-Python pass (it balances the two)

#: a short script per operation language (values are rewritten for numeric monoids)
SCRIPTS = {
    "fifo": "insert a; insert b; insert c; evict; query; evict; evict; evict",
    "handles": "insert a; insert b; insert c; remove b; query; evict; evict",
    "tree": "insert a; insert b; insert c; evict; query; update 5 d; prefix 5",
    "ooo": "insert 5 a; insert 3 b; insert 9 c; insert 7 d; bulk_evict 4; query; remove 9; evict; evict",
}
PLAIN_SCRIPTS = {
    "qdigest": "insert 5; insert 7 3; compress; rank 6; quantile 0.5",
    "window_count": "advance 9; insert 3; insert 8 2; count 4",
    "window_quantiles": "advance 9; insert 5 3; insert 7 8; count 4",
    "value_division": "advance 9; insert 5 3; insert 7 8",
}


def _monoid(algorithm_id: str, numeric: bool) -> str:
    info = registry.algorithm(algorithm_id)
    if info.monoids:
        return info.monoids[0]
    if "selective" in info.requires:
        return "max"
    if "invertible" in info.requires or numeric:
        return "sum"
    return "string_concat"


def _script(algorithm_id: str, monoid_id: str) -> str:
    kind = kind_of(algorithm_id)
    if kind == "plain":
        return PLAIN_SCRIPTS[algorithm_id]
    script = SCRIPTS[kind]
    if monoid_id != "string_concat":
        for letter, number in zip("abcd", "3142"):  # value tokens only (not "bulk_evict"'s b)
            script = re.sub(rf"(?<= ){letter}(?=;|$)", number, script)
    return script


@pytest.mark.parametrize("numeric", [False, True], ids=["text", "numeric"])
@pytest.mark.parametrize("algorithm_id", registry.algorithm_ids())
def test_every_registered_algorithm_draws(algorithm_id: str, numeric: bool) -> None:
    monoid_id = _monoid(algorithm_id, numeric)
    script = _script(algorithm_id, monoid_id)
    kind = kind_of(algorithm_id)
    ops = parse(script, kind, monoid_id, None if kind != "plain" else _plain_ops(algorithm_id))
    steps = explain(algorithm_id, monoid_id, ops)
    assert len(steps) == len(ops)
    for step in steps:
        assert step.picture, step
        assert not step.outcome.startswith("! AttributeError"), step  # the session drove a real operation
        assert not any("cannot draw" in line for line in step.picture), step  # its own renderer drew it
    if kind != "plain":  # the query answers the window the script leaves at that point
        query = next(s for s in steps if s.text == "query")
        assert query.outcome.startswith("→"), query


def _plain_ops(algorithm_id: str) -> dict[str, tuple[str, ...]]:
    from swagkit.verify.explain.ops import plain_operations

    cls = registry.resolve_class(algorithm_id)
    assert isinstance(cls, type)
    return plain_operations(cls)


def _cells(picture: tuple[str, ...] | list[str], label: str) -> list[str]:
    """The cells of a table row (``agg │ ab │ b │``)."""
    row = next(line for line in picture if line.split("│")[0].strip() == label)
    return [c.strip() for c in row.split("│")[1:-1]]


def _pointers(picture: tuple[str, ...], label: str = "elem") -> dict[str, int]:
    """Pointer name -> column index, read off the ``^`` row under the table."""
    row = next(line for line in picture if line.lstrip().startswith("^"))
    header = next(line for line in picture if line.split("│")[0].strip() == label)
    starts = [i + 2 for i, ch in enumerate(header) if ch == "│"]  # a cell's text starts two after its bar
    out = {}
    for i, ch in enumerate(row):
        if ch == "^":
            names = row[i + 1 :].split(" ")[0].split(",")
            col = next((k for k, s in enumerate(starts) if s >= i), len(starts) - 1)
            out.update({n: col for n in names})
    return out


def test_two_stacks_front_after_one_flip() -> None:
    # 000 §3: insert pushes onto B (agg = bottom of B .. element); evict on an empty F flips: every element moves
    # to F with agg = element .. top of B, then the oldest is popped. After a..e and one evict: F holds b..e
    # with aggs b⊗c⊗d⊗e, c⊗d⊗e, d⊗e, e; B is empty.
    steps = explain(
        "two_stacks",
        "string_concat",
        parse("insert a; insert b; insert c; insert d; insert e; evict", "fifo", "string_concat"),
    )
    before, after = steps[-2].picture, steps[-1].picture
    assert _cells(before, "agg") == ["a", "ab", "abc", "ab..d", "ab..e"]  # B aggregated to the right
    assert _cells(after, "val") == ["b", "c", "d", "e"]
    assert _cells(after, "agg") == ["bc..e", "cde", "de", "e"]
    assert "sublists: front=[b c d e] aggregated to the left" in after


def test_daba_lite_deque_matches_the_invariants() -> None:
    # 000 §6 after insert a, b, c, d. Size invariants: |lF| − |lB| = |lL| + |lR| + |lA| + 1 and |lL| = |lR|.
    # insert b makes |lF| = |lB| = 1: fixup flips (lF, lB become lL, lR) and starts shrinking them.
    # By insert d the fixups leave F=0 ≤ L=1 ≤ R=2 ≤ A=3 ≤ B=E=4 (1+1+1+1 = 4 − 0). The aggs then follow the
    # partial-aggregate invariants: [F,L) holds v_i..v_(B−1) = abcd; lL = [L,R) v_i..v_(R−1) = b; lR = [R,A)
    # v_R..v_i = c; lA = [A,B) v_i..v_(B−1) = d; aggRA = Π lR ⊗ Π lA = cd; aggB = Π lB = 1.
    steps = explain(
        "daba_lite", "string_concat", parse("insert a; insert b; insert c; insert d", "fifo", "string_concat")
    )
    pic = steps[-1].picture
    assert _cells(pic, "elem") == ["a", "b", "c", "d"]
    assert _cells(pic, "agg") == ["ab..d", "b", "c", "d"]
    assert _pointers(pic) == {"F": 0, "L": 1, "R": 2, "A": 3, "B": 4, "E": 4}
    assert "aggRA = cd, aggB = 1" in pic


def test_slickdeque_noninv_deque_keeps_the_undominated() -> None:
    # 001 Algorithm 2 over max: a new partial pops every tail node it dominates (back ⊗ new == new).
    # 3, 1: 3⊗1 = 3 ≠ 1, both kept; 4 pops 1 and 3; 1 is kept behind 4.
    steps = explain("slickdeque_noninv", "max", parse("insert 3; insert 1; insert 4; insert 1", "fifo", "max"))
    assert steps[1].picture[0] == "deque head → (#0: a=3) (#1: b=1) ← tail"
    assert steps[3].picture[0] == "deque head → (#2: c=4) (#3: d=1) ← tail"
    assert steps[3].picture[1] == "window = partials #0..#3"


def test_flatfat_tree_over_the_leaves() -> None:
    # 002 §4: node h = node 2h ⊗ node 2h+1; the window a, b, c fills leaves 0..2 of 4, evict clears leaf 0.
    ops = parse("insert a; insert b; insert c; evict", "tree", "string_concat")
    steps = explain("flatfat", "string_concat", ops, {"capacity": 4})
    levels = [line.split() for line in steps[2].picture[1:]]
    assert levels == [["[1]", "abc"], ["[2]", "ab", "[3]", "c"], ["[4]", "a", "[5]", "b", "[6]", "c", "[7]", "1"]]
    levels = [line.split() for line in steps[3].picture[1:]]
    assert levels == [["[1]", "bc"], ["[2]", "b", "[3]", "c"], ["[4]", "1", "[5]", "b", "[6]", "c", "[7]", "1"]]


def test_fiba_tree_spines_and_fingers() -> None:
    # 003 §3.2 with μ = 2 (at most 2μ−1 = 3 entries): the fourth insert splits the root leaf, one entry moves up
    # into a new root. Its two children are the ends of the left and right spines, holding Π↙ and Π↘ (their own
    # entries: no subtrees), the fingers point at them, and the root's Π| is its own entry only (both children
    # are on spines). Entries stay in time order: left leaf < root entry < right leaf.
    ops = parse("insert 5 a; insert 3 b; insert 9 c; insert 7 d; query", "ooo", "string_concat")
    steps = explain("fiba_mu2", "string_concat", ops)
    head, root, left, right = steps[3].picture
    assert head.startswith("FiBA μ=2, 4 entries")
    key = root.split(": ")[1].split()[0]
    assert root.startswith("root 0: ") and root.split()[3] == f"Π|={key.split(':')[1]}"
    assert left.strip().startswith("leaf 1:") and "Π↙=" in left and "left spine" in left and "◀ left finger" in left
    assert (
        right.strip().startswith("leaf 2:") and "Π↘=" in right and "right spine" in right and "right finger ▶" in right
    )
    times = [
        int(e.split(":")[0])
        for line in (left, root, right)
        for e in line.split(": ", 1)[1].split()
        if ":" in e and e.split(":")[0].isdigit()
    ]
    assert times == sorted(times) == [3, 5, 7, 9]
    assert steps[4].outcome == "→ 'badc'  (= ba..c)"  # the window in time order: 3:b 5:a 7:d 9:c


def test_qdigest_ranges_after_compress() -> None:
    # 004 §3.1 box over 3 bits, ε = 0.5: N = 22 after 4, 5 and 0 (weight 20), γ = εN/b = 11/3; a family merges
    # into its parent when its sum is below γ: {4, 5} (sum 2) -> [4..5], then -> [4..7], then -> the root [0..7];
    # [0] (20) stays.
    ops = parse("insert 4; insert 5; insert 0 20; compress", "plain", "count", _plain_ops("qdigest"))
    steps = explain("qdigest", "count", ops, {"universe_bits": 3, "eps": 0.5})
    assert [line.strip() for line in steps[-1].picture[1:]] == ["[0..7] count 2", "[0] count 20"]
    assert "N=22, compressed" in steps[-1].picture[0]


def test_numeric_monoid_names_elements_and_shows_values() -> None:
    text = explain_text("subtract_on_evict", "sum", "insert 3; insert 4; insert 5; evict; query")
    assert "agg = abc=12" in text and "agg = bc=9" in text  # abc ⊗ a⁻¹ reduces to bc
    assert "#5 query  → 9  (= bc)" in text


def test_bad_operation_prints_the_error_and_goes_on() -> None:
    steps = explain("daba", "string_concat", parse("evict; insert a; query", "fifo", "string_concat"))
    assert steps[0].outcome.startswith("! EmptyWindowError")
    assert steps[2].outcome == "→ 'a'"


def test_svg_is_well_formed_with_one_group_per_step(tmp_path: Path) -> None:
    out = tmp_path / "daba.svg"
    status = main(["explain", "--algorithm", "daba", "insert a; insert b; evict; query", "--svg", str(out)])
    assert status == 0
    root = ET.parse(out).getroot()
    ns = "{http://www.w3.org/2000/svg}"
    groups = [g for g in root.iter(f"{ns}g") if g.get("class") == "step"]
    assert len(groups) == 4
    assert "".join(groups[1].itertext()).count("ab") >= 1


def test_replay_file_operations(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    calls = [("insert", ("a",)), ("insert", ("b",)), ("evict", ()), ("query", ()), ("evict", ()), ("evict", ())]
    steps = [TraceStep(name, args) for name, args in calls]
    header = {"impl": "mod:Factory", "monoid": "string_concat", "failure": "planted"}
    path = replayfile.write(str(tmp_path), header, steps, "fifo")
    monoid_id, ops = replay_ops(path, "daba_lite")
    assert monoid_id == "string_concat" and [op.name for op in ops] == [c[0] for c in calls]
    assert main(["explain", "--algorithm", "daba_lite", "--replay", path]) == 0
    text = capsys.readouterr().out
    assert "#4 query  → 'b'" in text  # the file's fourth operation, answered by the reference
    assert "#6 evict  ! EmptyWindowError" in text


@pytest.mark.parametrize(
    "argv, token",
    [
        (["--algorithm", "daba", "insert a; bogus 3"], "'bogus'"),
        (["--algorithm", "daba", "--monoid", "sum", "insert x"], "'x'"),
        (["--algorithm", "fiba", "insert later a"], "'later'"),
        (["--algorithm", "daba", "evict 3"], "evict"),
        (["--algorithm", "nope", "insert a"], "'nope'"),
        (["--algorithm", "slickdeque_noninv", "--monoid", "sum", "insert 1"], "selective"),
    ],
)
def test_bad_input_is_a_usage_error(argv: list[str], token: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", *argv]) == 2
    assert token in capsys.readouterr().err


def test_parse_names_the_bad_token() -> None:
    with pytest.raises(ExplainUsageError, match="'x'"):
        parse("insert 1 1; bulk_evict x", "ooo", "sum")
    assert isinstance(Step(1, "t", "", ()), Step)
