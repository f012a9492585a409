"""Verify a program in any language: drive a long-lived subprocess over swagkit's JSON Lines protocol.

The protocol (``docs/protocol.md``): one JSON object per line on the program's stdin, one reply per line on its
stdout; many aggregator instances live in one process (``"id"``), so no example pays a process start (a JVM!).
:func:`process_factory` starts the program once, asks ``hello`` for its capabilities and returns a factory;
``factory(monoid)`` creates one instance (``new``) and returns a Python object with the kind's operations --
only those the program offers -- so the kinds' debug wrappers and state machines (:mod:`swagkit.verify.kinds`)
drive it unchanged::

    factory = process_factory("./daba_lite", "fifo")
    run_machine_class(kind("fifo").make_machine(Subject("daba_lite_c", factory), "string_concat", 80), 100, 50, 1)

A program that dies, does not answer within ``timeout`` seconds, or answers something that is not the protocol
raises :class:`ProcessFailure` -- an :class:`AssertionError`, so a FAIL of the implementation, never an ERROR of
swagkit -- carrying the protocol lines sent to that instance (``trace``, replayable with ``CMD < file``). A dead
or hung process is killed and the next ``factory(monoid)`` starts a new one.

Values cross the pipe in the encodings of the *conformance monoids* (:data:`CONFORMANCE`): strings, int64 max and
sum, the integer affine group ``affine_int`` (non-commutative *and* invertible) and float64 sums as C99 hex
strings, which keep floats exact.
"""

from __future__ import annotations

import json
import os
import re
import select
import shlex
import subprocess
import tempfile
import time
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import IO, Any

from hypothesis import strategies as st

from swagkit.spec.errors import EmptyWindowError, UnsupportedMonoidError
from swagkit.spec.library import LIBRARY, LibraryEntry, affine, max_i64, string_concat, sum_f64, sum_i64
from swagkit.spec.monoid import Monoid
from swagkit.spec.ooo import MissingTimeError, UnorderedBulkError

from .guard import Deadline
from .kinds.base import Operation
from .replayfile import TRACED
from .strategies import STRATEGIES
from .wire import Codec, WireError, decode_answer, encode_args, field_encoders

__all__ = [
    "PROTOCOL_VERSION",
    "ProcessFailure",
    "Conformance",
    "CONFORMANCE",
    "affine_int",
    "conformance_monoids_registered",
    "ProcessDriver",
    "ProcessFactory",
    "process_factory",
]

PROTOCOL_VERSION = 1

#: how many of an instance's last protocol lines a failure message shows (``ProcessFailure.trace`` has them all)
_SHOWN = 12


class ProcessFailure(AssertionError):
    """The program under test died, hung, or broke the protocol: a FAIL of the implementation.

    ``reason`` says what happened, ``command`` which program, ``trace`` the request lines sent to the failing
    instance (oldest first, the last one the request that failed; with a ``hello`` first they replay as
    ``CMD < file``), ``replies`` the reply lines received for them, ``stderr`` the end of the program's stderr."""

    def __init__(
        self,
        reason: str,
        *,
        command: str,
        trace: Sequence[str] = (),
        replies: Sequence[str] = (),
        stderr: str = "",
    ) -> None:
        self.reason = reason
        self.command = command
        self.trace = tuple(trace)
        self.replies = tuple(replies)
        self.stderr = stderr
        #: in a pipeline (:meth:`_Instance.pipeline`): the requests answered before the failure
        self.answered = 0
        lines = [f"{command}: {reason}"]
        if self.trace:
            first = max(0, len(self.trace) - _SHOWN)
            lines.append(f"  requests to this instance {first + 1}..{len(self.trace)} of {len(self.trace)}:")
            for k in range(first, len(self.trace)):
                lines.append(f"    -> {self.trace[k]}")
                if k < len(self.replies):
                    lines.append(f"    <- {self.replies[k]}")
        if stderr.strip():
            lines.append("  stderr (end): " + stderr.strip()[-400:])
        super().__init__("\n".join(lines))


class _Garbage(Exception):
    """A reply that is not the protocol (turned into a :class:`ProcessFailure` with the instance's trace)."""


# ------------------------------------------------------------------------------------------ conformance monoids


def affine_int() -> Monoid[Any, Any, Any]:
    """:func:`~swagkit.spec.library.affine` named ``affine_int``: the protocol's non-commutative *and* invertible
    conformance group. Its inputs (:data:`CONFORMANCE`) are maps ``t ↦ a·t + b`` with ``a ∈ {-1, 1}`` and an
    integer ``b``, so every composition stays integral (``[a1, b1] ⊗ [a2, b2] = [a1·a2, a2·b1 + b2]``)."""
    return replace(affine(), name="affine_int")


