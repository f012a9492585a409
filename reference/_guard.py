"""What keeps every reference structure safe to misuse: the re-entry guard, and copying/pickling by snapshot.

**Re-entry guard.** A user's ``combine`` (or ``lift``, ``lower``, a value's ``__del__``) may call back into the
structure whose operation is running, and a second thread may call it at the same time. Either would see, and
change, a half-updated state. :func:`guarded` wraps each public operation: it takes a per-structure lock without
blocking, so an overlapping call raises :class:`~swagkit.spec.errors.ReentrantCallError` *before* it changes
anything, and the running operation goes on undisturbed. (A lock, not a flag: testing and setting a flag are two
bytecodes, and another thread can run between them.) swagkit's structures are not thread-safe; the guard makes
overlapping use an error instead of a corruption.

**Copying and pickling.** A structure is saved as its constructor parameters, its plain snapshot (the paper's
state, see :mod:`swagkit.spec.snapshots`) and its ``combine_count``, and rebuilt by the class's
``_from_snapshot``. So ``copy.copy`` gives an independent structure that shares the monoid and the stored values
(O(n), no ⊗ call), ``copy.deepcopy`` also copies those, and a pickle is flat whatever the window size (the
structures' own object graphs -- linked chunks, trees -- would recurse once per chunk or node). The compiled
classes of :mod:`swagkit.optimized` do the same with the same snapshots.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any, ClassVar, Concatenate, ParamSpec, TypeVar

from swagkit.spec.errors import ReentrantCallError

__all__ = ["Guarded", "guarded", "restore", "reentered", "check_count"]

P = ParamSpec("P")
R = TypeVar("R")
S = TypeVar("S", bound="Guarded")


def reentered(algorithm: str, operation: str) -> ReentrantCallError:
    """The error of a call that overlaps a running operation (same wording in both implementations)."""
    return ReentrantCallError(
        f"{algorithm}: {operation}() called while another operation of this structure is running "
        "(re-entered from combine/lift/lower, or used by a second thread: swagkit structures are not thread-safe); "
        "nothing was changed"
    )


def guarded(method: Callable[Concatenate[S, P], R]) -> Callable[Concatenate[S, P], R]:
    """Run ``method`` holding the structure's lock; refuse (raise :class:`ReentrantCallError`) if it is held."""
    name = method.__name__

    @functools.wraps(method)
    def run(self: S, /, *args: P.args, **kwargs: P.kwargs) -> R:
        lock = self._lock
        if not lock.acquire(blocking=False):
            raise reentered(self.algorithm, name)
        try:
            return method(self, *args, **kwargs)
        finally:
            lock.release()

    return run


def restore(cls: Any, monoid: Any, params: dict[str, Any], snapshot: Any, counts: int | dict[str, int] | None) -> Any:
    """Rebuild a structure saved by :meth:`Guarded.__reduce__` (also the compiled classes' ``__reduce__``).
    ``counts`` is the ``combine_count``, or a dict of every work counter (FiBA's ``touched_count`` too), or None
    for structures that count no ⊗ (paper 004's)."""
    obj = cls._from_snapshot(monoid, snapshot, **params)
    if isinstance(counts, dict):
        for name, value in counts.items():
            setattr(obj, name, value)
    elif counts is not None:
        obj.combine_count = counts
    return obj


class Guarded:
    """Base of every reference structure: the lock :func:`guarded` takes, and copy/pickle by snapshot.

    A subclass calls :meth:`_init_guard` in ``__init__``, implements ``snapshot()`` and the classmethod
    ``_from_snapshot(monoid, snapshot, **params)``, and overrides :meth:`_params` when its constructor takes
    parameters besides the monoid. Structures that take no monoid save ``None`` in its place.
    """

    algorithm: ClassVar[str] = "abstract"
    _lock: threading.Lock

    def _init_guard(self) -> None:
        self._lock = threading.Lock()

    def _params(self) -> dict[str, Any]:
        """Constructor keyword arguments besides the monoid (saved with the snapshot)."""
        return {}

    def _saved_monoid(self) -> Any:
        return getattr(self, "monoid", None)

    # Subclasses define ``snapshot(self)`` and the classmethod ``_from_snapshot(cls, monoid, snapshot, **params)``
    # with their own precise signatures (not declared here: mypy would hold every override to ``**params: Any``).

    def _counts(self) -> int | dict[str, int] | None:
        """The work counters a copy keeps: ``combine_count`` (None when the structure counts no ⊗)."""
        count: int | None = getattr(self, "combine_count", None)
        return count

    def _saved(self) -> tuple[Any, ...]:
        snapshot: Any = getattr(self, "snapshot")()  # noqa: B009 (every subclass defines it; this mixin does not)
        return (type(self), self._saved_monoid(), self._params(), snapshot, self._counts())

    def __reduce__(self) -> tuple[Any, ...]:
        return (restore, self._saved())

    def __copy__(self) -> Any:
        return restore(*self._saved())


def check_count(count: Any, operation: str = "evict_many") -> int:
    """A bulk count: an ``int`` (numpy integers too, through ``__index__``), not a bool, not negative.
    Raises ``TypeError``/``ValueError`` otherwise (shared by both implementations)."""
    if isinstance(count, bool) or not hasattr(type(count), "__index__"):
        raise TypeError(f"{operation}: count must be an int, got {type(count).__name__}")
    n = int(count.__index__())
    if n < 0:
        raise ValueError(f"{operation}: count must be non-negative")
    return n
