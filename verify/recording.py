"""Writing every failing machine run as a replay file, and recording the calls of the kinds without a trace.

:func:`recorded` is the hook of :func:`swagkit.verify.machine.run_machine_class`: when a machine over a
registered algorithm (``swagkit verify``, the test suite's machines) or over a user's aggregator (``--impl``,
``--exec``: the machine carries its own ``replay_facts``) fails, it writes the shrunk counterexample as a replay
file (:mod:`swagkit.verify.replayfile`), names its path on the exception (``exc.swagkit_replay`` and a note,
which tracebacks and pytest show) and checks that the file reproduces the failure. The FIFO and out-of-order
kinds' machines trace their steps (:mod:`swagkit.verify.trace`): the file is the counterexample's trace.

The other kinds (tree, sketch, time_decayed: several objects built from drawn parameters) have no trace; a
:class:`Recorder` wraps their :class:`~.kinds.base.Subject`'s factory so every object built is a
:class:`Recording` (a pass-through proxy logging each call and whether it raised), and their file lists those
calls for reading and re-runs the same seeded search. Spark's differential runs record their objects the same
way (:func:`write_diff`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

from swagkit.spec.errors import BudgetExceeded

from . import replayfile
from .errors import contains, describe_exception, first_line
from .replayfile import registered_header, replay_dir

__all__ = [
    "Call",
    "Instance",
    "Recording",
    "Recorder",
    "recorded",
    "replay_header",
    "write_failure",
    "write_rerun",
    "write_diff",
    "call_rows",
]


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


def _registered(machine: Any) -> bool:
    """Whether ``machine`` runs a registered algorithm's own class (what a registry-id replay can rebuild)."""
    from . import registry

    subject = getattr(machine, "subject", None)
    if subject is None:
        return False
    try:
        return registry.resolve_class(subject.name, subject.implementation) is subject.factory
    except registry.RegistryError:
        return False


def replay_header(machine: Any) -> dict[str, Any] | None:
    """The header facts of ``machine``'s replay files: its own (``replay_facts``: a user's aggregator, set by
    :func:`swagkit.verify.impl.machine_for`), else a registered algorithm's; ``None`` when neither (nothing a
    file could name)."""
    own = getattr(machine, "replay_facts", None)
    if own is not None:
        return dict(own)
    if _registered(machine):
        return registered_header(machine.subject, machine.monoid_id)
    return None


#: shrinks a failing trace (its steps, the file's header) to ``(trace, failure)``, or ``None`` (nothing removed)
TraceShrinker = Callable[[Any, dict[str, Any]], "tuple[Any, str] | None"]


@contextmanager
def recorded(
    machine: Any,
    run: dict[str, Any],
    check: Callable[[str], bool] | None = None,
    shrink: TraceShrinker | None = None,
) -> Iterator[None]:
    """While the block runs ``machine``, be ready to write its counterexample; on a failure write the last
    (shrunk) example as a replay file and name its path on the exception (``exc.swagkit_replay`` and a note).
    ``run``: the run's settings (``examples``, ``steps``, ``seed``), kept in the header; ``check(path)``: whether
    the file reproduces the failure (``exc.swagkit_reproduces``; a note says so loudly when it does not);
    ``shrink(steps, header)``: the trace shrunk further (then the machine's ``last_trace`` and the failure the
    finding shows, ``exc.swagkit_failure``, are the shrunk run's, so that report and file number steps alike).
    Machines of the kinds with a trace write it (:mod:`swagkit.verify.trace`); the others (several objects
    built from drawn parameters) record their objects' calls for reading and re-run the seeded search."""
    header = replay_header(machine)
    directory = getattr(machine, "replay_directory", "") or replay_dir()
    if header is None or getattr(machine, "replay_directory", "") is None:
        yield
        return
    recorder = None
    own = machine.__dict__.get("subject")
    if not machine.trace_operations:
        recorder = Recorder()
        machine.subject = recorder.subject(machine.subject)
        machine.replay_recorder = recorder
    try:
        yield
    except Exception as exc:
        _name_replay(exc, partial(write_failure, directory, machine, header, recorder, exc, run, shrink), check)
        raise
    finally:
        if recorder is not None:
            del machine.replay_recorder
            if own is None:
                del machine.subject
            else:
                machine.subject = own


