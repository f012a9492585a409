"""Fault injection, re-entrancy and thread fuzzing for every structure that takes a monoid (issue 12).

The tests in ``test_exception_safety.py``, ``test_reentrancy.py`` and ``test_copy_pickle.py`` drive every
registered algorithm through one deterministic *script* of operations per ADT kind, with a monoid whose
``combine`` can be told to misbehave at its k-th call:

* **fault**: raise (an ordinary exception, or ``KeyboardInterrupt``) once;
* **re-entry**: call back into the structure (insert, evict, query, snapshot ...), then either swallow the
  refusal and return the right value, or let the refusal propagate out of ``combine``.

Every position of every operation of the script is tried. After the operation the structure must keep its
documented exception guarantee (``exception_safety``: ``"strong"`` -- exactly as before -- or ``"refuse"`` --
every later call raises :class:`BrokenAggregatorError` until ``repair()``), and the rest of the script must
answer exactly like the model. The model is the ADT's recompute-from-scratch executable spec.

Run as a script (``python tests/hardening.py reentry ALGO IMPL`` / ``threads ALGO IMPL``) the re-entrancy and
thread checks run in a child process, so that a crash of compiled code fails a test instead of killing pytest.
"""

from __future__ import annotations

import copy
import random
import sys
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from swagkit.spec.adt import FifoSwag
from swagkit.spec.errors import BrokenAggregatorError, ReentrantCallError
from swagkit.spec.library import argmax, string_concat, sum_monoid
from swagkit.spec.monoid import Monoid, fold
from swagkit.spec.nonfifo import OrderedMultisetWindow
from swagkit.spec.ooo import TimedWindow
from swagkit.verify import registry

Op = tuple[Any, ...]


class InjectedFault(Exception):
    """The transient error the faulty combine raises."""


class Faulty:
    """A ``combine`` that counts its calls and misbehaves once at a chosen call (see the module docstring)."""

    def __init__(self, inner: Callable[[Any, Any], Any]) -> None:
        self.inner = inner
        self.calls = 0
        self._countdown = 0
        self._action: Callable[[], None] | None = None

    def arm(self, k: int, action: Callable[[], None]) -> None:
        """Run ``action`` inside the k-th call from now (k ≥ 1), before computing the result."""
        self._countdown = k
        self._action = action

    def disarm(self) -> None:
        self._countdown = 0
        self._action = None

    @property
    def armed(self) -> bool:
        return self._countdown > 0

    def __call__(self, a: Any, b: Any) -> Any:
        self.calls += 1
        if self._countdown:
            self._countdown -= 1
            if self._countdown == 0 and self._action is not None:
                action, self._action = self._action, None
                action()
        return self.inner(a, b)


def faulty(monoid: Monoid[Any, Any, Any]) -> tuple[Monoid[Any, Any, Any], Faulty]:
    """``monoid`` with a :class:`Faulty` combine (``fast_path=None``: the compiled code takes its generic path)."""
    f = Faulty(monoid.combine)
    return replace(monoid, combine=f, fast_path=None), f


# ----------------------------------------------------------------------------------------------------------------
# models with the extra queries some structures have


class FifoModel(FifoSwag[Any, Any, Any]):
    """:class:`FifoSwag` plus SlickDeque's and FlatFIT's range queries."""

    def query_range(self, r: int) -> Any:
        vals = self.values()[-r:] if r > 0 else []
        return self.monoid.lower(fold(self.monoid, vals))

    def query_all(self) -> dict[int, Any]:  # answered for the ranges the structure was built with
        return {r: self.query_range(r) for r in self.ranges}

    ranges: Sequence[int] = ()


class HandlesModel(OrderedMultisetWindow[Any, Any, Any]):
    """:class:`OrderedMultisetWindow` plus the bulk insertion with handles."""

    def insert_many_with_handles(self, values: Iterable[Any]) -> list[int]:
        return [self.insert_with_handle(v) for v in values]


