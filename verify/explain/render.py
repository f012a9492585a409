"""A snapshot in the papers' notation, as lines of text (``swagkit explain``).

A partial aggregate is written by the elements it covers, oldest first, as 000 §5 does: ``cd..g`` is
c ⊗ d ⊗ … ⊗ g (runs of four or more consecutive window elements are shortened), ``1`` is the identity and
``a⁻¹`` an inverse; names longer than one letter are joined with ``·``. Over a monoid whose values are not the
names themselves the value follows, ``ab=7``. Renderers by snapshot type:

* 000's family (Two-Stacks, Two-Stacks Lite, DABA, DABA Lite): the deque with a row of element names, the
  ``val``/``agg`` rows, the pointers F, L, R, A, B, E under their positions, and each sublist with its direction;
* FlatFAT and the Reactive Aggregator (002): the binary tree over the array, level by level;
* SlickDeque (001): the deque of ``(seq, val)`` nodes or the ring of partials with the running answers;
* FiBA (003): the tree indented, each node's kind of aggregate, spines and fingers marked;
* q-digest (004): its ranges with their counts, indented by depth;
* anything else: its snapshot's fields, one per line (:func:`generic`).

>>> ctx = Context(names={1: "a", 2: "b", 3: "c", 4: "d", 5: "e"}, rank={i: i for i in range(1, 6)})
>>> ctx.word((2, 3, 4, 5)), ctx.word((1, 3)), ctx.word(()), ctx.word((-1, 2))
('bc..e', 'ac', '1', 'a⁻¹b')
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from swagkit.spec.decay.snapshots import QDigestState, node_depth, node_range
from swagkit.spec.snapshots import (
    DABALiteState,
    DABAState,
    FiBANodeState,
    FiBAState,
    FlatFATState,
    FlatFITState,
    ReactiveState,
    SlickDequeInvState,
    SlickDequeNonInvState,
    TwoStacksLiteState,
    TwoStacksState,
)

from .trace import Traced

__all__ = ["Context", "render", "generic", "RENDERERS"]

#: runs of this many consecutive elements or more are written ``cd..g``
SHORTEN_FROM = 4


@dataclass
class Context:
    """What naming needs: element ``names`` by id, ``rank`` (the live elements' window order: a run of
    consecutive ranks is shortened), ``times`` (out-of-order kinds) and whether values are shown."""

    names: dict[int, str] = field(default_factory=dict)
    rank: dict[int, int] = field(default_factory=dict)
    times: dict[int, Any] = field(default_factory=dict)
    show_values: bool = False

    def name(self, e: int) -> str:
        base = self.names.get(abs(e), f"#{abs(e)}")
        return base if e > 0 else base + "⁻¹"

    def word(self, word: Sequence[int]) -> str:
        """The paper's name of a word of element ids."""
        if not word:
            return "1"
        sep = "" if all(len(self.names.get(abs(e), "##")) == 1 for e in word) else "·"
        runs: list[list[int]] = []
        for e in word:
            last = runs[-1][-1] if runs else None
            if last is not None and e > 0 and last > 0 and e in self.rank and self.rank.get(last) == self.rank[e] - 1:
                runs[-1].append(e)
            else:
                runs.append([e])
        parts = []
        for run in runs:
            names = [self.name(e) for e in run]
            if len(run) >= SHORTEN_FROM:
                parts.append(sep.join(names[:2]) + ".." + names[-1])
            else:
                parts.append(sep.join(names))
        return sep.join(parts)

    def fmt(self, x: Any) -> str:
        """A value of a snapshot: a traced aggregate by its word (and value), anything else as it is."""
        if isinstance(x, Traced):
            text = self.word(x.word)
            return f"{text}={_plain(x.value)}" if self.show_values and x.word else text
        if isinstance(x, tuple):
            return "(" + ", ".join(self.fmt(v) for v in x) + ")"
        return _plain(x)


def _plain(x: Any) -> str:
    return repr(x) if isinstance(x, str) else str(x)


Renderer = Callable[[Any, Context], list[str]]


