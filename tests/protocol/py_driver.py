"""A protocol driver in Python (docs/protocol.md) over swagkit's reference classes: the worked example of a
driver, and the program ``tests/test_process.py`` points the subprocess driver at to test the driver itself.

    python py_driver.py [--fifo CLASS] [--ooo CLASS] [--ops op,op,...] [--garbage-after N]

``--fifo``/``--ooo`` name the swagkit.reference classes it serves (DABALite and FiBA by default); ``--ops``
restricts the operations its hello offers (and it refuses the others as "unsupported"); ``--garbage-after N``
answers the N-th request and every later one with a line that is not JSON (a broken program, on purpose).

The shape of any driver: a loop reading one line, a map id -> aggregator, one reply line per request, flushed.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

from swagkit import reference
from swagkit.spec.errors import EmptyWindowError
from swagkit.spec.library import affine, max_i64, string_concat, sum_f64, sum_i64
from swagkit.spec.monoid import Monoid
from swagkit.spec.ooo import MissingTimeError, UnorderedBulkError

FIFO_OPS = ["new", "insert", "evict", "query", "size", "stats", "drop", "batch", "insert_many", "evict_many"]
OOO_OPS = ["remove", "bulk_evict", "bulk_insert", "range_query", "oldest", "youngest"]


def _pair(x: Any) -> tuple[int, int]:
    a, b = x
    return (a, b)


#: protocol name -> (monoid, decode a JSON value to an input, encode an output to JSON)
MONOIDS: dict[str, tuple[Callable[[], Monoid[Any, Any, Any]], Callable[[Any], Any], Callable[[Any], Any]]] = {
    "string_concat": (string_concat, str, str),
    "max_i64": (max_i64, int, int),
    "sum_i64": (sum_i64, int, int),
    "affine_int": (affine, _pair, lambda v: [int(v[0]), int(v[1])]),
    "sum_f64": (sum_f64, float.fromhex, lambda v: float(v).hex()),
}


class Refused(Exception):
    """A request the protocol answers with ``{"ok": false, "error": code}``."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class Driver:
    def __init__(self, fifo: str, ooo: str, ops: list[str]) -> None:
        self.classes = {"fifo": getattr(reference, fifo), "ooo": getattr(reference, ooo)}
        self.ops = ops
        self.instances: dict[int, tuple[Any, str]] = {}  # id -> (aggregator, monoid name)

    def hello(self) -> dict[str, Any]:
        return {"ok": True, "protocol": 1, "name": "py_driver", "kinds": ["fifo", "ooo"], "monoids": list(MONOIDS),
                "ops": self.ops}  # fmt: skip

    def handle(self, req: Any) -> dict[str, Any]:
        try:
            return {"ok": True, **self._handle(req)}
        except Refused as exc:
            return {"ok": False, "error": exc.code, "message": str(exc)}
        except EmptyWindowError as exc:
            return {"ok": False, "error": "empty", "message": str(exc)}
        except MissingTimeError as exc:
            return {"ok": False, "error": "missing", "message": str(exc)}
        except UnorderedBulkError as exc:
            return {"ok": False, "error": "unordered", "message": str(exc)}
        except (KeyError, TypeError, ValueError) as exc:
            return {"ok": False, "error": "bad_input", "message": repr(exc)}

    def _handle(self, req: Any) -> dict[str, Any]:
        op = req["op"]
        if op == "hello":
            return self.hello()
        if op not in self.ops:
            raise Refused("unsupported", f"unknown op {op!r}")
        if op == "new":
            if req["monoid"] not in MONOIDS or req["kind"] not in self.classes:
                raise Refused("unsupported", f"no {req['kind']} over {req['monoid']}")
            self.instances[req["id"]] = (self.classes[req["kind"]](MONOIDS[req["monoid"]][0]()), req["monoid"])
            return {}
        agg, name = self.instances[req["id"]]
        _, decode, encode = MONOIDS[name]
        if op == "drop":
            del self.instances[req["id"]]
            return {}
        if op == "size":
            return {"value": len(agg)}
        if op == "stats":
            return {"combines": agg.combine_count}
        if op in ("query", "range_query"):
            return {"value": encode(agg.query() if op == "query" else agg.range_query(req["from"], req["to"]))}
        if op in ("oldest", "youngest"):
            return {"value": getattr(agg, op)()}
        if op == "insert":
            agg.insert(decode(req["value"])) if "time" not in req else agg.insert(req["time"], decode(req["value"]))
        elif op == "evict":
            agg.evict()
        elif op == "insert_many":
            agg.insert_many([decode(v) for v in req["values"]])
        elif op == "evict_many":
            agg.evict_many(req["count"])
        elif op == "remove":
            agg.remove(req["time"])
        elif op == "bulk_evict":
            return {"value": agg.bulk_evict(req["time"])}
        elif op == "bulk_insert":
            agg.bulk_insert([(t, decode(v)) for t, v in req["items"]])
        return {}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--fifo", default="DABALite")
    parser.add_argument("--ooo", default="FiBA")
    parser.add_argument("--ops", default=",".join(FIFO_OPS + OOO_OPS))
    parser.add_argument("--garbage-after", type=int, default=0)
    args = parser.parse_args()
    driver = Driver(args.fifo, args.ooo, args.ops.split(","))
    for count, line in enumerate(sys.stdin, 1):
        if args.garbage_after and count >= args.garbage_after:
            print("Traceback (most recent call last): not a reply", flush=True)
            continue
        try:
            req = json.loads(line)
        except ValueError:
            reply: Any = {"ok": False, "error": "bad_input", "message": "not JSON"}
        else:
            reply = [driver.handle(r) for r in req] if isinstance(req, list) else driver.handle(req)
        print(json.dumps(reply, ensure_ascii=False, separators=(",", ":")), flush=True)  # flush: one reply now
    return 0


if __name__ == "__main__":
    sys.exit(main())
