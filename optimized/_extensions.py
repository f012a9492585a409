"""Which compiled extension of :mod:`swagkit.optimized` defines which classes, read off the algorithm cards.

``optimized/_<m>.pyx`` compiles ``reference/<m>.py`` (setup.py builds each ``optimized/_*.pyx``, optionally), so
the class of a card comes from the extension named after its reference module (SlickDequeInv and
SlickDequeNonInv: ``_slickdeque``). A module of its own because both the loader (:mod:`._loader`) and the fallback
(:mod:`._fallback`, which the loader imports) read this table.
"""

from __future__ import annotations

import swagkit.reference as reference
from swagkit.spec.algorithms import CARDS

__all__ = ["REFERENCE_ONLY", "FAST_PATH_NAMES", "EXTENSIONS"]

#: classes of swagkit.reference that this package does not compile (it exports the reference class itself)
REFERENCE_ONLY = ("Recalc",)
#: the ``window_array`` fast path of an extension, when it has one under another name than ``_window_array``
FAST_PATH_NAMES = {"_flatfit": "_window_array_clamped"}


def _extensions() -> dict[str, tuple[str, ...]]:
    """Every compiled extension -> the classes it defines (see the module docstring)."""
    table: dict[str, tuple[str, ...]] = {}
    for card in CARDS:
        if card.class_name in REFERENCE_ONLY:
            continue
        ext = "_" + getattr(reference, card.class_name).__module__.rpartition(".")[2]
        if card.class_name not in table.get(ext, ()):
            table[ext] = (*table.get(ext, ()), card.class_name)
    return table


#: every compiled extension -> the classes it defines (each also a class of swagkit.reference by that name)
EXTENSIONS: dict[str, tuple[str, ...]] = _extensions()
