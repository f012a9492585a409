"""Replay files: a counterexample's trace as JSON Lines (``swagkit replay FILE`` runs one: :mod:`.replay`).

A replay file is the :class:`~swagkit.verify.trace.Trace` of a failing run, step for step with the same
numbering (:mod:`swagkit.verify.wire` writes each step)::

    {"op": "hello", "swagkit_replay": 2, "kind": "fifo", "monoid": "string_concat", "impl": "mymod:MyAgg", ...}
    {"op": "new", "id": 1, "kind": "fifo", "monoid": "string_concat"}
    {"op": "insert", "id": 1, "value": "a"}
    {"op": "insert", "id": 1, "value": "b", "fault": 2, "family": "faults"}
    {"op": "evict", "id": 1, "error": "empty", "family": "misuse"}
    {"op": "query", "id": 1, "failed": "ModelMismatchAt: after query() (operation #4): ..."}

The file is also a session of the line protocol (docs/protocol.md): the header is a ``hello`` carrying the run's
facts, ``new`` makes instance 1 and every step names it, so ``CMD < file`` sends a program exactly what the run
sent it. Per step: ``expect`` is the model's answer, ``error`` the code of a documented refusal (``empty``,
``missing``, ``unordered``, ``bad_input``: a dead handle, a value the monoid refuses), ``failed`` what went
wrong at the failing step, ``family`` the contract rule that asked for the step (``misuse``, ``faults``) and
``fault`` which of the step's ⊗ calls raised an injected fault (swagkit injects it again on replay; a file with
faults needs ``swagkit replay``: a program cannot be told to fail).

**A replay file is data.** Nothing it names is imported or run: ``swagkit replay FILE`` runs the implementation
named on its command line (``--impl MODULE:FACTORY`` or ``--exec CMD``; a file written for one says which), a
``MODULE:OBJ`` monoid only when ``--monoid`` names it, and a registered algorithm (``"algorithm"``,
``"implementation"``) from swagkit's own registry. Values are JSON (:mod:`swagkit.verify.jsonvalues`); a value
with no JSON encoding makes the file ``"python_only": "rerun"`` (the seeded search again, its steps listed for
reading). Every malformed file is a :class:`ReplayFileError` with a one-line message.

Files of the kinds without an operation trace and of Spark runs say ``"python_only"``: ``"rerun"`` (the seeded
search again, :func:`swagkit.verify.recording.rerun`), ``"diff"`` (a Spark differential task run again locally,
:func:`swagkit.verify.spark.rediff`) or ``"merge"`` (the sketch kind's merge run again,
:func:`swagkit.verify.kinds.decay.spark.remerge`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .kinds.base import Operation, traced_operations
from .kinds.fifo.face import OPERATIONS as FIFO_OPERATIONS
from .kinds.out_of_order.face import OPERATIONS as OOO_OPERATIONS
from .trace import FAMILIES, NO_ANSWER, Step, Trace
from .wire import Codec, WireError, decode_answer, decode_args, encode_answer, encode_args, exact

__all__ = [
    "VERSION",
    "REPLAY_ID",
    "KIND_OF_FILE",
    "TRACED",
    "ENV_VAR",
    "DEFAULT_DIR",
    "replay_dir",
    "registered_header",
    "PROTOCOL_KINDS",
    "RERUN",
    "ReplayFileError",
    "ReplayFile",
    "file_kind",
    "step_lines",
    "write",
    "save",
    "read",
    "parse",
]

#: the format written; :func:`read` also reads version 1 (no faults, no families)
VERSION = 2
#: the protocol instance a replay file's steps run on
REPLAY_ID = 1
#: the swagkit kind each file kind is verified as (``handles``: the FIFO kind with its handle operations)
KIND_OF_FILE = {"fifo": "fifo", "handles": "fifo", "ooo": "out_of_order"}
#: the traced operations of each swagkit kind with a trace (its face; see :meth:`~.kinds.kind.Kind.traced`)
TRACED: dict[str, dict[str, Operation]] = {
    "fifo": traced_operations(FIFO_OPERATIONS),
    "out_of_order": traced_operations(OOO_OPERATIONS),
}
#: where replay files go when neither the caller nor the environment says otherwise
DEFAULT_DIR = ".swagkit/replays"
#: environment variable naming the directory of replay files (``swagkit verify``, the test suite)
ENV_VAR = "SWAGKIT_REPLAY_DIR"


def replay_dir() -> str:
    """``$SWAGKIT_REPLAY_DIR``, else ``.swagkit/replays``."""
    return os.environ.get(ENV_VAR) or DEFAULT_DIR


#: the file (and protocol) kind of each swagkit kind with a trace
PROTOCOL_KINDS = {"fifo": "fifo", "out_of_order": "ooo"}
#: the kinds whose files re-run a whole search or task (``python_only``) instead of a trace
RERUN = ("rerun", "diff", "merge", "arrays")
#: what a step line may hold beyond its arguments
_STEP_KEYS = {"op", "id", "expect", "expect_repr", "error", "failed", "family", "fault", "repr"}


class ReplayFileError(ValueError):
    """The file is not a well-formed replay file (the message is one line and names the file)."""


def file_kind(kind_name: str, steps: Sequence[Step]) -> str:
    """The file kind of a trace of swagkit kind ``kind_name``: ``ooo``, ``handles`` (a FIFO trace that uses a
    handle operation), ``fifo``."""
    if kind_name == "out_of_order":
        return "ooo"
    operations = TRACED["fifo"]
    return "handles" if any(operations[s.name].group for s in steps if s.name in operations) else "fifo"


def registered_header(subject: Any, monoid_id: str) -> dict[str, Any]:
    """The header facts of a replay file over a registered algorithm (:func:`swagkit.verify.replay.run`
    rebuilds it from ``algorithm``/``implementation``; ``checker``/``budget`` name what was checked)."""
    facts = subject.facts
    return {
        "algorithm": subject.name,
        "implementation": subject.implementation,
        "monoid": monoid_id,
        "checker": getattr(facts, "checker", None),
        "budget": getattr(facts, "budget", None),
    }


def step_lines(kind_name: str, monoid_id: str, steps: Sequence[Step]) -> tuple[list[dict[str, Any]], bool]:
    """The lines of ``steps`` of a trace of swagkit kind ``kind_name`` (and whether they are exact: False when an
    argument has no JSON encoding, so the line holds its ``repr`` for reading only)."""
    operations, codec = TRACED[kind_name], exact(monoid_id)
    lines: list[dict[str, Any]] = []
    exact_args = True
    for s in steps:
        line: dict[str, Any] = {"op": s.name, "id": REPLAY_ID}
        try:
            line.update(encode_args(operations[s.name], s.args, codec))
        except TypeError:
            exact_args = False
            line["repr"] = repr(s.args)[:300]
        if s.answer is not NO_ANSWER:
            try:
                line["expect"] = encode_answer(s.name, s.answer, codec)
            except TypeError:  # e.g. a Bloom filter: the wrapper compares it on replay, the file shows it
                line["expect_repr"] = repr(s.answer)[:300]
        if s.refused:
            line["error"] = s.refused
        if s.failed:
            line["failed"] = s.failed
        if s.family:
            line["family"] = s.family
        if s.fault is not None:
            line["fault"] = s.fault
        lines.append(line)
    return lines, exact_args


def write(directory: str, header: Mapping[str, Any], trace: Trace | Sequence[Step], kind_name: str) -> str:
    """Write ``trace`` under ``directory`` (created) as a replay file; its path. ``header``: ``monoid``, the
    implementation (``impl``/``exec``, or the registry's ``algorithm`` and ``implementation``), ``failure``
    (its first line is kept) and the run's options (``contract``, ``tolerance``, ``empty_error``, ``rerun``
    ...)."""
    steps = list(trace)
    monoid_id = str(header["monoid"])
    fkind = file_kind(kind_name, steps)
    lines, exact_args = step_lines(kind_name, monoid_id, steps)
    failing = next((i for i, s in enumerate(steps, 1) if s.failed), None)
    family = next((s.family for s in steps if s.failed and s.family), "correctness") if failing else None
    head: dict[str, Any] = {"op": "hello", "swagkit_replay": VERSION, **header, "kind": fkind}
    head["failure"] = next((ln for ln in str(header.get("failure", "")).splitlines() if ln.strip()), "")
    head["steps"] = len(steps)
    if failing is not None:
        head["failed_at"] = failing
        head["family"] = family
    if not exact_args:  # values only this Python process could rebuild: the seeded search is the replay
        head["python_only"] = "rerun" if "rerun" in header else "repr"
    elif any(s.fault is not None for s in steps):
        head["python_only"] = "faults"  # swagkit injects the faults again; a program cannot be told to fail
    new = {"op": "new", "id": REPLAY_ID, "kind": "ooo" if fkind == "ooo" else "fifo", "monoid": monoid_id}
    return save(directory, head, [new, *lines])


def save(directory: str, head: Mapping[str, Any], rows: Sequence[Mapping[str, Any]]) -> str:
    """Write a replay file (``head`` then ``rows``, one JSON object per line) under ``directory``; its path,
    named after the kind, the implementation and the monoid, with a hash of the content."""
    body = [json.dumps(head)] + [json.dumps(row) for row in rows]
    text = "\n".join(body) + "\n"
    what = head.get("algorithm") or head.get("entry") or "impl"  # an array file of window_sum names no algorithm
    who = head.get("impl") or head.get("exec") or f"{what}_{head.get('implementation', '')}"
    parts = (head["kind"], who, head["monoid"])
    name = "-".join(re.sub(r"\W+", "_", str(part)).strip("_")[:40] for part in parts)
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, f"{name}-{hashlib.sha1(text.encode()).hexdigest()[:8]}.jsonl")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


@dataclass(frozen=True)
class ReplayFile:
    """A replay file read back: ``header`` (without ``op``), its ``steps`` (empty for the ``python_only`` files
    of a whole search or task) and its ``rows`` as read (those files list their calls for reading)."""

    path: str
    header: dict[str, Any]
    steps: tuple[Step, ...]
    rows: tuple[dict[str, Any], ...]

    @property
    def kind_name(self) -> str:
        """The swagkit kind its steps are operations of (``fifo``, ``out_of_order``)."""
        return KIND_OF_FILE[str(self.header["kind"])]

    @property
    def monoid(self) -> str:
        return str(self.header["monoid"])


def read(path: str) -> ReplayFile:
    """The replay file at ``path`` (:class:`ReplayFileError` when it is not one, :class:`OSError` when it cannot
    be read)."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    return parse(text, path)