def _int64(x: Any) -> int:
    if isinstance(x, bool) or not isinstance(x, int) or not -(2**63) <= x < 2**63:
        raise _Garbage(f"{x!r} is not an int64")
    return x


def _string(x: Any) -> str:
    if not isinstance(x, str):
        raise _Garbage(f"{x!r} is not a string")
    return x


def _hex_float(x: Any) -> float:
    if not isinstance(x, str):
        raise _Garbage(f"{x!r} is not a float as a hex string")
    try:
        return float.fromhex(x)
    except ValueError:
        raise _Garbage(f"{x!r} is not a C99 hex float") from None


def _encode_hex_float(x: Any) -> str:
    return float(x).hex()


def _affine_pair(x: Any) -> tuple[int, int]:
    # any pair of int64 decodes: a wrong one (a = 0 from a forgotten identity) is then a wrong *answer*
    if not isinstance(x, list) or len(x) != 2:
        raise _Garbage(f"{x!r} is not an affine_int pair [a, b]")
    return (_int64(x[0]), _int64(x[1]))


def _encode_affine(x: Any) -> list[int]:
    a, b = x
    if a not in (-1, 1) or int(b) != b:
        raise ValueError(f"affine_int takes maps [a, b] with a in {{-1, 1}} and integral b, not {x!r}")
    return [int(a), int(b)]


def _same(x: Any) -> Any:
    return x


@dataclass(frozen=True)
class Conformance:
    """One conformance monoid of the protocol: its ``name`` (the protocol's and the library id), the
    ``monoid`` factory, the input ``strategy``, ``encode`` (an input or output value to JSON) and ``decode``
    (JSON from the program to an output value; raises on anything else), and its algebra (``properties``)."""

    name: str
    monoid: Callable[[], Monoid[Any, Any, Any]]
    strategy: Callable[[], st.SearchStrategy[Any]]
    encode: Callable[[Any], Any]
    decode: Callable[[Any], Any]
    properties: str
    examples: tuple[Any, ...] = ()


_I64 = st.integers(min_value=-(2**63), max_value=2**63 - 1)

#: The conformance monoids (docs/protocol.md): every property a SWAG may get wrong has one -- non-commutative
#: (``string_concat``, ``affine_int``), selective (``max_i64``), invertible (``sum_i64``, ``affine_int``),
#: non-commutative *and* invertible (``affine_int``: a subtraction on the wrong side shows), floats (``sum_f64``).
CONFORMANCE: dict[str, Conformance] = {
    c.name: c
    for c in (
        Conformance(
            "string_concat",
            string_concat,
            STRATEGIES["string_concat"],
            _same,
            _string,
            "non-commutative, non-invertible",
        ),
        Conformance("max_i64", max_i64, STRATEGIES["max_i64"], _same, _int64, "commutative, selective"),
        Conformance(
            "sum_i64", sum_i64, STRATEGIES["sum_i64"], _same, _int64, "commutative, invertible (wraps modulo 2**64)"
        ),
        Conformance(
            "affine_int",
            affine_int,
            lambda: st.tuples(st.sampled_from([-1, 1]), st.integers(min_value=-9, max_value=9)),
            _encode_affine,
            _affine_pair,
            "non-commutative, invertible (a group)",
            ((1, 2), (-1, 3), (-1, 0), (1, -4)),
        ),
        Conformance(
            "sum_f64",
            sum_f64,
            STRATEGIES["sum_f64"],
            _encode_hex_float,
            _hex_float,
            "commutative, floats (compared with rel 1e-9, abs 1e-9)",
        ),
    )
}


@contextmanager
def conformance_monoids_registered() -> Iterator[None]:
    """Make every conformance monoid a library id while the block runs (``affine_int`` is not one: its inputs
    are a subset of ``affine``'s), so the kinds' machines -- which look monoids and strategies up by id -- run
    over it. Restores the library afterwards."""
    added = [c for c in CONFORMANCE.values() if c.name not in LIBRARY]
    for c in added:
        LIBRARY[c.name] = LibraryEntry(c.monoid, list(c.examples), "swagkit protocol conformance monoid")
        STRATEGIES[c.name] = c.strategy
    try:
        yield
    finally:
        for c in added:
            LIBRARY.pop(c.name, None)
            STRATEGIES.pop(c.name, None)


# ------------------------------------------------------------------------------------------------- the driver