def _table(rows: list[tuple[str, list[str]]], pointers: dict[str, int]) -> list[str]:
    """Rows of cells under a common column grid, then the pointers under their positions (a pointer equal to
    the number of cells sits past the last one, as E does in 000's figures)."""
    cols = max((len(cells) for _, cells in rows), default=0)
    widths = [max([len(cells[i]) for _, cells in rows if i < len(cells)] + [1]) for i in range(cols)]
    head = max(len(label) for label, _ in rows)
    out = []
    for label, cells in rows:
        body = " │ ".join(c.ljust(w) for c, w in zip(cells, widths))
        out.append(f"{label.ljust(head)} │ {body} │" if cells else f"{label.ljust(head)} │")
    starts = [head + 3]
    for w in widths:
        starts.append(starts[-1] + w + 3)
    at: dict[int, list[str]] = {}
    for name, pos in pointers.items():
        at.setdefault(pos, []).append(name)
    line = ""
    for pos in sorted(at):
        col = starts[min(pos, len(starts) - 1)] - (1 if pos >= cols and cols else 0)
        text = "^" + ",".join(at[pos])
        line = line.ljust(max(col, len(line) + 1 if line else col)) + text
    if at:
        out.append(line)
    return out


def _sublists(ctx: Context, names: list[str], parts: list[tuple[str, int, int, str]]) -> str:
    shown = []
    for label, lo, hi, direction in parts:
        if hi > lo:
            shown.append(f"{label}=[{' '.join(names[lo:hi])}] {direction}")
    return "sublists: " + (", ".join(shown) if shown else "all empty")


LEFT, RIGHT = "aggregated to the left", "aggregated to the right"


def _window_names(ctx: Context, n: int) -> list[str]:
    live = sorted(ctx.rank, key=ctx.rank.__getitem__)
    return [ctx.name(e) for e in live[:n]] + ["?"] * max(0, n - len(live))


def two_stacks(s: TwoStacksState, ctx: Context) -> list[str]:
    """000 §3: the front stack F (top = oldest, each agg = v_i ⊗ … ⊗ end of F) and the back stack B."""
    pairs = list(s.front) + list(s.back)
    names = _window_names(ctx, len(pairs))
    rows = [("elem", names), ("val", [ctx.fmt(v) for v, _ in pairs]), ("agg", [ctx.fmt(a) for _, a in pairs])]
    nf = len(s.front)
    table = _table(rows, {"F": 0, "B": nf, "E": len(pairs)})
    return table + [_sublists(ctx, names, [("front", 0, nf, LEFT), ("back", nf, len(pairs), RIGHT)])]


def two_stacks_lite(s: TwoStacksLiteState, ctx: Context) -> list[str]:
    """000 §4: one deque of partials, lF = [F, B) aggregated to the left, lB = [B, E) to the right, and aggB."""
    names = _window_names(ctx, s.E - s.F)
    rows = [("elem", names), ("agg", [ctx.fmt(a) for a in s.deque])]
    table = _table(rows, {"F": s.F, "B": s.B, "E": s.E})
    subs = _sublists(ctx, names, [("lF", 0, s.B - s.F, LEFT), ("lB", s.B - s.F, s.E - s.F, RIGHT)])
    return table + [subs, f"aggB = {ctx.fmt(s.aggB)}"]


def _daba_parts(s: DABAState | DABALiteState) -> list[tuple[str, int, int, str]]:
    f = s.F
    return [
        ("lF'", 0, s.L - f, LEFT),
        ("lL", s.L - f, s.R - f, LEFT),
        ("lR", s.R - f, s.A - f, RIGHT),
        ("lA", s.A - f, s.B - f, LEFT),
        ("lB", s.B - f, s.E - f, RIGHT),
    ]


def _pointers(s: DABAState | DABALiteState) -> dict[str, int]:
    return {p: getattr(s, p) - s.F for p in "FLRABE"}


def daba(s: DABAState, ctx: Context) -> list[str]:
    """000 §5: val and agg rows, pointers F ≤ L ≤ R ≤ A ≤ B ≤ E; lF' is the part of lF left of L."""
    names = _window_names(ctx, len(s.vals))
    rows = [("elem", names), ("val", [ctx.fmt(v) for v in s.vals]), ("agg", [ctx.fmt(a) for a in s.aggs])]
    return _table(rows, _pointers(s)) + [_sublists(ctx, names, _daba_parts(s))]


