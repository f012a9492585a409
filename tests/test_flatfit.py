"""FlatFIT (papers 001 §2, 000 §7): model, invariants, budgets and space after every operation, on dynamic
windows; optimized against reference (bit-identical results, equal snapshots and ``combine_count``); the
checker naming each invariant; typed validation and empty evictions leaving the structure intact.

Monoids: ``string_concat`` and ``matrix2x2`` (non-commutative: a swapped ``⊗`` is caught), ``max_count``
(non-invertible), ``max_f64`` and the other typed kinds (the compiled fast path).
"""

from __future__ import annotations

import array
import random
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
from test_optimized_differential import MONOIDS, TYPED, assert_same, canon, gen_value

import swagkit.optimized as opt
import swagkit.reference as ref
from swagkit.optimized import _fallback
from swagkit.reference.flatfit import MIN_CAPACITY
from swagkit.spec.checkers import CHECKERS
from swagkit.spec.checkers.flatfit import WORDING
from swagkit.spec.errors import EmptyWindowError, InvariantViolation, SwagkitError
from swagkit.spec.library import LIBRARY, max_count, string_concat
from swagkit.spec.monoid import Monoid
from swagkit.spec.snapshots import FlatFITState
from swagkit.verify import checked, registry
from swagkit.verify.machine import run_machine

IMPLS = registry.available_implementations("flatfit")


def _values(monoid: str, n: int, rng: random.Random) -> list[Any]:
    if monoid == "string_concat":
        return [rng.choice("abcdefgh") for _ in range(n)]
    examples = list(LIBRARY[monoid].examples)
    return [rng.choice(examples) for _ in range(n)]


def test_registered_everywhere() -> None:
    info = registry.algorithm("flatfit")
    assert info.kind.name == "fifo" and info.class_name == "FlatFIT"
    assert "flatfit" in CHECKERS
    assert set(IMPLS) == {"reference", "optimized"}
    assert ref.FlatFIT.algorithm == opt.FlatFIT.algorithm == "flatfit"
    assert issubclass(_fallback.FlatFIT, ref.FlatFIT) and _fallback.FlatFIT(string_concat())._memory_bytes() is None


@pytest.mark.parametrize("implementation", IMPLS)
@pytest.mark.parametrize("monoid", ["string_concat", "matrix2x2", "max_count", "max_f64"])
def test_machine(monoid: str, implementation: str) -> None:
    stats = run_machine("flatfit", monoid, implementation, max_examples=25, steps=40)
    assert stats.examples >= 25 and stats.steps > 0


def _capacities(w: Any) -> int:
    state = w.snapshot()
    assert isinstance(state, FlatFITState)
    return state.capacity


@pytest.mark.parametrize("implementation", IMPLS)
@pytest.mark.parametrize("monoid", ["string_concat", "matrix2x2", "max_count"])
def test_dynamic_windows_through_resizes(monoid: str, implementation: str) -> None:
    """Grow to 300 and drain to 0 twice (several doublings and halvings), then a see-saw, querying along the
    way; ``checked`` verifies model, invariants (capacity bounds included), budgets and space at every step."""
    cls = registry.resolve_class("flatfit", implementation)
    assert cls is not None
    rng = random.Random(5)
    w = checked(cls(LIBRARY[monoid].factory()))
    seen: set[int] = set()
    for _ in range(2):
        for v in _values(monoid, 300, rng):
            w.insert(v)
            seen.add(_capacities(w))
            if rng.random() < 0.2:
                w.query()
        while len(w):
            w.evict()
            seen.add(_capacities(w))
            if rng.random() < 0.2:
                w.query()
        assert _capacities(w) == MIN_CAPACITY
    assert {2, 4, 8, 16, 32, 64, 128, 256, 512} <= seen  # every doubling (and, on the way down, halving)
    # see-saw between 10 and 70 elements: shrinks and grows repeatedly
    w.insert_many(_values(monoid, 10, rng))
    for _ in range(4):
        for v in _values(monoid, 60, rng):
            w.insert(v)
        w.query()
        w.evict_many(60)
        w.query()
    assert len(w) == 10


