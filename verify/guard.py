"""The face a user's own aggregator meets: every call guarded, so what the aggregator does wrong becomes a failure
that names the operation -- never an error of swagkit, never a hang.

:class:`Guarded` stands between a kind's debug wrapper and code swagkit did not write (a ``--impl`` class, an
``--exec`` program's instances, the object of a replay):

* an exception other than swagkit's documented errors becomes :class:`ImplementationError` naming the call (the
  user's own empty-window exception, named with ``--empty-error MODULE:EXC``, is taken as
  :class:`~swagkit.spec.errors.EmptyWindowError`);
* a call that does not return within its :class:`Deadline` is stopped and becomes :class:`ImplementationHang`
  (Python code is interrupted by ``SIGALRM`` in the main thread; a compiled loop that never returns to Python
  cannot be interrupted in-process: run it through ``--exec``, where the process is killed).

:class:`Deadline` is also the ``--exec`` driver's (:mod:`swagkit.verify.process`): after the first hang it
shortens, so that shrinking a hang does not wait the full timeout for every candidate.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable
from typing import Any

from swagkit.spec.errors import EmptyWindowError, SwagkitError

from .faults import InjectedFault

__all__ = ["Deadline", "Guarded", "ImplementationError", "ImplementationHang"]


class ImplementationError(AssertionError):
    """The implementation raised ``original`` on a valid ``operation``: a failure of the implementation, never
    an error of swagkit (an :class:`AssertionError`, so test runners and ``swagkit verify`` report FAIL)."""

    def __init__(self, operation: str, original: BaseException) -> None:
        super().__init__(f"the implementation raised {type(original).__name__}: {original} in {operation}")
        self.operation = operation
        self.original = original


class ImplementationHang(AssertionError):
    """``operation`` did not return within ``seconds``: the implementation hangs (a FAIL naming the call)."""

    def __init__(self, operation: str, seconds: float, note: str = "") -> None:
        super().__init__(f"{operation} did not return within {seconds:.3g} s (a hang{note}); it was interrupted")
        self.operation = operation
        self.seconds = seconds


class Deadline:
    """How long one call may take: ``timeout`` seconds until the first hang; after it, ``min(timeout, max(0.2 s,
    50 × the slowest healthy call))``. Shrinking a hang replays the hanging call again and again, and each replay
    would pay the full timeout (66-87 s to shrink one hang at 10 s, issue 14 §3); the implementation has shown
    how fast it answers (its slowest call includes any start-up, so a JVM keeps seconds), so a call 50 times
    slower than any healthy one is a hang too. The 0.2 s floor is far above a scheduler's hiccup on a loaded
    machine (milliseconds)."""

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        #: the slowest healthy call so far (seconds), and whether a call has hung yet
        self.slowest = 0.0
        self.hung = False

    @property
    def allowed(self) -> float:
        """The seconds the next call may take."""
        if not self.hung:
            return self.timeout
        return min(self.timeout, max(0.2, 50 * self.slowest))

    def note(self, allowed: float) -> str:
        """How ``allowed`` came about, for a hang's message (``""``: the full timeout)."""
        return "" if allowed >= self.timeout else f"; --timeout {self.timeout:g} s shortened after the first hang"

    def healthy(self, seconds: float) -> None:
        """A call returned after ``seconds``."""
        self.slowest = max(self.slowest, seconds)


class _Interrupted(BaseException):
    """Raised into the hanging call by ``SIGALRM`` (a BaseException: a bare ``except Exception`` in the user's
    loop cannot swallow it); turned into :class:`ImplementationHang` at the call's boundary."""


#: interrupts a hanging call may swallow (one each 50 ms after its deadline) before swagkit exits instead
_SWALLOWED = 40

#: swagkit's documented errors and the checks' own failures pass through a guard unchanged
_PASS_THROUGH: tuple[type[BaseException], ...] = (SwagkitError, InjectedFault, AssertionError)


class Guarded:
    """The user's aggregator as the debug wrapper sees it (see the module docstring). ``empty_error``: the user's
    own exception types that mean "the window is empty"; ``deadline``: the time each call may take (``None``:
    unbounded)."""

    def __init__(
        self,
        inner: Any,
        *,
        empty_error: tuple[type[BaseException], ...] = (),
        deadline: Deadline | None = None,
    ) -> None:
        self._inner = inner
        self._empty = empty_error
        # an object whose calls are bounded already (an --exec program's instance: its driver kills a hang)
        self._deadline = None if getattr(type(inner), "bounded", False) is True else deadline

    @property
    def guarded(self) -> Any:
        """The object behind the guard."""
        return self._inner

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in ("_inner", "_empty", "_deadline"):
            raise AttributeError(name)
        attr = self._call(f"{name} (attribute)", getattr, self._inner, name)
        if not callable(attr):
            return attr

        def call(*args: Any) -> Any:
            return self._call(f"{name}({', '.join(map(repr, args))})", attr, *args)

        return call

    def __len__(self) -> int:
        n = self._call("len()", len, self._inner)
        if not isinstance(n, int):
            raise ImplementationError("len()", TypeError(f"len() returned {n!r}"))
        return n

    def __repr__(self) -> str:
        return repr(self._inner)

    def _call(self, label: str, fn: Callable[..., Any], *args: Any) -> Any:
        try:
            return self._timed(label, fn, *args)
        except _PASS_THROUGH:
            raise
        except AttributeError:
            raise  # an optional operation the object lacks is absent here too (getattr(obj, name, None) works)
        except Exception as exc:
            if self._empty and isinstance(exc, self._empty):
                raise EmptyWindowError(f"{type(exc).__name__}: {exc} (your --empty-error)") from exc
            raise ImplementationError(label, exc) from exc

    def _timed(self, label: str, fn: Callable[..., Any], *args: Any) -> Any:
        deadline = self._deadline
        if deadline is None or threading.current_thread() is not threading.main_thread():
            return fn(*args)  # SIGALRM reaches the main thread only: elsewhere a call is unbounded
        allowed = deadline.allowed
        armed = [True]
        fired = [0]

        def interrupt(signum: int, frame: Any) -> None:
            if not armed[0]:
                return
            fired[0] += 1
            if fired[0] > _SWALLOWED:  # every interrupt swallowed for 2 s: nothing in-process can stop it
                os.write(2, f"swagkit: {label} hangs and swallows every interrupt; exiting (status 1)\n".encode())
                os._exit(1)
            raise _Interrupted

        start = time.monotonic()
        try:
            previous = signal.signal(signal.SIGALRM, interrupt)
            # fire at the deadline, then every 50 ms: a loop that catches even BaseException is hit again
            signal.setitimer(signal.ITIMER_REAL, allowed, 0.05)
            try:
                result = fn(*args)
            finally:
                armed[0] = False
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, previous)
        except _Interrupted:  # wherever it landed, inside the call or on the way out
            deadline.hung = True
            raise ImplementationHang(label, allowed, deadline.note(allowed)) from None
        deadline.healthy(time.monotonic() - start)
        return result
