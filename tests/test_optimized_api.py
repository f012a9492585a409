"""swagkit.optimized exports exactly the reference API (names, signatures, ids) plus ``COMPILED``.

Runs on whichever implementation ``swagkit.optimized`` resolved to (compiled, or the pure-Python fallback when
``SWAGKIT_PUREPYTHON`` is set); the fallback module is checked as well in every run. With
``SWAGKIT_EXPECT_COMPILED=1`` (set by CI after a build with a C compiler) ``COMPILED`` must be True.
"""

from __future__ import annotations

import inspect
import os
from typing import Any

import pytest

import swagkit.optimized as opt
import swagkit.reference as ref
from swagkit.optimized import _fallback

CLASSES = ["TwoStacks", "TwoStacksLite", "DABA", "DABALite"]
#: every class the reference exports (later algorithms are covered without editing this file)
ALL_CLASSES = [n for n in ref.__all__ if isinstance(getattr(ref, n), type)]
#: classes that are deliberately the reference's own code in every build (not worth compiling / a recipe)
SHARED_WITH_REFERENCE = {"Recalc"}
RECIPES = {"SlickRange"}  # a subclass of the reference recipe over compiled Non-Inv deques
PURE = os.environ.get("SWAGKIT_PUREPYTHON", "") not in ("", "0")


def _public_methods(cls: type) -> dict[str, Any]:
    return {
        name: getattr(cls, name)
        for name in dir(cls)
        if not name.startswith("_") and callable(getattr(cls, name)) and not isinstance(getattr(cls, name), type)
    }


def _params(sig: inspect.Signature) -> list[tuple[str, Any, Any]]:
    return [(p.name, p.kind, p.default) for p in sig.parameters.values()]


def test_exports_same_names_plus_compiled() -> None:
    extras = {"COMPILED", "FALLBACK_REASONS", "PurePythonFallbackWarning", "create"}  # create: the runtime factory
    assert set(opt.__all__) == set(ref.__all__) | extras
    for name in ref.__all__:
        assert hasattr(opt, name), name
    assert isinstance(opt.COMPILED, bool)


def test_compiled_flag_matches_environment() -> None:
    if PURE:
        assert opt.COMPILED is False
        for name in CLASSES:
            assert getattr(opt, name) is getattr(_fallback, name)
    elif os.environ.get("SWAGKIT_EXPECT_COMPILED") == "1":
        assert opt.COMPILED is True, "extensions were expected to be built and importable"
    else:
        pytest.skip("set SWAGKIT_EXPECT_COMPILED=1 to require the compiled extensions")
    if opt.COMPILED:
        for name in CLASSES:
            assert getattr(opt, name).__module__.startswith("swagkit.optimized._"), name
            assert getattr(opt, name) is not getattr(_fallback, name)


@pytest.mark.parametrize("name", [n for n in ALL_CLASSES if n not in SHARED_WITH_REFERENCE | RECIPES])
def test_every_class_comes_from_its_extension_when_compiled(name: str) -> None:
    """``COMPILED`` means *every* extension is in use: a module that failed to build (the extensions are
    optional, so the build itself succeeds) must not hide behind the pure-Python fallback."""
    cls = getattr(opt, name)
    if PURE or not opt.COMPILED:
        assert issubclass(cls, getattr(ref, name)), f"{name}: the fallback subclasses the reference"
        assert cls.__module__ == "swagkit.optimized._fallback", name
        if os.environ.get("SWAGKIT_EXPECT_COMPILED") == "1":
            assert PURE, "extensions were expected to be built and importable"
    else:
        assert cls.__module__.startswith("swagkit.optimized._") and cls.__module__ != "swagkit.optimized._fallback"
        assert not issubclass(cls, getattr(ref, name)), f"{name} is the fallback although COMPILED is True"