@pytest.mark.parametrize("implementation", IMPLS)
def test_fill_and_drain_queries_every_step(implementation: str) -> None:
    cls = registry.resolve_class("flatfit", implementation)
    assert cls is not None
    w = checked(cls(string_concat()))
    text = "thequickbrownfoxjumpsoverthelazydog" * 3
    for i, ch in enumerate(text):
        w.insert(ch)
        assert w.query() == text[: i + 1]
    for i in range(len(text)):
        w.evict()
        assert w.query() == text[i + 1 :]


# ------------------------------------------------------------------------------------------ optimized vs reference

DIFF_MONOIDS = [*MONOIDS, "matrix2x2"]


def _monoid(mname: str) -> Monoid[Any, Any, Any]:
    return LIBRARY[mname].factory() if mname == "matrix2x2" else MONOIDS[mname]()


def _value(mname: str, rng: random.Random) -> Any:
    return rng.choice(list(LIBRARY["matrix2x2"].examples)) if mname == "matrix2x2" else gen_value(mname, rng)


@pytest.mark.parametrize("mname", DIFF_MONOIDS)
def test_optimized_matches_reference(mname: str) -> None:
    """Random insert/evict/insert_many/evict_many with a query after every step (queries restructure FlatFIT,
    so they are part of the compared sequence); windows cross several resizes."""
    for seed in range(6):
        rng = random.Random(seed)
        m = _monoid(mname)
        a, r = opt.FlatFIT(m), ref.FlatFIT(m)
        target = rng.choice([1, 3, 40, 300])
        for step in range(500):
            op = rng.random()
            where = f"{mname} seed={seed} step={step}"
            if op < 0.05:
                vs = [_value(mname, rng) for _ in range(rng.randint(0, 70))]
                a.insert_many(vs)
                r.insert_many(vs)
            elif op < 0.08:
                k = rng.randint(0, len(r))
                a.evict_many(k)
                r.evict_many(k)
            elif len(r) == 0 or (len(r) < target and op < 0.6):
                v = _value(mname, rng)
                a.insert(v)
                r.insert(v)
            else:
                a.evict()
                r.evict()
            if rng.random() < 0.03:
                target = rng.choice([0, 1, 3, 40, 300])
            if rng.random() < 0.5:  # sometimes several updates pass between queries
                assert_same(a, r, where)
        assert_same(a, r, f"{mname} seed={seed} end")


@pytest.mark.parametrize("kind", list(TYPED))
def test_typed_validation_leaves_structure_intact(kind: str) -> None:
    bad: list[Any] = [True, "1", None, float("nan")] if "f64" in kind else [True, 1.5, "1", 2**63, -(2**63) - 1]
    if "f64" in kind:
        bad.append(2**53 + 1)
    for cls in (opt.FlatFIT, ref.FlatFIT):
        a = cls(TYPED[kind]())
        rng = random.Random(1)
        window = [gen_value(kind, rng) for _ in range(10)]
        a.insert_many(window[:9])
        a.query()
        a.insert(window[9])
        before = canon(a.snapshot()), a.combine_count, len(a)
        for x in bad:
            with pytest.raises((TypeError, ValueError, OverflowError)):
                a.insert(x)
            assert (canon(a.snapshot()), a.combine_count, len(a)) == before
        good = gen_value(kind, rng)
        with pytest.raises((TypeError, ValueError, OverflowError)):
            a.insert_many([good, bad[0]])  # every value is validated first: nothing goes in (issue 12)
        assert (canon(a.snapshot()), a.combine_count, len(a)) == before
        CHECKERS["flatfit"](a.snapshot(), a.monoid, [a.monoid.lift(v) for v in window])


@pytest.mark.parametrize("mname", ["string_concat", "max_count", "sum_i64"])
def test_empty_evict_leaves_structure_intact(mname: str) -> None:
    for cls in (opt.FlatFIT, ref.FlatFIT):
        a = cls(MONOIDS[mname]())
        before = canon(a.snapshot())
        with pytest.raises(EmptyWindowError):
            a.evict()
        with pytest.raises(EmptyWindowError):
            a.evict_many(1)
        with pytest.raises(ValueError):
            a.evict_many(-1)
        assert canon(a.snapshot()) == before and a.combine_count == 0
        assert a.query() == a.monoid.lower(a.monoid.identity)
        a.insert_many([gen_value(mname, random.Random(2)) for _ in range(3)])
        a.query()
        before = canon(a.snapshot())
        with pytest.raises(EmptyWindowError):
            a.evict_many(4)
        assert canon(a.snapshot()) == before