def daba_lite(s: DABALiteState, ctx: Context) -> list[str]:
    """000 §6: DABA's pointers over one deque of partials, plus aggRA (= Π lR ⊗ Π lA) and aggB (= Π lB)."""
    names = _window_names(ctx, len(s.deque))
    rows = [("elem", names), ("agg", [ctx.fmt(a) for a in s.deque])]
    return _table(rows, _pointers(s)) + [
        _sublists(ctx, names, _daba_parts(s)),
        f"aggRA = {ctx.fmt(s.aggRA)}, aggB = {ctx.fmt(s.aggB)}",
    ]


def _tree_levels(capacity: int, nodes: Sequence[Any], ctx: Context) -> list[str]:
    """A heap-ordered binary tree (root 1, children 2h and 2h+1), one level per line, each node centred over
    the leaves it covers."""
    texts = {h: f"[{h}] {ctx.fmt(nodes[h])}" for h in range(1, 2 * capacity)}
    leaf_width = max(len(t) for t in texts.values()) + 2 if texts else 4
    out = []
    level = 1
    while level < 2 * capacity:
        span = capacity // level
        out.append("".join(texts[h].center(leaf_width * span) for h in range(level, 2 * level)).rstrip())
        level *= 2
    return out


def flatfat(s: FlatFATState, ctx: Context) -> list[str]:
    """002 §4.3: the perfect binary tree over ``capacity`` leaves (node h covers its leaves' ⊗, root [1])."""
    return [f"capacity {s.capacity}"] + _tree_levels(s.capacity, s.nodes, ctx)


def reactive(s: ReactiveState, ctx: Context) -> list[str]:
    """002 §5: the FlatFAT, then the circular buffer's handles per leaf slot, F and span."""
    slots = ["·" if h is None else f"h{h}" for h in s.handles]
    head = f"capacity {s.capacity}, {s.size} live, buffer from slot F={s.F} spanning {s.span} slots"
    return [head] + _tree_levels(s.capacity, s.nodes, ctx) + ["handles by slot: " + " ".join(slots)]


def slickdeque_noninv(s: SlickDequeNonInvState, ctx: Context) -> list[str]:
    """001 Algorithm 2: head → tail, each node ``#seq`` with the aggregate of its partial through the newest."""
    nodes = " ".join(f"(#{seq}: {ctx.fmt(v)})" for seq, v in s.nodes) or "(empty)"
    window = f"window = partials #{s.first}..#{s.inserted - 1}" if s.inserted > s.first else "window empty"
    ranges = f", ranges {list(s.ranges)}" if s.ranges else ""
    return [f"deque head → {nodes} ← tail", f"{window}{ranges}"]


def slickdeque_inv(s: SlickDequeInvState, ctx: Context) -> list[str]:
    """001 Algorithm 1: the partials (a ring of W slots with currPos, or the window) and the running answers."""
    cells = [ctx.fmt(p) for p in s.partials]
    if s.capacity is not None:
        cells = [f"{'>' if i == s.cursor else ''}{c}" for i, c in enumerate(cells)]
        head = f"ring of W={s.capacity}, currPos={s.cursor} (>), {s.inserted} inserted"
    else:
        head = "partials, oldest first"
    answers = ", ".join(f"{'whole window' if r is None else f'range {r}'} = {ctx.fmt(a)}" for r, a in s.answers)
    return [f"{head}: [{' '.join(cells)}]", f"answers: {answers}", f"n = {s.length}"]


def flatfit(s: FlatFITState, ctx: Context) -> list[str]:
    """001 §2: Partials and Pointers by slot (live slots from head), and the Positions stack."""
    live = {(s.head + i) % s.capacity for i in range(s.size)} if s.capacity else set()
    cells = [ctx.fmt(p) if i in live else "·" for i, p in enumerate(s.partials)]
    ptrs = [str(p) if i in live else "·" for i, p in enumerate(s.pointers)]
    table = _table(
        [("slot", [str(i) for i in range(s.capacity)]), ("Partials", cells), ("Pointers", ptrs)],
        {"head": s.head, "tail": s.tail},
    )
    return table + [f"Positions = {list(s.positions)}"]


_FIBA_KIND = {"inner": "Π|", "left": "Π↙", "right": "Π↘", "up": "Π↑"}


