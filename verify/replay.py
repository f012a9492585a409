"""Replay files: a shrunk failing run as JSON Lines, and ``swagkit replay FILE`` that re-runs it exactly.

The first line is a header, then one line per operation the state machine made on the implementation, each
with the executable model's answer (values encoded by :mod:`swagkit.verify.jsonvalues`)::

    {"op": "hello", "swagkit_replay": 1, "kind": "fifo", "monoid": "string_concat", "impl": "mymod:MyAgg", ...}
    {"op": "new", "id": 1, "kind": "fifo", "monoid": "string_concat"}
    {"op": "insert", "id": 1, "value": "a"}
    {"op": "evict", "id": 1}
    {"op": "query", "id": 1, "expect": "b"}
    {"op": "evict", "id": 1, "error": "empty"}

The file is also a session of the line protocol (docs/protocol.md): the header is a ``hello`` carrying the run's
facts, ``new`` makes instance 1, and every operation names it, so ``CMD < file`` replays it on a program
without Python (the program ignores ``expect``/``error`` and the header's extra fields).

``"expect"`` is the model's answer (``query``, ``size``, ``query_range``, ``range_query``, ``oldest``,
``youngest``, the count ``bulk_evict`` returns, handles); ``"error"`` says the model refuses the operation
(``"empty"``: an empty window; ``"bad_input"``: a dead handle, an absent time, an unordered bulk). Operations and
their fields:

* fifo / handles: ``insert`` (``value``), ``evict``, ``query``, ``shift`` (``value``; evict, insert and query
  in one call, ``expect``: the query's answer), ``insert_many`` (``values``), ``evict_many`` (``count``),
  ``query_range`` (``range``), ``insert_with_handle`` (``value``), ``insert_many_with_handles`` (``values``),
  ``remove`` (``handle``), ``remove_many`` (``handles``), ``batch`` (``events``: ``["insert", v]``,
  ``["evict"]``, ``["remove", h]``), ``handles``;
* ooo: ``insert`` (``time``, ``value``), ``evict``, ``remove`` (``time``), ``bulk_evict`` (``time``),
  ``bulk_insert`` (``items``: ``[[t, v], ...]``), ``query``, ``range_query`` (``from``, ``to``), ``oldest``,
  ``youngest``.

The header names the implementation (``"impl": "MODULE:FACTORY"`` or ``"exec": "CMD"``) and may carry
``checker``, ``budget``, ``tolerance``, ``values`` and ``contract`` (the options of the run; ``contract``: the
FIFO window's declared :class:`~swagkit.verify.kinds.fifo.Contract`, its non-default fields such as
``{"capacity": 8}``, so the model evicts the oldest on an insert into a full window and ``query_all``'s
``expect`` is ``[[range, answer], ...]`` for the registered ranges, longest first). :func:`run` replays a file
through the kind's checked wrapper -- the same model, length, invariant and budget checks as the machine --
and compares every answer with the file's.

Failures over a *registered* algorithm (``swagkit verify``, the test suite's machines, the Spark stage; see
:mod:`swagkit.verify.recording`) name it by registry ids instead: ``"algorithm": "daba_lite",
"implementation": "optimized"`` (and ``rerun``: the seeded search that found it), so ``swagkit replay FILE`` runs
that class with its registry entry's checker and budget. A Spark failure adds ``"against": "reference"``: every
operation also runs on the reference, whose answers, refusals, ⊗ counts and snapshots must agree. Values with no
JSON encoding (a Bloom filter answer) are written as ``args_pickle``/``expect_pickle`` (base64 pickle, with a
``_repr`` to read) and the header says ``"python_only": true``: only ``swagkit replay`` runs such a file. Kinds
without an operation trace (tree, sketch, time_decayed: their machines build several objects from drawn
parameters) get ``"python_only": "rerun"``: the file lists the shrunk example's calls for reading, and
``swagkit replay`` re-runs the same seeded search. A Spark mismatch of such a kind (a decay structure's
differential run) gets ``"python_only": "diff"``: the header's ``diff`` holds the
:class:`~swagkit.verify.kinds.differential.DiffTask` fields (``algorithm``, ``monoid``, ``seed``, ``steps``,
``max_window``), ``params_pickle``/``params_repr`` the subjects' parameters, ``step`` where it differed, and the
lines are the optimized implementation's calls up to the difference, for reading; ``swagkit replay`` re-runs
that task locally (the kind's differential runner over ``against`` and ``implementation``, no Spark). A failed
mergeability run (the sketch kind's Spark merge stage) gets ``"python_only": "merge"`` with the
:class:`~swagkit.verify.kinds.decay.spark.MergeTask` fields in ``merge``; ``swagkit replay`` rebuilds the same
partitions and reduce order locally and checks the merged digests again.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import pickle
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TextIO

from swagkit.spec.errors import EmptyWindowError, SwagkitError
from swagkit.spec.monoid import Monoid, fold
from swagkit.spec.nonfifo import OrderedMultisetWindow
from swagkit.spec.ooo import TimedWindow

from .jsonvalues import decode, decode_time, encode
from .kinds.base import same_output
from .kinds.fifo.contract import UNRESTRICTED, Contract

if TYPE_CHECKING:
    from .impl import MonoidChoice, MonoidResult

__all__ = ["VERSION", "lines_for", "write", "read", "run", "decode_call"]

VERSION = 1

Call = tuple[str, tuple[Any, ...]]

#: (argument field names, time-valued fields) per operation: the JSON shape of each call
_FIFO_FIELDS: dict[str, tuple[str, ...]] = {
    "insert": ("value",),
    "shift": ("value",),
    "insert_many": ("values",),
    "evict_many": ("count",),
    "query_range": ("range",),
    "insert_with_handle": ("value",),
    "insert_many_with_handles": ("values",),
    "remove": ("handle",),
    "remove_many": ("handles",),
    "batch": ("events",),
}
_OOO_FIELDS: dict[str, tuple[str, ...]] = {
    "insert": ("time", "value"),
    "remove": ("time",),
    "bulk_evict": ("time",),
    "bulk_insert": ("items",),
    "range_query": ("from", "to"),
}


#: the protocol instance a replay file's operations run on
REPLAY_ID = 1


def _ooo(kind: str) -> bool:
    return kind in ("ooo", "out_of_order")


def _model(kind: str, monoid: Monoid[Any, Any, Any]) -> Any:
    # the handles model is also the FIFO one (same insert/evict/query), so one model serves traces that mix them
    return TimedWindow(monoid) if _ooo(kind) else OrderedMultisetWindow(monoid)


def _newest(model: Any, monoid: Monoid[Any, Any, Any], r: int) -> Any:
    vals = model.values()
    return monoid.lower(fold(monoid, vals[len(vals) - min(r, len(vals)) :]))


def _apply(
    model: Any, monoid: Monoid[Any, Any, Any], name: str, args: tuple[Any, ...], contract: Contract = UNRESTRICTED
) -> Any:
    """The model's answer to one call (its exception when it refuses), within ``contract``."""
    if name in ("insert", "insert_many") and contract.capacity is not None and not isinstance(model, TimedWindow):
        for v in args[0] if name == "insert_many" else args:
            if contract.full(len(model)):
                model.evict()  # a full window of a fixed capacity: the oldest leaves first
            model.insert(v)
        return None
    if name == "shift":  # evict, insert, query in one call; the value is checked first (a refusal changes nothing)
        monoid.lift(args[0])
        model.evict()
        model.insert(args[0])
        return model.query()
    if name == "query_all":
        return [(r, _newest(model, monoid, r)) for r in contract.ranges or ()]
    if name == "size":  # the protocol's required op: a consumer of the file compares it without Python
        return len(model)
    if name == "query_range":
        vals = model.values()
        return monoid.lower(fold(monoid, vals[len(vals) - min(args[0], len(vals)) :]))
    if name == "insert_many_with_handles":
        return [model.insert_with_handle(v) for v in args[0]]
    if name == "remove_many":
        hs = list(args[0])
        if len(set(hs)) != len(hs) or any(h not in model.handles() for h in hs):
            model.remove(object())  # raises InvalidHandleError, changing nothing
        for h in hs:
            model.remove(h)
        return None
    if name == "batch":
        out: list[Any] = []
        for ev in args[0]:
            out.append(model.insert_with_handle(ev[1]) if ev[0] == "insert" else getattr(model, ev[0])(*ev[1:]))
        return out
    return getattr(model, name)(*args)