class _Dead(Exception):
    """The process died or timed out (the driver has killed it); the message says which. ``answered``: in a
    pipeline, the replies received before."""

    answered = 0


def _answered(dead: _Dead, count: int) -> _Dead:
    dead.answered = count
    return dead


class ProcessDriver:
    """One long-lived process speaking the protocol: start, ``hello``, request/reply with a deadline per request,
    batches, restart after a death. ``generation`` counts starts (instances of an earlier one are dead)."""

    def __init__(self, command: str, *, timeout: float = 10.0, cwd: str | None = None) -> None:
        self.command = command
        self.argv = shlex.split(command)
        self.timeout = timeout
        self.cwd = cwd
        self.generation = 0
        self.hello: dict[str, Any] = {}
        self._proc: subprocess.Popen[bytes] | None = None
        self._stderr: IO[bytes] | None = None
        self._buffer = b""
        self._drops: list[int] = []
        self._next_id = 0
        self._finalizer: weakref.finalize[Any, Any] | None = None
        self._last_stderr = ""
        #: how long a reply may take: ``timeout``, shortened after the first hang (:class:`~.guard.Deadline`)
        self.deadline = Deadline(timeout)

    # process life -----------------------------------------------------------------------------------------

    @property
    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def start(self) -> dict[str, Any]:
        """(Re)start the process and return its ``hello`` reply (a :class:`ProcessFailure` if it has none)."""
        self.close()
        self._stderr = tempfile.TemporaryFile()
        try:
            self._proc = subprocess.Popen(
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr, cwd=self.cwd
            )
        except OSError as exc:
            raise ProcessFailure(f"cannot start the program ({exc})", command=self.command) from exc
        self._finalizer = weakref.finalize(self, _kill, self._proc, self._stderr)
        self.generation += 1
        self._buffer = b""
        self._last_stderr = ""
        self._drops.clear()
        request = '{"op":"hello"}'
        try:
            reply = self._exchange(request)
            hello = _check_reply(reply)
            if not hello.get("ok"):
                raise _Garbage("hello was refused")
            for key in ("kinds", "monoids", "ops"):
                if not isinstance(hello.get(key), list) or not all(isinstance(x, str) for x in hello[key]):
                    raise _Garbage(f"hello has no list of strings {key!r}")
        except (_Dead, _Garbage) as exc:
            raise self.failure(str(exc), [request]) from None
        self.hello = hello
        return hello

    def close(self) -> None:
        """Close stdin, give the process a moment to exit, then kill it."""
        if self._finalizer is not None:
            self._finalizer()
            self._finalizer = None
        self._proc = None
        self._stderr = None

    def disown(self) -> None:
        """Forget the process without touching it (a forked child's copy of its parent's driver: collecting it
        must not kill the parent's program)."""
        if self._finalizer is not None:
            self._finalizer.detach()
            self._finalizer = None
        self._proc = None
        self._stderr = None

    def stderr_tail(self, size: int = 2000) -> str:
        if self._stderr is None:
            return self._last_stderr
        try:
            self._stderr.seek(0, os.SEEK_END)
            end = self._stderr.tell()
            self._stderr.seek(max(0, end - size))
            return self._stderr.read().decode("utf-8", "replace")
        except (OSError, ValueError):
            return ""

    def failure(self, reason: str, trace: Sequence[str] = (), replies: Sequence[str] = ()) -> ProcessFailure:
        return ProcessFailure(reason, command=self.command, trace=trace, replies=replies, stderr=self.stderr_tail())

    # requests -----------------------------------------------------------------------------------------------

    def new_id(self) -> int:
        self._next_id += 1
        return self._next_id

    def drop_later(self, instance: int, generation: int) -> None:
        """Queue a ``drop`` (sent before the next request: never from inside another exchange, e.g. from a
        garbage collection that runs mid-request)."""
        if generation == self.generation:
            self._drops.append(instance)

    def request(self, line: str) -> str:
        """Send one request line, return the reply line (:class:`_Dead` when the process died or hung)."""
        self._flush_drops()
        return self._exchange(line)

    def batch(self, requests: Sequence[Mapping[str, Any] | str]) -> list[Any]:
        """Send ``requests`` (objects, or request lines already encoded) as one batch line (a JSON array), return
        the replies in order (the program must list ``"batch"`` in its ops). Raises :class:`ProcessFailure` on a
        death, a timeout or garbage."""
        if all(type(r) is str for r in requests):
            line = "[" + ",".join(requests) + "]"  # type: ignore[arg-type]  # all lines, as just checked
        else:
            line = "[" + ",".join(r if isinstance(r, str) else _compact(r) for r in requests) + "]"
        try:
            reply = self.request(line)
            replies = json.loads(reply)
        except _Dead as exc:
            raise self.failure(str(exc), [line]) from None
        except ValueError:
            raise self.failure(f"the reply to a batch is not JSON: {reply[:200]!r}", [line], [reply]) from None
        if not isinstance(replies, list) or len(replies) != len(requests):
            raise self.failure(f"a batch of {len(requests)} got {reply[:200]!r}", [line], [reply])
        return replies

    def pipeline(self, lines: Sequence[str]) -> list[str]:
        """Send ``lines`` (one request each) without waiting for replies in between and return the reply lines in
        order: the one-request-per-line protocol, pipelined. Requests and replies stream through the pipes
        together (neither side can block on a full pipe); a reply may take ``timeout`` seconds after the one
        before it. Raises :class:`_Dead` (its ``answered``: the replies received) on a death or a hang."""
        self._flush_drops()
        proc = self._proc
        if proc is None or proc.stdin is None or proc.stdout is None:
            raise _Dead("the process is not running")
        data = memoryview("".join(line + "\n" for line in lines).encode())
        replies: list[str] = []
        out, inp = proc.stdout.fileno(), proc.stdin.fileno()
        allowed = self.deadline.allowed
        last = time.monotonic()
        while len(replies) < len(lines):
            while b"\n" in self._buffer and len(replies) < len(lines):
                raw, self._buffer = self._buffer.split(b"\n", 1)
                replies.append(raw.decode("utf-8", "replace").rstrip("\r"))
                now = time.monotonic()
                self.deadline.healthy(now - last)
                last = now
            if len(replies) == len(lines):
                break
            left = last + allowed - time.monotonic()
            ready_out, ready_in = (
                select.select([out], [inp] if data else [], [], max(left, 0))[:2] if left > 0 else ([], [])
            )
            if not ready_out and not ready_in:
                self.deadline.hung = True
                raise _answered(
                    self._dead(
                        f"no reply within {allowed:.3g} s (a hang{self.deadline.note(allowed)}): the process was killed"
                    ),
                    len(replies),
                )
            if ready_in:
                try:  # non-blocking: a full pipe must not stop us reading the replies that free it
                    os.set_blocking(inp, False)
                    try:
                        data = data[os.write(inp, data[: 1 << 16]) :]
                    finally:
                        os.set_blocking(inp, True)
                except BlockingIOError:
                    pass
                except OSError:
                    raise _answered(self._dead("the process died (its stdin is closed)"), len(replies)) from None
            if ready_out:
                chunk = os.read(out, 1 << 16)
                if not chunk:
                    raise _answered(self._dead(self._death()), len(replies))
                self._buffer += chunk
        return replies

    def _flush_drops(self) -> None:
        while self._drops:
            instance = self._drops.pop()
            self._exchange(json.dumps({"op": "drop", "id": instance}))  # a refused drop harms nobody

    def _exchange(self, line: str) -> str:
        proc = self._proc
        if proc is None or proc.stdin is None or proc.stdout is None:
            raise _Dead("the process is not running")
        allowed = self.deadline.allowed
        start = time.monotonic()
        deadline = start + allowed
        try:
            _write_all(proc.stdin.fileno(), (line + "\n").encode(), deadline)
        except (BrokenPipeError, OSError):
            raise self._dead("the process died (its stdin is closed)") from None
        except TimeoutError:
            self.deadline.hung = True
            raise self._dead(
                f"the process did not read its input within {allowed:.3g} s{self.deadline.note(allowed)}"
            ) from None
        out = proc.stdout.fileno()
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            ready = select.select([out], [], [], max(left, 0))[0] if left > 0 else []
            if not ready:
                self.deadline.hung = True
                raise self._dead(
                    f"no reply within {allowed:.3g} s (a hang{self.deadline.note(allowed)}): the process was killed"
                )
            chunk = os.read(out, 1 << 16)
            if not chunk:
                raise self._dead(self._death())
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\n", 1)
        self.deadline.healthy(time.monotonic() - start)
        return raw.decode("utf-8", "replace").rstrip("\r")

    def _death(self) -> str:
        proc = self._proc
        status = proc.wait(timeout=5) if proc is not None else None
        return f"the process died (exit status {status}) before replying"

    def abandon(self) -> None:
        """Kill the process (it broke the protocol); the next factory call starts a new one."""
        self._dead("abandoned")

    def _dead(self, reason: str) -> _Dead:
        proc = self._proc
        if proc is not None and proc.poll() is None:
            proc.kill()  # a hung process: the next factory call starts a new one
            proc.wait(timeout=5)
        self._last_stderr = self.stderr_tail()
        self.close()
        return _Dead(reason)


