"""Values, times and answers as exact JSON: the encoding of replay files and of the ``--exec`` line protocol.

One encoding for every conformance monoid, exact in both directions (a replay must feed the implementation the
very values the shrunk run fed it):

=====================  ==============================  ===================================================
Python                 JSON                            example
=====================  ==============================  ===================================================
``None``/bool/int/str  the same                        ``"ab"``, ``7``, ``null``
``float``              a ``float.hex`` string          ``2.5`` -> ``"0x1.4000000000000p+1"``; ``"inf"``
``Fraction``           a ``"p/q"`` string              ``Fraction(1, 2)`` -> ``"1/2"``
tuple, list            an array                        affine ``(2, 1)`` -> ``[2, 1]``; argmax ``[3, "a"]``
=====================  ==============================  ===================================================

Decoding is told the monoid: strings stay strings for the text monoids (:data:`TEXT_MONOIDS`: their values are
strings that could look like numbers), elsewhere a string in the exact shape of a hex float or ``p/q`` becomes
a ``float`` or :class:`~fractions.Fraction`; arrays become tuples. Times (out-of-order kinds) are encoded the
same way and decoded with floats but without fractions.

>>> encode((Fraction(1, 2), 3)), decode(["1/2", 3], "affine")
(['1/2', 3], (Fraction(1, 2), 3))
>>> decode(encode(0.1), "sum_f64") == 0.1, decode("1/2", "string_concat")
(True, '1/2')
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

__all__ = ["TEXT_MONOIDS", "encode", "decode", "decode_time"]

#: monoids whose inputs or answers are strings (no string is ever turned into a number for them)
TEXT_MONOIDS = frozenset({"string_concat", "count", "first", "last", "collect", "bloom", "count_min"})

_HEX_FLOAT = re.compile(r"[-+]?(0x[0-9a-f]+(\.[0-9a-f]*)?p[-+]?\d+|inf|nan)", re.IGNORECASE)
_FRACTION = re.compile(r"-?\d+/\d+")


def encode(value: Any) -> Any:
    """``value`` as JSON-ready data (see the module docstring); ``TypeError`` for what has no encoding."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value.hex()  # exact; "inf", "-inf", "nan" for the non-finite ones
    if isinstance(value, Fraction):
        return f"{value.numerator}/{value.denominator}"
    if isinstance(value, (tuple, list)):
        return [encode(v) for v in value]
    raise TypeError(f"no JSON encoding for {type(value).__name__} value {value!r}")


def decode(data: Any, monoid_id: str = "") -> Any:
    """The Python value of JSON ``data`` encoded by :func:`encode`, for monoid ``monoid_id``."""
    return _decode(data, floats=monoid_id not in TEXT_MONOIDS, fractions=monoid_id not in TEXT_MONOIDS)


def decode_time(data: Any) -> Any:
    """A timestamp: ints and strings as they are, hex strings as floats."""
    return _decode(data, floats=True, fractions=False)


def _decode(data: Any, *, floats: bool, fractions: bool) -> Any:
    if isinstance(data, list):
        return tuple(_decode(d, floats=floats, fractions=fractions) for d in data)
    if isinstance(data, str):
        if floats and _HEX_FLOAT.fullmatch(data):
            return float.fromhex(data)
        if fractions and _FRACTION.fullmatch(data):
            return Fraction(data)
    return data
