"""Recording what a run did to the structures it built, so that every failure can be written as a replay file.

A :class:`Recorder` wraps a :class:`~.kinds.base.Subject`'s factory (:meth:`Recorder.subject`): every object the
factory builds is handed out inside a :class:`Recording`, a pass-through proxy that logs each method call
(``(name, args)``) and whether it raised, and changes nothing else -- answers, exceptions, ⊗ counts and
snapshots are the object's own. Recording at the factory level works for every kind and every caller (state
machines, differential runs), whatever they wrap around the object.

:func:`recorded` is the hook of :func:`~.kinds.machines.run_machine_class`: for a machine over a *registered*
algorithm (``swagkit verify`` and the test suite's machines) it records each example (the machine calls
:meth:`Recorder.start` when an example begins; Hypothesis runs the shrunk failing example last, so the last
recording is the shrunk trace) and, when the run fails, writes the replay file
(:func:`swagkit.verify.replay.write_registered`) into :func:`replay_dir` and names its path on the exception
(``exc.swagkit_replay`` and a note, which tracebacks and pytest show).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

from swagkit.spec.errors import SwagkitError
from swagkit.spec.library import LIBRARY

__all__ = [
    "Call",
    "Instance",
    "Recording",
    "Recorder",
    "recorded",
    "replay_dir",
    "write_diff",
    "call_rows",
    "ENV_VAR",
    "DEFAULT_DIR",
]

#: where replay files go when neither the caller nor the environment says otherwise
DEFAULT_DIR = ".swagkit/replays"
#: environment variable naming the directory of replay files (``swagkit verify``, the test suite)
ENV_VAR = "SWAGKIT_REPLAY_DIR"


def replay_dir() -> str:
    """``$SWAGKIT_REPLAY_DIR``, else ``.swagkit/replays``."""
    return os.environ.get(ENV_VAR) or DEFAULT_DIR


@dataclass
class Call:
    """One recorded method call: ``name``, ``args``, ``kwargs`` and the exception it raised (``None``: it
    returned)."""

    name: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any] = field(default_factory=dict)
    raised: BaseException | None = None


@dataclass
class Instance:
    """One object the factory built: its constructor arguments and the calls made on it, in order."""

    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    calls: list[Call] = field(default_factory=list)


def _materialized(arg: Any) -> Any:
    # another recorded object (a q-digest merged into this one) is passed as itself: an implementation may check
    # its argument's type; an iterator would be consumed by the log: hand the object the list the log keeps
    if isinstance(arg, Recording):
        return arg._inner
    if isinstance(arg, Iterator):
        return list(arg)
    return arg


class Recording:
    """A pass-through proxy around one built object (see the module docstring); ``recording_of`` is the
    :class:`Instance` it logs into. ``len()``, ``bool()`` and attribute reads go straight to the object."""

    def __init__(self, inner: Any, instance: Instance) -> None:
        object.__setattr__(self, "_inner", inner)
        object.__setattr__(self, "recording_of", instance)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in ("_inner", "recording_of"):
            raise AttributeError(name)
        attr = getattr(self._inner, name)
        if name.startswith("_") or getattr(attr, "__self__", None) is not self._inner:
            return attr  # attributes, and callables that are not the object's methods (a decay function)
        log = self.recording_of.calls

        def call(*args: Any, **kwargs: Any) -> Any:
            args = tuple(_materialized(a) for a in args)
            kwargs = {k: _materialized(v) for k, v in kwargs.items()}
            entry = Call(name, args, kwargs)
            log.append(entry)
            try:
                return attr(*args, **kwargs)
            except BaseException as exc:
                entry.raised = exc
                raise

        return call

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._inner, name, value)

    def __len__(self) -> int:
        return len(self._inner)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._inner)

    def __bool__(self) -> bool:
        return bool(self._inner)

    def __repr__(self) -> str:
        return repr(self._inner)


class Recorder:
    """The instances a wrapped factory built since :meth:`start` (one example, or one differential run)."""

    def __init__(self) -> None:
        self.instances: list[Instance] = []

    def start(self) -> None:
        """Forget what was recorded: a new example begins."""
        self.instances = []

    def wrap(self, factory: Callable[..., Any]) -> Callable[..., Any]:
        """``factory`` whose every object is a :class:`Recording` logging into this recorder."""

        def build(*args: Any, **kwargs: Any) -> Recording:
            instance = Instance(args, dict(kwargs))
            obj = factory(*args, **kwargs)
            self.instances.append(instance)
            return Recording(obj, instance)

        return build

    def subject(self, subject: Any) -> Any:
        """A copy of the :class:`~.kinds.base.Subject` ``subject`` whose factory records into this recorder."""
        return replace(subject, factory=self.wrap(subject.factory))


def swallowed(call: Call, last: bool) -> bool:
    """Whether the caller caught ``call``'s exception itself: an exception other than swagkit's documented
    errors on a call that is not the last one (a capability probe, a ⊗ fault the machine planted). Such calls
    are left out of replay traces: replayed without the planted fault they would do something else."""
    return call.raised is not None and not isinstance(call.raised, SwagkitError) and not last


def _registered(machine: Any) -> bool:
    """Whether ``machine`` runs a registered algorithm's own class (what a registry-id replay can rebuild)."""
    from . import registry

    subject = getattr(machine, "subject", None)
    if subject is None or getattr(machine, "recorder", None) is not None:  # --impl/--exec machines write their own
        return False
    try:
        return registry.resolve_class(subject.name, subject.implementation) is subject.factory
    except registry.RegistryError:
        return False