def fiba(s: FiBAState, ctx: Context) -> list[str]:
    """003 §3.2: the tree indented by depth; each node's entries as ``time:value``, the aggregate it stores and
    its kind (Π| inner, Π↙ left spine, Π↘ right spine, Π↑ up), spines and fingers marked."""
    out = [
        f"FiBA μ={s.min_arity}, {s.size} entries; fingers: left → node {s.left_finger}, right → node {s.right_finger}"
    ]

    def walk(node: FiBANodeState, depth: int) -> None:
        entries = " ".join(f"{_plain(t)}:{ctx.fmt(v)}" for t, v in zip(node.times, node.values)) or "(no entries)"
        marks = [m for m, on in (("left spine", node.left_spine), ("right spine", node.right_spine)) if on]
        marks += [f for f, i in (("◀ left finger", s.left_finger), ("right finger ▶", s.right_finger)) if i == node.id]
        label = "root" if node.parent is None else "leaf" if node.is_leaf else "node"
        extra = f"  [{', '.join(marks)}]" if marks else ""
        out.append(f"{'    ' * depth}{label} {node.id}: {entries}  {_FIBA_KIND[node.kind]}={ctx.fmt(node.agg)}{extra}")
        for child in node.children:
            walk(child, depth + 1)

    walk(s.root, 0)
    return out


def qdigest(s: QDigestState, ctx: Context) -> list[str]:
    """004 §3.1 box: the stored dyadic ranges [lo, hi] with their counts, indented by depth (root first)."""
    head = f"q-digest over {s.universe_bits} bits, ε={s.eps}, N={s.total}, " + (
        "compressed" if s.compressed else f"{s.pending} insert(s) since the last compress"
    )
    order = sorted(s.nodes, key=lambda nc: (node_range(nc[0], s.universe_bits)[0], node_depth(nc[0])))
    top = min((node_depth(v) for v, _ in order), default=0)  # indent relative to the shallowest range
    lines = []
    for v, c in order:
        lo, hi = node_range(v, s.universe_bits)
        lines.append(
            f"{'  ' * (node_depth(v) - top)}[{lo}..{hi}] count {c}"
            if lo != hi
            else f"{'  ' * (node_depth(v) - top)}[{lo}] count {c}"
        )
    return [head] + (lines or ["(no ranges)"])


def generic(s: Any, ctx: Context, indent: str = "") -> list[str]:
    """Any snapshot: one line per dataclass field (nested dataclasses indented), values named."""
    if not dataclasses.is_dataclass(s) or isinstance(s, (type, Traced)):
        return [indent + ctx.fmt(s)]
    out = [f"{indent}{type(s).__name__}"]
    for f in dataclasses.fields(s):
        value = getattr(s, f.name)
        nested = value if isinstance(value, tuple) else (value,)
        if nested and all(dataclasses.is_dataclass(v) and not isinstance(v, Traced) for v in nested):
            out.append(f"{indent}  {f.name}:")
            for v in nested:
                out.extend(generic(v, ctx, indent + "    "))
        else:
            out.append(f"{indent}  {f.name} = {ctx.fmt(value)}")
    return out


#: the renderers by snapshot type (a type not listed, or a subclass's base, falls back to :func:`generic`)
RENDERERS: dict[type, Renderer] = {
    TwoStacksState: two_stacks,
    TwoStacksLiteState: two_stacks_lite,
    DABAState: daba,
    DABALiteState: daba_lite,
    FlatFATState: flatfat,
    ReactiveState: reactive,
    SlickDequeNonInvState: slickdeque_noninv,
    SlickDequeInvState: slickdeque_inv,
    FlatFITState: flatfit,
    FiBAState: fiba,
    QDigestState: qdigest,
}


def render(snapshot: Any, ctx: Context) -> list[str]:
    """``snapshot`` as lines of text, by its type's renderer; a renderer that fails falls back to the dump."""
    for cls in type(snapshot).__mro__:
        renderer = RENDERERS.get(cls)
        if renderer is not None:
            try:
                return renderer(snapshot, ctx)
            except Exception as exc:  # a state no renderer foresaw (a bug of the structure): still show it
                return [f"(cannot draw as {cls.__name__}: {exc!r})"] + generic(snapshot, ctx)
    return generic(snapshot, ctx)
