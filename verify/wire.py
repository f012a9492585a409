"""A trace step as one JSON object: the line format shared by replay files and the ``--exec`` protocol.

Each operation of a kind's face (:class:`~swagkit.verify.kinds.base.Operation`) names the JSON field of each of
its arguments (``fields``); the field name says how the argument is written:

===================  ==============================================  =========================================
field                argument                                        JSON
===================  ==============================================  =========================================
``value``            an input value                                  the value codec's (exact: see below)
``values``           input values                                    an array of them
``time``, ``from``,  a timestamp                                     an int, a float or a string
``to``
``count``, ``range`` a count                                         an int
``handle``           a handle                                        an int (or whatever a dead handle was)
``handles``          handles                                         an array of them
``items``            ``(time, value)`` pairs                         ``[[t, v], ...]``
``events``           ``("insert", v)``, ``("evict",)``,              ``[["insert", v], ["evict"], ["remove",
                     ``("remove", h)``                               h]]``
===================  ==============================================  =========================================

Values are written by a :class:`Codec`: :data:`EXACT` (replay files: :mod:`swagkit.verify.jsonvalues`, floats as
hex strings) or a protocol conformance monoid's. Answers (``expect`` in files, ``value`` in protocol replies)
are written by :func:`encode_answer`. Decoding checks every shape and raises :class:`WireError` (a
:class:`ValueError` with a one-line message) for anything else, so a malformed file or reply is never a
traceback.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .jsonvalues import decode, decode_time, encode

if TYPE_CHECKING:
    from .kinds.base import Operation

__all__ = ["WireError", "Codec", "exact", "encode_args", "decode_args", "encode_answer", "decode_answer"]


class WireError(ValueError):
    """A line that is not a well-formed step (its message is one line)."""


@dataclass(frozen=True)
class Codec:
    """How input values and answers are written: ``encode`` (a value to JSON; ``TypeError`` when it has no
    encoding) and ``decode`` (JSON to a value; :class:`WireError` for what it cannot be)."""

    encode: Callable[[Any], Any]
    decode: Callable[[Any], Any]


def exact(monoid_id: str) -> Codec:
    """The exact codec of replay files for monoid ``monoid_id`` (:mod:`swagkit.verify.jsonvalues`)."""

    def dec(data: Any) -> Any:
        if not _json_shaped(data):
            raise WireError(f"{_short(data)} is not an encoded value")
        return decode(data, monoid_id)

    return Codec(encode, dec)


def _json_shaped(data: Any) -> bool:
    if data is None or isinstance(data, (bool, int, float, str)):
        return True
    return isinstance(data, list) and all(_json_shaped(d) for d in data)


def _short(data: Any) -> str:
    text = repr(data)
    return text if len(text) <= 60 else text[:59] + "…"


def _time_out(t: Any) -> Any:
    # times cross as JSON numbers (ints; finite floats in their shortest round-trip form) or strings
    if isinstance(t, bool) or not isinstance(t, (int, float, str)) or (isinstance(t, float) and not math.isfinite(t)):
        raise TypeError(f"no JSON encoding for the time {t!r} (an int, a finite float or a string)")
    return t


def _time_in(raw: Any) -> Any:
    if isinstance(raw, bool) or not isinstance(raw, (int, float, str)):
        raise WireError(f"{_short(raw)} is not a time")
    return decode_time(raw) if isinstance(raw, str) else raw


def _int_in(raw: Any) -> int:
    if isinstance(raw, bool) or not isinstance(raw, int):
        raise WireError(f"{_short(raw)} is not an integer")
    return raw


def _scalar_in(raw: Any) -> Any:
    if raw is not None and not isinstance(raw, (bool, int, float, str)):
        raise WireError(f"{_short(raw)} is not a handle")
    return raw


def _list_in(raw: Any) -> list[Any]:
    if not isinstance(raw, list):
        raise WireError(f"{_short(raw)} is not an array")
    return raw


def _event_out(ev: Any, codec: Codec) -> list[Any]:
    if ev[0] == "insert":
        return ["insert", codec.encode(ev[1])]
    return [ev[0], *ev[1:]]


def _event_in(raw: Any, codec: Codec) -> tuple[Any, ...]:
    ev = _list_in(raw)
    if ev[:1] == ["insert"] and len(ev) == 2:
        return ("insert", codec.decode(ev[1]))
    if ev == ["evict"]:
        return ("evict",)
    if ev[:1] == ["remove"] and len(ev) == 2:
        return ("remove", _scalar_in(ev[1]))
    raise WireError(f"{_short(raw)} is not an event (['insert', v], ['evict'] or ['remove', h])")


#: the (write, read) pairs several fields and answers share
_TIME: tuple[Callable[[Any, Codec], Any], Callable[[Any, Codec], Any]] = (
    lambda a, c: _time_out(a),
    lambda r, c: _time_in(r),
)
_INT: tuple[Callable[[Any, Codec], Any], Callable[[Any, Codec], Any]] = (lambda a, c: int(a), lambda r, c: _int_in(r))
_SCALAR: tuple[Callable[[Any, Codec], Any], Callable[[Any, Codec], Any]] = (
    lambda a, c: _scalar_out(a),
    lambda r, c: _scalar_in(r),
)
_SCALARS: tuple[Callable[[Any, Codec], Any], Callable[[Any, Codec], Any]] = (
    lambda a, c: [_scalar_out(h) for h in a],
    lambda r, c: [_scalar_in(h) for h in _list_in(r)],
)

#: per field: (write the argument, read it back)
_FIELDS: Mapping[str, tuple[Callable[[Any, Codec], Any], Callable[[Any, Codec], Any]]] = {
    "value": (lambda a, c: c.encode(a), lambda r, c: c.decode(r)),
    "values": (lambda a, c: [c.encode(v) for v in a], lambda r, c: [c.decode(v) for v in _list_in(r)]),
    "time": _TIME,
    "from": _TIME,
    "to": _TIME,
    "count": _INT,
    "range": _INT,
    "handle": _SCALAR,
    "handles": _SCALARS,
    "items": (
        lambda a, c: [[_time_out(t), c.encode(v)] for t, v in a],
        lambda r, c: [_pair_in(p, c) for p in _list_in(r)],
    ),
    "events": (lambda a, c: [_event_out(e, c) for e in a], lambda r, c: [_event_in(e, c) for e in _list_in(r)]),
}


def _scalar_out(h: Any) -> Any:
    if h is not None and not isinstance(h, (bool, int, float, str)):
        raise TypeError(f"no JSON encoding for the handle {h!r}")
    return h


def _pair_in(raw: Any, codec: Codec) -> tuple[Any, Any]:
    pair = _list_in(raw)
    if len(pair) != 2:
        raise WireError(f"{_short(raw)} is not a [time, value] pair")
    return (_time_in(pair[0]), codec.decode(pair[1]))


def encode_args(operation: Operation, args: tuple[Any, ...], codec: Codec) -> dict[str, Any]:
    """The JSON fields of a call of ``operation`` (``TypeError`` when an argument has no encoding)."""
    if len(args) != len(operation.fields):
        raise TypeError(f"{operation.step_name} takes {len(operation.fields)} arguments, got {len(args)}")
    return {key: _FIELDS[key][0](arg, codec) for key, arg in zip(operation.fields, args)}


def field_encoders(operation: Operation) -> tuple[tuple[str, Callable[[Any, Codec], Any]], ...]:
    """Per field of ``operation``, in order: its key and the function :func:`encode_args` writes it with (a
    caller that encodes many calls of one operation looks them up once)."""
    return tuple((key, _FIELDS[key][0]) for key in operation.fields)


def decode_args(operation: Operation, line: Mapping[str, Any], codec: Codec) -> tuple[Any, ...]:
    """The arguments of a call of ``operation`` read from ``line`` (:class:`WireError` for a missing or
    malformed field)."""
    args = []
    for key in operation.fields:
        if key not in line:
            raise WireError(f"{operation.step_name} needs the field {key!r}")
        try:
            args.append(_FIELDS[key][1](line[key], codec))
        except WireError as exc:
            raise WireError(f"{operation.step_name}'s {key!r}: {exc}") from None
    return tuple(args)


#: answers that are not values: per trace name, (write, read)
_ANSWERS: Mapping[str, tuple[Callable[[Any, Codec], Any], Callable[[Any, Codec], Any]]] = {
    "size": _INT,
    "bulk_evict": _INT,
    "oldest": _TIME,
    "youngest": _TIME,
    "insert_with_handle": _SCALAR,
    "handles": _SCALARS,
    "insert_many_with_handles": _SCALARS,
    "batch": _SCALARS,
    # every registered range's answer, longest range first
    "query_all": (
        lambda a, c: [[int(r), c.encode(a[r])] for r in sorted(a, reverse=True)],
        lambda r, c: {_int_in(p[0]): c.decode(p[1]) for p in (_list_in(x) for x in _list_in(r)) if len(p) == 2},
    ),
}


def encode_answer(name: str, answer: Any, codec: Codec) -> Any:
    """An answer of operation ``name`` as JSON (``TypeError`` when it has no encoding)."""
    how = _ANSWERS.get(name)
    return how[0](answer, codec) if how is not None else codec.encode(answer)


def decode_answer(name: str, raw: Any, codec: Codec) -> Any:
    """An answer of operation ``name`` read from JSON (:class:`WireError` when malformed)."""
    how = _ANSWERS.get(name)
    return how[1](raw, codec) if how is not None else codec.decode(raw)