def _answers(name: str) -> bool:
    return name in {
        "query",
        "shift",
        "size",
        "query_range",
        "query_all",
        "range_query",
        "oldest",
        "youngest",
        "bulk_evict",
        "insert_with_handle",
        "insert_many_with_handles",
        "handles",
        "batch",
    }


def _pickled(key: str, value: Any) -> dict[str, Any]:
    """``value`` for a Python-only line: ``KEY_pickle`` (what ``swagkit replay`` loads; a replay file is trusted
    input, like the code it tests) and ``KEY_repr`` (for reading)."""
    return {f"{key}_pickle": base64.b64encode(pickle.dumps(value)).decode("ascii"), f"{key}_repr": repr(value)[:300]}


def _unpickled(line: dict[str, Any], key: str) -> Any:
    return pickle.loads(base64.b64decode(line[f"{key}_pickle"]))


def lines_for(
    kind: str, monoid: Monoid[Any, Any, Any], calls: list[Call], contract: Contract = UNRESTRICTED
) -> list[dict[str, Any]]:
    """The operation lines of ``calls`` (``(name, args)``), with the model's answers within ``contract``."""
    model = _model(kind, monoid)
    fields = _OOO_FIELDS if _ooo(kind) else _FIFO_FIELDS
    lines: list[dict[str, Any]] = []
    for name, args in calls:
        line: dict[str, Any] = {"op": name}
        try:
            for key, arg in zip(fields.get(name, ()), args):
                line[key] = encode(list(arg) if key in ("items", "values", "handles", "events") else arg)
        except TypeError:  # a value with no JSON encoding: this line (and so the file) is Python-only
            line = {"op": name, **_pickled("args", args)}
        try:
            answer = _apply(model, monoid, name, args, contract)
        except EmptyWindowError:
            line["error"] = "empty"
        except Exception:
            line["error"] = "bad_input"
        else:
            if _answers(name):
                try:
                    line["expect"] = encode(answer)
                except TypeError:  # e.g. a Bloom filter: compared in Python (same_output), not by a program
                    line.update(_pickled("expect", answer))
        lines.append(line)
    return lines


