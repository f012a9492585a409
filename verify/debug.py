"""Debug mode: check any structure against its kind's specification after every single operation.

:func:`checked` wraps a structure in the debug wrapper of its ADT kind (:mod:`swagkit.verify.kinds`): the
:class:`~swagkit.verify.kinds.fifo.debug.CheckedAggregator` of FIFO SWAGs, FlatFAT's
:class:`~swagkit.verify.kinds.tree.CheckedTree`, FiBA's
:class:`~swagkit.verify.kinds.out_of_order.debug.CheckedOutOfOrder`, paper 004's wrappers. After every operation
the wrapper compares the structure with the kind's executable model and -- when the algorithm is known -- runs its
invariant checker on ``snapshot()`` and meters ``⊗`` against its budget; a failure raises a subclass of the
spec's error that names the operation (:mod:`swagkit.verify.errors`).

The kind comes from ``kind=`` (a name or a :class:`~swagkit.verify.kinds.kind.Kind`), else from the registered
algorithm (``algorithm=``, else the structure's ``algorithm`` attribute), else FIFO. A structure of no registered
algorithm is checked against the model only: ``checked(my_swag, kind="fifo", monoid=m)`` verifies your own
implementation.

``SWAGKIT_CHECK=1`` turns debug mode on for every aggregator built by :func:`swagkit.optimized.create` or
:func:`swagkit.verify.registry.create` (:func:`~swagkit.spec.debug_mode.check_enabled`). Debug mode costs O(n)
``⊗`` per operation (the invariant checkers recompute the window's partial aggregates).
"""

from __future__ import annotations

from typing import Any

from swagkit.spec.monoid import Monoid

from . import registry
from .kinds import Kind
from .kinds import kind as kind_named
from .kinds.base import AlgorithmFacts, CheckedBase, NoFacts
from .kinds.fifo.debug import CheckedAggregator
from .registry import ENV_VAR, check_enabled

__all__ = ["ENV_VAR", "check_enabled", "checked", "CheckedAggregator"]


def checked(
    obj: Any,
    *,
    kind: str | Kind | None = None,
    monoid: Monoid[Any, Any, Any] | None = None,
    algorithm: str | None = None,
    **options: Any,
) -> Any:
    """Wrap ``obj`` so every operation is checked (model; invariants, budget and space when the algorithm is
    known). ``monoid``/``algorithm`` default to the object's attributes of those names; ``options`` go to the
    kind's wrapper (FIFO: ``checker``, ``budget``, ``seed`` -- the input values a non-empty aggregator holds,
    oldest first; out-of-order: ``checker``, ``seed``; tree: ``leaves``). An already checked object is returned
    as is. An object of no registered algorithm that lacks a required operation of its kind raises
    :class:`~swagkit.verify.kinds.base.NotImplementedOperations` naming each one.

    >>> from swagkit.reference import DABA
    >>> from swagkit.spec.library import string_concat
    >>> w = checked(DABA(string_concat()))
    >>> w.insert_many("abc"); w.evict(); w.query()
    'bc'
    """
    if isinstance(obj, CheckedBase):
        return obj
    algo = algorithm if algorithm is not None else getattr(obj, "algorithm", None)
    info = registry.ALGORITHMS.get(algo) if isinstance(algo, str) else None
    facts: AlgorithmFacts | None = info
    if kind is not None:
        chosen = kind_named(kind)
        if info is not None and info.kind is not chosen:
            facts = NoFacts()  # the id names an algorithm of another kind: this kind's model only
    else:
        chosen = info.kind if info is not None else kind_named("fifo")
    if info is None or kind is not None:  # code swagkit did not write: say what it lacks before the first call
        chosen.require(obj)
    return chosen.checked(obj, monoid=monoid, algorithm=algorithm, facts=facts, **options)