class LeavesModel:
    """FlatFAT's model: a list of leaves, bulk updates with the last write winning."""

    def __init__(self, monoid: Monoid[Any, Any, Any], values: Sequence[Any]) -> None:
        self.monoid = monoid
        self.leaves_ = [monoid.lift(v) for v in values]

    def update(self, pairs: Iterable[tuple[int, Any]]) -> None:
        for i, v in list(pairs):
            self.leaves_[i] = self.monoid.lift(v)

    def _out(self, vals: Sequence[Any]) -> Any:
        return self.monoid.lower(fold(self.monoid, vals))

    def aggregate(self) -> Any:
        return self._out(self.leaves_)

    def prefix(self, i: int) -> Any:
        return self._out(self.leaves_[: i + 1])

    def suffix(self, j: int) -> Any:
        return self._out(self.leaves_[j:])

    def leaves(self) -> list[Any]:
        return list(self.leaves_)

    def __len__(self) -> int:
        return len(self.leaves_)


# ----------------------------------------------------------------------------------------------------------------
# one ADT kind = how to build the structure and its model, the script, what to observe


@dataclass
class Kind:
    name: str
    build: Callable[[Any, Monoid[Any, Any, Any]], tuple[Any, Any]]  # (class, monoid) -> (structure, model)
    script: Callable[[Any, Sequence[Any]], list[Op]]  # (structure, values) -> operations
    observe: Callable[[Any], tuple[Any, ...]]
    #: re-entrant calls to try from inside combine: name -> call(structure, a value)
    reentries: dict[str, Callable[[Any, Any], Any]] = field(default_factory=dict)
    #: what a model holds, in the format of ``salvage()``
    contents: Callable[[Any], list[Any]] = lambda model: list(model.values())


def _fifo_build(cls: Any, monoid: Monoid[Any, Any, Any], **params: Any) -> tuple[Any, Any]:
    if hasattr(cls, "query_all"):
        params.setdefault("ranges", (2, 5, 32))  # SlickDeque's many queries on one structure (001)
    agg = cls(monoid, **params)
    model = FifoModel(monoid)
    model.ranges = tuple(getattr(agg, "ranges", ()) or ())
    return agg, model


def fifo_script(agg: Any, values: Sequence[Any], seed: int = 0) -> list[Op]:
    """Grow to 9, drain to 0, see-saw, bulk calls, drain again: every flip/fixup case of paper 000 and 001."""
    rng = random.Random(seed)
    ops: list[Op] = []
    n = 0

    def ins() -> None:
        nonlocal n
        ops.append(("insert", rng.choice(values)))
        n += 1

    def ev() -> None:
        nonlocal n
        ops.append(("evict",))
        n -= 1

    def queries() -> None:
        ops.append(("query",))
        if hasattr(agg, "query_range") and n:
            ranges = getattr(agg, "ranges", None)
            ops.append(("query_range", rng.choice(ranges) if ranges else rng.randint(1, n)))
        if hasattr(agg, "query_all") and getattr(agg, "ranges", None):
            ops.append(("query_all",))

    for _ in range(9):
        ins()
        queries()
    for _ in range(9):
        ev()
        queries()
    for _ in range(3):
        ins()
    for _ in range(12):  # see-saw around a small window
        (ins if rng.random() < 0.55 or n == 0 else ev)()
        queries()
    ops.append(("insert_many", [rng.choice(values) for _ in range(5)]))
    n += 5
    queries()
    ops.append(("evict_many", 3))
    n -= 3
    queries()
    if n:
        ops.append(("evict_many", n))
        n = 0
    queries()
    for _ in range(4):
        ins()
        queries()
    return ops


def _fifo_observe(agg: Any) -> tuple[Any, ...]:
    # the answer is read from a copy: FlatFIT's query stitches its pointers (000 §7), changing the snapshot
    return (len(agg), agg.snapshot() if hasattr(agg, "snapshot") else None, copy.copy(agg).query())


