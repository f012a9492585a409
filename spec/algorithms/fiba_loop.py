"""FiBA with its bulk operations written as loops of single ones (paper 003's baseline, μ = 4): the same tree,
snapshot and invariants as :mod:`.fiba`, and the loop's budget (``fiba_loop`` in
:mod:`swagkit.spec.fiba_budgets`: m single evicts or inserts)."""

from __future__ import annotations

import functools

from ..fiba_budgets import FiBABudgetMeter
from .fiba import CARD as FIBA
from .fiba import guarantees

CARD = FIBA.variant(
    "fiba_loop",
    "FiBA, bulk ops as loops (μ=4, baseline)",
    class_name="FiBALoop",
    budget_id="fiba_loop",
    meter=functools.partial(FiBABudgetMeter, loop=True),
    guarantees=guarantees("as fiba, but bulk evict O(m), bulk insert O(m log d)"),
    verify_share=3,  # FiBA's code with loops for its bulk operations
)