def _write_all(fd: int, data: bytes, deadline: float) -> None:
    view = memoryview(data)
    while view:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([], [fd], [], left)[1]:
            raise TimeoutError
        view = view[os.write(fd, view[: 1 << 16]) :]


def _kill(proc: subprocess.Popen[bytes], stderr: IO[bytes]) -> None:
    try:
        if proc.stdin is not None:
            proc.stdin.close()
        try:
            proc.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)
        if proc.stdout is not None:
            proc.stdout.close()
    except OSError:
        pass  # the process is already gone: nothing left to close
    finally:
        stderr.close()


#: compact JSON, one encoder for every request (``json.dumps`` with options builds a new one per call)
_compact = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


_json_string = json.encoder.encode_basestring  # C-accelerated, as _compact writes a string (no ASCII escapes)


def _json_value(value: Any) -> str:
    """``value`` as :func:`_compact` writes it, faster for the common strings and ints."""
    kind = type(value)
    if kind is str:
        return _json_string(value)
    if kind is int:
        return int.__repr__(value)
    return _compact(value)


def _text(reply: Any) -> str:
    """A reply as its line: received lines as they are, replies parsed out of a batch as compact JSON."""
    return reply if isinstance(reply, str) else _compact(reply)


def _check_reply(line: str) -> dict[str, Any]:
    """A reply object: ``{"ok": true, ...}`` or ``{"ok": false, "error": <known code>, ...}``."""
    try:
        reply = json.loads(line)
    except ValueError:
        raise _Garbage(f"the reply is not JSON: {line[:200]!r}") from None
    return _check_reply_object(reply, line)


