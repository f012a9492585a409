"""A FIFO window's declared contract: which operations an implementation promises to handle.

Not every sliding-window library is a general FIFO SWAG (000 §2.1). Many are *fixed-capacity* windows -- an insert
into a full window evicts the oldest element by itself, as SlickDeque's multi-query mode (001 §4: the window is
the last W partials) and PyPI ``rolling`` do -- some never evict explicitly (a static window of size W), some
only shrink a full window (an iterator draining at its end) or are undefined on an empty window. A
:class:`Contract` states those restrictions once; the state machine (:mod:`.machine`) makes only operations
inside it, and the checked wrapper (:mod:`.debug`) applies its capacity to the model, so a library is verified
within its contract without false positives. The default is the unrestricted FIFO SWAG.

``swagkit verify --contract SPEC`` parses :func:`parse`'s comma-separated form, e.g.
``capacity=8,no-evict-before-full,no-empty-ops`` or ``capacity=8,ranges=8/5/2/1``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, replace
from typing import Any

__all__ = ["Contract", "UNRESTRICTED", "parse"]


@dataclass(frozen=True)
class Contract:
    """What a FIFO window promises (every field's default is the unrestricted FIFO SWAG):

    * ``capacity`` -- a fixed-capacity window of ``capacity`` elements: an insert into a full window evicts the
      oldest first (the model does the same), so the window never holds more;
    * ``evict`` -- explicit ``evict()``/``evict_many()`` are offered (False: a *static* window, only inserts);
    * ``evict_before_full`` -- evicts may start on a window that is not full (False, with a capacity: evicts only
      drain a full window -- the first evict of a run needs a full window, an insert ends the run);
    * ``empty_ops`` -- the window may be queried or evicted while empty and evicted down to empty (False: it
      always holds at least one element once the first insert happened, and is never queried before);
    * ``ranges`` -- the registered query ranges (001 §4's multi-query mode): ``query_range`` is asked only for
      these, and ``query_all()`` must answer exactly these.
    """

    capacity: int | None = None
    evict: bool = True
    evict_before_full: bool = True
    empty_ops: bool = True
    ranges: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        if self.capacity is not None and (isinstance(self.capacity, bool) or self.capacity < 1):
            raise ValueError(f"contract: capacity must be a positive int, got {self.capacity!r}")
        if not self.evict_before_full and self.capacity is None:
            raise ValueError("contract: no-evict-before-full needs a capacity (a window is full at its capacity)")
        if self.ranges is not None:
            rs = tuple(sorted({int(r) for r in self.ranges}, reverse=True))
            if not rs or rs[-1] < 1:
                raise ValueError(f"contract: ranges must be ints ≥ 1, got {self.ranges!r}")
            object.__setattr__(self, "ranges", rs)

    @property
    def restricted(self) -> bool:
        """Whether this contract restricts anything (False: the unrestricted FIFO SWAG)."""
        return self != UNRESTRICTED

    @property
    def misuse(self) -> bool:
        """Whether evicting beyond the window's size is a defined misuse (``EmptyWindowError``) here."""
        return self.evict and self.empty_ops and self.evict_before_full

    def full(self, n: int) -> bool:
        """Whether a window of ``n`` elements is at its capacity (an insert evicts the oldest first)."""
        return self.capacity is not None and n >= self.capacity

    def evictable(self, n: int, draining: bool) -> int:
        """How many evicts in a row the contract allows on a window of ``n`` elements (``draining``: the
        previous operation that changed the window was an evict)."""
        if not self.evict or n == 0:
            return 0
        if not self.evict_before_full and not (draining or self.full(n)):
            return 0
        return n if self.empty_ops else n - 1

    def queryable(self, n: int) -> bool:
        """Whether the window may be queried at size ``n``."""
        return self.empty_ops or n > 0

    def admits(self, calls: Iterable[tuple[str, tuple[Any, ...]]]) -> bool:
        """Whether FIFO calls ``(name, args)`` stay inside the contract, as its machine's do: evicts only where
        :meth:`evictable` (or beyond the size, where that is a defined :attr:`misuse`), queries only where
        :meth:`queryable`, the size held at the capacity (a shrunk trace must not leave the contract to fail)."""
        n, draining = 0, False
        for name, args in calls:
            if name in ("insert", "insert_many"):
                n += 1 if name == "insert" else len(args[0])
                n = min(n, self.capacity) if self.capacity is not None else n
                draining = False
            elif name in ("evict", "evict_many"):
                k = 1 if name == "evict" else int(args[0])
                if k > self.evictable(n, draining):
                    if self.misuse and k > n:  # a defined misuse: refused (EmptyWindowError), nothing changes
                        continue
                    return False
                n, draining = n - k, True
            elif name.startswith("query") and not self.queryable(n):
                return False
        return True

    def as_dict(self) -> dict[str, Any]:
        """The fields that differ from the default (a replay header's ``"contract"``)."""
        out = {k: v for k, v in asdict(self).items() if v != getattr(UNRESTRICTED, k)}
        if "ranges" in out:
            out["ranges"] = list(out["ranges"])
        return out

    @classmethod
    def of(cls, spec: Contract | Mapping[str, Any] | str | None) -> Contract:
        """A contract from a contract, a mapping of fields (a card's ``contract``, a replay header's), a
        :func:`parse` spec, or ``None`` (unrestricted). ``ValueError`` for anything else."""
        if spec is None or not spec:  # a card without restrictions: the one unrestricted contract
            return UNRESTRICTED
        if isinstance(spec, Contract):
            return spec
        if isinstance(spec, str):
            return parse(spec)
        if not isinstance(spec, Mapping):
            raise ValueError(f"contract: a Contract, a mapping of its fields or a spec string, not {spec!r}")
        fields = dict(spec)
        unknown = set(fields) - {"capacity", "evict", "evict_before_full", "empty_ops", "ranges"}
        if unknown:
            raise ValueError(f"contract: unknown fields {', '.join(sorted(map(str, unknown)))}")
        if fields.get("ranges") is not None:
            if not isinstance(fields["ranges"], (list, tuple)):
                raise ValueError(f"contract: ranges must be a list of ints, got {fields['ranges']!r}")
            fields["ranges"] = tuple(fields["ranges"])
        return cls(**fields)

    def fitted(self, obj: Any) -> Contract:
        """This contract with the capacity and query ranges ``obj`` itself declares (its ``capacity`` and
        ``ranges`` attributes: SlickDeque's multi-query mode, 001 §4, built with ``ranges=(3, 5)`` holds 5
        partials and answers ranges 5 and 3 -- not the card's example ranges). An object that declares neither
        keeps this contract."""
        capacity, ranges = getattr(obj, "capacity", None), getattr(obj, "ranges", None)
        if not isinstance(ranges, tuple) or not ranges or not all(isinstance(r, int) for r in ranges):
            return self
        if not isinstance(capacity, int) or isinstance(capacity, bool):
            capacity = max(ranges)
        return replace(self, capacity=capacity, ranges=ranges)


#: the unrestricted FIFO SWAG (every operation, any size)
UNRESTRICTED = Contract()

_FLAGS = {
    "static": ("evict", False),
    "no-evict": ("evict", False),
    "no-evict-before-full": ("evict_before_full", False),
    "no-empty-ops": ("empty_ops", False),
}


def parse(spec: str) -> Contract:
    """``capacity=W``, ``static`` (= ``no-evict``), ``no-evict-before-full``, ``no-empty-ops`` and
    ``ranges=R1/R2/...``, comma-separated (``""``: unrestricted). ``ValueError`` for anything else."""
    fields: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in spec.split(","))):
        key, sep, value = item.partition("=")
        try:
            if key in _FLAGS and not sep:
                name, flag = _FLAGS[key]
                fields[name] = flag
            elif key == "capacity" and sep:
                fields["capacity"] = int(value)
            elif key == "ranges" and sep:
                fields["ranges"] = tuple(int(r) for r in value.split("/"))
            else:
                raise ValueError
        except ValueError:
            raise ValueError(
                f"contract: cannot read {item!r} (known: capacity=W, static, no-evict, no-evict-before-full, "
                "no-empty-ops, ranges=R1/R2/...)"
            ) from None
    return Contract(**fields)
