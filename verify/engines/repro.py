"""A finding as a standalone repro: a directory a stranger can run without swagkit (issue 24 §5).

:func:`write_repro` writes the engine's own files (``case.sql`` for SQL engines: :meth:`.engine.Engine.repro`)
and ``repro.py``: the engine's code that computes the answers, the exact answers as literals, and a short
checker (:data:`CHECKER`, the judge's acceptance rule without swagkit: equal, or within the stated float bound, or
any order of tied peers). Running ``python repro.py`` prints every row's answer beside the exact one and exits 1
while the engine disagrees, 0 once it agrees -- the file to attach to the engine's issue tracker, and the test that
says when a known bug was fixed.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

from .engine import Engine
from .model import Case, case_to_json
from .oracle import Expected, expected

__all__ = ["CHECKER", "literal", "repro_script", "write_repro"]

#: the acceptance rule of :func:`.judge.judge`, standalone: ``agrees(got, exact, allowed, candidates, separator)``
CHECKER = '''
def number(v):
    if isinstance(v, bool):
        return Fraction(int(v))
    if isinstance(v, (int, Fraction)):
        return Fraction(v)
    if isinstance(v, (float, Decimal)):
        return Fraction(v) if math.isfinite(v) else float(v)
    return None


def same(got, want):
    if got is None or want is None:
        return got is None and want is None
    if isinstance(want, list):
        return isinstance(got, (list, tuple)) and len(got) == len(want) and all(map(same, got, want))
    if isinstance(want, (str, bool)) or isinstance(got, str):
        return got == want and (type(got) is type(want) or isinstance(want, bool))
    g, w = number(got), number(want)
    if g is None or w is None:
        return False
    if isinstance(w, float) and w != w:
        return isinstance(g, float) and g != g
    return g == w


def within(got, want, allowed):
    g, w = number(got), number(want)
    return (isinstance(got, (float, Decimal)) and isinstance(g, Fraction) and isinstance(w, Fraction)
            and abs(g - w) <= Fraction(allowed))


def in_groups(got, groups, separator):
    """got lists each peer group's items in some order, group after group (a list, or a string joined by
    separator)."""
    if isinstance(got, str):
        return joined_in_groups(got, [list(g) for g in groups], separator)
    position = 0
    for group in groups:
        chunk, left = list(got[position:position + len(group)]), list(group)
        for item in chunk:
            hit = next((k for k, w in enumerate(left) if same(item, w)), None)
            if hit is None:
                return False
            left.pop(hit)
        if left:
            return False
        position += len(group)
    return position == len(got)


def joined_in_groups(got, groups, separator, position=0, group=0, used=0):
    """Depth-first: the next piece of got is one of the current group's items left (each distinct item tried once)."""
    if group == len(groups):
        return position == len(got)
    left = groups[group]
    if not left:
        return joined_in_groups(got, groups, separator, position, group + 1, used)
    for k, item in enumerate(left):
        piece = (separator if used else "") + item
        if item not in left[:k] and got.startswith(piece, position):
            rest = groups[:group] + [left[:k] + left[k + 1:]] + groups[group + 1:]
            if joined_in_groups(got, rest, separator, position + len(piece), group, used + 1):
                return True
    return False


def agrees(got, exact, allowed, candidates, separator):
    if candidates and not isinstance(candidates[0], tuple):  # first/last/nth_value: any tied peer's value
        return any(same(got, c) or within(got, c, allowed) for c in candidates)
    if candidates and exact is not None and got is not None:  # string_agg/array_agg: peers in any order
        return isinstance(got, (list, tuple, str)) and in_groups(got, candidates, separator)
    return same(got, exact) or within(got, exact, allowed)