def _check_reply_object(reply: Any, line: Any) -> dict[str, Any]:
    if not isinstance(reply, dict) or not isinstance(reply.get("ok"), bool):
        raise _Garbage(f"the reply is not an object with a boolean 'ok': {_text(line)[:200]!r}")
    if not reply["ok"] and reply.get("error") not in _ERRORS:
        raise _Garbage(f"unknown error code {reply.get('error')!r} (known: {', '.join(_ERRORS)})")
    return reply


#: the answers that are one value of the monoid, read by the codec alone
_QUERIES = frozenset({"query", "range_query", "query_range"})


def _size_value(raw: Any) -> int:
    n = _int64(raw)
    if n < 0:
        raise _Garbage(f"size {n} < 0")
    return int(n)


#: a pipelined update's outcome: it returned, with nothing to answer
_DONE: tuple[bool, Any] = (True, None)


def _unsupported(message: str) -> Exception:
    return _Garbage(f"the program answered 'unsupported' to an operation its hello offers ({message})")


#: protocol error codes and the exceptions the kinds' wrappers expect for them
_ERRORS: dict[str, Callable[[str], Exception]] = {
    "empty": EmptyWindowError,
    "bad_input": ValueError,
    "missing": MissingTimeError,
    "unordered": UnorderedBulkError,
    "unsupported": _unsupported,
}


# ---------------------------------------------------------------------------------------------- the instances


