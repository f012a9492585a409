"""The algorithm registry: ids, metadata consistent with the spec, create() and combos."""

from __future__ import annotations

import re

import pytest

from swagkit.spec.budgets import BUDGETS
from swagkit.spec.checkers import CHECKERS
from swagkit.spec.errors import UnsupportedMonoidError
from swagkit.spec.library import LIBRARY, string_concat, sum_monoid
from swagkit.verify import registry
from swagkit.verify.registry import AlgorithmInfo, ImplementationInfo, RegistryError

BUILTIN = {
    "recalc": "Recalc",
    "two_stacks": "TwoStacks",
    "two_stacks_lite": "TwoStacksLite",
    "daba": "DABA",
    "daba_lite": "DABALite",
}


def test_ids_and_class_names() -> None:
    assert registry.algorithm_ids()[:5] == list(BUILTIN)
    for aid, cls in BUILTIN.items():
        assert registry.algorithm(aid).class_name == cls
    assert registry.implementation_ids()[:2] == ["reference", "optimized"]
    assert registry.monoid_ids() == list(LIBRARY)


@pytest.mark.parametrize("algorithm_id", list(BUILTIN))
def test_metadata_matches_the_spec(algorithm_id: str) -> None:
    info = registry.algorithm(algorithm_id)
    assert info.checker in CHECKERS and info.budget in BUDGETS
    assert info.kind.name == "fifo" and info.supports(string_concat())
    budget = BUDGETS[info.budget]
    for op, text in (("query", info.worst_query), ("insert", info.worst_insert), ("evict", info.worst_evict)):
        n = 10
        expected = {"n": n, "n−1": n - 1}.get(text, None)
        assert budget.bound(op, n) == (expected if expected is not None else int(text)), (op, text)
    coeff = {"n": 1, "2n": 2, "n+1": 1, "n+2": 1}[info.space]
    assert budget.space(10) == coeff * 10 + {"n+1": 1, "n+2": 2}.get(info.space, 0)
    theorem = re.search(r"Thm (\d\.\d)", info.paper)
    assert theorem is None or f"Theorem {theorem.group(1)}" in budget.source


@pytest.mark.parametrize("algorithm_id", list(BUILTIN))
@pytest.mark.parametrize("implementation", ["reference", "optimized"])
def test_create(algorithm_id: str, implementation: str) -> None:
    cls = registry.resolve_class(algorithm_id, implementation)
    if cls is None:
        assert implementation != "reference"
        with pytest.raises(RegistryError):
            registry.create(algorithm_id, "sum", implementation)
        return
    agg = registry.create(algorithm_id, "sum", implementation, check=False)
    assert type(agg) is cls
    assert agg.algorithm == algorithm_id and len(agg) == 0
    agg.insert_many([1, 2, 3])
    agg.evict()
    assert agg.query() == 5
    by_object = registry.create(algorithm_id, sum_monoid(), implementation, check=False)
    assert by_object.monoid.name == "sum"


def test_optimized_is_picked_up_when_it_exports_the_classes() -> None:
    import swagkit.optimized as opt

    for aid, cls_name in BUILTIN.items():
        exported = getattr(opt, cls_name, None)
        assert registry.resolve_class(aid, "optimized") is exported
    assert ("optimized" in registry.available_implementations()) == any(hasattr(opt, c) for c in BUILTIN.values())


def test_unknown_ids() -> None:
    with pytest.raises(RegistryError, match="unknown algorithm 'nope'"):
        registry.create("nope", "sum")
    with pytest.raises(RegistryError, match="unknown monoid"):
        registry.create("daba", "nope")
    with pytest.raises(RegistryError, match="unknown implementation"):
        registry.create("daba", "sum", "nope")
    with pytest.raises(LookupError):  # RegistryError is a LookupError
        registry.algorithm("nope")


def test_unimportable_implementation_is_unavailable() -> None:
    registry.register_implementation(ImplementationInfo("ghost", "swagkit.no_such_module", "test"))
    try:
        assert registry.resolve_class("daba", "ghost") is None
        assert "ghost" not in registry.available_implementations()
        assert all(c.skip for c in registry.combos(["daba"], ["sum"], ["ghost"]))
    finally:
        del registry.IMPLEMENTATIONS["ghost"]


