"""Planted-bug window engines for tests/test_engines_run.py: a tiny engine in plain Python that answers ``sum`` and
``count`` over ``ROWS``/``RANGE BETWEEN k PRECEDING AND CURRENT ROW`` frames, correct or with one of the bug
classes issue 24 hunts planted:

* ``ties``: a ``RANGE`` frame that leaves out the current row's later peers (rows with the same order value);
* ``subtract``: ``sum`` by subtract-on-evict (a running double sum: add what enters, subtract what leaves), whose
  rounding residue of values that left the frame stays in the answer;
* ``null0``: ``sum`` of a frame without a non-NULL value answered as 0 instead of NULL.

The engine's code is one source text (:data:`SOURCE`): the adapter runs it, and the repro script embeds it, so a
repro runs exactly the engine that failed (standalone, without swagkit).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from swagkit.verify.engines.engine import Answers, Failure, Repro
from swagkit.verify.engines.model import Case, Query, Table

SOURCE = '''
def window_answers(rows, query, bug):
    """rows: (id, p, o, x, s, b) tuples; query: (aggregate, unit, k, partitioned). One answer per row."""
    aggregate, unit, k, partitioned = query
    parts = {}
    for row in rows:
        parts.setdefault(row[1] if partitioned else None, []).append(row)
    answers = {}
    for part in parts.values():
        part.sort(key=lambda r: (r[2], r[0]))
        running, count, left = 0.0, 0, 0
        for i, row in enumerate(part):
            if unit == "rows":
                first, last = max(0, i - k), i
            else:
                first = next(j for j, r in enumerate(part) if r[2] >= row[2] - k)
                last = i if bug == "ties" else max(j for j, r in enumerate(part) if r[2] == row[2])
            values = [r[3] for r in part[first:last + 1] if r[3] is not None]
            if aggregate == "count":
                answers[row[0]] = len(values)
            elif bug == "subtract" and unit == "rows":
                running += 0.0 if row[3] is None else row[3]
                count += row[3] is not None
                while left < first:
                    running -= 0.0 if part[left][3] is None else part[left][3]
                    count -= part[left][3] is not None
                    left += 1
                answers[row[0]] = running if count else None
            elif not values:
                answers[row[0]] = 0 if bug == "null0" else None
            else:
                answers[row[0]] = sum(values)
    return [answers[row[0]] for row in rows]
'''


class PlantedEngine:
    """The engine of :data:`SOURCE` with bug ``bug`` (``""``: correct)."""

    def __init__(self, bug: str = "") -> None:
        self.bug = bug
        self.name = f"planted_{bug or 'correct'}"
        namespace: dict[str, Any] = {}
        exec(SOURCE, namespace)  # noqa: S102 - the test's own engine code
        self._answers = namespace["window_answers"]

    def version(self) -> str:
        return "1.0"

    def unsupported(self, table: Table, query: Query) -> str | None:
        call, window, frame = query.call, query.window, query.window.frame
        if call.aggregate not in ("sum", "count") or call.distinct or call.min_count or call.weights:
            return "only sum and count"
        if frame is None or frame.unit not in ("rows", "range") or frame.exclude != "no_others":
            return "only ROWS and RANGE frames"
        if frame.start.kind != "preceding" or frame.end.kind != "current_row" or not frame.is_sql:
            return "only k PRECEDING AND CURRENT ROW"
        if window.descending or table.order_type != "int" or any(r[2] is None for r in table.rows):
            return "only ascending int order keys without NULLs"
        if not isinstance(frame.start.offset, int):
            return "integer offsets only"
        return None

    def _query(self, query: Query) -> tuple[str, str, int, bool]:
        frame = query.window.frame
        assert frame is not None and isinstance(frame.start.offset, int)
        return (query.call.aggregate, frame.unit, frame.start.offset, query.window.partitioned)

    def run(self, table: Table, queries: Sequence[Query]) -> Answers:
        out: Answers = []
        for query in queries:
            try:
                out.append(self._answers(list(table.rows), self._query(query), self.bug))
            except Exception as error:  # noqa: BLE001 - reported as the engine's crash
                out.append(Failure("crash", repr(error)))
        return out

    def render(self, table: Table, queries: Sequence[Query]) -> str:
        return "\n".join(repr(self._query(q)) for q in queries)

    def repro(self, case: Case) -> Repro:
        queries = [self._query(q) for q in case.queries]
        code = (
            f"{SOURCE}\nROWS = {list(case.table.rows)!r}\nversion = '1.0 ({self.bug or 'correct'})'\n"
            f"answers = [window_answers(list(ROWS), q, {self.bug!r}) for q in {queries!r}]\n"
        )
        return Repro({}, code)

    def close(self) -> None:
        pass
