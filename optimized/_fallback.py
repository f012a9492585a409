"""Pure-Python fallback of :mod:`swagkit.optimized`: the reference classes themselves.

Used for every class whose compiled extension is missing, and for all of them when ``SWAGKIT_PUREPYTHON`` is set.
``_fallback.DABA`` … subclass :class:`swagkit.reference.DABA` … only to live in this module (so the fallback in
use is recognisable, and its copies and pickles name it) and to answer ``_memory_bytes()`` with None (Python
objects' memory is not measurable the way the extensions' malloc'd storage is). API, snapshots and
``combine_count`` therefore agree with the reference by construction.

Complexity is that of the reference (each class's module docstring cites the paper's theorems), e.g. paper
000's Two-Stacks and Two-Stacks Lite (Theorems 3.2, 4.2: amortized O(1), worst-case O(n) ⊗) and DABA and DABA
Lite (Theorems 5.2, 6.2: worst-case O(1) ⊗).
"""

from __future__ import annotations

import sys

import swagkit.reference as _reference

from ._extensions import EXTENSIONS

__all__ = ["fallback_class"]


def _memory_bytes(self: object) -> None:
    """Not measurable for the pure-Python fallback."""
    return None


def fallback_class(name: str) -> type:
    """The fallback of the reference class ``name`` (made on first use, then the same class every time)."""
    cls = globals().get(name)
    if cls is None:
        base = getattr(_reference, name)
        paper = (sys.modules[base.__module__].__doc__ or "").split("\n\n")[0].strip()
        cls = type(
            name,
            (base,),
            {
                "__module__": __name__,
                "__qualname__": name,
                "__doc__": f"Pure-Python fallback (the reference class) of {paper}\n\n{base.__doc__}",
                "_memory_bytes": _memory_bytes,
            },
        )
        globals()[name] = cls
    return cls


def __getattr__(name: str) -> type:
    """``_fallback.DABA`` and the like: the fallback of each class that a compiled extension defines."""
    if any(name in names for names in EXTENSIONS.values()):
        return fallback_class(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
