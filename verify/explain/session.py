"""Run operations on the reference and draw its state after each one (the engine of ``swagkit explain``).

:func:`explain` builds the reference of an algorithm over the traced monoid (:mod:`.trace`), applies each
:class:`~.ops.Op`, keeps the window's element names and order (for the pictures' names and ``..`` runs) and
returns one :class:`Step` per operation: what was done, what it answered (or the error the reference raised:
the structure is unchanged and the session goes on), and the picture of the snapshot (:mod:`.render`).
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from typing import Any

from swagkit.spec.library import LIBRARY

from .. import registry
from ..jsonvalues import TEXT_MONOIDS
from .ops import ExplainUsageError, Op
from .render import Context, render
from .trace import Element, Traced, traced

__all__ = ["Step", "Session", "explain", "kind_of"]


@dataclass(frozen=True)
class Step:
    """One operation: its ``number`` (from 1), ``text``, ``outcome`` (answer or error; ``""`` when none) and the
    ``picture`` of the state after it."""

    number: int
    text: str
    outcome: str
    picture: tuple[str, ...]


def kind_of(algorithm_id: str) -> str:
    """The operation language of an algorithm (a key of :data:`~.ops.OPERATIONS`, or ``plain``)."""
    info = registry.algorithm(algorithm_id)
    card = info.card
    if not info.takes_monoid:
        return "plain"
    adt = card.adt if card is not None else info.kind.name
    return {"out_of_order": "ooo", "handles": "handles", "tree": "tree"}.get(adt, "fifo")


def _letters(k: int) -> str:
    """a, b, …, z, a1, b1, … (k from 0)."""
    return string.ascii_lowercase[k % 26] + (str(k // 26) if k >= 26 else "")


class Session:
    """The reference of ``algorithm_id`` over ``monoid_id`` and the window's elements as ``explain`` names them."""

    def __init__(self, algorithm_id: str, monoid_id: str, params: dict[str, Any] | None = None) -> None:
        self.info = registry.algorithm(algorithm_id)
        self.kind = kind_of(algorithm_id)
        self.monoid_id = monoid_id
        params = dict(params or {})
        if self.info.takes_monoid:
            if monoid_id not in LIBRARY:
                raise ExplainUsageError(f"unknown monoid {monoid_id!r} (known: {', '.join(LIBRARY)})")
            base = registry.resolve_monoid(monoid_id)
            missing = self.info.missing_properties(base)
            if missing:
                raise ExplainUsageError(
                    f"{algorithm_id} needs a {self.info.requirement_text()} monoid; {monoid_id} is not "
                    f"{', '.join(missing)}"
                )
            self.monoid = traced(base)
            if self.kind == "tree":
                params.setdefault("capacity", 8)
            self.obj = registry.create(algorithm_id, self.monoid, "reference", check=False, **params)
        else:
            self.obj = registry.create(algorithm_id, None, "reference", check=False, **params)
        self.names: dict[int, str] = {}
        self.times: dict[int, Any] = {}
        self.live: list[int] = []  # window order
        self.handles: dict[int, Any] = {}
        self.leaf_of: dict[int, int] = {}  # tree kind: the leaf each element occupies
        self.head = 0  # tree kind: the oldest leaf of the window
        # names are the values themselves when they are short words (string_concat "a", "b"); else a, b, c…
        self.values_are_names = monoid_id in TEXT_MONOIDS and monoid_id == "string_concat"

    # ------------------------------------------------------------------------------------------- elements

    def _element(self, value: Any) -> Element:
        eid = len(self.names) + 1
        ok = self.values_are_names and isinstance(value, str) and value and not any(c.isspace() for c in value)
        self.names[eid] = value if ok else _letters(eid - 1)
        return Element(eid, value)

    def _context(self) -> Context:
        return Context(
            names=self.names,
            rank={e: i for i, e in enumerate(self.live)},
            times=self.times,
            show_values=not self.values_are_names,
        )

    def _answer(self, result: Any) -> str:
        ctx = self._context()
        if isinstance(result, Traced):
            covered = ctx.word(result.word)
            shown = repr(result.value) if isinstance(result.value, str) else str(result.value)
            return f"→ {shown}" + ("" if self.values_are_names and shown.strip("'") == covered else f"  (= {covered})")
        if isinstance(result, list) and result and all(isinstance(r, Traced) for r in result):
            return "→ [" + ", ".join(self._answer(r)[2:] for r in result) + "]"
        return "" if result is None else f"→ {result!r}"

    # ------------------------------------------------------------------------------------------ operations

    def apply(self, op: Op) -> str:
        """Run ``op`` on the reference; the outcome text. Errors the reference raises are reported, not raised."""
        try:
            return self._answer(getattr(self, f"_{self.kind}")(op))
        except Exception as exc:  # the reference refused it (empty window, dead handle…): documented, unchanged
            return f"! {type(exc).__name__}: {exc}"

    def _named(self, name: str) -> int | None:
        """The live element called ``name`` (the youngest of that name), or ``#ID`` (replays name them so)."""
        if name.startswith("#") and name[1:].isdigit():
            return int(name[1:]) if int(name[1:]) in self.live else None
        return next((e for e in reversed(self.live) if self.names[e] == name), None)

    def _insert_fifo(self, values: list[Any]) -> list[Element]:
        return [self._element(v) for v in values]

    def _fifo(self, op: Op) -> Any:
        o, name = self.obj, op.name
        if name == "insert":
            (e,) = self._insert_fifo([op.args[0]])
            if self.kind == "handles":
                self.handles[e.id] = o.insert_with_handle(e)
            else:
                o.insert(e)
            self.live.append(e.id)
            return None
        if name == "insert_many":
            es = self._insert_fifo(list(op.args[0]))
            if self.kind == "handles":
                self.handles.update(zip((e.id for e in es), o.insert_many_with_handles(es)))
            else:
                o.insert_many(es)
            self.live.extend(e.id for e in es)
            return None
        if name == "shift":
            (e,) = self._insert_fifo([op.args[0]])
            result = o.shift(e)
            self.live.pop(0)
            self.live.append(e.id)
            return result
        if name == "remove":
            eid = self._named(str(op.args[0]))
            o.remove(self.handles.get(eid, -1) if eid is not None else -1)
            if eid is not None:
                self.live.remove(eid)
            return None
        result = getattr(o, name)(*op.args)
        if name == "evict":
            self.live.pop(0)
        elif name == "evict_many":
            del self.live[: op.args[0]]
        return result

    _handles = _fifo  # the same operations, insert returning handles

    def _tree(self, op: Op) -> Any:
        o, cap = self.obj, self.obj.capacity
        if op.name == "insert":
            if len(self.live) == cap:
                raise IndexError(f"the window fills all {cap} leaves (evict first)")
            e = self._element(op.args[0])
            self._put((self.head + len(self.live)) % cap, e)
            return None
        if op.name == "evict":
            if not self.live:
                raise IndexError("evict from an empty window")
            oldest = self.live[0]
            o.update([(self.leaf_of[oldest], self.monoid.identity)])
            self._drop(oldest)
            self.head = (self.head + 1) % cap
            return None
        if op.name == "update":
            self._put(op.args[0], self._element(op.args[1]))
            return None
        return o.aggregate() if op.name == "query" else getattr(o, op.name)(*op.args)

    def _put(self, leaf: int, e: Element) -> None:
        self.obj.update([(leaf, self.monoid.lift(e))])
        for old in [x for x, lf in self.leaf_of.items() if lf == leaf]:
            self._drop(old)
        self.leaf_of[e.id] = leaf
        cap = self.obj.capacity
        self.live = sorted([*self.live, e.id], key=lambda x: (self.leaf_of[x] - self.head) % cap)

    def _drop(self, eid: int) -> None:
        self.live.remove(eid)
        del self.leaf_of[eid]

    def _ooo(self, op: Op) -> Any:
        o, name = self.obj, op.name
        if name in ("insert", "bulk_insert"):
            pairs = [op.args] if name == "insert" else list(op.args[0])
            es = [(t, self._element(v)) for t, v in pairs]
            if name == "insert":
                o.insert(*es[0])
            else:
                o.bulk_insert(es)
            for t, e in es:
                self.times[e.id] = t
                self.live.append(e.id)
            self.live.sort(key=lambda x: (self.times[x], x))
            return None
        result = getattr(o, name)(*op.args)
        if name == "evict":
            first = self.times[self.live[0]]
            self.live = [x for x in self.live if self.times[x] != first]
        elif name == "remove":
            self.live = [x for x in self.live if self.times[x] != op.args[0]]
        elif name == "bulk_evict":
            self.live = [x for x in self.live if self.times[x] > op.args[0]]
        return result

    def _plain(self, op: Op) -> Any:
        return getattr(self.obj, op.name)(*op.args)

    def picture(self) -> list[str]:
        """The reference's state in the papers' notation."""
        return render(self.obj.snapshot(), self._context())


def explain(algorithm_id: str, monoid_id: str, ops: list[Op], params: dict[str, Any] | None = None) -> list[Step]:
    """Run ``ops`` on the reference of ``algorithm_id`` over ``monoid_id``; one :class:`Step` per operation."""
    session = Session(algorithm_id, monoid_id, params)
    steps = []
    for number, op in enumerate(ops, 1):
        outcome = session.apply(op)
        steps.append(Step(number, op.text, outcome, tuple(session.picture())))
    return steps