class _Instance:
    """One aggregator instance inside the process: its requests and replies (``trace``/``replies``) and the
    call that turns a reply into a value, an expected exception or a :class:`ProcessFailure`."""

    kind = ""
    #: every call already has the driver's deadline (the process is killed when it hangs): a guard must not
    #: interrupt it as well, which would tear a reply apart (:class:`~swagkit.verify.guard.Guarded`)
    bounded = True
    #: the operations the program offers, by method name, and the value codec (set by :func:`_instance_class`)
    _traced: Mapping[str, Operation] = {}
    _values: Codec

    def __init__(self, driver: ProcessDriver, conformance: Conformance, monoid: Monoid[Any, Any, Any]) -> None:
        self.monoid = monoid
        self.algorithm: str | None = None
        self._driver = driver
        self._codec = conformance
        self._id = driver.new_id()
        self._generation = driver.generation
        #: the request lines sent for this instance, oldest first (``new`` first)
        self.trace: list[str] = []
        #: the replies received, in step with ``trace``: lines, or objects parsed out of a batch (:func:`_text`)
        self.replies: list[Any] = []
        self._broken: ProcessFailure | None = None
        self._requests: dict[str, tuple[Operation, str, tuple[tuple[str, Callable[[Any, Codec], Any]], ...]]] = {}
        self._call("new", kind=self.kind, monoid=conformance.name)
        weakref.finalize(self, driver.drop_later, self._id, self._generation)

    def __repr__(self) -> str:
        return f"<{self._driver.command!r} instance {self._id} ({self.kind}, {self._codec.name})>"

    def _call(self, op: str, **fields: Any) -> dict[str, Any]:
        if self._broken is not None:  # the first failure stays the verdict (a wrapper's re-check asks again)
            raise self._broken
        request = {"op": op, "id": self._id, **fields}
        line = json.dumps(request, ensure_ascii=False, separators=(",", ":"))
        self.trace.append(line)
        if self._generation != self._driver.generation or not self._driver.alive:
            raise self._fail("the process is gone (it died or was killed after an earlier failure)")
        try:
            reply_line = self._driver.request(line)
        except _Dead as exc:
            raise self._fail(str(exc)) from None
        self.replies.append(reply_line)
        reply = self._checked(reply_line)
        if not reply["ok"]:
            raise self._refusal(reply)
        return reply

    def _checked(self, received: Any) -> dict[str, Any]:
        """A reply (a line, or an object out of a batch) checked to be one (garbage fails the instance)."""
        try:
            return _check_reply(received) if isinstance(received, str) else _check_reply_object(received, received)
        except _Garbage as exc:
            raise self._fail(str(exc), garbage=True) from None

    def _refusal(self, reply: dict[str, Any]) -> Exception:
        """The exception a refusing reply stands for (``EmptyWindowError`` ...); an ``unsupported`` for an offered
        operation fails the instance instead."""
        error = _ERRORS[reply["error"]](str(reply.get("message", reply["error"])))
        if isinstance(error, _Garbage):
            raise self._fail(str(error), garbage=True)
        return error

    def _read(self, op: str, reply: dict[str, Any], decode: Callable[[Any], Any]) -> Any:
        """``decode`` of the reply's value (a missing or malformed value fails the instance)."""
        if "value" not in reply:
            raise self._fail(f"the reply to {op} has no 'value'", garbage=True)
        try:
            return decode(reply["value"])
        except (_Garbage, WireError) as exc:
            raise self._fail(f"{op}: {exc}", garbage=True) from None

    def pipeline(self, calls: Sequence[tuple[str, tuple[Any, ...]]]) -> list[tuple[bool, Any]]:
        """Run ``calls`` -- (method name, arguments); ``__len__`` is the size -- without waiting for each reply:
        as one ``batch`` line when the program offers batches, else as request lines sent back to back. Returns,
        per call, ``(True, answer)`` or ``(False, exception)``: what the call alone returns or raises (the
        protocol's refusals: ``EmptyWindowError`` ...). A call whose value the protocol cannot carry ends the list
        (its result is the ``ValueError``; the calls after it are not sent). A death, a hang or garbage raises
        :class:`ProcessFailure` as a single call does, with ``answered``: the calls answered before it."""
        if self._broken is not None:
            raise self._broken
        ops: list[Operation] = []
        lines: list[str] = []
        refused: Exception | None = None
        codec, requests = self._values, self._requests
        for name, args in calls:
            request = requests.get(name) or self._request_of(name)
            op, head, fields = request
            try:
                if len(args) != len(fields):
                    encode_args(op, args, codec)  # raises its TypeError
                if not fields:  # evict, query, size: the head alone
                    line = head + "}"
                elif len(fields) == 1:  # insert's value: one concatenation
                    (key, write), arg = fields[0], args[0]
                    line = head + key + _json_value(write(arg, codec)) + "}"
                else:
                    line = head + "".join(key + _json_value(write(a, codec)) for (key, write), a in zip(fields, args))
                    line += "}"
            except TypeError as exc:  # refused before it is sent, as a single call is
                refused = ValueError(f"{op.step_name}: {exc}")
                break
            ops.append(op)
            lines.append(line)
        if self._generation != self._driver.generation or not self._driver.alive:
            self.trace.extend(lines[:1])
            raise self._fail("the process is gone (it died or was killed after an earlier failure)")
        self.trace.extend(lines)
        replies: list[Any]
        try:
            if lines and "batch" in self._driver.hello.get("ops", ()):
                replies = self._driver.batch(lines)
            else:
                replies = self._driver.pipeline(lines)
        except _Dead as exc:
            failure = self._fail(str(exc))
            failure.answered = exc.answered
            raise failure from None
        except ProcessFailure as exc:  # a batch answered with garbage: the process is out of step
            self._driver.abandon()
            self._broken = exc
            raise
        self.replies.extend(replies)
        if len(ops) != len(replies):
            raise self._fail(f"{len(ops)} requests got {len(replies)} replies", garbage=True)
        outcome = self._outcome
        out = [outcome(op, reply) for op, reply in zip(ops, replies)]
        if refused is not None:
            out.append((False, refused))
        return out

    def _request_of(self, name: str) -> tuple[Operation, str, tuple[tuple[str, Callable[[Any, Codec], Any]], ...]]:
        """Operation ``name``'s request line parts for this instance (cached): the operation, the line's head and
        per field its ``,"key":`` and encoder."""
        op = self._traced[name]
        head = f'{{"op":"{op.step_name}","id":{self._id}'
        made = self._requests[name] = (op, head, tuple((f',"{key}":', write) for key, write in field_encoders(op)))
        return made

    def _outcome(self, op: Operation, received: Any) -> tuple[bool, Any]:
        """One pipelined reply (a line, or an object out of a batch) read as :meth:`_call` and :meth:`_value`
        read a single one."""
        if type(received) is dict and received.get("ok") is True:  # the common replies of a batch, read directly
            if not op.answers:
                return _DONE  # an update's plain success
            if op.step_name in _QUERIES:
                return True, self._read(op.step_name, received, self._values.decode)
        reply = self._checked(received)
        if not reply["ok"]:
            return False, self._refusal(reply)
        if not op.answers:
            return _DONE
        if op.step_name == "size":
            return True, self._read("size", reply, _size_value)
        return True, self._read(op.step_name, reply, lambda raw: decode_answer(op.step_name, raw, self._values))

    def _fail(self, reason: str, *, garbage: bool = False) -> ProcessFailure:
        """The :class:`ProcessFailure` of this instance (kept: later calls raise it again). After garbage the
        process is killed: its replies may be out of step with the requests from now on."""
        if garbage:
            self._driver.abandon()
        self._broken = self._driver.failure(reason, self.trace, [_text(r) for r in self.replies])
        return self._broken

    def _value(self, op: str, decode: Callable[[Any], Any], **fields: Any) -> Any:
        return self._read(op, self._call(op, **fields), decode)

    def _size(self) -> int:
        return int(self._value("size", _size_value))

    def _stats(self) -> int:
        reply = self._call("stats")
        count = reply.get("combines")
        if isinstance(count, bool) or not isinstance(count, int):
            raise self._fail("the reply to stats has no integer 'combines'", garbage=True)
        return count


