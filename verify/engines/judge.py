"""Judging an engine's answer against the exact oracle (issue 24): right, or wrong in one of a few classes a stranger
can act on.

:func:`judge` compares one answer with one :class:`~.oracle.Expected`:

* NULL must meet NULL; a NULL where a value is exact, or a value where NULL is, is ``null_vs_value``;
* NaN matches only an exact NaN (``+inf`` and ``-inf`` in one sum); ±inf only the same infinity;
* an ``int`` answer must equal the exact value; a ``float`` or ``Decimal`` answer equal to it is *exact*, within
  :attr:`~.oracle.Expected.allowed` of it (the any-order bound) *within*; beyond, ``outside_bound`` when the
  aggregate rounds (``allowed > 0``) and ``wrong`` when it must be exact;
* a negative variance or standard deviation is ``sign`` (even within the bound: no rounding excuses it), NaN or
  ±inf where the exact answer is finite ``nan_inf``;
* where peers in the frame leave the order open (:attr:`~.oracle.Expected.candidates`), any candidate is right:
  for ``first_value``/``last_value``/``nth_value`` any listed value, for ``string_agg``/``array_agg`` the items of
  each peer group in any order, group after group.

``membership`` needs the case: :func:`judge_row` judges, and when the answer is wrong tries the frames an engine
that mistakes membership would use (:func:`.oracle.neighbour_frames`: without its tied peers, one row or peer group
more or less at an end, without the EXCLUDE, ...); an answer that is the exact answer of one of them is
``membership``, with the frame named (:func:`membership_probe`). ``refused`` and ``crash`` are the runner's, for
queries that came back as a :class:`~.engine.Failure`. :func:`share` is ``|got - exact| / allowed`` for the
conformance matrix and the benchmarks.
"""

from __future__ import annotations

import decimal
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .model import Query, Table
from .oracle import POSITIONAL, VARIANCES, Expected, evaluate_members, neighbour_frames

__all__ = ["CLASSES", "Verdict", "judge", "judge_row", "membership_probe", "share", "show"]

#: every class of wrong answer, with what it means
CLASSES: dict[str, str] = {
    "membership": "the exact answer of a neighbouring frame (tied peers, one row or peer group at an end, the "
    "EXCLUDE, NULL keys, the default frame): the engine put the wrong rows in the frame",
    "outside_bound": "a finite number farther from the exact answer than any evaluation order of the frame's own "
    "values explains (the share says how many times the bound)",
    "nan_inf": "NaN or an infinity where the exact answer is finite",
    "sign": "a negative variance or standard deviation",
    "null_vs_value": "NULL where the exact answer is a value, or a value where it is NULL",
    "order": "string_agg/array_agg listing exactly the frame's items, in an order other than the frame's (SQL "
    "leaves that order to the engine unless the call has its own ORDER BY)",
    "wrong": "any other wrong answer (a different value where the answer must be exact, a wrong type)",
    "refused": "the engine rejected a valid query the adapter declared supported",
    "crash": "the engine died: a panic, an internal error, a wrong number of rows",
}

#: the classes a neighbouring frame can explain (a value where NULL is exact included). Not ``outside_bound``: a
#: double far off its bound is the residue of values that left the frame (subtract-on-evict) far more often than a
#: frame holding other rows, and a residue that lands on a neighbour's answer (0.0 after 1e17 left) would be
#: misfiled as membership.
_PROBED = frozenset({"wrong", "null_vs_value"})


@dataclass(frozen=True)
class Verdict:
    """One answer judged: ``ok``; ``exact`` when it equals the exact value (not merely within the bound);
    ``klass`` (a key of :data:`CLASSES`, None when ok) and ``detail`` (one line: got, exact, allowed, share)."""

    ok: bool
    klass: str | None = None
    detail: str = ""
    exact: bool = False


_EXACT = Verdict(True, exact=True)