def handles_script(agg: Any, values: Sequence[Any], seed: int = 0) -> list[Op]:
    """FIFO operations mixed with removals by handle at every position (paper 002's non-FIFO windows)."""
    rng = random.Random(seed)
    ops: list[Op] = []
    live: list[int] = []
    nxt = 0
    for step in range(40):
        r = rng.random()
        if not live or r < 0.5:
            ops.append(("insert_with_handle", rng.choice(values)))
            live.append(nxt)
            nxt += 1
        elif r < 0.75:
            h = live.pop(rng.randrange(len(live)))
            ops.append(("remove", h))
        else:
            ops.append(("evict",))
            live.pop(0)
        ops.append(("query",))
        if step == 20:
            ops.append(("insert_many_with_handles", [rng.choice(values) for _ in range(4)]))
            live += list(range(nxt, nxt + 4))
            nxt += 4
            ops.append(("query",))
    return ops


def _handles_observe(agg: Any) -> tuple[Any, ...]:
    return (len(agg), agg.handles(), agg.snapshot(), agg.query())


def ooo_script(agg: Any, values: Sequence[Any], seed: int = 0) -> list[Op]:
    """Out-of-order inserts (with repeated times), evictions, bulk evictions and collision-heavy bulk inserts,
    range queries and removals: trees several levels deep for every μ."""
    rng = random.Random(seed)
    ops: list[Op] = []
    times: set[int] = set()
    for step in range(70):
        r = rng.random()
        if not times or r < 0.45:
            t = rng.randrange(0, 120)
            ops.append(("insert", t, rng.choice(values)))
            times.add(t)
        elif r < 0.55:
            ops.append(("evict",))
            times.discard(min(times))
        elif r < 0.62:
            t = rng.choice(sorted(times))
            ops.append(("remove", t))
            times.discard(t)
        elif r < 0.70:
            cut = rng.choice(sorted(times)) if rng.random() < 0.7 else rng.randrange(-5, 125)
            ops.append(("bulk_evict", cut))
            times = {t for t in times if t > cut}
        elif r < 0.85:
            pool = sorted(times)
            ts = sorted(
                rng.choice(pool) if pool and rng.random() < 0.5 else rng.randrange(0, 120)
                for _ in range(rng.randint(1, 9))
            )
            ops.append(("bulk_insert", [(t, rng.choice(values)) for t in ts]))
            times.update(ts)
        else:
            a = rng.randrange(-5, 125)
            ops.append(("range_query", a, a + rng.randrange(0, 60)))
        ops.append(("query",))
        if step % 10 == 9:
            ops.append(("items",))
    return ops


def _ooo_observe(agg: Any) -> tuple[Any, ...]:
    return (len(agg), agg.items(), agg.snapshot(), agg.query())


def tree_script(agg: Any, values: Sequence[Any], seed: int = 0) -> list[Op]:
    """FlatFAT: bulk leaf updates of every size (repeated leaves: last write wins), prefix/suffix queries."""
    rng = random.Random(seed)
    n = len(agg)
    ops: list[Op] = []
    for _ in range(25):
        m = rng.choice((1, 1, 2, 3, 5, n))
        ops.append(("update", [(rng.randrange(n), rng.choice(values)) for _ in range(m)]))
        ops.append(("aggregate",))
        ops.append(("prefix", rng.randrange(n)))
        ops.append(("suffix", rng.randrange(n)))
    return ops


def _tree_observe(agg: Any) -> tuple[Any, ...]:
    return (len(agg), agg.leaves(), agg.snapshot(), agg.aggregate())


