"""``swagkit corpus run``: replay every file of an exported corpus on an implementation (``--impl`` or
``--exec``), skipping the files whose ops it does not offer; PASS/FAIL/SKIP per file, each as every run's
:class:`~swagkit.verify.runner.Outcome`."""

from __future__ import annotations

import io
import json
import os
import time
from collections.abc import Callable, Sequence
from typing import Any

from swagkit.spec.errors import UnsupportedMonoidError

from .. import replay, replayfile
from ..guard import Deadline, Guarded
from ..options import detect, load
from ..process import CONFORMANCE, conformance_monoids_registered, process_factory
from ..runner import Finding, Outcome

#: the index file of an exported corpus (here, not in the package, which imports this module: export writes it)
INDEX = "index.json"


def corpus_files(directory: str) -> list[str]:
    """The corpus files under ``directory``, relative: the index's when there is one, else every ``.jsonl``."""
    index = os.path.join(directory, INDEX)
    if os.path.exists(index):
        with open(index, encoding="utf-8") as f:
            return [str(entry["path"]) for entry in json.load(f)["files"]]
    found = []
    for root, _, names in os.walk(directory):
        found += [os.path.relpath(os.path.join(root, n), directory) for n in names if n.endswith(".jsonl")]
    return sorted(p.replace(os.sep, "/") for p in found)


class _Subject:
    """What the implementation under test offers, per (kind, monoid): its factory and ops, or why it cannot
    run that kind or monoid at all."""

    def __init__(self, impl: str | None, exec_cmd: str | None, timeout: float, guess_kind: bool) -> None:
        self.impl, self.exec_cmd, self.timeout = impl, exec_cmd, timeout
        self.guess_kind = guess_kind
        self._factories: dict[str, Any] = {}
        self._offers: dict[tuple[str, str], tuple[Any, frozenset[str]] | str] = {}

    def offer(self, kind: str, monoid: str) -> tuple[Any, frozenset[str]] | str:
        """``(factory, ops)`` for files of ``kind`` over ``monoid``, or the reason to skip them."""
        key = (kind, monoid)
        if key not in self._offers:
            self._offers[key] = self._offer(kind, monoid)
        return self._offers[key]

    def _factory(self, kind: str) -> Any:
        if kind not in self._factories:
            if self.exec_cmd is not None:
                # one process per protocol kind for the whole run: every file is a new instance in it
                self._factories[kind] = process_factory(self.exec_cmd, kind, timeout=self.timeout)
            else:
                self._factories[kind] = load(str(self.impl))
        return self._factories[kind]

    def target(self, factory: Any) -> replay.Target:
        """What a file runs on: the implementation, every call guarded (its own exceptions and hangs are
        failures naming the step)."""
        deadline = Deadline(self.timeout)
        return replay.Target(factory, guard=lambda obj: Guarded(obj, deadline=deadline))

    def _offer(self, kind: str, monoid: str) -> tuple[Any, frozenset[str]] | str:
        if self.exec_cmd is not None:
            if kind == "handles":
                return "the protocol has no handle operations (handles files are for --impl)"
            try:
                factory = self._factory(kind)
            except UnsupportedMonoidError as exc:
                return str(exc)
            if not factory.offers(monoid):
                return f"the program does not offer the monoid {monoid}"
            return factory, frozenset(factory.operations)
        factory = self._factory(kind)
        try:
            obj = factory(CONFORMANCE[monoid].monoid())
        except UnsupportedMonoidError as exc:
            return f"the factory refuses {monoid}: {exc}"
        if self.guess_kind and kind != "ooo" and not detect(obj, "ooo").lacking:
            # the ooo operations are a superset of the FIFO names, but its insert takes a time
            return "an out-of-order aggregator (its insert takes a time; --kind fifo runs it as FIFO)"
        found = detect(obj, kind)
        if found.lacking:
            return f"not a {kind} aggregator: it lacks {', '.join(found.lacking)}"
        return factory, frozenset("size" if op == "__len__" else op for op in found.offered)

    def close(self) -> None:
        for factory in self._factories.values():
            close = getattr(factory, "close", None)
            if close is not None:
                close()


def _outcome(path: str, status: str, detail: str, steps: int = 0, seconds: float = 0.0) -> Outcome:
    """A file's result as every run's :class:`~swagkit.verify.runner.Outcome`: ``status`` PASS, FAIL (``detail``:
    the replay's report, a finding) or SKIP (``detail``: why, in ``note``); ``steps``: the file's."""
    if status == "FAIL":
        return Outcome(path, status, seconds, steps=steps, findings=[Finding("correctness", detail)])
    return Outcome(path, status, seconds, steps=steps, note=detail)


def run_files(
    directory: str,
    *,
    impl: str | None = None,
    exec_cmd: str | None = None,
    kinds: Sequence[str] | None = None,
    monoids: Sequence[str] | None = None,
    timeout: float = 10.0,
    on_outcome: Callable[[Outcome], None] | None = None,
) -> list[Outcome]:
    """Replay every corpus file under ``directory`` (of ``kinds``/``monoids``, default all) on the
    implementation; a file whose ops it does not offer is skipped."""
    if (impl is None) == (exec_cmd is None):
        raise ValueError("name the implementation: --impl MODULE:FACTORY or --exec CMD")
    if not os.path.isdir(directory):
        raise ValueError(f"{directory} is not a directory (export a corpus with: swagkit corpus export DIR)")
    subject = _Subject(impl, exec_cmd, timeout, guess_kind=not kinds)
    outcomes = []
    try:
        with conformance_monoids_registered():  # affine_int is a protocol monoid, not a library id
            for rel in corpus_files(directory):
                outcome = _run_file(directory, rel, subject, kinds, monoids)
                if outcome is None:
                    continue
                outcomes.append(outcome)
                if on_outcome is not None:
                    on_outcome(outcome)
    finally:
        subject.close()
    return outcomes


def _run_file(
    directory: str, rel: str, subject: _Subject, kinds: Sequence[str] | None, monoids: Sequence[str] | None
) -> Outcome | None:
    path = os.path.join(directory, *rel.split("/"))
    try:
        file = replayfile.read(path)
    except (OSError, ValueError) as exc:
        return _outcome(rel, "FAIL", f"not a corpus file: {exc}")
    header, ops = file.header, file.steps
    kind, monoid = str(header["kind"]), str(header["monoid"])
    if kinds and kind not in kinds or monoids and monoid not in monoids:
        return None
    offer = subject.offer(kind, monoid)
    if isinstance(offer, str):
        return _outcome(rel, "SKIP", offer, len(ops))
    factory, offered = offer
    wanted = header.get("ops")
    lacking = sorted(set(wanted if isinstance(wanted, list) else {op.name for op in ops}) - offered)
    if lacking:
        return _outcome(rel, "SKIP", f"needs {', '.join(map(str, lacking))} (not offered)", len(ops))
    said = io.StringIO()
    start = time.perf_counter()
    status = replay.run(path, subject.target(factory), out=said)
    detail = said.getvalue().strip()
    return _outcome(rel, "PASS" if status == 0 else "FAIL", detail, len(ops), time.perf_counter() - start)