def _operations(kind_name: str, codec: Conformance) -> dict[str, Any]:
    """The methods of an instance of swagkit kind ``kind_name`` over ``codec``: one per traced operation of the
    kind's face (:data:`swagkit.verify.replayfile.TRACED`), each sending the operation's fields as the protocol
    line (:mod:`swagkit.verify.wire`) and decoding its answer -- the same line a replay file holds."""
    values = Codec(codec.encode, codec.decode)
    return {op.name: _method(op, values) for name, op in TRACED[kind_name].items() if name != "size"}


def _method(op: Operation, values: Codec) -> Callable[..., Any]:
    def call(self: _Instance, *args: Any) -> Any:
        try:
            fields = encode_args(op, args, values)
        except TypeError as exc:  # a value the protocol cannot carry: refused before it is sent
            raise ValueError(f"{op.step_name}: {exc}") from None
        if not op.answers:
            self._call(op.step_name, **fields)
            return None
        return self._value(op.step_name, lambda raw: decode_answer(op.step_name, raw, values), **fields)

    call.__name__ = call.__qualname__ = op.name
    return call


#: swagkit's kind names (and the CLI's ``ooo``) -> (the protocol's kind, the swagkit kind of its operations)
_KINDS: dict[str, tuple[str, str]] = {
    "fifo": ("fifo", "fifo"),
    "ooo": ("ooo", "out_of_order"),
    "out_of_order": ("ooo", "out_of_order"),
}


def _instance_class(
    protocol_kind: str, codec: Conformance, ops: dict[str, Any], offered: set[str], program: str, kind_name: str
) -> type:
    """A class with exactly the operations the program offers (absent ones are absent attributes, so the kinds
    detect and skip them), plus ``__len__`` (``size``) and ``combine_count`` (``stats``) when offered, and what
    :meth:`_Instance.pipeline` encodes with (the traced operations by method name, the value codec)."""
    namespace: dict[str, Any] = {
        "kind": protocol_kind,
        "_traced": {op.name: op for op in TRACED[kind_name].values() if op.step_name in offered},
        "_values": Codec(codec.encode, codec.decode),
    }
    namespace.update({name: fn for name, fn in ops.items() if name in offered})
    if "size" in offered:
        namespace["__len__"] = _Instance._size
    if "stats" in offered:
        namespace["combine_count"] = property(_Instance._stats)
    # named after the program: messages about an instance name it as swagkit verify does
    name = re.sub(r"\W+", "_", os.path.basename(program)).strip("_") or "program"
    return type(name, (_Instance,), namespace)