def _number(value: Any) -> Fraction | float | None:
    """A numeric answer as a Fraction (finite) or a float (NaN, ±inf); None for anything else."""
    if isinstance(value, bool):
        return Fraction(int(value))
    if isinstance(value, int | Fraction):
        return Fraction(value)
    if isinstance(value, float):
        return Fraction(value) if math.isfinite(value) else value
    if isinstance(value, decimal.Decimal):
        if value.is_nan():
            return math.nan
        if value.is_infinite():
            return math.inf if value > 0 else -math.inf
        return Fraction(value)
    return None


def show(value: Any) -> str:
    """A value for a detail line: Fractions as the nearest double (marked ``≈`` when not exactly one)."""
    if isinstance(value, Fraction):
        near = float(value)
        return repr(near) if Fraction(near) == value else f"≈{near!r}"
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _bound_text(expected: Expected, distance: float | None) -> str:
    text = f"allowed ±{expected.allowed:.3g}"
    if distance is not None and expected.allowed > 0:
        text += f" ({distance / expected.allowed:.3g}× the bound)"
    return f"{text}; n={expected.n}, Σ|x|={expected.abs_sum:.6g}"


def _judge_number(expected: Expected, value: Any, got: Any) -> Verdict:
    exact, answer = _number(value), _number(got)
    if answer is None or exact is None:
        return Verdict(False, "wrong", f"got {show(got)} ({type(got).__name__}), exact {show(value)}")
    if isinstance(exact, float) and math.isnan(exact):
        if isinstance(answer, float) and math.isnan(answer):
            return _EXACT
        why = "the IEEE answer over an infinity: +inf with -inf in a sum, any infinity in a variance"
        return Verdict(False, "wrong", f"got {show(got)}, exact NaN ({why})")
    if isinstance(answer, float):  # NaN or ±inf
        if answer == exact:
            return _EXACT
        klass = "nan_inf" if isinstance(exact, Fraction) else "wrong"
        return Verdict(False, klass, f"got {show(got)}, exact {show(value)}")
    if expected.aggregate in VARIANCES and answer < 0:
        return Verdict(False, "sign", f"got {show(got)} < 0, exact {show(value)}")
    if isinstance(exact, float):  # exact ±inf, finite answer
        return Verdict(False, "wrong", f"got {show(got)}, exact {show(value)}")
    if answer == exact:
        return _EXACT
    distance = abs(float(answer - exact))
    rounds = isinstance(got, float | decimal.Decimal)
    if rounds and abs(answer - exact) <= Fraction(expected.allowed):
        return Verdict(True, detail=f"within the bound: {_bound_text(expected, distance)}")
    # (a double off a frame of zeros -- bound 0 -- is a residue too; off an exact int sum it is just wrong)
    klass = "outside_bound" if rounds and (expected.allowed > 0 or expected.abs_sum == 0) else "wrong"
    return Verdict(False, klass, f"got {show(got)}, exact {show(value)}, {_bound_text(expected, distance)}")


def _judge_scalar(expected: Expected, value: Any, got: Any) -> Verdict:
    if isinstance(value, str | bool) or isinstance(got, str):
        if type(got) is type(value) and got == value or isinstance(value, bool) and got in (0, 1) and got == value:
            return _EXACT
        return Verdict(False, "wrong", f"got {show(got)}, exact {show(value)}")
    return _judge_number(expected, value, got)


def _same_item(got: Any, want: Any) -> bool:
    if got is None or want is None:
        return got is None and want is None
    return _judge_scalar(Expected("", want), want, got).exact


def _same_items(got: Sequence[Any], want: Sequence[Any]) -> bool:
    return len(got) == len(want) and all(_same_item(g, w) for g, w in zip(got, want))


def _list_matches(got: Any, groups: Sequence[Sequence[Any]]) -> bool:
    """Whether the list ``got`` holds each group's items, in any order within a group, group after group."""
    if not isinstance(got, list | tuple) or len(got) != sum(len(group) for group in groups):
        return False
    got_keys = [_item_key(x) for x in got]
    position = 0
    for group in groups:
        chunk = got_keys[position : position + len(group)]
        want_keys = [_item_key(x) for x in group]
        if None in chunk or None in want_keys:
            if not _same_multiset(list(got[position : position + len(group)]), list(group)):
                return False
        elif chunk != want_keys and (len(group) == 1 or Counter(chunk) != Counter(want_keys)):
            return False
        position += len(group)
    return True


