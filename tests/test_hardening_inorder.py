"""Regression tests of issue 12's findings on Two-Stacks Lite, DABA and DABA Lite (paper 000 §4–6), both twins.

* optimized Two-Stacks Lite pushed a deque slot before its re-entry guard ran: a refused re-entrant insert left an
  empty (NULL) slot, ``len`` grew and the next ``snapshot()``/``evict()`` crashed the interpreter (these checks
  run in a child process, so that a crash fails a test instead of killing pytest);
* a ``combine`` raising once mid-operation: Two-Stacks Lite then answered ``'bcdd'`` for the window b, c, d (its
  in-place flip had overwritten lB); DABA and DABA Lite refused every later update. All three are now *strong*:
  exactly as before the failed operation, then correct;
* Two-Stacks Lite kept a value that ``combine`` refused (``insert(None)`` with ``string_concat``);
* DABA Lite armed its re-entry guard only after insert's first ⊗, and reference Two-Stacks Lite had none;
* the optimized classes could not be pickled or copied, and the reference ones pickled their linked chunks
  recursively (a window of 10^5 values exceeded the recursion limit).

Monoids: ``string_concat`` (non-commutative and non-invertible) and ``max_count`` (non-invertible), plus the
typed kinds for the fast paths.
"""

from __future__ import annotations

import array
import copy
import dataclasses
import os
import pickle
import subprocess
import sys
import textwrap
import types
from collections.abc import Callable
from typing import Any

import pytest

import swagkit.optimized
import swagkit.reference
from swagkit.reference.chunked_deque import CHUNK, ChunkedDeque
from swagkit.spec import CHECKERS, FifoSwag
from swagkit.spec.errors import ReentrantCallError, SwagkitError
from swagkit.spec.library import max_count, max_i64, string_concat, sum_f64
from swagkit.spec.monoid import Monoid

IMPLEMENTATIONS = [
    pytest.param(swagkit.reference, id="reference"),
    pytest.param(swagkit.optimized, id="optimized"),
]
CLASSES = ["TwoStacksLite", "DABA", "DABALite"]
IDS = {"TwoStacksLite": "two_stacks_lite", "DABA": "daba", "DABALite": "daba_lite"}


class Boom(Exception):
    """The transient failure of a user's combine."""


class Trap:
    """A ``combine`` that runs ``action`` inside its k-th call from now (then behaves)."""

    def __init__(self, inner: Callable[[Any, Any], Any]) -> None:
        self.inner = inner
        self.calls = 0
        self.countdown = 0
        self.action: Callable[[], None] | None = None

    def arm(self, k: int, action: Callable[[], None]) -> None:
        self.countdown, self.action = k, action

    def __call__(self, a: Any, b: Any) -> Any:
        self.calls += 1
        if self.countdown:
            self.countdown -= 1
            if self.countdown == 0 and self.action is not None:
                action, self.action = self.action, None
                action()
        return self.inner(a, b)


def trapped(monoid: Monoid[Any, Any, Any]) -> tuple[Monoid[Any, Any, Any], Trap]:
    trap = Trap(monoid.combine)
    return dataclasses.replace(monoid, combine=trap, fast_path=None), trap


def boom() -> None:
    raise Boom("transient")


def state(agg: Any) -> tuple[Any, ...]:
    return (len(agg), agg.snapshot(), agg.combine_count)


def check_invariants(agg: Any, monoid: Monoid[Any, Any, Any], window: list[Any]) -> None:
    CHECKERS[agg.algorithm](agg.snapshot(), monoid, [monoid.lift(v) for v in window])


