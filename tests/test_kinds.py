"""The ADT kinds as objects (issue 13): every registered algorithm's kind is a :class:`Kind` of
:mod:`swagkit.verify.kinds`, each kind's face (its operations) matches its model and the classes of its
algorithms, ``checked(obj, kind=...)`` verifies a structure of no registered algorithm against the model (and
catches a wrong answer), ``run_machine`` serves every kind, and ``check_implements`` names what is missing."""

from __future__ import annotations

from typing import Any

import pytest

import swagkit.reference as reference
from swagkit.spec.algorithms import CARDS
from swagkit.spec.library import string_concat, sum_monoid
from swagkit.verify import KINDS, Kind, ModelMismatchAt, NotImplementedOperations, checked, kind, registry
from swagkit.verify.kinds.base import Subject
from swagkit.verify.machine import examples_for, run_machine

KIND_NAMES = [k.name for k in KINDS]


def test_every_registered_algorithm_has_a_kind_object() -> None:
    assert KIND_NAMES == ["fifo", "tree", "out_of_order", "sketch", "time_decayed"]
    for info in registry.ALGORITHMS.values():
        assert isinstance(info.kind, Kind) and info.kind in KINDS
        assert kind(info.kind.name) is info.kind and kind(info.kind) is info.kind
    for card in CARDS:
        assert registry.algorithm(card.id).kind.name == card.kind
    with pytest.raises(KeyError, match="unknown kind 'nope'"):
        kind("nope")
    # a directly registered entry may name its kind
    info = registry.AlgorithmInfo("k_probe", "TwoStacks", "t", "-", checker=None, budget=None, kind="out_of_order")
    assert info.kind is kind("out_of_order")


@pytest.mark.parametrize("k", KINDS, ids=KIND_NAMES)
def test_each_kind_owns_every_face_and_its_operations_match_the_model(k: Kind) -> None:
    names = [op.name for op in k.operations]
    assert len(names) == len(set(names)) and k.required()
    assert callable(k.checked) and callable(k.make_machine)
    for op in k.operations:
        assert op.doc and (not op.group or not op.required)
        if op.model:
            assert hasattr(k.model_of(op), op.name), f"{k.name}: the model lacks {op.name}"
    # every algorithm of the kind, in every implementation, offers the kind's required operations (the class; an
    # instance for paper 004's structures, whose ``now``/``total`` are instance data)
    for info in registry.ALGORITHMS.values():
        if info.kind is not k:
            continue
        for impl in registry.available_implementations(info.id):
            cls = registry.resolve_class(info.id, impl)
            obj = cls if info.takes_monoid else registry.create(info.id, None, impl, check=False)
            assert k.check_implements(obj) == [], (info.id, impl)


def test_the_handles_extension_is_a_group_of_the_fifo_kind() -> None:
    fifo = kind("fifo")
    assert {"insert_with_handle", "remove", "handles"} <= set(fifo.group("handles"))
    assert fifo.check_implements(reference.ReactiveAggregator) == []
    assert all(hasattr(reference.ReactiveAggregator, name) for name in fifo.group("handles"))
    assert not hasattr(reference.DABA, "insert_with_handle")


def test_check_implements_names_the_missing_operations() -> None:
    class NoEvict:
        def insert(self, value: Any) -> None: ...

        def query(self) -> Any: ...

        def __len__(self) -> int:
            return 0

    fifo = kind("fifo")
    assert fifo.check_implements(NoEvict) == ["evict"]
    assert fifo.check_implements(NoEvict()) == ["evict"]
    with pytest.raises(NotImplementedOperations, match=r"lacks the required operation\(s\) evict\n  evict: evict\(\)"):
        fifo.require(NoEvict)
    assert kind("out_of_order").check_implements(reference.TwoStacks) == [
        "remove",
        "bulk_evict",
        "bulk_insert",
        "range_query",
        "oldest",
        "youngest",
    ]


class WrongQueryStacks(reference.TwoStacks):  # type: ignore[misc]
    """A user's FIFO SWAG of no registered algorithm whose query drops the oldest value of 3 or more."""

    algorithm = "users_own_stacks"

    def query(self) -> Any:
        got = super().query()
        return got[1:] if isinstance(got, str) and len(got) >= 3 else got


class WrongRangeFiBA(reference.FiBA):  # type: ignore[misc]
    """A user's out-of-order aggregator of no registered algorithm whose range queries drop the newest entry."""

    algorithm = "users_own_fiba"

    def range_query(self, t_from: Any, t_to: Any) -> Any:
        got = super().range_query(t_from, t_to)
        return got[:-1] if isinstance(got, str) and got else got


