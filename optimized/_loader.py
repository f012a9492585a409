"""Loads the compiled extensions of :mod:`swagkit.optimized`, or the pure-Python fallback of each one missing.

The package's ``__init__`` exports what this module loads (and warns when something is missing); the modules that
need the classes in use -- the runtime factory (:mod:`.factory`), ``window_sum``'s kernel choice -- import them
from here rather than from the package, which imports those modules (a cycle otherwise).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from typing import Any

import swagkit.reference as reference

from ._driver import register_fast_path
from ._extensions import EXTENSIONS, FAST_PATH_NAMES, REFERENCE_ONLY
from ._fallback import fallback_class

__all__ = ["PURE_PYTHON_ASKED", "FALLBACK_REASONS", "COMPILED", "CLASSES"]

_PACKAGE = __name__.rpartition(".")[0]

#: ``SWAGKIT_PUREPYTHON`` (anything but ``""``/``"0"``) asks for the fallback everywhere
PURE_PYTHON_ASKED = os.environ.get("SWAGKIT_PUREPYTHON", "") not in ("", "0")

#: why each missing extension could not be imported (empty when compiled, or when the fallback was asked for)
FALLBACK_REASONS: dict[str, str] = {}

#: every class of the package's API by its reference name: the reference-only ones (the reference class itself)
#: and each extension's classes, compiled or their fallback
CLASSES: dict[str, Any] = {name: getattr(reference, name) for name in REFERENCE_ONLY}

for _ext, _names in EXTENSIONS.items():
    try:
        if PURE_PYTHON_ASKED:
            _classes = [fallback_class(name) for name in _names]
        else:
            _module = importlib.import_module(f"{_PACKAGE}.{_ext}")
            _classes = [getattr(_module, name) for name in _names]
            _fast_path: Callable[[Any, Any, Any, int], Any] | None = getattr(
                _module, FAST_PATH_NAMES.get(_ext, "_window_array"), None
            )
            if _fast_path is not None:  # FlatFAT, FiBA and paper 004's structures have none
                for _cls in _classes:
                    register_fast_path(_cls, _fast_path)
    except ImportError as err:
        FALLBACK_REASONS[_ext] = str(err) or type(err).__name__
        _classes = [fallback_class(name) for name in _names]
    CLASSES.update(zip(_names, _classes))

#: True when every extension is in use
COMPILED: bool = not PURE_PYTHON_ASKED and not FALLBACK_REASONS
