"""Build the optional Cython extensions of ``swagkit.optimized`` (everything else is in pyproject.toml).

Every extension is ``optional=True``: without a C compiler (or without Cython and pre-generated C files) the
build still succeeds and ``swagkit.optimized`` falls back to its pure-Python implementation
(``swagkit.optimized.COMPILED`` is then False).

Compiled with ``-O3``. With GCC, the inliner limits are raised so that each algorithm's insert/evict/query/
fixup is inlined into the per-kind ``window_array`` and ``insert_many`` loops (the typed kind is then a
compile-time constant and ⊗ a single instruction); with GCC's default limits those loops run about half as fast.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
#: every ``optimized/_*.pyx`` is an extension module (``optimized/include/`` holds the C headers they use)
MODULES = sorted(p.stem for p in (ROOT / "optimized").glob("_*.pyx"))
INCLUDE_DIRS = ["optimized/include"]
#: the four root folders install as ``swagkit.<folder>`` (package-dir in pyproject.toml); every folder below them
#: with an ``__init__.py`` is a subpackage (``spec/algorithms`` -> ``swagkit.spec.algorithms``), found here so that
#: a new subpackage cannot be left out of the wheel
PACKAGES = sorted(
    "swagkit." + ".".join(init.parent.relative_to(ROOT).parts)
    for top in ("spec", "reference", "optimized", "verify")
    for init in (ROOT / top).rglob("__init__.py")
)
# development: rebuild only some modules in place, e.g. SWAGKIT_BUILD_ONLY=_daba,_daba_lite python setup.py
# build_ext --inplace (a full build takes minutes; one module seconds)
if os.environ.get("SWAGKIT_BUILD_ONLY"):
    MODULES = [m for m in MODULES if m in os.environ["SWAGKIT_BUILD_ONLY"].split(",")]

DIRECTIVES = {
    "language_level": 3,
    "boundscheck": False,
    "wraparound": False,
    "cdivision": True,
    "initializedcheck": False,
}

# -ffp-contract=off: no product and sum fused into one rounding where the pure-Python twins round twice (the
# float kernels must give the same doubles as the reference: optimized/include/f64_track.h)
COMPILE_ARGS = [] if sys.platform == "win32" else ["-O3", "-ffp-contract=off"]

#: the paper-004 structures (C++): no per-kind typed loops to inline into, and the raised limits would triple their
#: compile time (a third of a clean build's) for nothing measurable
NO_RAISED_INLINING = frozenset({"_qdigest", "_window_count", "_value_division", "_window_quantiles"})

GCC_INLINE_ARGS = [
    "--param=max-inline-insns-single=2000",
    "--param=max-inline-insns-auto=500",
    "--param=large-function-growth=2000",
    "--param=inline-unit-growth=2000",
]


class BuildExt(build_ext):
    """``build_ext`` that compiles the extensions in parallel (one per core unless ``--parallel`` says otherwise:
    a clean build is most of CI's set-up time), adds GCC-only inlining parameters when the compiler is GCC, and
    says loudly when an extension could not be built (the package then runs 100-700x slower on its pure-Python
    fallback; an older build of it is removed first, so a failure is never hidden). pip hides a successful
    build's output unless run with ``-v``, so ``swagkit.optimized`` also warns at import;
    ``SWAGKIT_REQUIRE_COMPILED=1`` turns a failed extension into a failed install."""

    def run(self) -> None:
        # An extension that fails to compile must not leave an older build of it in place (an in-place .so from
        # before the change would be imported, and the failure hidden): remove each output first.
        # (an in-place build compiles into build/lib and copies from there, so both copies go)
        inplace = self.inplace
        try:
            for self.inplace in {0, inplace}:
                for ext in self.extensions:
                    path = self.get_ext_fullpath(ext.name)
                    if os.path.exists(path):
                        os.remove(path)
        finally:
            self.inplace = inplace
        super().run()
        missing = [ext.name for ext in self.extensions if not os.path.exists(self.get_ext_fullpath(ext.name))]
        if not missing:
            return
        banner = "\n".join(
            [
                "",
                "=" * 78,
                "swagkit: WARNING: these compiled extensions could not be built:",
                *(f"    {name}" for name in missing),
                "swagkit.optimized falls back to pure Python for them (100-700x slower).",
                "Install a C compiler and the Python headers (e.g. apt install build-essential python3-dev),",
                "then reinstall. Set SWAGKIT_REQUIRE_COMPILED=1 to make this an error.",
                "=" * 78,
                "",
            ]
        )
        sys.stderr.write(banner)
        if os.environ.get("SWAGKIT_REQUIRE_COMPILED", "") not in ("", "0"):
            raise SystemExit(
                "swagkit: SWAGKIT_REQUIRE_COMPILED is set and extensions failed to build: " + ", ".join(missing)
            )

    def finalize_options(self) -> None:
        super().finalize_options()
        if not self.parallel:
            self.parallel = True  # build_ext reads True as os.cpu_count() workers

    def build_extensions(self) -> None:
        compiler_so = getattr(self.compiler, "compiler_so", None) or []
        if self.compiler.compiler_type == "unix" and compiler_so and "gcc" in os.path.basename(compiler_so[0]):
            for ext in self.extensions:
                if ext.name.rsplit(".", 1)[-1] not in NO_RAISED_INLINING:
                    ext.extra_compile_args = list(ext.extra_compile_args or []) + GCC_INLINE_ARGS
        super().build_extensions()


def _extensions() -> list[Extension]:
    try:
        from Cython.Build import cythonize
    except ImportError:  # no Cython: use C/C++ files generated earlier (an sdist), if any
        return [
            Extension(
                f"swagkit.optimized.{m}",
                [f"optimized/{m}{suffix}"],
                include_dirs=INCLUDE_DIRS,
                extra_compile_args=COMPILE_ARGS,
                optional=True,
            )
            for m in MODULES
            for suffix in (".c", ".cpp")
            if (ROOT / "optimized" / f"{m}{suffix}").exists()
        ]
    exts = [
        Extension(
            f"swagkit.optimized.{m}",
            [f"optimized/{m}.pyx"],
            include_dirs=INCLUDE_DIRS,
            extra_compile_args=COMPILE_ARGS,
            optional=True,
        )
        for m in MODULES
    ]
    built = list(
        cythonize(
            exts,
            compiler_directives=DIRECTIVES,
            include_path=["optimized", *INCLUDE_DIRS],
            quiet=True,
            nthreads=os.cpu_count() or 1,
        )
    )
    for ext in built:  # cythonize() rebuilds the Extension objects and drops ``optional``
        ext.optional = True
    return built


setup(packages=PACKAGES, ext_modules=_extensions(), cmdclass={"build_ext": BuildExt})