# ---------------------------------------------------------------------------------------------------------------
# a raising combine: strong exception safety, never a wrong answer


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_two_stacks_lite_flip_failure_keeps_lB(impl: types.ModuleType) -> None:
    """The reported case: window a, b, c, d; the flip's 2nd ⊗ raises. The flip used to have overwritten lB in
    place already, and the window b, c, d then answered 'bcdd'."""
    monoid, trap = trapped(string_concat())
    agg = impl.TwoStacksLite(monoid)
    agg.insert_many("abcd")
    before = state(agg)
    trap.arm(2, boom)
    with pytest.raises(Boom):
        agg.evict()
    assert state(agg)[:2] == before[:2]
    assert agg.combine_count == before[2] + 2  # the ⊗ that raised is counted
    assert agg.query() == "abcd"
    agg.evict()
    assert agg.query() == "bcd"
    check_invariants(agg, monoid, list("bcd"))


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
@pytest.mark.parametrize("name", CLASSES)
def test_combine_raising_anywhere_changes_nothing(impl: types.ModuleType, name: str) -> None:
    """Every ⊗ position of every insert and evict of a run that goes through every flip/fixup case: the failed
    operation leaves exactly the state before it (no refusal, no ``SwagkitError``), and redoing it gives the
    model's answers from then on. Same ⊗ counts in both twins."""
    cls = getattr(impl, name)
    assert cls.exception_safety == "strong"
    ops = [("insert", ch) for ch in "abcdefghi"] + [("evict", None)] * 6 + [("insert", ch) for ch in "jklm"]
    ops += [("evict", None), ("insert", "n"), ("evict", None), ("insert", "o")] * 3 + [("evict", None)] * 7
    runs = 0
    for i, (op, arg) in enumerate(ops):
        clean_monoid, clean_trap = trapped(string_concat())
        probe = cls(clean_monoid)
        for o, a in ops[:i]:
            probe.insert(a) if o == "insert" else probe.evict()
        calls0 = clean_trap.calls
        probe.insert(arg) if op == "insert" else probe.evict()
        n_calls = clean_trap.calls - calls0
        for k in range(1, n_calls + 1):
            monoid, trap = trapped(string_concat())
            agg = cls(monoid)
            model: FifoSwag[Any, Any, Any] = FifoSwag(string_concat())
            for o, a in ops[:i]:
                (agg.insert(a), model.insert(a)) if o == "insert" else (agg.evict(), model.evict())
            before = state(agg)
            trap.arm(k, boom)
            with pytest.raises(Boom):
                agg.insert(arg) if op == "insert" else agg.evict()
            assert state(agg)[:2] == before[:2], f"{name} op {i} {op} ⊗ {k}: state changed"
            assert agg.combine_count == before[2] + k
            for o, a in ops[i:]:
                (agg.insert(a), model.insert(a)) if o == "insert" else (agg.evict(), model.evict())
                assert agg.query() == model.query(), f"{name} after a fault at op {i} ⊗ {k}: wrong answer"
            check_invariants(agg, string_concat(), model.values())
            runs += 1
    assert runs > 30


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
@pytest.mark.parametrize("name", CLASSES)
def test_keyboard_interrupt_in_fixup_or_flip(impl: types.ModuleType, name: str) -> None:
    """Ctrl-C inside combine (a BaseException) in the middle of the expensive step: the flip (Two-Stacks Lite)
    or a shrink after a flip (DABA, DABA Lite: the insert that completes |lF| = |lB|)."""
    monoid, trap = trapped(string_concat())
    agg = getattr(impl, name)(monoid)
    agg.insert_many("abcdef")
    if name == "TwoStacksLite":

        def op() -> None:
            agg.evict()

        k, want = 4, "bcdef"
    else:
        agg.evict()  # window b..f: the next insert flips and shrinks (DABA: ⊗ 2-4, DABA Lite: ⊗ 2-3)

        def op() -> None:
            agg.insert("g")

        k, want = 3, "bcdefg"
    before = state(agg)

    def interrupt() -> None:
        raise KeyboardInterrupt

    trap.arm(k, interrupt)
    with pytest.raises(KeyboardInterrupt):
        op()
    assert state(agg)[:2] == before[:2]
    op()
    assert agg.query() == want
    check_invariants(agg, string_concat(), list(want))


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
@pytest.mark.parametrize("name", ["DABA", "DABALite"])
def test_daba_no_longer_refuses_after_a_raising_combine(impl: types.ModuleType, name: str) -> None:
    """DABA and DABA Lite used to raise ``SwagkitError`` on every update after a combine raised in fixup."""
    monoid, trap = trapped(string_concat())
    agg = getattr(impl, name)(monoid)
    agg.insert_many("abcdef")
    agg.evict()
    trap.arm(2, boom)  # inside the shrink of the flipping insert ("flip+shrink")
    with pytest.raises(Boom):
        agg.insert("g")
    try:
        agg.insert("g")
        assert agg.last_case == "flip+shrink"
        agg.evict()
        agg.insert("h")
    except SwagkitError as err:  # pragma: no cover - the old behaviour
        pytest.fail(f"refused after one failure: {err}")
    assert agg.query() == "cdefgh"
    check_invariants(agg, string_concat(), list("cdefgh"))