'''


def literal(value: Any) -> str:
    """``value`` as Python source that evaluates to it in a script importing ``Fraction``, ``Decimal``,
    ``datetime`` and ``math`` (floats exactly: ``repr`` round-trips; NaN and ±inf through ``float()``)."""
    if isinstance(value, float) and not math.isfinite(value):
        return f"float({str(value)!r})"
    if isinstance(value, Fraction):
        return f"Fraction({value.numerator}, {value.denominator})"
    if isinstance(value, list | tuple):
        items = ", ".join(literal(v) for v in value)
        return f"[{items}]" if isinstance(value, list) else f"({items}{',' if len(value) == 1 else ''})"
    return repr(value)


def _rows_literal(expectations: Sequence[Expected]) -> str:
    lines = []
    for e in expectations:
        fields = [literal(e.value), repr(float(e.allowed)), literal(e.candidates), repr(e.param)]
        lines.append(f"    ({', '.join(fields)}),")
    return "\n".join(lines)


def repro_script(engine: Engine, case: Case, headline: str) -> tuple[dict[str, str], str]:
    """The files of ``case``'s repro on ``engine``: the engine's own files and ``repro.py``'s text."""
    parts = engine.repro(case)
    expectations = [expected(case.table, q) for q in case.queries]
    blocks = "\n".join(f"  [  # query {i}\n{_rows_literal(e)}\n  ]," for i, e in enumerate(expectations))
    queries = "\n".join(f"#   {i}: {_query_text(q)}" for i, q in enumerate(case.queries))
    ids = [row[0] for row in case.table.rows]
    script = f'''"""{headline}

Standalone: needs only the engine's Python package. Prints the engine's answers beside the exact ones; exits 1 while
the engine disagrees, 0 once it agrees. Written by `swagkit engines`: the exact answers are folded over each
frame's own values with exact arithmetic (Fractions); a double answer is accepted within the stated bound (the
error some evaluation order of the frame's own values could make).
"""
import datetime
import math
import sys
from decimal import Decimal
from fractions import Fraction

# the queries (one window column each):
{queries}

# ---- the engine's side ---------------------------------------------------------------------------------------
{parts.code.rstrip()}

# ---- the exact answers: per query, per row (table order): (exact, allowed |error|, acceptable peers' orders, param)
EXPECTED = [
{blocks}
]
ROW_IDS = {ids!r}
{CHECKER}

def show(value):
    if isinstance(value, Fraction):
        near = float(value)
        return repr(near) if Fraction(near) == value else f"{{near!r}} (exactly {{value}})"
    return repr(value)


def main():
    print(f"engine version: {{version}}")
    wrong = 0
    for q, (column, exact_column) in enumerate(zip(answers, EXPECTED)):
        for row_id, got, (exact, allowed, candidates, param) in zip(ROW_IDS, column, exact_column):
            ok = agrees(got, exact, allowed, candidates, param if isinstance(param, str) else ",")
            wrong += not ok
            shown = show(exact) if candidates is None else f"{{show(exact)}} (peers in any order: {{candidates!r}})"
            bound = f" ±{{allowed:.3g}}" if allowed else ""
            verdict = "ok   " if ok else "WRONG"
            print(f"query {{q}} id {{row_id}}: {{verdict}} got {{got!r}}  exact {{shown!s}}{{bound}}")
    print(f"{{wrong}} wrong answer(s)")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
'''
    return dict(parts.files), script


def _query_text(query: Any) -> str:
    call, window = query.call, query.window
    frame = window.frame.sql if window.frame is not None else "default frame"
    named = (("param", call.param), ("min_count", call.min_count), ("weights", call.weights))
    extras = [f"{k}={v!r}" for k, v in named if v]
    extras += ["DISTINCT"] * call.distinct + ["IGNORE NULLS"] * call.ignore_nulls
    order = f"ORDER BY o {'DESC' if window.descending else 'ASC'} NULLS {'FIRST' if window.nulls_first else 'LAST'}"
    partition = "PARTITION BY p " if window.partitioned else ""
    return f"{call.aggregate}({', '.join(extras)}) OVER ({partition}{order} {frame})".replace("()", "")


def write_repro(directory: str | Path, engine: Engine, case: Case, headline: str) -> Path:
    """Write ``case``'s repro on ``engine`` into ``directory`` (created): the engine's files, ``repro.py`` and
    ``case.json`` (the case as data, for ``swagkit engines --replay``). Returns the path of ``repro.py``."""
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    files, script = repro_script(engine, case, headline)
    for name, text in files.items():
        (out / name).write_text(text, encoding="utf-8")
    (out / "case.json").write_text(case_to_json(case) + "\n", encoding="utf-8")
    path = out / "repro.py"
    path.write_text(script, encoding="utf-8")
    return path


def run_repro(directory: str | Path, timeout: float = 120.0) -> tuple[int, str]:
    """Run a repro directory's ``repro.py`` with this interpreter: (exit status, output)."""
    import subprocess

    done = subprocess.run(
        [sys.executable, "repro.py"], cwd=directory, capture_output=True, text=True, timeout=timeout, check=False
    )
    return done.returncode, done.stdout + done.stderr