def _same_multiset(got: list[Any], want: list[Any]) -> bool:
    """Whether ``got`` holds ``want``'s items in some order (by :func:`_same_item`): counted by each item's
    :func:`_item_key` (linear; a frame of thousands of items must not take a quadratic search), with the pairwise
    search kept for items of other types."""
    got_keys, want_keys = [_item_key(x) for x in got], [_item_key(x) for x in want]
    if None not in got_keys and None not in want_keys:
        return Counter(got_keys) == Counter(want_keys)
    left = list(want)
    for item in got:
        match = next((k for k, w in enumerate(left) if _same_item(item, w)), None)
        if match is None:
            return False
        left.pop(match)
    return True


def _item_key(item: Any) -> tuple[Any, ...] | None:
    """A key under which two list items are equal exactly when :func:`_same_item` calls them the same: NULL,
    a string, or a number (bools as 0 and 1; NaN equal to NaN; -0.0 equal to 0); None for other types."""
    if item is None:
        return ("null",)
    if isinstance(item, str):
        return ("str", item)
    number = _number(item)
    if number is None:
        return None
    return ("number", "nan") if isinstance(number, float) and math.isnan(number) else ("number", number)


def _string_matches(got: Any, groups: Sequence[Sequence[str]], separator: str) -> bool:
    """Whether ``got`` is the groups' strings joined by ``separator``, in any order within a group. When no item
    holds the separator (the generator's never do), splitting ``got`` decides it; otherwise a depth-first search
    over the choices, kept on an explicit stack (a frame of thousands of rows must not exhaust Python's
    recursion limit)."""
    if not isinstance(got, str) or not groups:
        return False
    total = sum(len(group) for group in groups)
    if total == 0:
        return got == ""
    if separator and not any(separator in item for group in groups for item in group):
        pieces = got.split(separator)
        if len(pieces) != total:
            return False
        position = 0
        for group in groups:
            if Counter(pieces[position : position + len(group)]) != Counter(group):
                return False
            position += len(group)
        return True
    return _string_search(got, [list(group) for group in groups if group], separator)


def _string_search(got: str, groups: list[list[str]], separator: str) -> bool:
    """The depth-first search of :func:`_string_matches`: a state is (position in ``got``, group, the group's items
    not used yet, items used so far); each state is expanded once, and once per distinct item that fits at the
    position."""
    stack: list[tuple[int, int, Counter[str], int]] = [(0, 0, Counter(groups[0]), 0)]
    seen: set[tuple[int, int, tuple[tuple[str, int], ...], bool]] = set()
    while stack:
        position, group, left, used = stack.pop()
        state = (position, group, tuple(sorted(left.items())), used > 0)
        if state in seen:
            continue
        seen.add(state)
        if not left:
            if group + 1 == len(groups):
                if position == len(got):
                    return True
                continue
            stack.append((position, group + 1, Counter(groups[group + 1]), used))
            continue
        for item in left:
            piece = (separator if used else "") + item
            if got.startswith(piece, position):
                rest = left.copy()
                rest[item] -= 1
                stack.append((position + len(piece), group, +rest, used + 1))
    return False


def judge(expected: Expected, got: Any) -> Verdict:
    """``got`` (an engine's answer for one row, as :mod:`.engine` delivers it) against the exact ``expected``."""
    verdict = _judge(expected, got)
    if verdict.ok or verdict.klass != "wrong" or not expected.items:
        return verdict
    one_group = (expected.items,)
    if expected.aggregate == "string_agg":
        reordered = _string_matches(got, one_group, str(expected.param))
    else:
        reordered = _list_matches(got, one_group)
    if not reordered:
        return verdict
    return Verdict(False, "order", f"{verdict.detail}: the frame's items in another order")


