"""The documentation site's page per algorithm, generated from its card (issue 26 §1).

``python tools/docs_pages.py`` writes ``docs/algorithms/<id>.md`` for every card of ``swagkit.spec.algorithms``:
the paper and classes, the guarantees, the ⊗ budget the meter enforces (the theorem's bounds, tabulated), the
invariants in the paper's words (the checker's ``WORDING``, else its module's docstring), the snapshot, and the
pictures of a small ``swagkit explain`` run (``docs/algorithms/<id>.svg``) with the command that draws them.
``--check`` writes nothing and exits 1 naming every page that is stale (the test suite runs it).
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import inspect
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "algorithms"

#: the small run drawn on each page, by operation language (values become numbers for a numeric monoid)
SCRIPTS = {
    "fifo": "insert a; insert b; insert c; insert d; evict; query; insert e; evict",
    "handles": "insert a; insert b; insert c; remove b; query; evict",
    "tree": "insert a; insert b; insert c; evict; query; update 5 d; prefix 5",
    "ooo": "insert 5 a; insert 3 b; insert 9 c; insert 7 d; bulk_evict 4; query; remove 9",
}
PLAIN_SCRIPTS = {
    "qdigest": "insert 5; insert 7 3; compress; rank 6; quantile 0.5",
    "window_count": "advance 9; insert 3; insert 8 2; count 4",
    "window_quantiles": "advance 9; insert 5 3; insert 7 8; count 4",
    "value_division": "advance 9; insert 5 3; insert 7 8",
}
#: window sizes at which a card's ⊗ bounds are tabulated
SIZES = (1, 8, 64, 1024)


def _monoid(info: Any) -> str:
    if info.monoids:
        return str(info.monoids[0])
    if "selective" in info.requires:
        return "max"
    if "invertible" in info.requires:
        return "sum"
    return "string_concat"


def _script(algorithm_id: str, kind: str, monoid_id: str) -> str:
    if kind == "plain":
        return PLAIN_SCRIPTS[algorithm_id]
    script = SCRIPTS[kind]
    if monoid_id != "string_concat":
        for letter, number in zip("abcde", "31425"):  # value tokens only (not bulk_evict's b)
            script = re.sub(rf"(?<= ){letter}(?=;|$)", number, script)
    return script


def _number(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def _budget(card: Any) -> list[str]:
    b = card.budget
    if b is None:
        if card.budget_id:
            meter = f"`{card.meter.__module__}`" if card.meter is not None else "its meter"
            return [f"The theorem's bounds (the guarantees above) are kept by {meter} (`{card.budget_id}`)."]
        return ["No ⊗ budget: an approximate structure is held to its accuracy and space bounds instead."]
    rows = ["| n (before the operation) | " + " | ".join(str(n) for n in SIZES) + " |", "|---|" + "---|" * len(SIZES)]
    for op in ("query", "insert", "evict"):
        rows.append(f"| most ⊗ per {op} | " + " | ".join(_number(b.bound(op, n)) for n in SIZES) + " |")
    rows.append("| space (stored aggregates) | " + " | ".join(_number(b.space(n)) for n in SIZES) + " |")
    avg = f"insert {_number(b.avg_insert)}, evict {_number(b.avg_evict)}"
    if b.avg_query is not None:
        avg += f", query {_number(b.avg_query)}"
    return [
        f"Enforced per operation by `swagkit.spec.budgets` ({b.source}), counted the way the pseudocode performs ⊗:",
        "",
        *rows,
        "",
        f"Amortized: ⊗ per {avg}, within a slack of {_number(b.slack(8))} at n = 8.",
    ]


def _invariants(card: Any) -> list[str]:
    if card.checker is None:
        return ["Checked by its ADT's debug wrapper (see the guarantees and the space bound)."]
    module = importlib.import_module(card.checker.__module__)
    wording = getattr(module, "WORDING", None)
    lines = [f"Checked after every operation in debug mode by `{card.checker.__module__}.{card.checker.__name__}`."]
    if wording:
        lines += ["", "| name | invariant |", "|---|---|"]
        lines += [f"| `{name}` | {text.replace('|', '&#124;')} |" for name, text in wording.items()]
    else:
        lines += ["", inspect.cleandoc(module.__doc__ or "")]
    return lines


def _snapshot(card: Any) -> list[str]:
    snap = card.snapshot
    fields = ", ".join(f"`{f.name}`" for f in dataclasses.fields(snap)) if dataclasses.is_dataclass(snap) else ""
    doc = inspect.getdoc(snap) or ""
    first = doc.split("\n\n", 1)[0].replace("\n", " ")
    return [f"`swagkit.spec.snapshots.{snap.__name__}`" + (f" ({fields})" if fields else "") + f": {first}"]


def page(card: Any) -> tuple[str, str]:
    """The Markdown page of ``card`` and its SVG."""
    from swagkit.verify import registry
    from swagkit.verify.explain import format_steps
    from swagkit.verify.explain.ops import parse, plain_operations
    from swagkit.verify.explain.session import explain, kind_of
    from swagkit.verify.explain.svg import to_svg

    info = registry.algorithm(card.id)
    kind = kind_of(card.id)
    monoid_id = _monoid(info)
    script = _script(card.id, kind, monoid_id)
    known = None
    if kind == "plain":
        cls = registry.resolve_class(card.id)
        known = plain_operations(cls if isinstance(cls, type) else type(cls))
    steps = explain(card.id, monoid_id, parse(script, kind, monoid_id, known))
    title = f"{card.title} ({card.paper}) over {monoid_id}, reference implementation"
    g = card.guarantees
    requires = (" or " if card.requires_any else " and ").join(card.requires) or "any monoid"
    params = ", ".join(f"{k}={v!r}" for k, v in card.params.items())
    lines = [
        f"# {card.title}",
        "",
        "<!-- generated by tools/docs_pages.py from the algorithm's card: edit the card, then run it -->",
        "",
        f"Paper {card.paper}. Id `{card.id}`; `swagkit.reference.{card.class_name}` and its compiled twin "
        f"`swagkit.optimized.{card.class_name}`" + (f" with `{params}`" if params else "") + f"; ADT `{card.adt}`; "
        f"monoids: {requires}.",
        "",
        "## Guarantees",
        "",
        "| query | insert | evict | amortized ⊗/op | worst-case ⊗/op | space |" + (" error |" if g.error else ""),
        "|---|---|---|---|---|---|" + ("---|" if g.error else ""),
        f"| {g.query} | {g.insert} | {g.evict} | {g.amortized} | {g.worst_case} | {g.space} |"
        + (f" {g.error} |" if g.error else ""),
        "",
        "## ⊗ budget",
        "",
        *_budget(card),
        "",
        "## Invariants, in the paper's words",
        "",
        *_invariants(card),
        "",
        "## Snapshot",
        "",
        *_snapshot(card),
        "",
        "## A small run",
        "",
        "```sh",
        f'swagkit explain --algorithm {card.id} --monoid {monoid_id} "{script}" --svg {card.id}.svg',
        "```",
        "",
        f"![The state after each operation]({card.id}.svg)",
        "",
        "```text",
        format_steps(f"swagkit explain: {title}", steps),
        "```",
        "",
    ]
    return "\n".join(lines), to_svg(title, steps)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a page is stale")
    args = parser.parse_args(argv)
    from swagkit.spec.algorithms import CARDS

    stale = []
    OUT.mkdir(parents=True, exist_ok=True)
    for card in CARDS:
        text, svg = page(card)
        for path, content in ((OUT / f"{card.id}.md", text), (OUT / f"{card.id}.svg", svg)):
            current = path.read_text(encoding="utf-8") if path.exists() else None
            if current != content:
                stale.append(path.relative_to(ROOT))
                if not args.check:
                    path.write_text(content, encoding="utf-8")
    if args.check and stale:
        print("stale (run python tools/docs_pages.py): " + ", ".join(map(str, stale)), file=sys.stderr)
        return 1
    print(f"{len(CARDS)} algorithm pages " + ("current" if args.check else f"written ({len(stale)} changed)"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
