"""Type stub of the compiled DABA (paper 000 §5); see the ``.pyx`` for complexity and the paper reference."""

from typing import Any, ClassVar, Iterable, TypeVar

from swagkit.spec.monoid import Monoid
from swagkit.spec.snapshots import DABAState

In = TypeVar("In")

class DABA:
    """DABA (paper 000 §5), compiled; same API, snapshots, ``combine_count``, exception safety, re-entry guard and copy/pickle as ``swagkit.reference.DABA``."""

    algorithm: ClassVar[str]
    #: ``"strong"``: a raising ``combine`` leaves the structure exactly as before the operation
    exception_safety: ClassVar[str]
    @property
    def monoid(self) -> Monoid[Any, Any, Any]: ...
    combine_count: int
    @property
    def last_case(self) -> str:
        """Name of the last fixup case (``singleton``, ``shift``, ``shrink``, ``flip+shift``, ``flip+shrink``)."""
    def __init__(self, monoid: Monoid[Any, Any, Any]) -> None: ...
    def query(self) -> Any: ...
    def insert(self, value: Any) -> None: ...
    def evict(self) -> None: ...
    def __len__(self) -> int: ...
    def insert_many(self, values: Iterable[In]) -> None: ...
    def evict_many(self, count: int) -> None: ...
    def snapshot(self) -> DABAState: ...
    @classmethod
    def _from_snapshot(cls, monoid: Monoid[Any, Any, Any], snapshot: DABAState) -> "DABA":
        """The structure whose snapshot is ``snapshot`` (``ValueError``/``TypeError`` for a malformed one)."""
    def __reduce__(self) -> tuple[Any, ...]: ...
    def __copy__(self) -> "DABA": ...
    def _memory_bytes(self) -> int | None:
        """Bytes malloc'd for the element storage (None for the pure-Python fallback)."""
    def __repr__(self) -> str: ...

def _window_array(cls: Any, monoid: Any, values: Iterable[Any], window: int) -> Any:
    """Compiled ``window_array`` fast path: ``array.array`` ('d'/'q') for typed kinds, else a list."""