# ---------------------------------------------------------------------------------------------------------------
# refused values


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
@pytest.mark.parametrize("name", CLASSES)
def test_value_refused_by_combine_is_not_kept(impl: types.ModuleType, name: str) -> None:
    """``insert(None)`` with string_concat: combine raises TypeError; nothing may stay behind (Two-Stacks Lite
    used to keep it: len counted it, query left it out, every later evict raised)."""
    agg = getattr(impl, name)(string_concat())
    agg.insert_many("ab")
    before = state(agg)[:2]
    with pytest.raises(TypeError):
        agg.insert(None)
    assert state(agg)[:2] == before
    with pytest.raises(TypeError):
        agg.insert_many(["c", None])  # the second value fails; the first stays inserted (a prefix)
    assert len(agg) == 3 and agg.query() == "abc"
    agg.evict()
    agg.evict()
    agg.insert("d")
    assert len(agg) == 2 and agg.query() == "cd"
    check_invariants(agg, string_concat(), ["c", "d"])


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
@pytest.mark.parametrize("name", CLASSES)
def test_typed_insert_many_is_all_or_nothing(impl: types.ModuleType, name: str) -> None:
    """A bad value anywhere in a typed bulk insertion (list, array, numpy array) changes nothing, as in the
    reference (which lifts every value first); numpy scalars and arrays are accepted."""
    np = pytest.importorskip("numpy")
    agg = getattr(impl, name)(sum_f64())
    agg.insert_many([1.0, 2.5])
    before = state(agg)
    for bad in (
        [3.0, float("nan"), 4.0],
        array.array("d", [3.0, float("nan")]),
        np.array([3.0, np.nan]),
        [3.0, "x"],
        iter([3.0, None]),
    ):
        with pytest.raises((ValueError, TypeError)):
            agg.insert_many(bad)
        assert state(agg) == before, f"{name}: a refused insert_many({bad!r}) changed the state"
    agg.insert_many(np.array([4.0, 0.5]))
    agg.insert(np.float64(1.0))
    agg.insert_many([np.float32(2.0), np.int64(3)])
    assert agg.query() == 14.0 and len(agg) == 7
    ints = getattr(impl, name)(max_i64())
    ints.insert_many(np.array([3, 9, -2], dtype=np.int64))
    with pytest.raises(OverflowError):
        ints.insert_many([5, 2**70])
    assert ints.query() == 9 and len(ints) == 3


# ---------------------------------------------------------------------------------------------------------------
# re-entrant calls