def test_required_properties() -> None:
    from swagkit.reference import DABA

    needs_inverse = AlgorithmInfo(
        "needs_inverse", "DABA", "t", "-", checker="daba", budget="daba", requires=("invertible",)
    )
    either = AlgorithmInfo(
        "either",
        "DABA",
        "t",
        "-",
        checker="daba",
        budget="daba",
        requires=("selective", "invertible"),
        requires_any=True,
    )
    assert needs_inverse.supports(sum_monoid()) and not needs_inverse.supports(string_concat())
    assert needs_inverse.missing_properties(string_concat()) == ["invertible"]
    assert either.supports(sum_monoid()) and either.supports(LIBRARY["max"].factory())
    assert not either.supports(string_concat()) and either.requirement_text() == "selective or invertible"
    with pytest.raises(ValueError):
        AlgorithmInfo("bad", "X", "t", "-", checker=None, budget=None, requires=("idempotent",))
    with registry.registered(needs_inverse, {"reference": DABA}):
        with pytest.raises(UnsupportedMonoidError):
            registry.create("needs_inverse", "string_concat")
        assert registry.create("needs_inverse", "sum", check=False).algorithm == "daba"
        skips = {c.monoid: c.skip for c in registry.combos(["needs_inverse"], ["sum", "string_concat"], ["reference"])}
        assert skips == {"sum": None, "string_concat": "needs an invertible monoid"}
    assert "needs_inverse" not in registry.ALGORITHMS


def test_register_twice_and_params() -> None:
    from swagkit.reference import TwoStacks

    def factory(monoid: object, *, tag: str = "") -> TwoStacks:
        agg = TwoStacks(monoid)  # type: ignore[arg-type]
        agg.tag = tag  # type: ignore[attr-defined]
        return agg

    info = AlgorithmInfo(
        "tagged", "TwoStacks", "t", "-", checker="two_stacks", budget="two_stacks", params={"tag": "default"}
    )
    with registry.registered(info, {"reference": factory}):
        with pytest.raises(RegistryError, match="already registered"):
            registry.register_algorithm(info)
        assert registry.create("tagged", "sum", check=False).tag == "default"
        assert registry.create("tagged", "sum", check=False, tag="x").tag == "x"
        # implementations without a registered factory are searched by class name
        import swagkit.optimized as opt

        assert registry.resolve_class("tagged", "optimized") is getattr(opt, "TwoStacks", None)


def test_combos_cover_everything() -> None:
    all_combos = registry.combos()
    assert len(all_combos) == len(registry.ALGORITHMS) * len(LIBRARY) * len(registry.IMPLEMENTATIONS)
    runnable = [c for c in all_combos if c.skip is None]
    assert {c.implementation for c in runnable} == set(registry.available_implementations())
    assert all(c.label.count("×") == 2 for c in all_combos)


def test_guarantees_markdown() -> None:
    table = registry.guarantees_markdown().splitlines()
    assert len(table) == 2 + len(registry.ALGORITHMS)
    assert "| DABA | `daba` | 000 §5 (Thm 5.2) | 1 | 4 | 3 |" in table[5]


# ------------------------------------------------------------------------------------ the algorithm cards


def test_every_card_module_is_listed() -> None:
    """A card module missing from CARD_MODULES would be silently ignored: every module but ``card`` is listed."""
    import pkgutil

    import swagkit.spec.algorithms as algorithms

    modules = {m.name for m in pkgutil.iter_modules(algorithms.__path__)} - {"card"}
    assert modules == set(algorithms.CARD_MODULES)
    assert len(algorithms.CARD_MODULES) == len(set(algorithms.CARD_MODULES))


def test_the_registry_is_read_off_the_cards() -> None:
    from swagkit.spec.algorithms import CARDS

    from_cards = [a for a, info in registry.ALGORITHMS.items() if info.card is not None]
    assert from_cards == [c.id for c in CARDS] == registry.algorithm_ids()[: len(CARDS)]
    for card in CARDS:
        info = registry.algorithm(card.id)
        assert info.card is card and info == AlgorithmInfo.from_card(card)
        assert (info.checker, info.budget, info.kind.name) == (card.checker_id, card.budget_id, card.kind)
    # FiBA's μ variants are cards of the fiba module; the Reactive Aggregator's ADT extends the FIFO one
    assert [registry.algorithm(a).params["min_arity"] for a in ("fiba", "fiba_mu2", "fiba_mu8")] == [4, 2, 8]
    reactive = registry.algorithm("reactive").card
    assert reactive is not None and (reactive.adt, reactive.kind) == ("handles", "fifo")