def parse(text: str, path: str = "<replay>") -> ReplayFile:
    """A replay file from its text (see :func:`read`)."""
    rows: list[dict[str, Any]] = []
    for number, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        try:
            row = json.loads(raw)
        except ValueError:
            raise ReplayFileError(f"{path} line {number} is not JSON: {raw[:80]!r}") from None
        if not isinstance(row, dict):
            raise ReplayFileError(f"{path} line {number} is not a JSON object")
        rows.append(row)
    if not rows or rows[0].get("swagkit_replay") not in (1, VERSION):
        raise ReplayFileError(f"{path} is not a swagkit replay file (its first line has no swagkit_replay: {VERSION})")
    header = {k: v for k, v in rows[0].items() if k != "op"}
    for key in ("kind", "monoid"):
        if not isinstance(header.get(key), str):
            raise ReplayFileError(f"{path}: the header has no {key!r} string")
    body = tuple(r for r in rows[1:] if r.get("op") != "new")
    if header.get("python_only") in RERUN:
        return ReplayFile(path, header, (), body)
    if header["kind"] not in KIND_OF_FILE:
        raise ReplayFileError(f"{path}: unknown kind {header['kind']!r} (known: {', '.join(KIND_OF_FILE)})")
    if header.get("python_only") == "repr":
        raise ReplayFileError(f"{path} lists values only as repr (no JSON encoding): it cannot be replayed")
    operations, codec = TRACED[KIND_OF_FILE[header["kind"]]], exact(header["monoid"])
    steps = []
    for number, row in enumerate(body, 1):
        try:
            steps.append(_step(row, operations, codec))
        except WireError as exc:
            raise ReplayFileError(f"{path} step #{number}: {exc}") from None
    return ReplayFile(path, header, tuple(steps), body)


