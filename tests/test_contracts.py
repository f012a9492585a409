"""Declared window contracts (:class:`~swagkit.verify.kinds.fifo.Contract`) and SlickDeque's multi-query mode.

A contract restricts the operations the FIFO machine makes (a fixed capacity whose inserts evict the oldest, no
evicts, evicts only draining a full window, never an empty window, registered query ranges); the checked wrapper
applies its capacity to the model. Through it the machines drive SlickDeque's multi-query mode (001 §4, the cards
``slickdeque_inv_ranges`` / ``slickdeque_noninv_ranges``), where the printed answer loop's erratum lives.
"""

from __future__ import annotations

import io
import json
import sys
import time
from collections import deque
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from swagkit.reference import SlickDequeInv, SlickDequeNonInv, TwoStacks
from swagkit.spec.errors import EmptyWindowError, ModelMismatch
from swagkit.spec.library import LIBRARY
from swagkit.verify import registry, replay
from swagkit.verify.cli import DEFAULT_EXAMPLES, DEFAULT_STEPS, main
from swagkit.verify.impl import VerificationFailed, verify_aggregator
from swagkit.verify.kinds.base import Subject
from swagkit.verify.kinds.fifo import Contract, checked_fifo
from swagkit.verify.kinds.fifo.contract import UNRESTRICTED, parse
from swagkit.verify.kinds.machines import DEFAULT_MAX_WINDOW, run_machine_class
from swagkit.verify.spark import differential_algorithms, make_tasks, run_task


class FixedWindow:
    """A fixed-capacity window of 3 (``deque(maxlen=3)``): an insert into a full window drops the oldest."""

    def __init__(self, monoid: Any) -> None:
        self.monoid, self.items = monoid, deque[Any](maxlen=3)

    def insert(self, value: Any) -> None:
        self.items.append(self.monoid.lift(value))

    def evict(self) -> None:
        if not self.items:
            raise EmptyWindowError("empty")
        self.items.popleft()

    def query(self) -> Any:
        acc = self.monoid.identity
        for x in self.items:
            acc = self.monoid.combine(acc, x)
        return self.monoid.lower(acc)

    def __len__(self) -> int:
        return len(self.items)


class FixedWindowDropsNewest(FixedWindow):
    """Planted: a full window refuses the new value instead of dropping the oldest."""

    def insert(self, value: Any) -> None:
        if len(self.items) < 3:
            super().insert(value)


def test_contract_specs_round_trip() -> None:
    c = parse("capacity=8, no-evict-before-full, no-empty-ops, ranges=2/8/1")
    assert c == Contract(capacity=8, evict_before_full=False, empty_ops=False, ranges=(8, 2, 1))
    assert c.as_dict() == {"capacity": 8, "evict_before_full": False, "empty_ops": False, "ranges": [8, 2, 1]}
    assert Contract.of(c.as_dict()) == c and Contract.of(None) is UNRESTRICTED and not parse("").restricted
    assert parse("static") == Contract(evict=False) == parse("no-evict")
    for bad in ("capacity=0", "capacity=x", "ranges=0/1", "no-evict-before-full", "fast", "static=1"):
        with pytest.raises(ValueError, match="contract"):
            parse(bad)


def test_evictable_and_queryable_follow_the_contract() -> None:
    assert UNRESTRICTED.evictable(5, False) == 5 and UNRESTRICTED.queryable(0) and UNRESTRICTED.misuse
    drain = Contract(capacity=4, evict_before_full=False, empty_ops=False)
    assert drain.evictable(3, False) == 0  # not full, not draining
    assert drain.evictable(4, False) == 3 and drain.evictable(2, True) == 1  # never down to empty
    assert not drain.queryable(0) and drain.queryable(1) and not drain.misuse
    assert Contract(capacity=4, evict=False).evictable(4, True) == 0


def test_registered_cards_keep_the_unrestricted_contract() -> None:
    for info in registry.ALGORITHMS.values():
        if info.kind.name == "fifo" and not info.id.endswith("_ranges"):
            assert not Contract.of(info.card.contract if info.card else None).restricted, info.id
    assert checked_fifo(TwoStacks(LIBRARY["sum"].factory())).contract is UNRESTRICTED


def test_checked_wrapper_applies_the_capacity_and_checks_query_all() -> None:
    affine = LIBRARY["affine"].factory()
    swag = checked_fifo(SlickDequeInv(affine, ranges=(1, 2, 5, 8)), algorithm="slickdeque_inv_ranges")
    assert swag.contract == Contract(capacity=8, ranges=(8, 5, 2, 1))  # the card's
    swag.insert_many([(2, i) for i in range(11)])
    assert len(swag) == 8 and len(swag.model) == 8  # the model evicted the three oldest too
    assert set(swag.query_all()) == {8, 5, 2, 1}
    wrong = checked_fifo(
        SlickDequeNonInv(LIBRARY["max"].factory(), ranges=(1, 2)), contract=Contract(capacity=2, ranges=(2, 1, 3))
    )
    wrong.insert(1)
    with pytest.raises(ModelMismatch, match="one answer per range"):
        wrong.query_all()