@contextmanager
def recorded(machine: Any, run: dict[str, Any]) -> Iterator[None]:
    """Record ``machine``'s examples while the block runs it; on a failure write the last (shrunk) example as
    a replay file and name its path on the exception. ``run``: the run's settings (``examples``, ``steps``,
    ``seed``), kept in the file's header. Machines over anything but a registered algorithm run untouched."""
    if not _registered(machine):
        yield
        return
    own = machine.__dict__.get("subject")
    subject = machine.subject
    recorder = Recorder()
    machine.subject = recorder.subject(subject)
    machine.replay_recorder = recorder
    try:
        yield
    except Exception as exc:
        _name_replay(exc, partial(write_registered, replay_dir(), machine, subject, recorder, exc, run))
        raise
    finally:
        del machine.replay_recorder
        if own is None:
            del machine.subject
        else:
            machine.subject = own


def _name_replay(exc: BaseException, write: Callable[[], str]) -> None:
    """Write the replay file of ``exc`` and name it on ``exc`` (a problem writing it becomes a note: the failure
    itself must surface)."""
    try:
        path = write()
    except Exception as problem:
        exc.add_note(f"(no replay file: {type(problem).__name__}: {problem})")
        return
    if path:
        exc.swagkit_replay = path  # type: ignore[attr-defined]
        exc.add_note(f"replay file: {path}")


#: replay kind names (docs/protocol.md) of the swagkit kinds whose traces replay operation by operation
PROTOCOL_KINDS = {"fifo": "fifo", "out_of_order": "ooo"}
#: handle operations: a FIFO trace using one is a ``handles`` trace
_HANDLE_OPS = frozenset({"insert_with_handle", "insert_many_with_handles", "remove", "remove_many", "batch", "handles"})


def registered_header(subject: Any, monoid_id: str, failure: str) -> dict[str, Any]:
    """The header facts of a replay file over a registered algorithm (:func:`swagkit.verify.replay.run`
    rebuilds it from ``algorithm``/``implementation``; ``checker``/``budget`` name what was checked)."""
    facts = subject.facts
    return {
        "algorithm": subject.name,
        "implementation": subject.implementation,
        "monoid": monoid_id,
        "checker": getattr(facts, "checker", None),
        "budget": getattr(facts, "budget", None),
        "failure": failure,
    }


def traced(instance: Instance, names: frozenset[str]) -> list[tuple[str, tuple[Any, ...]]]:
    """The ``(name, args)`` of ``instance``'s calls named in ``names``, without those the caller swallowed."""
    calls = [c for c in instance.calls if c.name in names]
    return [(c.name, c.args) for i, c in enumerate(calls) if not swallowed(c, i == len(calls) - 1)]


def trace_kind(kind_name: str, calls: list[tuple[str, tuple[Any, ...]]]) -> str:
    """The replay kind of a protocol trace: ``ooo``, ``handles`` (a FIFO trace with handle operations), ``fifo``."""
    kind = PROTOCOL_KINDS[kind_name]
    return "handles" if kind == "fifo" and any(name in _HANDLE_OPS for name, _ in calls) else kind


def write_registered(
    directory: str, machine: Any, subject: Any, recorder: Recorder, exc: BaseException, run: dict[str, Any]
) -> str:
    """Write the replay file of a failed machine run over a registered algorithm (see :func:`recorded`); its
    path. Kinds with a protocol trace (fifo, handles, ooo) get the shrunk trace with the model's answers; the
    others (tree, sketch, time_decayed: several objects, constructor parameters drawn by the machine) get a
    Python-only file that re-runs the same seeded search (``rerun``) and lists the shrunk calls for reading."""
    from . import impl, replay
    from .runner import _first_line, describe_exception

    kind_name = subject.facts.kind.name if hasattr(subject.facts, "kind") else ""
    header = registered_header(subject, machine.monoid_id, _first_line(describe_exception(exc), 300))
    header["rerun"] = {**run, "max_window": machine.max_window}
    if kind_name in PROTOCOL_KINDS and len(recorder.instances) == 1:
        calls = traced(recorder.instances[0], impl.TRACED)
        kind = trace_kind(kind_name, calls)
        return replay.write_trace(
            directory, {**header, "kind": kind}, calls, LIBRARY[machine.monoid_id].factory(), kind
        )
    return write_rerun(directory, {**header, "kind": kind_name}, recorder.instances)


def write_rerun(directory: str, header: dict[str, Any], instances: list[Instance]) -> str:
    """A Python-only replay file that re-runs the seeded search of ``header["rerun"]`` (``python_only:
    "rerun"``), listing the shrunk example's objects (``new``) and calls for reading."""
    from . import replay

    rows = call_rows(instances, frozenset({"snapshot"}))  # the machine snapshots after every step: noise here
    return replay._save(
        directory, {"op": "hello", "swagkit_replay": replay.VERSION, **header, "python_only": "rerun"}, rows
    )


