"""The engine adapters by name (issue 24): ``make_engine("duckdb")`` is DuckDB's :class:`~.engine.Engine`.

Each adapter lives in its own module and is imported only when asked for, so an engine that is not installed
never breaks ``import swagkit.verify.engines``; asking for it raises :class:`EngineUnavailable` with what to
install. :func:`installed_engines` says which can be made here (it looks the packages up, importing none).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import shutil
from dataclasses import dataclass
from typing import Any

from .engine import Engine

__all__ = ["ENGINE_NAMES", "SPARK_ENGINES", "EngineUnavailable", "installed_engines", "make_engine"]

_ENGINES_EXTRA = "pip install 'swagkit[engines]'"


@dataclass(frozen=True)
class _Adapter:
    """Where an engine's adapter is (``module``.``cls`` in this package) and what it needs installed."""

    module: str
    cls: str
    packages: tuple[str, ...]
    install: str


_ADAPTERS: dict[str, _Adapter] = {
    "sqlite": _Adapter("sqlite", "SqliteEngine", ("sqlite3",), "use a Python built with its sqlite3 module"),
    "duckdb": _Adapter("duckdb_engine", "DuckdbEngine", ("duckdb",), _ENGINES_EXTRA),
    "datafusion": _Adapter("datafusion_engine", "DatafusionEngine", ("datafusion", "pyarrow"), _ENGINES_EXTRA),
    "polars": _Adapter("polars_engine", "PolarsEngine", ("polars",), _ENGINES_EXTRA),
    "pandas": _Adapter("pandas_engine", "PandasEngine", ("pandas",), _ENGINES_EXTRA),
    "spark": _Adapter("spark_engine", "SparkEngine", ("pyspark",), "pip install 'swagkit[spark]'"),
    "spark-segment-tree": _Adapter(
        "spark_engine", "SparkSegmentTreeEngine", ("pyspark",), "pip install 'swagkit[spark]'"
    ),
    "swagkit": _Adapter("swagkit_engine", "SwagkitEngine", (), ""),
}

#: every engine swagkit has an adapter for, in the order reports list them
ENGINE_NAMES: tuple[str, ...] = tuple(_ADAPTERS)
#: the engines that run Spark SQL (on the driver's session: never inside a Spark task, and named to run)
SPARK_ENGINES: tuple[str, ...] = ("spark", "spark-segment-tree")


class EngineUnavailable(RuntimeError):
    """The engine ``name`` cannot be used here: ``reason`` says why and what to install."""

    def __init__(self, name: str, reason: str) -> None:
        super().__init__(f"engine {name!r} is unavailable: {reason}")
        self.name = name
        self.reason = reason


def _missing(name: str, options: dict[str, Any]) -> str | None:
    """Why engine ``name`` cannot be made here (a package missing; Spark without a Java runtime), or None."""
    adapter = _ADAPTERS[name]
    for package in adapter.packages:
        if importlib.util.find_spec(package) is None:
            return f"{package} is not installed: {adapter.install}"
    java = os.environ.get("JAVA_HOME") or shutil.which("java")
    if name in SPARK_ENGINES and options.get("session") is None and not java:
        return "no Java runtime for a local Spark session (install Java 17+ or set JAVA_HOME)"
    return None


def installed_engines() -> tuple[str, ...]:
    """The engines whose packages (and, for Spark, a Java runtime) are present, in :data:`ENGINE_NAMES` order."""
    return tuple(name for name in ENGINE_NAMES if _missing(name, {}) is None)


def make_engine(name: str, **options: Any) -> Engine:
    """A new adapter for engine ``name``, made with ``options`` (e.g. ``session=`` for Spark).

    ``ValueError`` for a name not in :data:`ENGINE_NAMES`; :class:`EngineUnavailable` when the engine's
    packages are not installed."""
    if name not in _ADAPTERS:
        raise ValueError(f"unknown engine {name!r} (known: {', '.join(ENGINE_NAMES)})")
    reason = _missing(name, options)
    if reason is not None:
        raise EngineUnavailable(name, reason)
    adapter = _ADAPTERS[name]
    module = importlib.import_module(f"{__package__}.{adapter.module}")
    engine: Engine = getattr(module, adapter.cls)(**options)
    return engine