def test_checkers_budgets_and_space_rules_are_read_off_the_cards() -> None:
    import swagkit.spec
    import swagkit.spec.algorithms as algorithms
    from swagkit.spec import stored_aggregates

    assert CHECKERS is swagkit.spec.CHECKERS is algorithms.CHECKERS
    assert BUDGETS is swagkit.spec.BUDGETS is algorithms.BUDGETS
    assert CHECKERS == {c.checker_id: c.checker for c in algorithms.CARDS if c.checker_id is not None}
    assert BUDGETS == {c.budget_id: c.budget for c in algorithms.CARDS if c.budget is not None}
    assert set(CHECKERS) == set(BUDGETS) | {"fiba"}  # FiBA's budgets are swagkit.spec.fiba_budgets'
    for card in algorithms.CARDS:
        if card.budget is not None:
            assert card.stored is not None and card.budget.algorithm == card.budget_id
    rules = {c.snapshot: c.stored for c in algorithms.CARDS if c.stored is not None}
    budgeted = {c.snapshot for c in algorithms.CARDS if c.budget is not None}  # a variant shares its snapshot type
    assert len(rules) == len(budgeted) + 1 and algorithms.card("flatfat").stored is not None  # the budgets' + FlatFAT's

    from swagkit.spec.snapshots import FiBANodeState, FiBAState, TwoStacksLiteState

    class Derived(TwoStacksLiteState):
        pass

    assert stored_aggregates(Derived(deque=("a", "ab"), F=0, B=1, E=2, aggB="b")) == 3  # a subclass: its base's rule
    empty = FiBAState(2, FiBANodeState(0, None, (), (), None, 0, True, True, ()), 0, 0, 0)
    for state in (empty, object()):
        with pytest.raises(TypeError, match="no space rule"):
            stored_aggregates(state)


def test_cards_refuse_inconsistent_facts() -> None:
    from swagkit.spec.algorithms import card

    daba = card("daba")
    with pytest.raises(ValueError, match="unknown ADT"):
        daba.variant("x", "x", adt="lifo")
    with pytest.raises(ValueError, match="budget_id"):
        daba.variant("x", "x", budget_id="two_stacks")
    with pytest.raises(ValueError, match="checker_id"):
        daba.variant("x", "x", checker=None)
    with pytest.raises(ValueError, match="unknown monoid properties"):
        daba.variant("x", "x", requires=("idempotent",))
    assert daba.requirement_text() == "-" and card("slickdeque_inv").requirement_text() == "invertible"
    assert card("slickdeque_noninv").missing_properties(string_concat()) == ["selective"]


def test_a_card_is_all_the_registry_needs() -> None:
    """What a new algorithm's card gives: create() builds it, and debug mode finds its checker, budget and space
    rule by the card's ids."""
    from swagkit.reference import DABA
    from swagkit.spec.algorithms import card

    info = AlgorithmInfo.from_card(card("daba").variant("daba_again", "DABA again"))
    with registry.registered(info, {"reference": DABA}):
        agg = registry.create("daba_again", "string_concat", check=True)
        assert agg.active_checks == ("model", "invariants", "budget", "space")
        agg.insert_many("abc")
        agg.evict()
        assert agg.query() == "bc"


def test_no_import_cycles_between_registry_and_debug_or_spec_and_verify() -> None:
    """The registry does not import debug mode (debug mode reads the registry and installs itself there), and
    the specification imports nothing of the verification tools."""
    import ast
    import pathlib

    import swagkit.spec
    import swagkit.verify.registry

    def imports(path: pathlib.Path) -> set[str]:
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                names.add("." * node.level + (node.module or ""))
            elif isinstance(node, ast.Import):
                names.update(a.name for a in node.names)
        return names

    debug_mode = {".debug", "swagkit.verify.debug"}  # swagkit.spec.debug_mode, the SWAGKIT_CHECK switch, is fine
    assert not imports(pathlib.Path(swagkit.verify.registry.__file__)) & debug_mode
    spec_dir = pathlib.Path(swagkit.spec.__file__).parent
    for path in spec_dir.rglob("*.py"):
        assert not {m for m in imports(path) if "verify" in m}, path
