"""The worked examples that survive in the text of paper 000, as regression tests.

The figures themselves are not in the text; what is there:

* §2.3, the maxcount trace (window 4,5,3,4,0,4,4; evict twice; insert 2; insert 6);
* §3/§4, the letter-notation state for the window c..n with five elements in lF and seven in lB
  (``cd..g`` means c⊗d⊗…⊗g; written here with string concatenation, a non-commutative monoid);
* §5 "DABA Intuitive View", the fixup case sequences [flip shrink shift] from step (B),
  [flip shrink shrink shift shift] from (D) and [flip shrink shrink shrink shift shift shift] from (H);
* §5/§6 the letter-notation invariants for the window c..n.

Every test runs on the reference and on ``swagkit.optimized`` (compiled, or its pure-Python fallback).
"""

from __future__ import annotations

import dataclasses
import types
from typing import Any

import pytest

import swagkit.optimized
import swagkit.reference
from swagkit.spec import CHECKERS, FifoSwag
from swagkit.spec.library import max_count, string_concat

IMPLEMENTATIONS = [
    pytest.param(swagkit.reference, id="reference"),
    pytest.param(swagkit.optimized, id="optimized"),
]
CLASSES = ["TwoStacks", "TwoStacksLite", "DABA", "DABALite", "Recalc"]


def make(impl: types.ModuleType, cls: str, monoid: Any) -> Any:
    return getattr(impl, cls)(monoid)


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
@pytest.mark.parametrize("cls", CLASSES)
def test_maxcount_trace_of_section_2_3(impl: types.ModuleType, cls: str) -> None:
    """000 §2.3: max=5 maxcount=1; evict → 5×1; evict → 4×3 (non-invertible: 4 occurs thrice);
    insert 2 → 4×3; insert 6 → 6×1."""
    raw = dataclasses.replace(max_count(), lower=lambda v: v)  # keep ⟨max, count⟩ visible
    agg = make(impl, cls, raw)
    for x in (4, 5, 3, 4, 0, 4, 4):
        agg.insert(x)
    assert agg.query() == (5, 1)
    agg.evict()
    assert agg.query() == (5, 1)
    agg.evict()
    assert agg.query() == (4, 3)
    agg.insert(2)
    assert agg.query() == (4, 3)
    agg.insert(6)
    assert agg.query() == (6, 1)
    # the library monoid lowers to the count alone, as the paper's lower(v) = v.c
    lowered = make(impl, cls, max_count())
    for x in (3, 4, 0, 4, 4, 2, 6):
        lowered.insert(x)
    assert lowered.query() == 1


def _c_to_n_with_five_in_front(impl: types.ModuleType, cls: str) -> Any:
    """Build the window v0=c … v11=n with |lF| = 5 and |lB| = 7 (000 §4's example state)."""
    agg = make(impl, cls, string_concat())
    for ch in "abcdefg":
        agg.insert(ch)
    agg.evict()  # flips a..g into the front, pops a
    agg.evict()  # pops b: lF = c..g
    for ch in "hijklmn":
        agg.insert(ch)
    return agg


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_two_stacks_lite_state_of_section_4(impl: types.ModuleType) -> None:
    """000 §4: "if there are five elements in lF and seven in lB": lF holds cd..g, de..g, efg, fg, g;
    lB holds h … n; aggB = hi..n."""
    agg = _c_to_n_with_five_in_front(impl, "TwoStacksLite")
    s = agg.snapshot()
    assert (s.F, s.B, s.E) == (0, 5, 12)
    assert s.deque == ("cdefg", "defg", "efg", "fg", "g", "h", "i", "j", "k", "l", "m", "n")
    assert s.aggB == "hijklmn"
    assert agg.query() == "cdefghijklmn"


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_two_stacks_state_and_order_of_section_3(impl: types.ModuleType) -> None:
    """000 §3: the front stack aggregates to the right, the back stack to the left, and operands are always
    ordered older ⊗ younger ("we take care to aggregate f⊗g instead of g⊗f")."""
    agg = _c_to_n_with_five_in_front(impl, "TwoStacks")
    s = agg.snapshot()
    assert s.front == (("c", "cdefg"), ("d", "defg"), ("e", "efg"), ("f", "fg"), ("g", "g"))
    assert s.back == (
        ("h", "h"),
        ("i", "hi"),
        ("j", "hij"),
        ("k", "hijk"),
        ("l", "hijkl"),
        ("m", "hijklm"),
        ("n", "hijklmn"),
    )
    assert agg.query() == "cdefghijklmn"


def _cases(cls: type, ops: str) -> dict[str, str]:
    """Fixup case of each step (A, B, …) of a trace: ``i`` inserts the step's letter, ``e`` evicts.
    An impossible trace (evict from an empty window) gives ``{}``."""
    agg = cls(string_concat())
    cases: dict[str, str] = {}
    for step, (label, op) in enumerate(zip("ABCDEFGHIJKLMN", ops)):
        if op == "i":
            agg.insert("abcdefghijklmn"[step])
        elif len(agg) == 0:
            return {}
        else:
            agg.evict()
        cases[label] = agg.last_case
    return cases