def _reentries(agg: Any) -> dict[str, Callable[[], Any]]:
    return {
        "insert": lambda: agg.insert("x"),
        "evict": agg.evict,
        "query": agg.query,
        "snapshot": agg.snapshot,
        "insert_many": lambda: agg.insert_many(["x"]),
        "evict_many": lambda: agg.evict_many(1),
        "copy": lambda: copy.copy(agg),
        "pickle": lambda: pickle.dumps(agg),
    }


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
@pytest.mark.parametrize("name", CLASSES)
def test_reentry_from_inserts_first_combine_is_refused(impl: types.ModuleType, name: str) -> None:
    """From insert's very first ⊗ (DABA Lite armed its guard only after it; reference Two-Stacks Lite had no
    guard): every call is refused with ReentrantCallError and the outer insert completes correctly (DABA Lite
    used to answer 'abcxcd' for the window a, b, c, x, d)."""
    for reentry in ("insert", "evict", "query", "snapshot", "insert_many", "evict_many", "copy", "pickle"):
        monoid, trap = trapped(string_concat())
        agg = getattr(impl, name)(monoid)
        agg.insert_many("abc")
        seen: list[BaseException] = []

        def call_back(reentry: str = reentry) -> None:
            try:
                _reentries(agg)[reentry]()
            except ReentrantCallError as err:
                seen.append(err)

        trap.arm(1, call_back)
        agg.insert("d")
        assert len(seen) == 1, f"{name}: re-entrant {reentry} was accepted"
        assert f"{reentry if reentry not in ('copy', 'pickle') else 'snapshot'}()" in str(seen[0])
        assert len(agg) == 4 and agg.query() == "abcd", f"{name}: re-entrant {reentry} corrupted the state"
        check_invariants(agg, string_concat(), list("abcd"))


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
@pytest.mark.parametrize("name", CLASSES)
def test_propagated_refusal_leaves_the_state(impl: types.ModuleType, name: str) -> None:
    """A re-entrant insert refused inside the expensive step, and the refusal let out of combine: the outer
    operation fails like any raising combine, leaving the state as it was."""
    monoid, trap = trapped(string_concat())
    agg = getattr(impl, name)(monoid)
    agg.insert_many("abcdef")
    if name != "TwoStacksLite":
        agg.evict()  # the next insert flips and shrinks
    before = state(agg)[:2]
    trap.arm(2, lambda: agg.insert("x"))
    with pytest.raises(ReentrantCallError):
        agg.evict() if name == "TwoStacksLite" else agg.insert("g")  # the flip / the shrink
    assert state(agg)[:2] == before
    assert agg.query() == ("abcdef" if name == "TwoStacksLite" else "bcdef")


CRASH_SCRIPT = textwrap.dedent(
    """
    import copy, dataclasses, pickle, sys
    import swagkit.optimized, swagkit.reference
    from swagkit.spec.errors import ReentrantCallError
    from swagkit.spec.library import string_concat, sum_f64
    from swagkit.spec.snapshots import DABALiteState, DABAState, TwoStacksLiteState

    impl = swagkit.optimized if sys.argv[1] == "optimized" else swagkit.reference
    for name in ("TwoStacksLite", "DABA", "DABALite"):
        cls = getattr(impl, name)
        holder = []
        armed = [True]

        def comb(a, b):
            if armed[0] and holder:
                armed[0] = False
                try:
                    holder[0].insert("z")  # re-entrant insert from inside insert's combine
                except ReentrantCallError:
                    pass
                else:
                    raise SystemExit(name + ": re-entrant insert accepted")
            return a + b

        agg = cls(dataclasses.replace(string_concat(), combine=comb))
        holder.append(agg)
        agg.insert("a")
        agg.insert("b")
        assert len(agg) == 2, (name, len(agg))
        assert agg.snapshot() is not None
        agg.evict()
        agg.evict()
        agg.insert("c")
        assert agg.query() == "c", (name, agg.query())

        # malformed snapshots: a clean error, never a pointer out of the deque
        ok = cls(string_concat())
        ok.insert_many("abcdef")
        ok.evict()
        good = ok.snapshot()
        if name == "TwoStacksLite":
            bad = [dataclasses.replace(good, B=good.E + 1), dataclasses.replace(good, F=1),
                   dataclasses.replace(good, E=99), dataclasses.replace(good, B=-1),
                   dataclasses.replace(good, B="1"), DABAState((), (), 0, 0, 0, 0, 0, 0)]
        else:
            bad = [dataclasses.replace(good, A=good.B + 1), dataclasses.replace(good, L=good.R + 1),
                   dataclasses.replace(good, E=good.E + 5), dataclasses.replace(good, B=0),
                   dataclasses.replace(good, L=1.5), TwoStacksLiteState((), 0, 0, 0, "")]
            if name == "DABA":
                bad.append(dataclasses.replace(good, aggs=good.aggs[:-1]))
            bad.append(dataclasses.replace(good, L=good.L + 1, R=good.R + 1))  # breaks the size invariants
        for b in bad:
            try:
                cls._from_snapshot(string_concat(), b)
            except (ValueError, TypeError):
                pass
            else:
                raise SystemExit(f"{name}: malformed snapshot {b!r} accepted")
        if impl is swagkit.optimized and swagkit.optimized.COMPILED:  # C doubles: validated like insert
            typed = cls(sum_f64())
            typed.insert_many([1.0, 2.0, 3.0])
            s = typed.snapshot()
            field = "vals" if name == "DABA" else "deque"
            try:
                cls._from_snapshot(sum_f64(), dataclasses.replace(s, **{field: (1.0, "x", 3.0)}))
            except TypeError:
                pass
            else:
                raise SystemExit(f"{name}: a string in a typed snapshot accepted")
            # a NaN aggregate is a state the structure reaches by itself (inf + -inf): it copies like any other
            nan = cls(sum_f64())
            nan.insert_many([float("inf"), float("-inf"), 1.0])
            assert copy.copy(nan).snapshot().__repr__() == nan.snapshot().__repr__()
        twin = cls._from_snapshot(string_concat(), good)
        assert twin.snapshot() == good and twin.query() == "bcdef"
    print("survived")
    """
)