KINDS: dict[str, Kind] = {
    "fifo": Kind(
        "fifo",
        _fifo_build,
        fifo_script,
        _fifo_observe,
        {
            "insert": lambda a, v: a.insert(v),
            "evict": lambda a, v: a.evict(),
            "query": lambda a, v: a.query(),
            "snapshot": lambda a, v: a.snapshot(),
            "insert_many": lambda a, v: a.insert_many([v, v]),
            "evict_many": lambda a, v: a.evict_many(1),
            "len": lambda a, v: len(a),
            "repr": lambda a, v: repr(a),
            "copy": lambda a, v: copy.copy(a),
        },
    ),
    "handles": Kind(
        "handles",
        lambda cls, m, **p: (cls(m, **p), HandlesModel(m)),
        handles_script,
        _handles_observe,
        {
            "insert_with_handle": lambda a, v: a.insert_with_handle(v),
            "remove": lambda a, v: a.remove(0),
            "evict": lambda a, v: a.evict(),
            "query": lambda a, v: a.query(),
            "snapshot": lambda a, v: a.snapshot(),
            "handles": lambda a, v: a.handles(),
            "len": lambda a, v: len(a),
        },
        lambda model: list(zip(model.handles(), model.values())),
    ),
    "out_of_order": Kind(
        "out_of_order",
        lambda cls, m, **p: (cls(m, **p), TimedWindow(m)),
        ooo_script,
        _ooo_observe,
        {
            "insert": lambda a, v: a.insert(50, v),
            "evict": lambda a, v: a.evict(),
            "bulk_evict": lambda a, v: a.bulk_evict(30),
            "bulk_insert": lambda a, v: a.bulk_insert([(10, v), (10, v), (60, v)]),
            "remove": lambda a, v: a.remove(a.oldest()),
            "query": lambda a, v: a.query(),
            "range_query": lambda a, v: a.range_query(10, 80),
            "items": lambda a, v: a.items(),
            "snapshot": lambda a, v: a.snapshot(),
            "len": lambda a, v: len(a),
        },
        lambda model: list(model.items()),
    ),
    "tree": Kind(
        "tree",
        lambda cls, m, **p: (
            cls(m, [VALUES_OF[id(m)][i % 3] for i in range(16)], **p),
            LeavesModel(m, [VALUES_OF[id(m)][i % 3] for i in range(16)]),
        ),
        tree_script,
        _tree_observe,
        {
            "update": lambda a, v: a.update([(0, v)]),
            "aggregate": lambda a, v: a.aggregate(),
            "prefix": lambda a, v: a.prefix(3),
            "snapshot": lambda a, v: a.snapshot(),
            "leaves": lambda a, v: a.leaves(),
            "len": lambda a, v: len(a),
        },
        lambda model: model.leaves(),
    ),
}

#: values of a test monoid, by ``id(monoid)`` (the tree kind builds its leaves from them)
VALUES_OF: dict[int, Sequence[Any]] = {}


# ----------------------------------------------------------------------------------------------------------------
# which algorithms, with which monoid


@dataclass(frozen=True)
class Case:
    algorithm: str
    implementation: str

    @property
    def info(self) -> registry.AlgorithmInfo:
        return registry.algorithm(self.algorithm)

    @property
    def kind(self) -> Kind:
        info = self.info
        if info.kind.name == "fifo" and hasattr(self.cls, "remove"):
            return KINDS["handles"]
        return KINDS[info.kind.name]

    @property
    def cls(self) -> Any:
        return registry.resolve_class(self.algorithm, self.implementation)

    def __str__(self) -> str:
        return f"{self.algorithm}-{self.implementation}"


#: monoids the scripts use, most demanding first: non-commutative and non-invertible, then non-commutative
#: selective (SlickDeque Non-Inv), then an exact group (SlickDeque Inv)
TEST_MONOIDS: list[tuple[Callable[[], Monoid[Any, Any, Any]], Sequence[Any]]] = [
    (string_concat, ["a", "b", "c", "d", "e", "xy"]),
    (argmax, [(3, "a"), (7, "b"), (7, "c"), (-1, "d"), (5, "e")]),
    (sum_monoid, [1, -2, 5, 10**20, 7]),
]


def monoid_for(case: Case) -> tuple[Monoid[Any, Any, Any], Sequence[Any]] | None:
    """The first test monoid the algorithm supports (None: it takes no monoid)."""
    info = case.info
    if info.monoids is not None:
        return None
    for factory, values in TEST_MONOIDS:
        m = factory()
        if info.supports(m):
            return m, values
    return None


def cases() -> list[Case]:
    """Every registered algorithm that takes a monoid × every implementation that provides it (``recalc`` is
    the model itself and is left out). Cards with a restricted window contract (SlickDeque's multi-query variants)
    are left out too: the scripts drive an unbounded FIFO window, and the same classes run here in multi-query
    mode with ranges (2, 5, 32) under their base cards."""
    out = []
    for info in registry.ALGORITHMS.values():
        if info.monoids is not None or info.id == "recalc" or (info.card is not None and info.card.contract):
            continue
        for impl in registry.available_implementations(info.id):
            out.append(Case(info.id, impl))
    return out