def _matches_paper(cases: dict[str, str]) -> bool:
    return bool(cases) and (
        [cases[s] for s in "BC"] == ["flip+shrink", "shift"]
        and [cases[s] for s in "DEFG"] == ["flip+shrink", "shrink", "shift", "shift"]
        and [cases[s] for s in "HIJKLM"] == ["flip+shrink", "shrink", "shrink", "shift", "shift", "shift"]
    )


@pytest.mark.parametrize("cls", [swagkit.reference.DABA, swagkit.reference.DABALite])
def test_fixup_case_sequences_of_daba_intuitive_view(cls: type) -> None:
    """000 §5 "DABA Intuitive View": the trace of Figs. 5/6 runs [flip shrink shift] from step (B),
    [flip shrink shrink shift shift] from (D) and [flip shrink shrink shrink shift shift shift] from (H): each
    flip is followed by m shrinks and m shifts, m = 1, 2, 3 (a flip and the first shrink share one fixup).

    The figures are not in the text, so the trace's operations are recovered: of all 256 insert/evict
    patterns for steps A–H, exactly four reproduce those sequences -- inserts at A–D, then one evict and three
    inserts in E–H (the window must hold 2m = 2, 4, 6 elements at the flips).
    """
    prefixes = ["".join("ie"[(p >> k) & 1] for k in range(8)) for p in range(256)]
    found = [pre for pre in prefixes if _matches_paper(_cases(cls, pre + "iiiiii"))]
    assert sorted(found) == ["iiiieiii", "iiiiieii", "iiiiiiei", "iiiiiiie"]
    cases = _cases(cls, "iiiieiii" + "iiiiii")
    assert cases["A"] == "singleton"
    # m grows by one per cycle here; with inserts only it doubles instead (flips at 2, 4, 8 elements)
    insert_only = _cases(cls, "i" * 14)
    assert [s for s, c in insert_only.items() if c.startswith("flip")] == ["B", "D", "H"]
    assert [insert_only[s] for s in "HIJK"] == ["flip+shrink", "shrink", "shrink", "shrink"]


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
@pytest.mark.parametrize("cls", ["DABA", "DABALite"])
def test_optimized_follows_the_same_cases(impl: types.ModuleType, cls: str) -> None:
    """Whatever the implementation, its pointers after each insert equal the reference's (so it runs the
    same fixup cases)."""
    ref = getattr(swagkit.reference, cls)(string_concat())
    other = make(impl, cls, string_concat())
    for ch in "abcdefghijklmnopqrstuvwxyz":
        ref.insert(ch)
        other.insert(ch)
        assert other.snapshot() == ref.snapshot()
    for _ in range(20):
        ref.evict()
        other.evict()
        assert other.snapshot() == ref.snapshot()


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_daba_letter_state_for_c_to_n(impl: types.ModuleType) -> None:
    """000 §5: every agg field of DABA over the window c..n in letter notation, after inserting a..n and
    evicting a, b. Checked field by field against the five partial-aggregate invariants."""
    agg = make(impl, "DABA", string_concat())
    for ch in "abcdefghijklmn":
        agg.insert(ch)
    agg.evict()
    agg.evict()
    s = agg.snapshot()
    assert s.vals == tuple("cdefghijklmn")
    # The second evict triggers "flip followed by shrink" (000 §5): lF = [F, L) holds c..n, lL = [L, R)
    # holds de..h … h (aggregated to the left), lR = [R, A) holds i, ij, … ijklm (to the right), lA = [A, B)
    # holds n, and lB is empty: |lL| + |lR| + |lA| + 1 = 5 + 5 + 1 + 1 = 12 = |lF| − |lB|.
    assert (s.F, s.L, s.R, s.A, s.B, s.E) == (0, 1, 6, 11, 12, 12)
    assert s.aggs == ("cdefghijklmn", "defgh", "efgh", "fgh", "gh", "h", "i", "ij", "ijk", "ijkl", "ijklm", "n")
    CHECKERS["daba"](s, string_concat(), list("cdefghijklmn"))
    assert agg.query() == "cdefghijklmn"


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_daba_lite_letter_state_for_c_to_n(impl: types.ModuleType) -> None:
    """000 §6: DABA Lite over the window c..n: blue sublists hold suffix aggregates, green ones plain values;
    aggB aggregates lB."""
    agg = make(impl, "DABALite", string_concat())
    for ch in "abcdefghijklmn":
        agg.insert(ch)
    agg.evict()
    agg.evict()
    s = agg.snapshot()
    # same pointers as DABA; the green sublist lR = [R, A) holds plain values, aggRA = i..n, aggB = 1
    assert (s.F, s.L, s.R, s.A, s.B, s.E) == (0, 1, 6, 11, 12, 12)
    assert s.deque == ("cdefghijklmn", "defgh", "efgh", "fgh", "gh", "h", "i", "j", "k", "l", "m", "n")
    assert (s.aggRA, s.aggB) == ("ijklmn", "")
    CHECKERS["daba_lite"](s, string_concat(), list("cdefghijklmn"))
    model = FifoSwag(string_concat())
    for ch in "cdefghijklmn":
        model.insert(ch)
    assert agg.query() == model.query() == "cdefghijklmn"