@pytest.mark.parametrize("mname", ["string_concat", "max_count", *TYPED])
@pytest.mark.parametrize("window", [1, 2, 7, 64])
def test_window_array_matches_reference(mname: str, window: int) -> None:
    rng = random.Random(window)
    vals = [gen_value(mname, rng) for _ in range(400)]
    want = ref.window_array(ref.FlatFIT, MONOIDS[mname](), vals, window)
    got = opt.window_array(opt.FlatFIT, MONOIDS[mname](), vals, window)
    assert canon(list(got)) == canon(want)
    assert isinstance(got, array.array) == (mname in TYPED)
    if mname in TYPED:  # the compiled loop reads array.array buffers directly
        buf = array.array("d" if "f64" in mname else "q", vals)
        assert canon(list(opt.window_array(opt.FlatFIT, MONOIDS[mname](), buf, window))) == canon(want)


class _Boom(Exception):
    pass


def test_raising_combine_leaves_a_valid_structure() -> None:
    """A ⊗ that raises mid-query: both implementations raise, stay usable, and agree (FlatFIT rewrites a slot
    only after its ⊗ returned, and empties Positions)."""
    for seed in range(10):
        rngs = [random.Random(seed), random.Random(seed)]

        def make(i: int) -> Monoid[Any, Any, Any]:
            def comb(x: str, y: str) -> str:
                if rngs[i].random() < 0.05:
                    raise _Boom()
                return x + y

            return Monoid(identity="", combine=comb, name="boom")

        a, r = opt.FlatFIT(make(0)), ref.FlatFIT(make(1))
        window: list[str] = []
        ops = random.Random(seed + 100)
        for i in range(300):
            if ops.random() < 0.55 or not window:
                ch = chr(97 + i % 26)
                a.insert(ch)
                r.insert(ch)
                window.append(ch)
            else:
                a.evict()
                r.evict()
                window.pop(0)
            outcomes = []
            for agg in (a, r):
                try:
                    outcomes.append(agg.query())
                except _Boom:
                    outcomes.append("boom")
            assert outcomes[0] == outcomes[1]
            assert outcomes[0] in ("boom", "".join(window))
            assert a.combine_count == r.combine_count
            assert canon(a.snapshot()) == canon(r.snapshot())
            CHECKERS["flatfit"](r.snapshot(), string_concat(), window)


def test_reentry_from_combine_is_refused() -> None:
    for cls in (opt.FlatFIT, ref.FlatFIT):
        holder: list[Any] = []

        def comb(x: str, y: str) -> str:
            holder[0].insert("z")
            return x + y

        agg = cls(Monoid(identity="", combine=comb, name="reenter"))
        holder.append(agg)
        agg.insert_many("abc")
        with pytest.raises(SwagkitError):
            agg.query()
        assert len(agg) == 3 and agg.snapshot().positions == ()
        agg.evict()  # still usable afterwards


# ---------------------------------------------------------------------------------------------------- checker


def _healthy() -> tuple[FlatFITState, list[str]]:
    """A state with a wrapped buffer, a stitched range of several elements and fresh single-element ranges."""
    a = ref.FlatFIT(string_concat())
    a.insert_many("abcdefg")
    a.evict_many(3)  # capacity 8, head 3
    a.insert_many("hij")  # wraps around
    a.query()  # stitches d…j: every range ends at tail
    a.evict()
    a.insert("k")  # a fresh single-element range
    s = a.snapshot()
    assert s.capacity == 8 and s.head + s.size > s.capacity and s.size == 7
    return s, list("efghijk")


def _set(t: tuple[Any, ...], i: int, v: Any) -> tuple[Any, ...]:
    return t[:i] + (v,) + t[i + 1 :]