def write(directory: str, header: dict[str, Any], result: MonoidResult, choice: MonoidChoice, kind: str) -> str:
    """Write ``result``'s failing trace under ``directory`` (created); the file's path."""
    return write_trace(directory, {**header, "failure": result.failure}, result.calls, choice.factory(), kind)


def write_trace(
    directory: str, header: dict[str, Any], calls: list[Call], monoid: Monoid[Any, Any, Any], kind: str
) -> str:
    """Write the trace ``calls`` over ``monoid`` under ``directory`` (created); the file's path. ``header``:
    ``kind``, ``monoid``, the implementation (``impl``/``exec``, or the registry's ``algorithm`` and
    ``implementation``) and ``failure`` (the failure text; its first line is kept)."""
    failure = next((ln for ln in str(header.get("failure", "")).splitlines() if ln.strip()), "")
    # The file is a protocol session too (docs/protocol.md): the header is a ``hello`` (programs ignore fields
    # they do not know), then ``new`` and the operations on instance 1, so ``CMD < file`` replays it without Python.
    head = {"op": "hello", "swagkit_replay": VERSION, **header, "failure": failure}
    new = {"op": "new", "id": REPLAY_ID, "kind": "ooo" if _ooo(kind) else "fifo", "monoid": header["monoid"]}
    ops = [
        {"op": ln["op"], "id": REPLAY_ID, **{k: v for k, v in ln.items() if k != "op"}}
        for ln in lines_for(kind, monoid, calls, Contract.of(header.get("contract")))
    ]
    if any("args_pickle" in ln or "expect_pickle" in ln for ln in ops):
        head["python_only"] = True  # values without a JSON encoding: only swagkit replay can run it
    return _save(directory, head, [new, *ops])