@pytest.mark.parametrize("implementation", ["reference", "optimized"])
def test_refused_reentrant_insert_leaves_no_slot_in_a_child_process(implementation: str) -> None:
    """Optimized Two-Stacks Lite pushed its slot before the guard: the refused insert left a NULL slot and the
    next snapshot()/evict() crashed. Also malformed snapshots given to ``_from_snapshot``."""
    done = subprocess.run(
        [sys.executable, "-c", CRASH_SCRIPT, implementation],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONFAULTHANDLER": "1"},
    )
    assert done.returncode == 0 and "survived" in done.stdout, f"exit {done.returncode}\n{done.stdout}\n{done.stderr}"


THREAD_SCRIPT = textwrap.dedent(
    """
    import dataclasses, sys, threading, time
    import swagkit.optimized, swagkit.reference
    from swagkit.spec.errors import ReentrantCallError
    from swagkit.spec.library import string_concat

    impl = swagkit.optimized if sys.argv[1] == "optimized" else swagkit.reference
    inside = threading.Event()
    release = threading.Event()

    def comb(a, b):
        if b == "slow":
            inside.set()
            release.wait(10)
        return a + b

    for name in ("TwoStacksLite", "DABA", "DABALite"):
        inside.clear()
        release.clear()
        agg = getattr(impl, name)(dataclasses.replace(string_concat(), combine=comb))
        agg.insert_many("abc")
        t = threading.Thread(target=agg.insert, args=("slow",))
        t.start()
        assert inside.wait(10)
        refused = 0
        for call in (lambda: agg.insert("x"), agg.evict, agg.query, agg.snapshot):
            try:
                call()
            except ReentrantCallError:
                refused += 1
        release.set()
        t.join()
        assert refused == 4, (name, refused)
        assert len(agg) == 4 and agg.query() == "abcslow", (name, len(agg), agg.query())
        agg.evict()
        assert agg.snapshot() is not None and agg.query() == "bcslow"
    print("survived")
    """
)


@pytest.mark.parametrize("implementation", ["reference", "optimized"])
def test_second_thread_is_refused_in_a_child_process(implementation: str) -> None:
    """A second thread calling while insert's combine runs is refused (before any change); no crash."""
    done = subprocess.run(
        [sys.executable, "-c", THREAD_SCRIPT, implementation],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONFAULTHANDLER": "1"},
    )
    assert done.returncode == 0 and "survived" in done.stdout, f"exit {done.returncode}\n{done.stdout}\n{done.stderr}"


# ---------------------------------------------------------------------------------------------------------------
# copy and pickle


def _keep(v: Any) -> Any:
    return v


ROUND_TRIPS: dict[str, Callable[[Any], Any]] = {
    "pickle": lambda a: pickle.loads(pickle.dumps(a, protocol=pickle.HIGHEST_PROTOCOL)),
    "copy": copy.copy,
    "deepcopy": copy.deepcopy,
}


