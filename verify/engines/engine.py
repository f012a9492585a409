"""What an engine adapter is: it renders a :class:`~.model.Case` in its dialect, runs it, reads the answers back.

An adapter declares what it can express (:meth:`Engine.unsupported`: a reason, or None) -- an unsupported feature
is skipped and counted, never a failure -- and answers every query it declared supported with one value per row of
the table, in the table's row order (aligned by ``id``, whatever order the engine returned them in), as plain
Python values: ``None`` for NULL, ``int``, ``float`` (NaN and ±inf as they came), ``decimal.Decimal`` as the
engine typed it, ``str``, ``bool``, ``list`` for arrays. A query the engine rejected although the adapter declared
it supported comes back as a :class:`Failure` of kind ``refused`` (a valid standard query refused at planning is
a finding of its own); an engine that died (a Rust panic, an internal error) as kind ``crash``.

An engine that has no NaN distinct from NULL (SQLite stores a NaN as NULL; pandas' one missing marker for floats
is NaN, read back as NULL) sets the class attribute ``nan_is_null = True``: its NULL then meets an exact NaN
(:func:`nan_is_null`), since no answer of that engine could be right otherwise.

Adapters run in-process, on the driver or on a Spark worker; each owns its connection (:meth:`Engine.close`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

from .model import Case, Query, Table

__all__ = ["Answers", "Engine", "Failure", "Repro", "nan_is_null"]


def nan_is_null(engine: object) -> bool:
    """Whether ``engine`` declares that it cannot tell NaN from NULL (the module docstring)."""
    return bool(getattr(engine, "nan_is_null", False))


@dataclass(frozen=True)
class Failure:
    """A query the engine did not answer: ``refused`` (an error at parsing/planning/binding of a query the
    adapter declared supported) or ``crash`` (a panic, an internal error, a wrong number of rows)."""

    kind: Literal["refused", "crash"]
    message: str


#: one entry per query: the answers per row in table order, or why there are none
Answers = list[list[Any] | Failure]


@dataclass(frozen=True)
class Repro:
    """The engine's part of a standalone reproduction (:mod:`.repro` wraps it in a script that compares with
    the exact answers, prints both side by side and exits 1 while the engine disagrees, 0 once it agrees):

    * ``files``: name -> text, written beside the script (e.g. ``case.sql`` for SQL engines);
    * ``code``: Python source, standalone (it imports the engine, never swagkit), that runs the case with the
      engine -- reading its files from the current directory -- and leaves ``answers``: one list per query of the
      case, one answer per row of the table in table order, as plain Python values (see the module docstring),
      and ``version``: the engine's version string.
    """

    files: dict[str, str]
    code: str


@runtime_checkable
class Engine(Protocol):
    """An engine adapter (see the module docstring)."""

    #: the engine's name on the command line (``--engine NAME``)
    name: str

    def version(self) -> str:
        """The engine's version string, recorded in every finding."""

    def unsupported(self, table: Table, query: Query) -> str | None:
        """Why this engine cannot express ``query`` over ``table`` (skipped and counted), or None."""

    def run(self, table: Table, queries: Sequence[Query]) -> Answers:
        """The engine's answers to ``queries`` (each declared supported) over ``table``."""

    def render(self, table: Table, queries: Sequence[Query]) -> str:
        """The engine's own spelling of the case: SQL text, or a Python snippet for dataframe APIs."""

    def repro(self, case: Case) -> Repro:
        """The engine's part of a standalone reproduction of ``case`` (typically one query over a few rows)."""

    def close(self) -> None:
        """Release the connection (idempotent)."""
