"""The Hypothesis state machine of the out-of-order kind (FiBA).

:func:`make_ooo_machine` builds a :class:`~hypothesis.stateful.RuleBasedStateMachine` over a
:func:`~.debug.checked_ooo` aggregator, which judges every step (the
:class:`~swagkit.spec.ooo.TimedWindow` model, every FiBA invariant locally and globally, the ⊗ and node-visit
budgets). The machine only chooses operations, mixing all of them:

* ``insert`` at a drawn time, at a time already in the window, and at a time held by an **internal node**
  (read off the snapshot: the in-place combine at any level, notes §7 item 3);
* ``evict``, ``remove`` of a present time, ``bulk_evict`` at every boundary position (below the oldest, at it,
  at an internal node's key, at the right finger's first key, above the youngest, anywhere);
* ``bulk_insert`` of sorted bulks at both extremes, interleaved, with duplicates inside the bulk and mixing new
  and existing (internal-node) times; ``bulk_runs``, bulks made of runs of one time (up to 8 each, new, present
  or held by an internal node: "mostly repeated times"); ``grow_to`` a drawn size (taller trees);
* ``query``, ``range_query``, ``oldest``, ``youngest``;
* misuse: ``evict()``/``oldest()``/``youngest()`` on an empty window, ``remove`` of an absent time and an
  unordered ``bulk_insert`` must raise the documented error and leave the snapshot unchanged.

Hypothesis' swarm testing switches a random subset of the rules off per example. (Its ``target()`` on depth
proxies -- peak size, tree height, the longest run of one time in a bulk -- was tried and left out: with fewer than
1,000 examples Hypothesis runs one unbounded hill-climbing pass, and a 24-example round of a deep FiBA ran 7,789
examples in 550 s.)

Timestamps are drawn per example as ints, floats, strings (the compiled generic-time path) or a mix of ints and
floats (the compiled typed-to-generic switch), in a range about twice the window cap so collisions are common.
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import strategies as st
from hypothesis.stateful import initialize, invariant, precondition, rule

from swagkit.spec.errors import EmptyWindowError
from swagkit.spec.ooo import MissingTimeError, UnorderedBulkError

from ...strategies import strategy_for
from ..base import Subject, expect_raises, traced_operations
from ..machines import DEFAULT_MAX_WINDOW, WindowMachine, bind
from .debug import CheckedOutOfOrder, checked_ooo
from .face import OPERATIONS

__all__ = ["OutOfOrderMachine", "make_ooo_machine", "TIME_FLAVORS"]

#: how an example's timestamps look: the compiled FiBA has int64, float64 and generic (object) time paths
TIME_FLAVORS = ("int", "float", "str", "mixed")


def _to_time(flavor: str, k: int) -> Any:
    """The k-th timestamp of a flavor (order-preserving in k)."""
    if flavor == "int":
        return k
    if flavor == "float":
        return k / 2
    if flavor == "str":
        return f"{k:05d}"
    return k if k % 2 == 0 else k + 0.5  # ints and floats interleaved, strictly increasing


#: the orders in which ``grow_deep`` inserts its times
_ORDERS = ("shuffled", "ascending", "descending", "outside_in")

#: operations the ``combine_raises`` rule makes fail
_FAULT_OPS = ("insert", "insert", "evict", "bulk_evict", "bulk_insert", "range_query", "query")


class OutOfOrderMachine(WindowMachine):
    """Base of the generated machines; :func:`make_ooo_machine` binds it and adds the rules."""

    trace_operations = traced_operations(OPERATIONS)
    kind_name = "out_of_order"

    checked: CheckedOutOfOrder

    def __init__(self) -> None:
        super().__init__()
        self._check(checked_ooo)
        self.flavor = "int"

    def _time(self, k: int) -> Any:
        return _to_time(self.flavor, k)

    def _span(self) -> int:
        return 2 * self.max_window + 8

    def _root(self) -> Any:
        """The root of the tree ``snapshot()`` shows (``None``: no snapshot, or not a FiBA-shaped one)."""
        snapshot = getattr(self.swag.inner, "snapshot", None)
        return getattr(snapshot(), "root", None) if callable(snapshot) else None

    def _internal_times(self) -> list[Any]:
        """Times held by internal nodes of the current tree (empty for a leaf root or no tree to read)."""
        out: list[Any] = []
        root = self._root()
        stack = [root] if root is not None else []
        while stack:
            node = stack.pop()
            if node.children:
                out.extend(node.times)
                stack.extend(node.children)
        return out

    def _expect(self, error: type[Exception], call: Any) -> None:
        with self.trace.under("misuse"):
            expect_raises(call, error, "misuse")


def make_ooo_machine(
    subject: Subject,
    monoid_id: str,
    max_window: int = DEFAULT_MAX_WINDOW,
    *,
    strategy: st.SearchStrategy[Any] | None = None,
    flavors: tuple[str, ...] = TIME_FLAVORS,
) -> type[OutOfOrderMachine]:
    """A state machine class checking the out-of-order ``subject`` over library monoid ``monoid_id``, with input
    values ``strategy`` (default: the library's strategy) and timestamps of the given ``flavors``."""
    values = strategy if strategy is not None else strategy_for(monoid_id)
    span = 2 * max_window + 8
    keys = st.integers(min_value=0, max_value=span)
    seeds = st.integers(min_value=0, max_value=2**16)  # one choice that picks many times (cheap to shrink)

    class Machine(OutOfOrderMachine):
        @initialize(flavor=st.sampled_from(flavors))
        def choose_times(self, flavor: str) -> None:
            self.flavor = flavor

        @precondition(lambda self: self._room() > 0)
        @rule(k=keys, value=values)
        def insert(self, k: int, value: Any) -> None:
            self.swag.insert(self._time(k), value)
            self._step()

        @precondition(lambda self: len(self.swag) > 0)
        @rule(data=st.data(), value=values, internal=st.booleans())
        def insert_existing(self, data: st.DataObject, value: Any, internal: bool) -> None:
            """Combine into a present time: one held by an internal node when there is one (old ⊗ new)."""
            pool = self._internal_times() if internal else []
            pool = pool or self.swag.model.times()
            self.swag.insert(data.draw(st.sampled_from(pool)), value)
            self._step()

        @precondition(lambda self: len(self.swag) > 0)
        @rule()
        def evict(self) -> None:
            self.swag.evict()
            self._step()

        @precondition(lambda self: len(self.swag) == 0 and self.misuse_rules)
        @rule()
        def misuse_on_empty(self) -> None:
            self._expect(EmptyWindowError, self.swag.evict)
            self._expect(EmptyWindowError, self.swag.oldest)
            self._expect(EmptyWindowError, self.swag.youngest)
            self._step()

        @precondition(lambda self: len(self.swag) > 0)
        @rule(data=st.data())
        def remove(self, data: st.DataObject) -> None:
            self.swag.remove(data.draw(st.sampled_from(self.swag.model.times())))
            self._step()

        @precondition(lambda self: self.misuse_rules)
        @rule(k=keys)
        def remove_absent(self, k: int) -> None:
            t = self._time(k)
            if t not in self.swag.model:
                self._expect(MissingTimeError, lambda: self.swag.remove(t))
            self._step()

        @rule(
            data=st.data(),
            where=st.sampled_from(("below", "oldest", "internal", "right_finger", "above", "present", "anywhere")),
        )
        def bulk_evict(self, data: st.DataObject, where: str) -> None:
            """Bulk evict at every boundary position of the notes' fixtures."""
            times = self.swag.model.times()
            t: Any
            if not times or where == "anywhere":
                t = self._time(data.draw(keys))
            elif where == "below":
                t = self._time(-1)
            elif where == "oldest":
                t = times[0]
            elif where == "internal":
                t = data.draw(st.sampled_from(self._internal_times() or times))
            elif where == "right_finger":
                node = self._root()
                while node is not None and node.children:
                    node = node.children[-1]
                t = node.times[0] if node is not None and node.times else times[-1]
            elif where == "above":
                t = self._time(span + 1)
            else:
                t = data.draw(st.sampled_from(times))
            self.swag.bulk_evict(t)
            self._step()

        @rule(
            data=st.data(),
            where=st.sampled_from(("anywhere", "left", "right", "interleaved")),
            size=st.integers(min_value=0, max_value=24),
            existing=st.integers(min_value=0, max_value=4),
            dup=st.booleans(),
        )
        def bulk_insert(self, data: st.DataObject, where: str, size: int, existing: int, dup: bool) -> None:
            """A sorted bulk at an extreme or interleaved, mixing new and existing (internal-node) times, with
            an in-bulk duplicate (earlier ⊗ later) when ``dup``."""
            times = self.swag.model.times()
            size = min(size, self._room())
            lo, hi = 0, span
            if where == "left" and times:
                ks = [k for k in range(span) if self._time(k) < times[0]]
                lo, hi = (ks[0], ks[-1]) if ks else (0, span)
            elif where == "right" and times:
                ks = [k for k in range(span + 1) if self._time(k) > times[-1]]
                lo, hi = (ks[0], ks[-1]) if ks else (0, span)
            ks = data.draw(st.lists(st.integers(min_value=lo, max_value=hi), min_size=size, max_size=size))
            chosen = [self._time(k) for k in ks]
            if times and existing and where in ("anywhere", "interleaved"):
                pool = self._internal_times() or times
                chosen += data.draw(st.lists(st.sampled_from(pool), max_size=existing))
            chosen.sort()
            if dup and chosen:
                chosen.insert(0, chosen[0])
            vs = data.draw(st.lists(values, min_size=min(len(chosen), 1), max_size=min(len(chosen), 6)))
            pairs = [(t, vs[k % len(vs)]) for k, t in enumerate(chosen)]  # a few values, cycled
            self.swag.bulk_insert(pairs)
            self._step()

        @precondition(lambda self: self.misuse_rules)
        @rule(data=st.data(), size=st.integers(min_value=2, max_value=8))
        def bulk_insert_unordered(self, data: st.DataObject, size: int) -> None:
            ks = data.draw(st.lists(keys, min_size=size, max_size=size, unique=True))
            ks.sort(reverse=True)
            v = data.draw(values)
            pairs = [(self._time(k), v) for k in ks]
            self._expect(UnorderedBulkError, lambda: self.swag.bulk_insert(pairs))
            self._step()

        @rule(size=st.integers(min_value=0, max_value=max_window), seed=seeds, data=st.data())
        def grow_to(self, size: int, seed: int, data: st.DataObject) -> None:
            """Fill up to ``size`` entries with one bulk of fresh times (taller trees, root splits)."""
            need = max(size - len(self.swag), 0)
            free = [k for k in range(span) if self._time(k) not in self.swag.model][: need * 2]
            pick = sorted(random.Random(seed).sample(free, min(need, len(free))))
            v = data.draw(values)
            self.swag.bulk_insert([(self._time(k), v) for k in pick])
            self._step()

        @precondition(lambda self: self._room() > 0)
        @rule(
            size=st.integers(min_value=1, max_value=max_window),
            order=st.sampled_from(_ORDERS),
            seed=seeds,
            data=st.data(),
        )
        def grow_deep(self, size: int, order: str, seed: int, data: st.DataObject) -> None:
            """Up to ``size`` fresh times inserted one at a time in one step, in a shuffled, ascending, descending
            or outside-in order, with a few values cycled: a tree several levels deep (FiBA with μ = 4 is three
            levels tall from about 60 entries, 003 §3) whose internal nodes hold keys with distinct values, so a
            later collision shows its operand order. One step and a few choices, so it shrinks fast."""
            free = [k for k in range(span) if self._time(k) not in self.swag.model]
            rng = random.Random(seed)
            ks = rng.sample(free, min(size, self._room(), len(free)))
            if order != "shuffled":
                ks.sort(reverse=order == "descending")
            if order == "outside_in":
                ks = [ks[j // 2] if j % 2 == 0 else ks[-1 - j // 2] for j in range(len(ks))]
            vs = data.draw(st.lists(values, min_size=1, max_size=3))
            for j, k in enumerate(ks):
                self.swag.insert(self._time(k), vs[j % len(vs)])
            self._step()

        @precondition(lambda self: len(self.swag) > 0)
        @rule(
            stride=st.integers(min_value=1, max_value=4),
            repeats=st.integers(min_value=0, max_value=3),
            fresh=st.integers(min_value=0, max_value=4),
            seed=seeds,
            data=st.data(),
        )
        def bulk_collide(self, stride: int, repeats: int, fresh: int, seed: int, data: st.DataObject) -> None:
            """A bulk of present times -- every ``stride``-th one, so with stride 1 every key of every internal
            node, the root's included, whatever the structure (no snapshot needed) -- with ``repeats`` of its times
            repeated inside the bulk and ``fresh`` new times, values cycled (003 §5's in-place combine at any
            level and the bulk's earlier ⊗ later; the shapes of the C++ bugs of issue 14)."""
            rng = random.Random(seed)
            times = self.swag.model.times()
            chosen = times[rng.randrange(stride) :: stride] or times[:1]
            chosen += rng.choices(chosen, k=repeats)
            free = [k for k in range(span) if self._time(k) not in self.swag.model]
            chosen += [self._time(k) for k in rng.sample(free, min(fresh, self._room(), len(free)))]
            chosen.sort()
            vs = data.draw(st.lists(values, min_size=1, max_size=3))
            self.swag.bulk_insert([(t, vs[j % len(vs)]) for j, t in enumerate(chosen)])
            self._step()

        @precondition(lambda self: self._room() > 0)
        @rule(
            runs=st.lists(
                st.tuples(st.sampled_from(("new", "present", "internal")), st.integers(min_value=1, max_value=8)),
                min_size=1,
                max_size=6,
            ),
            seed=seeds,
            data=st.data(),
        )
        def bulk_runs(self, runs: list[tuple[str, int]], seed: int, data: st.DataObject) -> None:
            """A bulk of runs of one time each -- a fresh time, a present one, or one an internal node holds --
            ``length`` times in a row (mostly repeated times: earlier ⊗ later inside the run, old ⊗ new against
            the tree), values cycled so every operand order shows."""
            rng = random.Random(seed)
            present = self.swag.model.times()
            internal = self._internal_times() or present
            free = [k for k in range(span) if self._time(k) not in self.swag.model]
            rng.shuffle(free)
            fresh = free[: self._room()]
            chosen: list[Any] = []
            for source, length in runs:
                pool = internal if source == "internal" else present if source == "present" else []
                if pool:
                    t = rng.choice(pool)
                elif fresh:
                    t = self._time(fresh.pop())
                else:
                    continue
                chosen += [t] * length
            chosen.sort()
            vs = data.draw(st.lists(values, min_size=1, max_size=4))
            self.swag.bulk_insert([(t, vs[j % len(vs)]) for j, t in enumerate(chosen)])
            self._step()

        @rule(a=keys, b=keys)
        def range_query(self, a: int, b: int) -> None:
            self.swag.range_query(self._time(min(a, b)), self._time(max(a, b)))
            self._step()

        @precondition(lambda self: len(self.swag) > 0)
        @rule()
        def ends(self) -> None:
            self.swag.oldest()
            self.swag.youngest()
            self._step()

        @precondition(lambda self: self.faults is not None)
        @rule(
            k=st.integers(min_value=1, max_value=40),
            ops=st.lists(st.sampled_from(_FAULT_OPS), min_size=1, max_size=8),
            data=st.data(),
        )
        def combine_raises(self, k: int, ops: list[str], data: st.DataObject) -> None:
            """The k-th ⊗ from now raises once while ``ops`` run: the operation it hits must leave the
            aggregator as before, or -- if it declares the refuse guarantee -- refuse every call until
            ``repair()``, with ``salvage()`` holding the entries before or after it (the checked wrapper
            verifies both against the model). Never a silent wrong answer."""

            def under_fault() -> None:
                for op in ops:
                    times = list(self.swag.model.times())
                    if op == "insert" and self._room() > 0:
                        self.swag.insert(self._time(data.draw(keys, label="k")), data.draw(values, label="v"))
                    elif op == "evict" and times:
                        self.swag.evict()
                    elif op == "bulk_evict" and times:
                        self.swag.bulk_evict(data.draw(st.sampled_from(times), label="cut"))
                    elif op == "bulk_insert" and self._room() > 8:
                        ks = sorted(data.draw(st.lists(keys, min_size=1, max_size=6), label="ks"))
                        self.swag.bulk_insert([(self._time(x), data.draw(values, label="v")) for x in ks])
                    elif op == "range_query":
                        a, b = sorted((data.draw(keys, label="a"), data.draw(keys, label="b")))
                        self.swag.range_query(self._time(a), self._time(b))
                    else:
                        self.swag.query()

            self._under_fault(k, under_fault)
            self.swag.query()
            self._step()

        @invariant()
        def agrees_with_model(self) -> None:
            """Two queries with nothing between: a cached or consuming query must answer the same every time."""
            self.swag.query()
            self.swag.query()

    return bind(Machine, subject, monoid_id, max_window)
