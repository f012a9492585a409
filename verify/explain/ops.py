"""The operation language of ``swagkit explain``: ``"insert a; insert b; evict; query"`` parsed into :class:`Op`.

Operations are separated by ``;`` or new lines; each is a name and its arguments, split like a shell line (quote
a value with spaces). What an operation takes depends on the algorithm's kind:

* fifo (and handles): ``insert V``, ``evict``, ``query``, ``insert_many V…``, ``evict_many N``,
  ``query_range N``; fifo also ``shift V`` (evict, insert, query in one call), handles ``remove NAME`` (the
  element's name as printed);
* tree (FlatFAT as a window over its leaves, 002 §4): ``insert V``, ``evict``, ``query``, ``update I V``,
  ``prefix I``, ``suffix I``, ``leaf I``;
* ooo (FiBA): ``insert T V``, ``evict``, ``remove T``, ``bulk_evict T``, ``bulk_insert T V T V…``, ``query``,
  ``range_query T T``, ``oldest``, ``youngest``;
* the structures of paper 004 (no monoid): any public method, with numeric arguments (``insert 5``, ``rank 9``).

Values are read for the monoid: the text monoids (:data:`~swagkit.verify.jsonvalues.TEXT_MONOIDS`) take the
token as it is, the others a JSON literal (``3``, ``2.5``, ``[2, 1]`` for affine). A token that does not fit is
an :class:`ExplainUsageError` naming it.

>>> [(op.name, op.args) for op in parse("insert a; insert 'b c'; evict", "fifo", "string_concat")]
[('insert', ('a',)), ('insert', ('b c',)), ('evict', ())]
>>> parse("insert 5 a; bulk_evict x", "ooo", "string_concat")
Traceback (most recent call last):
...
swagkit.verify.explain.ops.ExplainUsageError: bad time 'x' in 'bulk_evict x' (a number)
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..jsonvalues import TEXT_MONOIDS, decode, decode_time

__all__ = ["Op", "ExplainUsageError", "OPERATIONS", "parse", "plain_operations"]


class ExplainUsageError(ValueError):
    """A script or a choice ``swagkit explain`` cannot run (exit 2)."""


@dataclass(frozen=True)
class Op:
    """One operation: its ``name``, parsed ``args`` and the ``text`` it was written as."""

    name: str
    args: tuple[Any, ...]
    text: str


# argument shapes: value, time, int, float, name; a trailing "*" repeats (pair* = time value, time value, ...)
_FIFO = {
    "insert": ("value",),
    "evict": (),
    "query": (),
    "insert_many": ("value*",),
    "evict_many": ("int",),
    "query_range": ("int",),
}
#: the operations of each kind (``plain`` structures take their own public methods)
OPERATIONS: dict[str, dict[str, tuple[str, ...]]] = {
    "fifo": {**_FIFO, "shift": ("value",)},
    "handles": {**_FIFO, "remove": ("name",)},
    "tree": {
        "insert": ("value",),
        "evict": (),
        "query": (),
        "update": ("int", "value"),
        "prefix": ("int",),
        "suffix": ("int",),
        "leaf": ("int",),
    },
    "ooo": {
        "insert": ("time", "value"),
        "evict": (),
        "remove": ("time",),
        "bulk_evict": ("time",),
        "bulk_insert": ("pair*",),
        "query": (),
        "range_query": ("time", "time"),
        "oldest": (),
        "youngest": (),
    },
}


def plain_operations(cls: type) -> dict[str, tuple[str, ...]]:
    """The operations of a structure that takes no monoid: its public methods, numeric arguments."""
    skip = {"snapshot", "copy", "merge", "repair", "salvage"}
    return {
        name: ("number*",)
        for name in dir(cls)
        if not name.startswith("_") and name not in skip and callable(getattr(cls, name, None))
    }


def _number(token: str, what: str, text: str) -> Any:
    try:
        data = json.loads(token)
    except ValueError:
        data = token
    value = decode_time(data)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ExplainUsageError(f"bad {what} {token!r} in {text!r} (a number)")
    return value


def _value(token: str, monoid_id: str, text: str) -> Any:
    if monoid_id in TEXT_MONOIDS or not monoid_id:
        return token
    try:
        return decode(json.loads(token), monoid_id)
    except ValueError:
        raise ExplainUsageError(f"bad value {token!r} in {text!r} (a JSON literal for monoid {monoid_id})") from None


def _args(shapes: tuple[str, ...], tokens: list[str], monoid_id: str, text: str) -> tuple[Any, ...]:
    readers: dict[str, Callable[[str], Any]] = {
        "value": lambda t: _value(t, monoid_id, text),
        "time": lambda t: _number(t, "time", text),
        "number": lambda t: _number(t, "number", text),
        "int": lambda t: _int(t, text),
        "name": lambda t: t,
    }
    if shapes and shapes[-1].endswith("*"):
        shape = shapes[-1][:-1]
        if shape == "pair":
            if len(tokens) % 2:
                raise ExplainUsageError(f"{text!r}: bulk_insert takes time value pairs, got {len(tokens)} tokens")
            pairs = [(readers["time"](t), readers["value"](v)) for t, v in zip(tokens[::2], tokens[1::2])]
            return (pairs,)
        items = [readers[shape](t) for t in tokens]
        return tuple(items) if shape == "number" else (items,)
    if len(tokens) != len(shapes):
        want = " ".join(s.upper() for s in shapes) or "no arguments"
        raise ExplainUsageError(f"{text!r}: {text.split()[0]} takes {want}, got {len(tokens)} argument(s)")
    return tuple(readers[s](t) for s, t in zip(shapes, tokens))


def _int(token: str, text: str) -> int:
    try:
        return int(token)
    except ValueError:
        raise ExplainUsageError(f"bad integer {token!r} in {text!r}") from None


def parse(script: str, kind: str, monoid_id: str, operations: dict[str, tuple[str, ...]] | None = None) -> list[Op]:
    """The operations of ``script`` for ``kind`` (a key of :data:`OPERATIONS`, or pass ``operations``)."""
    known = operations if operations is not None else OPERATIONS[kind]
    ops: list[Op] = []
    for part in script.replace("\n", ";").split(";"):
        text = part.strip()
        if not text:
            continue
        try:
            tokens = shlex.split(text)
        except ValueError as exc:
            raise ExplainUsageError(f"cannot split {text!r}: {exc}") from None
        name = tokens[0]
        if name not in known:
            raise ExplainUsageError(f"unknown operation {name!r} in {text!r} (known for {kind}: {', '.join(known)})")
        ops.append(Op(name, _args(known[name], tokens[1:], monoid_id, text), text))
    if not ops:
        raise ExplainUsageError("no operations given")
    return ops