def _step(row: Mapping[str, Any], operations: Mapping[str, Any], codec: Codec) -> Step:
    name = row.get("op")
    if not isinstance(name, str) or name not in operations:
        raise WireError(f"unknown operation {name!r} (known: {', '.join(operations)})")
    if any(k.endswith("_pickle") for k in row):
        raise WireError("it holds pickled values (a file of swagkit 0.1): swagkit no longer loads them")
    op = operations[name]
    extra = set(row) - _STEP_KEYS - set(op.fields)
    if extra:
        raise WireError(f"{name} has unknown fields {', '.join(sorted(extra))}")
    step = Step(name, decode_args(op, row, codec))
    if "expect" in row:
        step.answer = decode_answer(name, row["expect"], codec)
    error, failed, family, fault = row.get("error"), row.get("failed"), row.get("family", ""), row.get("fault")
    if error is not None and not isinstance(error, str):
        raise WireError(f"{name}'s error is not a string")
    step.refused = error or ""
    step.failed = str(failed) if failed is not None else ""
    if family and family not in FAMILIES:
        raise WireError(f"unknown family {family!r}")
    step.family = "" if family == "correctness" else str(family)
    if fault is not None:
        if isinstance(fault, bool) or not isinstance(fault, int) or fault < 1:
            raise WireError(f"{name}'s fault is not a positive integer")
        step.fault = fault
    return step