def _name_replay(exc: BaseException, write: Callable[[], str], check: Callable[[str], bool] | None) -> None:
    """Write the replay file of ``exc`` and name it on ``exc`` (a problem writing it becomes a note: the failure
    itself must surface); then check that it reproduces the failure."""
    try:
        path = write()
    except Exception as problem:
        exc.add_note(f"(no replay file: {type(problem).__name__}: {problem})")
        return
    if not path:
        return
    exc.swagkit_replay = path  # type: ignore[attr-defined]
    exc.add_note(f"replay file: {path}")
    if check is None:
        return
    try:
        reproduces = check(path)
    except Exception as problem:  # the finding stands; say why its file could not be checked
        exc.add_note(f"(the replay file could not be checked: {type(problem).__name__}: {problem})")
        return
    exc.swagkit_reproduces = reproduces  # type: ignore[attr-defined]
    if not reproduces:
        exc.add_note(
            "WARNING: the replay file does not reproduce this failure: the implementation behaves differently when "
            "the same steps run again (state shared between instances, randomness, time?)"
        )


def write_failure(
    directory: str,
    machine: Any,
    header: dict[str, Any],
    recorder: Recorder | None,
    exc: BaseException,
    run: dict[str, Any],
    shrink: TraceShrinker | None = None,
) -> str:
    """Write the replay file of a failed machine run (see :func:`recorded`); its path. Kinds with a trace get
    the shrunk example's trace (shrunk further by ``shrink`` when given); the others a Python-only file that
    re-runs the same seeded search (``rerun``) and lists the shrunk example's calls for reading."""
    header = {**header, "failure": first_line(describe_exception(exc), 300)}
    if "impl" not in header and "exec" not in header:  # a registered algorithm: its search can run again
        header["rerun"] = {**run, "max_window": machine.max_window}
    trace = machine.last_trace
    if machine.trace_operations and trace is not None and len(trace):
        shrunk = _shrunk(machine, header, trace, exc, shrink) if shrink is not None else None
        if shrunk is not None:
            trace, failure = shrunk
            header["failure"] = first_line(failure, 300)
        return replayfile.write(directory, header, trace, machine.kind_name)
    instances = recorder.instances if recorder is not None else []
    return write_rerun(directory, {**header, "kind": machine.kind_name}, instances)


def _shrunk(
    machine: Any, header: dict[str, Any], trace: Any, exc: BaseException, shrink: TraceShrinker
) -> tuple[Any, str] | None:
    """``shrink``'s trace and failure, made the machine's (see :func:`recorded`), with a note on ``exc``; ``None``
    when nothing was removed or the shrink itself broke (the Hypothesis-shrunk trace stands)."""
    before = len(trace)
    # correctness only: a contract family's finding (misuse, ⊗ faults, a budget) is judged by the machine's rule
    # around its steps, which a trace run alone does not repeat; and those traces are short already
    contract = getattr(trace, "family_of_failure", "correctness") != "correctness" or contains(exc, BudgetExceeded)
    if contract or any(step.fault is not None for step in trace):
        return None
    try:
        shrunk = shrink(list(trace), header)
    except Exception as problem:  # the finding stands as Hypothesis shrank it
        exc.add_note(f"(the trace could not be shrunk further: {type(problem).__name__}: {problem})")
        return None
    if shrunk is None:
        return None
    trace, failure = shrunk
    machine.last_trace = trace
    exc.swagkit_failure = failure  # type: ignore[attr-defined]
    exc.swagkit_shrunk_from = before  # type: ignore[attr-defined]
    exc.add_note(f"the trace was shrunk from {before} to {len(trace)} steps by delta debugging")
    return trace, failure


def write_rerun(directory: str, header: dict[str, Any], instances: list[Instance]) -> str:
    """A Python-only replay file that re-runs the seeded search of ``header["rerun"]`` (``python_only:
    "rerun"``), listing the shrunk example's objects (``new``) and calls for reading."""
    rows = call_rows(instances, frozenset({"snapshot"}))  # the machine snapshots after every step: noise here
    head = {"op": "hello", "swagkit_replay": replayfile.VERSION, **header, "python_only": "rerun"}
    return replayfile.save(directory, head, rows)


def write_diff(directory: str, header: dict[str, Any], instances: list[Instance]) -> str:
    """A Python-only replay file that re-runs the differential task of ``header["diff"]`` (``python_only:
    "diff"``, see :func:`swagkit.verify.spark.rediff`), listing the calls of the recorded implementation's
    objects for reading: the run stops at its first difference, so the list ends where it diverged (snapshot
    calls included: a checkpoint compares them)."""
    rows = call_rows(instances, frozenset())
    head = {"op": "hello", "swagkit_replay": replayfile.VERSION, **header, "python_only": "diff"}
    return replayfile.save(directory, head, rows)


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