CORRUPTIONS: list[tuple[str, Callable[[FlatFITState], FlatFITState]]] = [
    (
        "capacity",
        lambda s: replace(s, capacity=64, partials=s.partials + (None,) * 56, pointers=s.pointers + (-1,) * 56),
    ),
    ("capacity", lambda s: replace(s, capacity=12, partials=s.partials + (None,) * 4, pointers=s.pointers + (-1,) * 4)),
    ("buffer", lambda s: replace(s, tail=(s.tail + 1) % s.capacity)),
    ("buffer", lambda s: replace(s, partials=_set(s.partials, s.tail, "junk"))),
    ("positions", lambda s: replace(s, positions=(s.head,))),
    ("pointers", lambda s: replace(s, pointers=_set(s.pointers, s.head, s.capacity))),
    ("pointers", lambda s: replace(s, pointers=_set(s.pointers, (s.tail - 1) % s.capacity, (s.tail + 1) % s.capacity))),
    (
        "partials",  # offset 1 now covers [1, 7), crossing offset 0's [0, 6), with a wrong partial
        lambda s: replace(
            s,
            pointers=_set(s.pointers, (s.head + 1) % s.capacity, s.tail),
            partials=_set(s.partials, (s.head + 1) % s.capacity, "fghij"),
        ),
    ),
    ("partials", lambda s: replace(s, partials=_set(s.partials, s.head, s.partials[s.head][::-1]))),
    ("partials", lambda s: replace(s, partials=_set(s.partials, (s.tail - 1) % s.capacity, "x"))),
]


@pytest.mark.parametrize(
    ("invariant", "corrupt"), CORRUPTIONS, ids=[f"{i}-{k}" for k, (i, _) in enumerate(CORRUPTIONS)]
)
def test_checker_names_each_invariant(invariant: str, corrupt: Callable[[FlatFITState], FlatFITState]) -> None:
    state, window = _healthy()
    CHECKERS["flatfit"](state, string_concat(), window)
    bad = corrupt(state)
    with pytest.raises(InvariantViolation) as info:
        CHECKERS["flatfit"](bad, string_concat(), window)
    err = info.value
    assert err.invariant == invariant and err.algorithm == "flatfit"
    assert err.state == bad and err.wording == WORDING[invariant]


def test_checker_accepts_crossing_ranges_with_right_partials() -> None:
    """A range query stitches from mid-window to ``tail``, which may cross an older range: still a valid state."""
    state, window = _healthy()
    crossing = replace(
        state,
        pointers=_set(state.pointers, (state.head + 1) % state.capacity, state.tail),
        partials=_set(state.partials, (state.head + 1) % state.capacity, "fghijk"),
    )
    CHECKERS["flatfit"](crossing, string_concat(), window)
    a = ref.FlatFIT(string_concat())
    a.insert_many("abcdef")
    assert a.query_range(4) == "cdef" and a.query() == "abcdef"
    a.insert("g")
    assert a.query_range(3) == "efg"  # stitches e…g across the older range [a, g)
    CHECKERS["flatfit"](a.snapshot(), string_concat(), list("abcdefg"))


@pytest.mark.parametrize("impl", ["reference", "optimized"])
def test_max_multi_step_costs_at_most_n_minus_1(impl: str) -> None:
    """001 §4: with ranges 1..n all answered every step (longest first) FlatFIT keeps its structure updated, so
    a step costs at most n − 1 ⊗ once the window is full."""
    cls = ref.FlatFIT if impl == "reference" else opt.FlatFIT
    rng = random.Random(5)
    for n in (1, 2, 7, 32):
        a = cls(string_concat())
        for step in range(4 * n + 10):
            if len(a) == n:
                a.evict()
            a.insert(rng.choice("abc"))
            c0 = a.combine_count
            for r in range(n, 0, -1):
                a.query_range(r)
            if step >= n:
                assert a.combine_count - c0 <= max(0, n - 1), (n, step)


def test_checker_detects_a_window_mismatch() -> None:
    state, window = _healthy()
    with pytest.raises(InvariantViolation) as info:
        CHECKERS["flatfit"](state, string_concat(), window[:-1])
    assert info.value.invariant in ("buffer", "capacity")
    with pytest.raises(InvariantViolation) as info:
        CHECKERS["flatfit"](state, string_concat(), ["z", *window[1:]])
    assert info.value.invariant == "partials"


def test_non_invertible_monoid_checker_roundtrip() -> None:
    m = max_count()
    a = ref.FlatFIT(m)
    vals = [3, 1, 3, 2, 3, 0, 1]
    a.insert_many(vals)
    assert a.query() == 3  # lowered: how many times the maximum 3 occurs
    a.evict_many(2)
    a.insert(3)
    CHECKERS["flatfit"](a.snapshot(), m, [m.lift(v) for v in [3, 2, 3, 0, 1, 3]])
    assert a.query() == 3
    a.evict_many(3)
    assert a.query() == 1  # [0, 1, 3]: nothing can be subtracted, the stitched ranges are re-traversed