@dataclass
class Setup:
    case: Case
    monoid: Monoid[Any, Any, Any]
    faulty: Faulty
    values: Sequence[Any]
    script: list[Op]

    def fresh(self) -> tuple[Any, Any]:
        self.faulty.disarm()
        return self.case.kind.build(self.case.cls, self.monoid, **self.case.info.params)


ScriptFn = Callable[[Any, Sequence[Any], int], list[Op]]


def setup(case: Case, seed: int = 0, script: ScriptFn | None = None) -> Setup:
    """The case's faulty monoid, its values and its script (the kind's, or ``script(structure, values, seed)``)."""
    base = monoid_for(case)
    assert base is not None, f"{case}: no test monoid"
    monoid, f = faulty(base[0])
    VALUES_OF[id(monoid)] = base[1]
    agg, _ = case.kind.build(case.cls, monoid, **case.info.params)
    return Setup(case, monoid, f, base[1], (script or case.kind.script)(agg, base[1], seed))


def apply(obj: Any, op: Op) -> Any:
    """Run one operation; list-like answers are made lists (so structure and model compare)."""
    name, *args = op
    out = getattr(obj, name)(*args)
    if name in ("items", "leaves", "handles", "insert_many_with_handles"):
        out = list(out)
    return out


def _same(monoid: Monoid[Any, Any, Any], got: Any, want: Any) -> bool:
    return bool(got == want)


def expected_answers(s: Setup) -> list[Any]:
    """The model's answer to every operation of the script."""
    _, model = s.fresh()
    return [apply(model, op) for op in s.script]


def combine_calls(s: Setup) -> list[int]:
    """How many ⊗ calls each operation of the script makes on the structure (clean run)."""
    agg, _ = s.fresh()
    calls = []
    for op in s.script:
        before = s.faulty.calls
        apply(agg, op)
        calls.append(s.faulty.calls - before)
    return calls


def replay(s: Setup, upto: int) -> Any:
    agg, _ = s.fresh()
    for op in s.script[:upto]:
        apply(agg, op)
    return agg


def guarantee(agg: Any) -> str:
    g = getattr(type(agg), "exception_safety", None)
    assert g in ("strong", "refuse"), f"{type(agg).__qualname__}.exception_safety is {g!r}"
    return str(g)


def check_rest(s: Setup, agg: Any, start: int, want: list[Any], what: str) -> None:
    """Run the script from ``start`` on and compare every answer with the model's."""
    for j in range(start, len(s.script)):
        got = apply(agg, s.script[j])
        assert _same(s.monoid, got, want[j]), (
            f"{s.case} {what}: op {j} {s.script[j]!r} answered {got!r}, the model {want[j]!r}"
        )


#: bulk calls that are loops of single operations: a failure part-way leaves a prefix of them applied
BULK = {"insert_many": "insert", "evict_many": "evict", "insert_many_with_handles": "insert_with_handle"}


def _singles(op: Op) -> list[Op]:
    name, arg = op
    single = BULK[name]
    return [(single,)] * arg if single == "evict" else [(single, v) for v in arg]


