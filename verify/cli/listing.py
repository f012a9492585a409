"""``swagkit list``: the registered algorithms with their guarantees, the library monoids, the implementations --
every line within 100 columns."""

from __future__ import annotations

import argparse
import textwrap
from typing import TextIO

from swagkit.spec.library import LIBRARY

from .. import registry
from ..strategies import strategy_for
from .common import WIDTH

__all__ = ["list_command"]


def list_command(args: argparse.Namespace, out: TextIO) -> int:
    """``swagkit list``: algorithms with their guarantees, monoids with properties, implementations."""
    if args.markdown:
        print(registry.guarantees_markdown(), file=out)
        return 0
    print("Algorithms (⊗ calls per operation, worst case; space in stored partial aggregates):", file=out)
    for a in registry.ALGORITHMS.values():
        if a.error:
            continue
        impls = ",".join(registry.available_implementations(a.id)) or "-"
        print("\n" + _wrap(f"{a.id}: {a.title}, {a.paper}", "  ", "      "), file=out)
        facts = [
            f"query {a.worst_query}",
            f"insert {a.worst_insert}",
            f"evict {a.worst_evict}",
            f"amortized {a.amortized}",
            f"worst {a.worst_case}",
            f"space {a.space}",
            f"needs {a.requirement_text()}",
            f"in {impls}",
        ]
        print(_wrap(" · ".join(facts), "      "), file=out)
    approximate = [a for a in registry.ALGORITHMS.values() if a.error]
    if approximate:  # paper 004's structures: no ⊗, an accuracy guarantee instead
        print("\nApproximate structures (take no monoid; error and space bounds are checked contracts):", file=out)
        for a in approximate:
            print("\n" + _wrap(f"{a.id} ({a.kind.name}): {a.title}, {a.paper}", "  ", "      "), file=out)
            print(_wrap(f"guarantee {a.error} · space {a.space}", "      "), file=out)
    print("\nMonoids (properties · equality · typed fast path · input strategy):", file=out)
    for mid, entry in LIBRARY.items():
        m = entry.factory()
        props = ",".join(p for p, v in m.properties().items() if v) or "-"
        try:
            strategy_for(mid)
            has_strategy = "strategy"
        except KeyError:
            has_strategy = "no strategy"
        line = f"{mid}: {props} · {m.tolerance} · fast path {m.fast_path or '-'} · {has_strategy}"
        print(textwrap.fill(line, WIDTH, initial_indent="  ", subsequent_indent="      "), file=out)
    print("\nImplementations:", file=out)
    for impl in registry.IMPLEMENTATIONS.values():
        provided = [a for a in registry.ALGORITHMS if registry.resolve_class(a, impl.id) is not None]
        compiled = impl.compiled()
        built = "" if compiled is None else " (compiled)" if compiled else " (pure-Python fallback)"
        print(f"\n  {impl.id}: {impl.module}{built}, {len(provided)}/{len(registry.ALGORITHMS)} algorithms", file=out)
        print(_wrap(impl.description, "      "), file=out)
    return 0


def _wrap(text: str, indent: str, later: str | None = None) -> str:
    later = indent if later is None else later
    return textwrap.fill(text, WIDTH, initial_indent=indent, subsequent_indent=later, break_on_hyphens=False)