def _save(directory: str, head: dict[str, Any], rows: list[dict[str, Any]]) -> str:
    body = [json.dumps(head)] + [json.dumps(row) for row in rows]
    text = "\n".join(body) + "\n"
    who = head.get("impl") or head.get("exec") or f"{head.get('algorithm', 'impl')}_{head.get('implementation', '')}"
    parts = (head["kind"], who, head["monoid"])
    name = "-".join(re.sub(r"\W+", "_", str(part)).strip("_")[:40] for part in parts)
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, f"{name}-{hashlib.sha1(text.encode()).hexdigest()[:8]}.jsonl")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


def read(path: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The header and the operation lines of a replay file (:class:`ValueError` when it is not one)."""
    with open(path, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    if not rows or not isinstance(rows[0], dict) or rows[0].get("swagkit_replay") != VERSION:
        raise ValueError(f"{path} is not a swagkit replay file (no swagkit_replay header)")
    # the protocol's framing (the ``new`` line, each operation's instance ``id``) is for ``CMD < file``
    ops = [{k: v for k, v in row.items() if k != "id"} for row in rows[1:] if row.get("op") != "new"]
    return {k: v for k, v in rows[0].items() if k != "op"}, ops


def decode_call(kind: str, monoid_id: str, line: dict[str, Any]) -> Call:
    """The ``(name, args)`` of one operation line."""
    name = str(line["op"])
    if "args_pickle" in line:  # a Python-only line (values without a JSON encoding)
        return name, tuple(_unpickled(line, "args"))
    fields = (_OOO_FIELDS if _ooo(kind) else _FIFO_FIELDS).get(name, ())
    args: list[Any] = []
    for key in fields:
        raw = line[key]
        if key in ("time", "from", "to"):
            args.append(decode_time(raw))
        elif key == "items":
            args.append([(decode_time(t), decode(v, monoid_id)) for t, v in raw])
        elif key == "values":
            args.append([decode(v, monoid_id) for v in raw])
        elif key == "events":
            args.append([(ev[0], decode(ev[1], monoid_id)) if ev[0] == "insert" else tuple(ev) for ev in raw])
        elif key == "handles":
            args.append(list(raw))
        elif key == "value":
            args.append(decode(raw, monoid_id))
        else:
            args.append(raw)
    return name, tuple(args)


def run(
    path: str,
    factory: Callable[..., Any] | None = None,
    *,
    impl: str | None = None,
    exec_cmd: str | None = None,
    out: TextIO | None = None,
) -> int:
    """Re-run a replay file against ``factory`` (else ``impl``/``exec_cmd``, else the header's): 0 when every
    operation agrees with the model and the file, 1 at the first divergence (printed to ``out``)."""
    from . import impl as impl_mod

    header, ops = read(path)
    say: Callable[[str], None] = (lambda s: print(s, file=out)) if out is not None else (lambda s: None)
    # a file naming a registered algorithm (swagkit verify, the test suite, the Spark stage) runs on it unless
    # an implementation is given
    registered = "algorithm" in header and factory is None and impl is None and exec_cmd is None
    if registered and header.get("python_only") == "rerun":
        from .recording import rerun

        return rerun(header, say)
    if header.get("python_only") in ("diff", "merge"):  # a whole differential or merge run, on registry classes
        if not registered:
            raise ValueError("this replay file re-runs the registered implementations it names: no --impl/--exec")
        return _rerun_task(str(header["python_only"]))(header, say)
    kind = str(header["kind"])
    choice = impl_mod.resolve_monoid(str(header["monoid"]), header.get("values"), header.get("tolerance"))
    factory = factory or _factory(header, impl, exec_cmd, kind)
    k, _ = impl_mod.resolve_kind(kind)
    monoid = choice.factory()
    facts: Any = impl_mod.UserFacts("replay", header.get("checker"), header.get("budget"))
    against: Any = None
    if registered:
        from . import registry
        from .recording import Against

        facts = registry.algorithm(str(header["algorithm"]))
        against = Against.of(header, monoid)
    contract = Contract.of(header.get("contract"))
    within = {"contract": contract} if contract.restricted else {}  # the run's contract (FIFO windows only)
    try:
        obj = impl_mod.Guarded(factory(monoid))
        swag = k.checked(obj, monoid=monoid, algorithm=facts.id, facts=facts, **within)
    except AssertionError as exc:
        say(f"replay: FAIL before the first operation: {exc}")
        return 1
    for number, line in enumerate(ops, 1):
        name, args = decode_call(kind, choice.id, line)
        label = f"#{number} {name}({', '.join(map(repr, args))})"
        try:
            got = len(swag) if name == "size" else getattr(swag, name)(*args)
        except AssertionError as exc:
            say(f"replay: FAIL at {label}:\n{exc}")
            return 1
        except SwagkitError as exc:
            if "error" not in line:
                say(f"replay: FAIL at {label}: raised {exc!r}, the model answers {line.get('expect')!r}")
                return 1
            got = exc
        else:
            if "error" in line:
                say(f"replay: FAIL at {label}: returned {got!r}, the model refuses it ({line['error']})")
                return 1
            if name == "query_all" and isinstance(got, dict):  # the file's [[range, answer], ...], longest first
                got = tuple((r, got[r]) for r in sorted(got, reverse=True))
            if "expect" in line and not _agrees(monoid, choice.id, got, line["expect"]):
                say(f"replay: FAIL at {label}: returned {got!r}, the file expects {line['expect']!r}")
                return 1
            if "expect_pickle" in line and not same_output(monoid, got, _unpickled(line, "expect")):
                say(f"replay: FAIL at {label}: returned {got!r}, the file expects {line['expect_repr']}")
                return 1
        problem = against.step(name, args, got, obj) if against is not None else ""
        if problem:
            say(f"replay: FAIL at {label}: {problem}")
            return 1
    say(f"replay: PASS, {len(ops)} operations agree with the model ({path})")
    return 0


def _rerun_task(how: str) -> Callable[[dict[str, Any], Callable[[str], None]], int]:
    """What re-runs a ``python_only`` ``diff`` or ``merge`` file."""
    if how == "merge":
        from .kinds.decay.spark import remerge

        return remerge
    from .spark import rediff

    return rediff


def _agrees(monoid: Monoid[Any, Any, Any], monoid_id: str, got: Any, expect: Any) -> bool:
    try:
        if encode(got) == expect:
            return True
    except TypeError:
        pass  # not JSON-encodable as is: compare decoded values below
    return same_output(monoid, got, decode(expect, monoid_id))


def _factory(header: dict[str, Any], impl: str | None, exec_cmd: str | None, kind: str) -> Callable[..., Any]:
    from . import impl as impl_mod

    if impl is None and exec_cmd is None:
        impl, exec_cmd = header.get("impl"), header.get("exec")
    if impl is not None:
        return impl_mod.load(impl)  # type: ignore[no-any-return]
    if exec_cmd is not None:
        return impl_mod.exec_factory(exec_cmd, kind)
    if "algorithm" in header:  # a registered algorithm: its class in the named implementation, as registered
        from . import registry

        return registry.subject(str(header["algorithm"]), str(header.get("implementation", "reference"))).new
    raise ValueError("the replay file names no implementation: pass --impl MODULE:FACTORY or --exec CMD")