def _judge(expected: Expected, got: Any) -> Verdict:
    value, candidates = expected.value, expected.candidates
    if candidates is not None and expected.aggregate in POSITIONAL:
        for candidate in candidates:
            verdict = _judge_determined(expected, candidate, got)
            if verdict.ok:
                return verdict
        verdict = _judge_determined(expected, value, got)
        options = ", ".join(show(c) for c in candidates)
        return Verdict(False, verdict.klass, f"{verdict.detail} (peers in an open order: any of {options})")
    if value is None or got is None:
        return _judge_determined(expected, value, got)
    if candidates is not None:
        if expected.aggregate == "string_agg":
            ok = _string_matches(got, candidates, str(expected.param))
        else:
            ok = _list_matches(got, candidates)
        if ok:
            return _EXACT
        return Verdict(False, "wrong", f"got {show(got)}, exact {show(value)} up to the order of peers")
    return _judge_determined(expected, value, got)


def _judge_determined(expected: Expected, value: Any, got: Any) -> Verdict:
    """``got`` against one determined exact ``value`` (NULL, a list, a scalar)."""
    if value is None:
        if got is None:
            return _EXACT
        return Verdict(False, "null_vs_value", f"got {show(got)} where the exact answer is NULL (n={expected.n})")
    if got is None:
        return Verdict(False, "null_vs_value", f"got NULL, exact {show(value)} (n={expected.n})")
    if isinstance(value, list):
        if isinstance(got, list | tuple) and _same_items(got, value):
            return _EXACT
        return Verdict(False, "wrong", f"got {show(got)}, exact {show(value)}")
    return _judge_scalar(expected, value, got)


def share(expected: Expected, got: Any) -> float:
    """``|got - exact| / allowed``: 0 for an exact answer, at most 1 within the bound, ``inf`` for an answer that
    is wrong where it must be exact (``allowed`` 0) or is not comparable (NULL against a value, NaN, a string)."""
    verdict = judge(expected, got)
    if verdict.exact:
        return 0.0
    exact, answer = _number(expected.value), _number(got)
    if not isinstance(exact, Fraction) or not isinstance(answer, Fraction) or expected.candidates is not None:
        return 0.0 if verdict.ok else math.inf
    if expected.allowed <= 0:
        return math.inf
    return abs(float(answer - exact)) / expected.allowed


def membership_probe(table: Table, query: Query, row_index: int, got: Any) -> str | None:
    """Which neighbouring frame of row ``row_index`` has exactly ``got`` as its answer (``"the frame that leaves out
    the current row's 2 tied peer rows (ids 3, 5)"``; several joined by "or"), or None. Exactly: an answer merely
    within a neighbour's float bound is as likely a rounding residue as a frame that holds other rows. None for a
    weighted call (its weights belong to the positions around the current row, not to a set of rows)."""
    if query.call.weights is not None:
        return None
    matches = [
        what
        for what, members in neighbour_frames(table, query.window, row_index)
        if judge(evaluate_members(table, query, members), got).exact
    ]
    if not matches:
        return None
    more = f" (or {len(matches) - 3} more)" if len(matches) > 3 else ""
    return "the frame that " + " or that ".join(matches[:3]) + more


def judge_row(table: Table, query: Query, row_index: int, expected: Expected, got: Any) -> Verdict:
    """:func:`judge`, and for a wrong non-NULL answer that a neighbouring frame explains, class ``membership`` with
    that frame named (:func:`membership_probe`). Costs a probe (O(partition) per neighbour) only for wrong answers.
    A match can be a coincidence (an answer of 0 that a neighbour also has): the detail keeps the numbers."""
    verdict = judge(expected, got)
    if verdict.ok or verdict.klass not in _PROBED or got is None or (isinstance(got, float) and math.isnan(got)):
        return verdict  # a NULL (a NaN) matches too many frames to say which one the engine used
    if verdict.klass == "null_vs_value" and _number(got) == 0:
        return verdict  # NULL answered as 0 (or false) is its own class; a neighbour holding a 0 is a coincidence
    found = membership_probe(table, query, row_index, got)
    if found is None:
        return verdict
    return Verdict(False, "membership", f"{verdict.detail}: the exact answer over {found}")