@pytest.mark.parametrize("how", ["name", "object"])
def test_checked_with_a_kind_checks_a_user_fifo_against_the_model(how: str) -> None:
    w = checked(
        WrongQueryStacks(string_concat()), kind="fifo" if how == "name" else kind("fifo"), monoid=string_concat()
    )
    assert w.active_checks == ("model",)  # no algorithm known: no checker, no budget
    w.insert("a")
    w.insert("b")
    assert w.query() == "ab"
    w.insert("c")
    with pytest.raises(ModelMismatchAt, match="model's answer is 'abc'"):
        w.query()


def test_checked_with_a_kind_checks_a_user_out_of_order_aggregator() -> None:
    w = checked(WrongRangeFiBA(string_concat(), 2), kind="out_of_order", monoid=string_concat())
    assert w.active_checks == ("model",) and w.meter is None
    w.bulk_insert([(1, "a"), (2, "b"), (5, "c")])
    assert w.query() == "abc"
    with pytest.raises(ModelMismatchAt, match="the model's answer is 'ab'"):
        w.range_query(0, 3)


def test_checked_with_a_kind_checks_a_user_tree_against_the_model() -> None:
    class WrongPrefix(reference.FlatFAT):  # type: ignore[misc]
        algorithm = "users_own_tree"

        def prefix(self, i: int) -> Any:
            return super().prefix(i) + (1 if i == 2 else 0)

    m = sum_monoid()
    w = checked(WrongPrefix(m, [m.lift(v) for v in (1, 2, 3, 4)], 4), kind="tree", monoid=m)
    assert w.active_checks == ("model",)
    assert w.prefix(1) == 3
    with pytest.raises(ModelMismatchAt, match="the model gives 6"):
        w.prefix(2)


def test_checked_finds_the_kind_of_a_registered_algorithm() -> None:
    fiba = checked(reference.FiBA(string_concat(), 4))
    assert type(fiba).__name__ == "CheckedOutOfOrder" and fiba.active_checks == ("model", "invariants", "budget")
    assert type(checked(reference.DABA(string_concat()))).__name__ == "CheckedAggregator"
    assert type(checked(reference.ReactiveAggregator(string_concat()))).__name__ == "CheckedNonFifoAggregator"


# one algorithm of every kind (the monoid-free structures run under their placeholder monoid)
ONE_OF_EACH = [
    ("daba", "string_concat"),
    ("flatfat", "string_concat"),
    ("fiba", "string_concat"),
    ("qdigest", "count"),
    ("window_quantiles", "count"),
]


@pytest.mark.parametrize("algorithm, monoid", ONE_OF_EACH, ids=[a for a, _ in ONE_OF_EACH])
def test_run_machine_serves_every_kind(algorithm: str, monoid: str) -> None:
    assert {registry.algorithm(a).kind.name for a, _ in ONE_OF_EACH} == set(KIND_NAMES)
    stats = run_machine(algorithm, monoid, max_examples=4, steps=8, seed=0)
    assert stats.examples >= 4 and stats.steps > 0


def test_a_kind_machine_runs_a_subject_of_no_registered_algorithm() -> None:
    from swagkit.verify.kinds.machines import run_machine_class

    subject = Subject("users_two_stacks", reference.TwoStacks)
    machine = kind("fifo").make_machine(subject, "string_concat", 20)
    run_machine_class(machine, 4, 8, 0)
    assert machine.__name__ == "UsersTwoStacksStringConcatReferenceMachine" and machine.stats.examples >= 4


def test_verify_share_is_card_data() -> None:
    shares = {c.id: c.verify_share for c in CARDS if c.verify_share != 1}
    assert shares == {"fiba_mu2": 3, "fiba_mu8": 3, "fiba_loop": 3}
    assert examples_for("fiba_mu2", 12) == 4 and examples_for("fiba_loop", 6) == 3 and examples_for("fiba", 12) == 12


def test_checked_refuses_an_object_lacking_its_kinds_operations_before_any_call() -> None:
    from swagkit.spec.library import string_concat
    from swagkit.verify import checked
    from swagkit.verify.kinds.base import NotImplementedOperations

    class HalfSwag:  # insert and query, but no evict and no len()
        def insert(self, value: object) -> None:
            raise AssertionError("checked() must refuse before calling anything")

        def query(self) -> str:
            return ""

    with pytest.raises(NotImplementedOperations, match=r"lacks the required operation\(s\) evict, __len__"):
        checked(HalfSwag(), kind="fifo", monoid=string_concat())
    with pytest.raises(NotImplementedOperations, match="update"):
        checked(HalfSwag(), kind="tree", monoid=string_concat())
