"""Build the optional Cython extensions of ``swagkit.optimized`` (everything else is in pyproject.toml).

Every extension is ``optional=True``: without a C compiler (or without Cython and pre-generated C files) the
build still succeeds and ``swagkit.optimized`` falls back to its pure-Python implementation
(``swagkit.optimized.COMPILED`` is then False).
"""

from __future__ import annotations

import os
import sys

from setuptools import Extension, setup

MODULES = ["_two_stacks", "_two_stacks_lite", "_daba", "_daba_lite"]

DIRECTIVES = {
    "language_level": 3,
    "boundscheck": False,
    "wraparound": False,
    "cdivision": True,
    "initializedcheck": False,
    "embedsignature": True,
}

COMPILE_ARGS = [] if sys.platform == "win32" else ["-O3"]


def _extensions() -> list[Extension]:
    try:
        from Cython.Build import cythonize
    except ImportError:  # no Cython: use C files generated earlier (an sdist), if any
        sources = {m: f"optimized/{m}.c" for m in MODULES}
        return [
            Extension(f"swagkit.optimized.{m}", [src], extra_compile_args=COMPILE_ARGS, optional=True)
            for m, src in sources.items()
            if os.path.exists(src)
        ]
    exts = [
        Extension(f"swagkit.optimized.{m}", [f"optimized/{m}.pyx"], extra_compile_args=COMPILE_ARGS, optional=True)
        for m in MODULES
        if os.path.exists(f"optimized/{m}.pyx")
    ]
    return list(cythonize(exts, compiler_directives=DIRECTIVES, include_path=["optimized"], quiet=True))


setup(ext_modules=_extensions())
