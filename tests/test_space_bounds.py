"""Issue 14 §1: paper 004's space bounds tight enough to notice a lost compression. ``4b/ε + 1`` does not depend on
N, so over a small universe or ε it exceeds every possible digest; the debug wrappers also check the N-aware count
``⌊4N/⌈γ⌉⌋ + 1`` after compress and that a structure compresses within its bound's number of updates
(:func:`swagkit.spec.decay.bounds.space_findings`). Planted structures that never compress, or compress eight
times too rarely, are caught by the state machines at the settings of ``tests/test_decay_verify.py``; the correct
structures, reference and optimized, stay within the bounds."""

from __future__ import annotations

import time
from fractions import Fraction
from typing import Any

import pytest
from planted_decay_bugs import PLANTED_SPACE

from swagkit import optimized, reference
from swagkit.spec.decay.bounds import qdigest_compressed_size_bound, qdigest_size_bound, space_findings
from swagkit.spec.errors import InvariantViolation
from swagkit.verify import registry
from swagkit.verify.kinds.base import Subject
from swagkit.verify.kinds.decay.machine import make_sketch_machine, make_time_decayed_machine
from swagkit.verify.kinds.machines import run_machine_class
from swagkit.verify.kinds.sketch import checked_sketch

#: the machine settings of tests/test_decay_verify.py's state-machine test
EXAMPLES, STEPS, SEED = 8, 25, 7
#: which registered structure each planted class breaks, and its machine
_STRUCTURES = {
    "NeverCompresses": ("qdigest", make_sketch_machine),
    "CompressesTooRarely": ("qdigest", make_sketch_machine),
    "QuantilesCompressTooRarely": ("window_quantiles", make_time_decayed_machine),
}


def test_the_n_aware_bound_is_never_looser() -> None:
    for bits in range(1, 13):
        for eps in (0.01, 0.05, 0.2, 0.5, 0.9):
            paper = qdigest_size_bound(bits, eps)
            for total in (0, 1, 5, 50, 999, 10**6):
                bound = qdigest_compressed_size_bound(bits, eps, total)
                assert bound <= paper
                # γ <= 1: nothing merges, at most 4 ranges per unit of weight (plus the root)
                if total and Fraction(eps) * total <= bits:
                    assert bound == min(4 * total + 1, paper)


@pytest.mark.once  # independent of swagkit.optimized
@pytest.mark.parametrize("name", ["CompressesTooRarely", "QuantilesCompressTooRarely"])
def test_a_too_rare_compression_is_caught_by_the_machine(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    algorithm, make = _STRUCTURES[name]
    info = registry.algorithm(algorithm)
    subject = Subject(algorithm, PLANTED_SPACE[name], dict(info.params), takes_monoid=False, facts=info)
    start = time.perf_counter()
    with pytest.raises(InvariantViolation) as caught:
        run_machine_class(make(subject, "count"), EXAMPLES, STEPS, SEED)
    seconds = time.perf_counter() - start
    assert caught.value.invariant == "compress period", caught.value
    assert seconds < 30  # shrinking included: about a second on an idle machine
    with capsys.disabled():
        print(f"\n  {name}: '{caught.value.invariant}' after {seconds:.1f} s", end="")


def _stream(d: Any, bits: int, n: int) -> None:
    for i in range(n):
        d.insert((i * 37 + i // 7) % (1 << bits), 1 + i % 3)
        if i % 41 == 40:
            d.compress()


@pytest.mark.parametrize("impl", [reference, optimized], ids=["reference", "optimized"])
@pytest.mark.parametrize(("bits", "eps"), [(8, 0.05), (8, 0.5), (8, 0.9), (5, 0.2), (3, 0.9), (10, 0.3)])
def test_correct_digests_stay_within_the_tight_bounds(impl: Any, bits: int, eps: float) -> None:
    d = checked_sketch(impl.QDigest(universe_bits=bits, eps=eps), algorithm="qdigest")  # checks after every insert
    _stream(d, bits, 1500)
    d.compress()
    state = d.inner.snapshot()
    assert state.compressed and not space_findings(state)
    assert len(state.nodes) <= qdigest_compressed_size_bound(bits, eps, state.total)


@pytest.mark.once
def test_a_never_compressing_digest_breaks_the_bound_where_the_universe_allows() -> None:
    d = PLANTED_SPACE["NeverCompresses"](universe_bits=8, eps=0.9)
    for i in range(36):  # the 36th insert runs the periodic compress (period ⌊4·8/0.9 + 1⌋ = 36), which does nothing
        d.insert(i * 5 % 256)
    # 36 ranges, γ = 0.9·36/8 = 4.05: a compressed digest keeps at most ⌊4·36/5⌋ + 1 = 29; 4b/ε + 1 = 36 allows it
    assert [w for w, _ in space_findings(d.snapshot())] == ["size after compress"]
    assert len(d.snapshot().nodes) == 36 <= qdigest_size_bound(8, 0.9)
    # the debug wrapper reports it at that insert (the machine finds it in its first examples too, but shrinking
    # a trace that must keep ~30 distinct ranges takes 15-100 s: not run here)
    w = checked_sketch(PLANTED_SPACE["NeverCompresses"](universe_bits=8, eps=0.9), algorithm="qdigest")
    with pytest.raises(InvariantViolation) as caught:
        for i in range(36):
            w.insert(i * 5 % 256)
    assert caught.value.invariant == "size after compress" and w.inner.total == 36