@pytest.mark.parametrize("name", ALL_CLASSES)
def test_every_class_has_the_reference_public_api(name: str) -> None:
    """Same public methods with the same signatures and the same constructor parameters as the reference."""
    ref_cls = getattr(ref, name)
    for cls in {getattr(opt, name), getattr(_fallback, name, getattr(opt, name))}:
        ref_methods = _public_methods(ref_cls)
        methods = _public_methods(cls)
        assert sorted(methods) == sorted(ref_methods), name
        for m, f in ref_methods.items():
            assert inspect.signature(methods[m]) == inspect.signature(f), f"{name}.{m}"
        # a default that is a class may be the implementation's own counterpart (SlickRange's ``noninv``)
        assert [(n, k, d.__name__ if isinstance(d, type) else d) for n, k, d in _params(inspect.signature(cls))] == [
            (n, k, d.__name__ if isinstance(d, type) else d) for n, k, d in _params(inspect.signature(ref_cls))
        ], name
        assert getattr(cls, "algorithm", None) == getattr(ref_cls, "algorithm", None), name


@pytest.mark.parametrize("impl", ["resolved", "fallback"])
@pytest.mark.parametrize("name", CLASSES)
def test_class_api_identical(name: str, impl: str) -> None:
    ref_cls = getattr(ref, name)
    cls = getattr(opt, name) if impl == "resolved" else getattr(_fallback, name)
    assert cls.algorithm == ref_cls.algorithm
    ref_methods = _public_methods(ref_cls)
    methods = _public_methods(cls)
    assert sorted(methods) == sorted(ref_methods)
    for m, f in ref_methods.items():
        # full signatures, annotations included (the compiled methods carry the reference's annotation strings)
        assert inspect.signature(methods[m]) == inspect.signature(f), m
    assert callable(cls.__len__)
    # constructor: same parameters (a compiled type exposes its text signature without annotations)
    assert _params(inspect.signature(cls)) == _params(inspect.signature(ref_cls))


def test_window_array_signature() -> None:
    assert (
        inspect.signature(opt.window_array).parameters.keys() == inspect.signature(ref.window_array).parameters.keys()
    )
    assert _params(inspect.signature(opt.window_array)) == _params(inspect.signature(ref.window_array))


def test_recalc_is_reference() -> None:
    assert opt.Recalc is ref.Recalc


@pytest.mark.parametrize("name", CLASSES)
def test_instance_attributes(name: str) -> None:
    from swagkit.spec.library import string_concat, sum_f64

    for m in (string_concat(), sum_f64()):
        a = getattr(opt, name)(m)
        r = getattr(ref, name)(m)
        assert a.monoid is m
        assert a.combine_count == 0 and isinstance(a.combine_count, int)
        assert len(a) == 0
        assert repr(a) == repr(r)
        assert type(a.snapshot()) is type(r.snapshot())
        if hasattr(r, "last_case"):
            assert a.last_case == r.last_case
        a.insert("x" if m.name == "string_concat" else 1.0)
        a.combine_count = 0  # settable like the reference attribute
        assert a.combine_count == 0


@pytest.mark.parametrize("name", CLASSES)
def test_docstrings_cite_paper(name: str) -> None:
    cls = getattr(opt, name)
    doc = inspect.getdoc(cls) or ""
    assert "§" in doc or "paper" in doc
    module = inspect.getmodule(cls)
    mod_doc = (module.__doc__ if module is not None else None) or ""
    assert "Theorem" in mod_doc or "Complexity" in mod_doc
    for meth in ("insert", "evict", "query"):
        assert getattr(cls, meth).__doc__


def test_every_extension_source_is_loaded() -> None:
    """The loader's table (read off the cards: ``optimized/_<m>.pyx`` compiles ``reference/<m>.py``) names every
    extension setup.py builds, and every class it names is a reference class compiled there."""
    from pathlib import Path

    sources = {p.stem for p in (Path(opt.__file__).parent).glob("_*.pyx")}
    if sources:  # an installed wheel ships no .pyx
        assert set(opt.EXTENSIONS) == sources
    for ext, names in opt.EXTENSIONS.items():
        for name in names:
            assert getattr(ref, name).__module__ == f"swagkit.reference.{ext[1:]}", name
    assert sorted(n for names in opt.EXTENSIONS.values() for n in names) == sorted(
        set(ALL_CLASSES) - SHARED_WITH_REFERENCE - RECIPES
    )