def check_after_failed_op(s: Setup, agg: Any, i: int, before: tuple[Any, ...], want: list[Any], what: str) -> None:
    """The op ``i`` raised out of ``combine``: the structure keeps its guarantee, then the script goes on.

    Strong: exactly as before; for a bulk call that is a loop of single operations (``insert_many``,
    ``evict_many``), exactly as after a prefix of them, and the rest of the bulk is then applied one by one."""
    op = s.script[i]
    if guarantee(agg) == "strong":
        after = s.case.kind.observe(agg)
        if op[0] in BULK and after != before:
            singles = _singles(op)
            twin = replay(s, i)
            for j, single in enumerate(singles):  # noqa: B007 (j is read after the loop)
                apply(twin, single)
                if s.case.kind.observe(twin) == after:
                    break
            else:
                raise AssertionError(f"{s.case} {what}: a failed {op[0]} left neither a prefix of it applied")
            for single in singles[j + 1 :]:
                apply(agg, single)
            check_rest(s, agg, i + 1, want, what)
            return
        assert after == before, f"{s.case} {what}: state changed by a failed op {op!r}:\n{before}\n{after}"
        check_rest(s, agg, i, want, what)  # op i again, now without a fault, and the rest
        return
    # refuse: a failure that changed nothing leaves the structure usable and exactly as before (strong for that
    # failure); otherwise every call that reads or changes the state raises until repair(), which restores a
    # consistent state holding either the contents before or after the op
    try:
        after = s.case.kind.observe(agg)
    except BrokenAggregatorError:
        pass
    else:
        assert after == before, f"{s.case} {what}: a failed op {op!r} changed the state without refusing"
        check_rest(s, agg, i, want, what)
        return
    for name, call in s.case.kind.reentries.items():
        if name in ("len", "repr", "copy", "snapshot", "items", "handles", "leaves"):
            continue
        try:
            call(agg, s.values[0])
        except BrokenAggregatorError:
            continue
        raise AssertionError(f"{s.case} {what}: {name} on a broken structure did not raise BrokenAggregatorError")
    held = list(agg.salvage())
    agg.repair()
    contents = s.case.kind.contents
    _, model = s.fresh()
    for op in s.script[:i]:
        apply(model, op)
    if contents(model) == held:
        check_rest(s, agg, i, want, what)
        return
    apply(model, s.script[i])
    assert contents(model) == held, f"{s.case} {what}: salvage() holds neither the state before nor after the op"
    check_rest(s, agg, i + 1, want, what)


def run_faults(
    case: Case,
    exc: Callable[[], BaseException] = lambda: InjectedFault("transient"),
    every: int = 1,
    seed: int = 0,
    script: ScriptFn | None = None,
) -> int:
    """Fail ``combine`` once at every ``every``-th ⊗ position of every operation; returns the runs done."""
    s = setup(case, seed, script)
    want = expected_answers(s)
    calls = combine_calls(s)
    runs = 0
    position = 0
    for i, c in enumerate(calls):
        for k in range(1, c + 1):
            position += 1
            if position % every:
                continue
            agg = replay(s, i)
            before = s.case.kind.observe(agg)

            def boom() -> None:
                raise exc()

            s.faulty.arm(k, boom)
            try:
                apply(agg, s.script[i])
            except (InjectedFault, KeyboardInterrupt):
                pass
            else:
                raise AssertionError(f"{case}: the fault at ⊗ {k} of op {i} {s.script[i]!r} did not propagate")
            s.faulty.disarm()
            check_after_failed_op(s, agg, i, before, want, f"fault at ⊗ {k} of op {i}")
            runs += 1
    return runs


def run_reentry(case: Case, every: int = 1, seed: int = 0, script: ScriptFn | None = None) -> int:
    """From inside the k-th ⊗ of every operation, call every re-entry of the kind: it must raise
    :class:`ReentrantCallError` (len/repr may answer); then (a) swallowed, the operation completes correctly,
    (b) propagated, the operation fails and the structure keeps its guarantee."""
    s = setup(case, seed, script)
    want = expected_answers(s)
    calls = combine_calls(s)
    runs = 0
    position = 0
    for i, c in enumerate(calls):
        for k in range(1, c + 1):
            position += 1
            if position % every:
                continue
            for name, call in s.case.kind.reentries.items():
                for propagate in (False, True):
                    agg = replay(s, i)
                    before = s.case.kind.observe(agg)
                    seen: list[BaseException | None] = []

                    def reenter() -> None:
                        try:
                            call(agg, s.values[0])
                        except ReentrantCallError as err:
                            seen.append(err)
                            if propagate:
                                raise
                        else:
                            seen.append(None)

                    s.faulty.arm(k, reenter)
                    what = f"re-entrant {name} (propagate={propagate}) at ⊗ {k} of op {i} {s.script[i]!r}"
                    try:
                        got = apply(agg, s.script[i])
                    except ReentrantCallError:
                        assert propagate and seen and seen[0] is not None, f"{case} {what}: unexpected refusal"
                        s.faulty.disarm()
                        check_after_failed_op(s, agg, i, before, want, what)
                    else:
                        s.faulty.disarm()
                        assert seen, f"{case} {what}: combine was not called"
                        if name not in ("len", "repr"):
                            assert seen[0] is not None, f"{case} {what}: the re-entrant call was accepted"
                        assert _same(s.monoid, got, want[i]), f"{case} {what}: answered {got!r}, model {want[i]!r}"
                        check_rest(s, agg, i + 1, want, what)
                    runs += 1
    return runs