def write_diff(directory: str, header: dict[str, Any], instances: list[Instance]) -> str:
    """A Python-only replay file that re-runs the differential task of ``header["diff"]`` (``python_only:
    "diff"``, see :func:`swagkit.verify.spark.rediff`), listing the calls of the recorded implementation's
    objects for reading: the run stops at its first difference, so the list ends where it diverged (snapshot
    calls included: a checkpoint compares them)."""
    from . import replay

    rows = call_rows(instances, frozenset())
    return replay._save(
        directory, {"op": "hello", "swagkit_replay": replay.VERSION, **header, "python_only": "diff"}, rows
    )


def call_rows(instances: list[Instance], skip: frozenset[str]) -> list[dict[str, Any]]:
    """Reading rows of recorded objects: ``new`` (the constructor arguments) then each call but those named in
    ``skip``, arguments repr'd (and what a call raised)."""
    rows: list[dict[str, Any]] = []
    for number, instance in enumerate(instances, 1):
        rows.append({"op": "new", "id": number, "repr": repr((instance.args, instance.kwargs))[:300]})
        for c in instance.calls:
            if c.name not in skip:
                row = {"op": c.name, "id": number, "repr": repr(c.args)[:300]}
                rows.append(row if c.raised is None else {**row, "raised": type(c.raised).__name__})
    return rows


def rerun(header: dict[str, Any], say: Callable[[str], None]) -> int:
    """``swagkit replay`` of a ``python_only: "rerun"`` file: the same machine, settings and seed (Hypothesis
    finds and shrinks the same example): 1 while it still fails, 0 once it passes."""
    from .kinds.machines import run_machine_class
    from .machine import make_machine
    from .runner import describe_exception

    run = header["rerun"]
    if run.get("seed") is None:
        say("replay: note: the run had no seed (the Hypothesis profile chose): this search may differ")
    machine = make_machine(
        str(header["algorithm"]), str(header["monoid"]), str(header["implementation"]), max_window=run["max_window"]
    )
    try:
        run_machine_class(machine, run["examples"], run["steps"], run.get("seed"))
    except Exception as exc:
        say(f"replay: FAIL (the seeded search again):\n{describe_exception(exc)}")
        return 1
    say(f"replay: PASS, the seeded search ({run['examples']} examples × {run['steps']} steps) finds no failure")
    return 0


class Against:
    """The lock-step check of a Spark replay (header ``against``: the implementation the failing one was compared
    with): every operation runs on both, and the answers, refusals and ⊗ counts must agree."""

    def __init__(self, other: Any, monoid: Any) -> None:
        self.other = other
        self.monoid = monoid

    @classmethod
    def of(cls, header: dict[str, Any], monoid: Any) -> Against | None:
        """The other implementation of ``header`` (``None`` when the file names none)."""
        from . import registry

        name = header.get("against")
        if not name:
            return None
        return cls(registry.subject(str(header["algorithm"]), str(name)).new(monoid), monoid)

    def step(self, name: str, args: tuple[Any, ...], got: Any, obj: Any) -> str:
        """Run ``name(args)`` on the other implementation; what differs from ``got`` (what ``obj`` answered,
        or the :class:`SwagkitError` it raised) -- ``""`` when nothing does."""
        return differs(self.monoid, name, _outcome(self.other, name, args), got, obj, self.other)


def _outcome(obj: Any, name: str, args: tuple[Any, ...]) -> Any:
    try:
        return len(obj) if name == "size" else getattr(obj, name)(*args)
    except Exception as exc:  # an outcome to compare, like an answer
        return exc


def differs(monoid: Any, name: str, theirs: Any, ours: Any, obj: Any, other: Any) -> str:
    """What differs between two implementations after the same call: the outcome (an answer, or the type of
    the exception raised), then ``combine_count`` ("": nothing)."""
    from .kinds.base import same_output

    if isinstance(theirs, BaseException) or isinstance(ours, BaseException):
        if type(theirs) is not type(ours):
            return f"{name}: {_shown(ours)}, the other implementation: {_shown(theirs)}"
    elif not same_output(monoid, ours, theirs):
        return f"{name} answered {ours!r}, the other implementation {theirs!r}"
    for counter in ("combine_count", "touched_count"):  # the twins' ⊗ and node-visit counts
        mine, yours = getattr(obj, counter, None), getattr(other, counter, None)
        if isinstance(mine, int) and isinstance(yours, int) and mine != yours:
            return f"after {name}: {counter} {mine}, the other implementation {yours}"
    # twins promise the same snapshots too (the Spark runs compare them)
    mine, yours = getattr(obj, "snapshot", None), getattr(other, "snapshot", None)
    if callable(mine) and callable(yours) and mine() != yours():
        return f"after {name}: the snapshots differ from the other implementation's"
    return ""


def _shown(outcome: Any) -> str:
    return f"raised {type(outcome).__name__}" if isinstance(outcome, BaseException) else f"returned {outcome!r}"