class ProcessFactory:
    """``factory(monoid)``: a new instance inside the shared process (see :func:`process_factory`).

    ``capabilities`` is the program's ``hello`` reply; ``monoids``/``operations`` what it offers; ``offers``
    whether a monoid (or its name) can run. The process is restarted when it died since the last call."""

    def __init__(self, command: str, kind: str, *, timeout: float = 10.0, cwd: str | None = None) -> None:
        if kind not in _KINDS:
            raise ValueError(f"--exec drives the kinds {', '.join(_KINDS)}, not {kind!r}")
        self.kind = kind
        self.protocol_kind, self._kind_name = _KINDS[kind]
        self.driver = ProcessDriver(command, timeout=timeout, cwd=cwd)
        self.capabilities = self.driver.start()
        if self.protocol_kind not in self.capabilities["kinds"]:
            raise UnsupportedMonoidError(
                f"{command!r} offers the kinds {self.capabilities['kinds']}, not {self.protocol_kind!r}"
            )
        self._classes: dict[str, type] = {}
        #: the latest instance made (after a failure: the failing one, whose protocol lines a report shows)
        self.last: _Instance | None = None

    def protocol_tail(self, count: int = 12) -> str:
        """The last ``count`` requests to the latest instance and the replies to them (``-> sent``, ``<-
        received``); ``""`` when none was made."""
        if self.last is None:
            return ""
        sent, got = self.last.trace, self.last.replies
        first = max(0, len(sent) - count)
        lines = [f"({first} earlier requests not shown)"] if first else []
        for k in range(first, len(sent)):
            lines.append(f"-> {sent[k]}")
            lines.append(f"<- {_text(got[k])}" if k < len(got) else "<- (no reply)")
        return "\n".join(lines)

    @property
    def monoids(self) -> tuple[str, ...]:
        """The conformance monoids both the program and swagkit know, in the program's order."""
        return tuple(m for m in self.capabilities["monoids"] if m in CONFORMANCE)

    @property
    def operations(self) -> tuple[str, ...]:
        return tuple(self.capabilities["ops"])

    def offers(self, monoid: Monoid[Any, Any, Any] | str) -> bool:
        name = monoid if isinstance(monoid, str) else monoid.name
        return name in self.monoids

    def __call__(self, monoid: Monoid[Any, Any, Any]) -> Any:
        if not self.offers(monoid):
            raise UnsupportedMonoidError(
                f"{self.driver.command!r} does not offer the monoid {monoid.name!r} "
                f"(it offers {', '.join(self.monoids) or 'none of the conformance monoids'})"
            )
        if not self.driver.alive:
            self.capabilities = self.driver.start()
        codec = CONFORMANCE[monoid.name]
        cls = self._classes.get(codec.name)
        if cls is None:
            cls = self._classes[codec.name] = _instance_class(
                self.protocol_kind,
                codec,
                _operations(self._kind_name, codec),
                set(self.operations),
                self.driver.argv[0] if self.driver.argv else self.driver.command,
                self._kind_name,
            )
        self.last = cls(self.driver, codec, monoid)
        return self.last

    def close(self) -> None:
        self.driver.close()

    def restart(self) -> None:
        """A program of this process's own (after a fork: the parent's pipes are its parent's; this process starts
        its own instance of the program and leaves the parent's alone)."""
        self.driver.disown()
        self.driver = ProcessDriver(self.driver.command, timeout=self.driver.timeout, cwd=self.driver.cwd)
        self.capabilities = self.driver.start()
        self.last = None


def process_factory(command: str, kind: str, *, timeout: float = 10.0, cwd: str | None = None) -> ProcessFactory:
    """Start ``command`` (split like a shell would, run without one), ask its capabilities and return
    ``factory(monoid) -> aggregator`` for ``kind`` (``fifo`` or ``ooo``/``out_of_order``); every request must
    be answered within ``timeout`` seconds. Raises :class:`ProcessFailure` when the program does not start or
    does not answer ``hello``."""
    return ProcessFactory(command, kind, timeout=timeout, cwd=cwd)