def run_threads(case: Case, seconds: float = 1.0, seed: int = 0) -> dict[str, int]:
    """Two threads on one structure whose ``combine`` yields the GIL on every call: a writer that inserts
    distinct values and evicts (retrying refused calls), and a reader that queries. Every call either succeeds
    or raises :class:`ReentrantCallError`; the reader's answers are answers of the writer's history, and the
    final state is the model's."""
    if case.kind.name not in ("fifo", "handles"):
        raise ValueError("thread fuzzing drives FIFO structures")
    base = monoid_for(case)
    assert base is not None
    inner = base[0]

    def slow(a: Any, b: Any) -> Any:
        time.sleep(0)
        return inner.combine(a, b)

    monoid = replace(inner, combine=slow, fast_path=None)
    agg = case.cls(monoid, **case.info.params)
    model = FifoModel(monoid)
    if inner.invertible:  # SlickDeque Inv, Subtract-on-Evict: the exact group sum_monoid
        values = list(range(1, 10_000))
    elif case.algorithm.startswith("slickdeque_noninv"):
        values = [(k, f"p{k}") for k in range(10_000)]
    else:
        values = [f"<{k}>" for k in range(10_000)]
    history: set[Any] = {model.query()}
    stop = threading.Event()
    stats = {"writes": 0, "reads": 0, "refused": 0}
    errors: list[BaseException] = []
    rng = random.Random(seed)

    def writer() -> None:
        try:
            k = 0
            while not stop.is_set() and k < len(values):
                op = "insert" if len(model) < 8 and (len(model) == 0 or rng.random() < 0.6) else "evict"
                try:
                    if op == "insert":
                        agg.insert(values[k])
                    else:
                        agg.evict()
                except ReentrantCallError:
                    stats["refused"] += 1
                    time.sleep(0)
                    continue
                if op == "insert":
                    model.insert(values[k])
                    k += 1
                else:
                    model.evict()
                history.add(model.query())
                stats["writes"] += 1
        except BaseException as err:  # reported by the main thread
            errors.append(err)
        finally:
            stop.set()

    answers: list[Any] = []

    def reader() -> None:
        try:
            while not stop.is_set():
                try:
                    answers.append(agg.query())
                    len(agg)
                    stats["reads"] += 1
                except ReentrantCallError:
                    stats["refused"] += 1
                time.sleep(0)
        except BaseException as err:
            errors.append(err)

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=writer), threading.Thread(target=reader)]
        for t in threads:
            t.start()
        time.sleep(seconds)
        stop.set()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
    assert not errors, f"{case}: {errors[0]!r}"
    assert agg.query() == model.query() and len(agg) == len(model), f"{case}: final state differs from the model"
    stray = [a for a in answers if a not in history]
    assert not stray, f"{case}: the reader saw {stray[0]!r}, never a state of the writer's history"
    return stats


#: every case by its test id (``ALGO-IMPL``)
CASES_BY_ID: dict[str, Case] = {str(c): c for c in cases()}


def _main(argv: list[str]) -> int:
    mode, algorithm, implementation, *rest = argv
    case = Case(algorithm, implementation)
    if mode == "reentry":
        print(run_reentry(case, every=int(rest[0]) if rest else 1), "runs")
    elif mode == "threads":
        print(run_threads(case))
    else:
        raise SystemExit(f"unknown mode {mode}")
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