def test_a_user_window_passes_within_its_capacity_and_fails_without() -> None:
    assert verify_aggregator(FixedWindow, monoid="string_concat", contract="capacity=3", replay_dir=None).passed
    with pytest.raises(VerificationFailed, match="len"):
        verify_aggregator(FixedWindow, monoid="string_concat", replay_dir=None)


def _cli(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    sys.path.insert(0, str(Path(__file__).parent))
    try:
        with redirect_stdout(out):
            status = main(list(argv))
    finally:
        sys.path.pop(0)
    return status, out.getvalue()


def test_cli_contract_is_written_into_the_replay_and_replayed_within_it(tmp_path: Path) -> None:
    impl = "test_contracts:FixedWindowDropsNewest"
    status, out = _cli(
        "verify", "--impl", impl, "--monoid", "string_concat", "--contract", "capacity=3", "--replay-dir", str(tmp_path)
    )
    assert status == 1 and "FAIL" in out, out
    (path,) = tmp_path.iterdir()
    header = json.loads(path.read_text().splitlines()[0])
    assert header["contract"] == {"capacity": 3}
    assert replay.run(str(path), FixedWindowDropsNewest) == 1
    assert replay.run(str(path), FixedWindow) == 0  # the correct window passes the trace within its capacity
    assert _cli("verify", "--impl", impl, "--contract", "capacity=-1")[0] == 2
    assert _cli("verify", "--impl", impl, "--kind", "ooo", "--contract", "capacity=3")[0] == 2


def test_multi_query_cards_run_in_the_differential_stage() -> None:
    chosen = [a for a in differential_algorithms() if a.endswith("_ranges")]
    assert chosen == ["slickdeque_inv_ranges", "slickdeque_noninv_ranges"]
    for task in make_tasks(chosen, ["affine", "argmax", "sum_i64", "max_i64"], seeds=1, steps=600):
        result = run_task(task)
        assert result.ok, result.detail


def test_the_answer_loop_erratum_is_caught_by_the_generic_machine_at_defaults() -> None:
    """001 Algorithm 2's printed answer loop (notes §3.2, ``tests/planted_bugs.PaperAnswerLoop``) is caught in the
    multi-query card's machine with ``swagkit verify``'s default examples and steps; plain mode never runs it."""
    sys.path.insert(0, str(Path(__file__).parent))
    try:
        from planted_bugs import PaperAnswerLoop
    finally:
        sys.path.pop(0)
    info = registry.algorithm("slickdeque_noninv_ranges")
    subject = Subject("planted_paper_answer_loop", PaperAnswerLoop, info.params, facts=info)
    machine = info.kind.make_machine(subject, "argmax", DEFAULT_MAX_WINDOW)
    start = time.perf_counter()
    with pytest.raises(ModelMismatch, match=r"query_all\(\) answers"):
        run_machine_class(machine, DEFAULT_EXAMPLES, DEFAULT_STEPS, 0)
    print(f"answer-loop erratum caught and shrunk in {time.perf_counter() - start:.2f}s")
    plain = registry.algorithm("slickdeque_noninv")
    quiet = Subject("planted_paper_answer_loop", PaperAnswerLoop, plain.params, facts=plain)
    run_machine_class(plain.kind.make_machine(quiet, "argmax", DEFAULT_MAX_WINDOW), 4, 20, 0)


@pytest.mark.once
def test_contract_admits_exactly_the_traces_its_machine_may_make() -> None:
    i, e, q = ("insert", (1,)), ("evict", ()), ("query", ())
    rolling = parse("capacity=3,no-evict-before-full,no-empty-ops")
    assert rolling.admits([i, i, i, e, i, i, q])  # drain one, refill: the capacity holds the size at 3
    assert not rolling.admits([i, i, e])  # an evict before the window is full
    assert not rolling.admits([q])  # a query on an empty window
    assert not rolling.admits([i, i, i, e, e, e])  # drained to empty
    assert rolling.admits([i, i, i, ("evict_many", (2,))]) and not rolling.admits([i, i, i, ("evict_many", (3,))])
    static = parse("capacity=2,static")
    assert static.admits([i, i, i, q]) and not static.admits([i, e])
    assert UNRESTRICTED.admits([e, i, e, q])  # evicting an empty window is a defined misuse (refused)
    assert not parse("no-empty-ops").admits([e])  # not once the window promises never to be empty
