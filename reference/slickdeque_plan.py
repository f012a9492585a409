"""Driver of a shared plan (paper 001 §2.3 and the Execution loops of Algorithms 1–2): partial aggregation of a
tuple stream into the plan's partials, and final aggregation by one SlickDeque answering every ACQ at its slide.

``run_plan(plan, monoid, stream, variant)`` returns ``[(T, query index, answer), …]`` in stream order (at equal
``T``, longest window first): the answer of each ACQ due after ``T`` tuples, i.e. the lowered aggregate of tuples
``[max(0, T − r), T)``. A trailing incomplete partial produces no answers (no query is due inside a partial).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

from swagkit.spec.monoid import Monoid, as_monoid
from swagkit.spec.slickdeque_plan import SharedPlan

from .slickdeque import SlickDequeInv, SlickDequeNonInv

__all__ = ["run_plan"]


def _same(x: Any) -> Any:
    return x


def run_plan(
    plan: SharedPlan,
    monoid: Monoid[Any, Any, Any],
    stream: Iterable[Any],
    variant: str = "noninv",
    *,
    classes: tuple[Callable[..., Any], Callable[..., Any]] = (SlickDequeInv, SlickDequeNonInv),
) -> list[tuple[int, int, Any]]:
    """Run ``stream`` through ``plan`` with SlickDeque ``variant`` (``"inv"`` or ``"noninv"``); see the module doc.

    The SlickDeque gets the plan's distinct window sizes in partials as its ranges (capacity ``plan.w_size``);
    partials are already lifted, so it runs over ``monoid`` with ``lift`` replaced by the identity function.
    ``classes`` = (Inv class, Non-Inv class), e.g. those of :mod:`swagkit.optimized`. A ``combine`` that raises
    propagates out of ``run_plan`` (the SlickDeque keeps its strong guarantee; the partial answers are lost)."""
    if variant not in ("inv", "noninv"):
        raise ValueError(f"variant must be 'inv' or 'noninv', got {variant!r}")
    monoid = as_monoid(monoid, "run_plan")
    if not isinstance(monoid, Monoid):
        raise TypeError(f"run_plan: expected a Monoid (a dataclass whose lift it can replace), got {monoid!r}")
    lifted = replace(monoid, lift=_same)
    cls = classes[0] if variant == "inv" else classes[1]
    agg = cls(lifted, plan.range_counts)
    out: list[tuple[int, int, Any]] = []
    m = len(plan.lengths)
    p = 0  # partial index in the composite period
    filled = 0
    acc: Any = None
    seen = 0
    for x in stream:
        v = monoid.lift(x)
        acc = v if filled == 0 else monoid.combine(acc, v)
        filled += 1
        seen += 1
        if filled == plan.lengths[p]:
            agg.insert(acc)
            for qi, count in plan.due[p]:
                out.append((seen, qi, agg.query_range(count)))
            filled = 0
            p = (p + 1) % m
    return out
