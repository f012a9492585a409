"""Stateful verification: the generic machine over every FIFO algorithm × implementation × key monoids.

Monoids: ``string_concat`` and ``matrix2x2`` (non-commutative: operand order matters, so a swapped ``⊗`` is
caught), ``max_count`` (non-invertible, not selective: nothing can be "subtracted"), ``max_f64`` (a typed monoid: the
optimized implementation's C fast path), ``affine`` (a non-commutative group, for the algorithms that need an inverse)
and ``argmax`` (selective and non-commutative). Each run checks the model, the invariants, the ⊗ budgets and the space
claim after every operation (see :mod:`swagkit.verify.machine`). Plus the paper's window shapes at sizes well above the
deque's chunk size, and the machine catching planted bugs.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from swagkit.spec.errors import InvariantViolation, ModelMismatch
from swagkit.spec.library import LIBRARY
from swagkit.verify import checked, registry
from swagkit.verify.machine import make_machine, run_machine

MONOIDS = ["string_concat", "matrix2x2", "max_count", "max_f64", "affine", "argmax"]
#: every registered FIFO algorithm (a new card is covered without editing this file), over each of MONOIDS it
#: supports: the invertible-only ones (SlickDeque Inv, Subtract-on-Evict) get the non-commutative group ``affine``,
#: the selective-only one (SlickDeque Non-Inv) the non-commutative ``argmax`` (ties go to one side)
FIFO = [a for a, info in registry.ALGORITHMS.items() if info.kind.name == "fifo"]

COMBOS = [
    pytest.param(a, m, impl, id=f"{a}-{m}-{impl}")
    for a in FIFO
    for impl in registry.available_implementations(a)
    for m in MONOIDS
    if registry.algorithm(a).supports(LIBRARY[m].factory())
]


def test_every_fifo_algorithm_runs_over_a_non_commutative_monoid() -> None:
    covered = {p.values[0] for p in COMBOS if not LIBRARY[str(p.values[1])].factory().commutative}
    assert covered == set(FIFO) and len(FIFO) >= 10


@pytest.mark.parametrize(("algorithm", "monoid", "implementation"), COMBOS)
def test_machine(algorithm: str, monoid: str, implementation: str) -> None:
    stats = run_machine(algorithm, monoid, implementation, max_examples=25, steps=40)
    assert stats.examples >= 25
    assert stats.steps > 0


def test_machine_reaches_chunk_boundaries() -> None:
    # the cap exceeds the reference deque's 64-slot chunks, and Hypothesis does get there
    stats = run_machine("daba", "string_concat", max_examples=40, steps=50, seed=1)
    assert stats.max_window > 64


def test_machine_class_is_named_after_its_combination() -> None:
    machine = make_machine("daba_lite", "max_count", "reference")
    assert machine.__name__ == "DabaLiteMaxCountReferenceMachine"
    subject = machine.subject
    assert (subject.name, machine.monoid_id, subject.implementation) == ("daba_lite", "max_count", "reference")


def _values(monoid: str, n: int) -> list[Any]:
    examples = list(LIBRARY[monoid].examples)
    if monoid == "string_concat":
        return [chr(ord("a") + i % 26) for i in range(n)]
    return [examples[i % len(examples)] for i in range(n)]


@pytest.mark.parametrize(
    ("algorithm", "implementation", "monoid"),
    [
        pytest.param(a, impl, m, id=f"{a}-{impl}-{m}")
        for a in FIFO
        for impl in registry.available_implementations(a)
        for m in ("string_concat", "max_count", "affine")
        if registry.algorithm(a).supports(LIBRARY[m].factory()) and (m != "affine" or registry.algorithm(a).requires)
    ],
)
def test_window_shapes(algorithm: str, implementation: str, monoid: str) -> None:
    """000 §7.1 static window and §7.2 fill-and-drain, plus a see-saw, at sizes spanning several chunks."""
    # by id: a variant card (SlickDeque's multi-query mode) shares its class, whose ``algorithm`` names the base card
    w = checked(registry.create(algorithm, monoid, implementation, check=False), algorithm=algorithm)
    values = _values(monoid, 400)
    w.insert_many(values[:150])  # static: fill, then rounds of evict, insert, query at n = 150
    for v in values[150:250]:
        w.evict()
        w.insert(v)
        w.query()
    w.evict_many(len(w))
    for size in (1, 2, 3, 65, 130):  # fill-and-drain (no queries while draining)
        for v in values[:size]:
            w.insert(v)
            w.query()
        while len(w):
            w.evict()
    for _ in range(12):  # see-saw: up 13, down 7 (drifting up), then the mirror image
        for v in values[:13]:
            w.insert(v)
        w.evict_many(7)
        w.query()
    for _ in range(12):
        w.insert_many(values[:7])
        w.evict_many(min(13, len(w)))
        w.query()
    assert len(w) == len(w.model)


@pytest.fixture
def planted_bug() -> Any:
    sys.path.insert(0, str(Path(__file__).parent))
    try:
        from planted_bugs import SwappedShrink
    finally:
        sys.path.pop(0)
    info = registry.AlgorithmInfo(
        "planted_swapped_shrink",
        "SwappedShrink",
        "DABA Lite with a swapped shrink",
        "tests/planted_bugs.py",
        checker="daba_lite",
        budget="daba_lite",
    )
    with registry.registered(info, {"reference": SwappedShrink}):
        yield info.id


def test_machine_catches_planted_bug(planted_bug: str) -> None:
    with pytest.raises((InvariantViolation, ModelMismatch)):
        run_machine(planted_bug, "string_concat", max_examples=60, steps=50, seed=0)


def test_planted_bug_is_invisible_to_commutative_monoids(planted_bug: str) -> None:
    # the point of running non-commutative monoids: a commutative one cannot see operand order
    run_machine(planted_bug, "max_count", max_examples=10, steps=40, seed=0)


# tests/conftest.py: the compiled pass runs the optimized cases, the pure pass the reference ones (in the pure pass
# the optimized classes are the reference's own subclasses: running both there would run the same code twice)
SPLIT_IMPLEMENTATIONS = True