@pytest.mark.parametrize("how", sorted(ROUND_TRIPS))
@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
@pytest.mark.parametrize("name", CLASSES)
def test_round_trips(impl: types.ModuleType, name: str, how: str) -> None:
    """Same snapshot, length, combine_count and answers; independent of the original; in the middle of DABA's
    incremental reversal (lL, lR, lA non-empty) and with Two-Stacks Lite's lF and lB both non-empty."""
    raw_max_count = dataclasses.replace(max_count(), lower=_keep, name="max_count_raw")  # picklable lower
    for monoid, values in (
        (string_concat(), list("abcdefghijk")),
        (raw_max_count, [3, 1, 4, 1, 5, 9, 2, 6, 5, 3]),
        (sum_f64(), [1.5, -2.0, 0.25, 8.0, 3.0, 1.0, 2.0]),
        (max_i64(), [3, -7, 12, 5, 5, 1]),
    ):
        agg = getattr(impl, name)(monoid)
        agg.insert_many(values[:6])
        agg.evict_many(2)
        agg.insert_many(values[6:])
        snap, count = agg.snapshot(), agg.combine_count
        twin = ROUND_TRIPS[how](agg)
        assert type(twin) is type(agg)
        assert twin.snapshot() == snap and len(twin) == len(agg) and twin.combine_count == count
        assert agg.combine_count == count
        if how == "copy" and monoid.fast_path is None:
            assert twin.monoid is agg.monoid
        for _ in range(3):
            for a in (agg, twin):
                a.evict()
                a.insert(values[0])
            assert twin.query() == agg.query() and twin.snapshot() == agg.snapshot()
        twin.insert_many(values)
        assert agg.snapshot() != twin.snapshot() and len(agg) == len(twin) - len(values)


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
@pytest.mark.parametrize("name", CLASSES)
def test_deepcopy_copies_values_copy_shares_them(impl: types.ModuleType, name: str) -> None:
    monoid = Monoid(identity=(), combine=lambda a, b: a + b, lift=lambda v: (v,), name="tuple_concat")
    agg = getattr(impl, name)(monoid)
    agg.insert_many([[1], [2], [3]])
    shallow, deep = copy.copy(agg), copy.deepcopy(agg)
    agg.query()[0].append("changed")  # the lists inside are the stored values
    assert shallow.query()[0] == [1, "changed"]
    assert deep.query()[0] == [1]


def _depth() -> int:
    """Frames on the stack now (pytest's own), so a recursion limit can leave a fixed headroom above them."""
    frame, n = sys._getframe(), 0
    while frame is not None:
        frame, n = frame.f_back, n + 1
    return n


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
@pytest.mark.parametrize("name", CLASSES)
def test_large_window_pickles_flat(impl: types.ModuleType, name: str) -> None:
    """10^5 values across ~1600 linked chunks: the reference used to recurse once per chunk."""
    agg = getattr(impl, name)(max_count())
    agg.insert_many([i % 97 for i in range(100_000)])
    agg.evict()
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(_depth() + 100)  # a pickle proportional to the window would need far more
    try:
        data = pickle.dumps(agg, protocol=pickle.HIGHEST_PROTOCOL)
    finally:
        sys.setrecursionlimit(limit)
    twin = pickle.loads(data)
    assert len(twin) == len(agg) == 99_999 and twin.query() == agg.query()
    assert twin.snapshot() == agg.snapshot()


def test_chunked_deque_pickles_and_copies_flat() -> None:
    d: ChunkedDeque[int] = ChunkedDeque.from_iterable(range(100 * CHUNK))
    d.pop_front()
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(_depth() + 100)
    try:
        data = pickle.dumps(d)
        deep = copy.deepcopy(d)
    finally:
        sys.setrecursionlimit(limit)
    for twin in (pickle.loads(data), deep, copy.copy(d)):
        assert twin.to_list() == list(range(1, 100 * CHUNK))
        twin.push_back(-1)
        assert len(d) == 100 * CHUNK - 1


def test_chunked_deque_pop_back_undoes_push_back_across_chunks() -> None:
    d: ChunkedDeque[int] = ChunkedDeque()
    for i in range(3 * CHUNK):
        end = d.end()
        d.push_back(i)
        d.pop_back()
        assert d.end() == end and len(d) == i and d.to_list() == list(range(i))
        d.push_back(i)
        assert d.get(d.at(i)) == i and d.at(i + 1) == d.end()
    with pytest.raises(IndexError):
        ChunkedDeque().pop_back()
