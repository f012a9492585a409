"""The executor side of :func:`~swagkit.optimized.spark.frames.sliding_aggregate`: Arrow record batches of one sorted
partition in, the same rows with one column per aggregate out (the ``mapInArrow`` function).

The partition arrives sorted by key, then by the order (``arrival`` first when given), so each key's rows are
contiguous. Batches are gathered into *chunks* of at least :attr:`FrameSpec.chunk_rows` rows (for ``rows=W`` at
least W rows, so re-reading the ``W - 1`` rows kept from the previous chunk at most doubles the work:
:class:`~.frames_keys.RowsKey`). A chunk is split into key runs (``pyarrow.compute.run_end_encode`` of the key
columns); the key whose run ends the chunk keeps its state (:mod:`.frames_keys`) for the next chunk, every other
key's state is dropped when its run ends. For ``range`` frames the chunk's last group (equal time, or equal
``arrival``) is held back to the next chunk, so a group is never split. Memory is therefore O(chunk + window).

Input columns are converted once per chunk: typed kinds to float64/int64 numpy buffers with NULLs replaced by the
identity (the validity mask says which rows were NULL), others to Python objects (structs as tuples).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from swagkit.spec.library import stable_key

from ..factory import checked, create
from .frames_keys import Algorithm, KeyState, Lane, Piece, RunData, new_key_state
from .frames_spec import AggregateSpec, FrameSpec, with_null_lift

__all__ = ["partition_function", "PartitionRunner", "sampled", "resolve_algorithm"]


def _pa() -> Any:
    return importlib.import_module("pyarrow")


def _pc() -> Any:
    return importlib.import_module("pyarrow.compute")


def sampled(key: tuple[Any, ...], fraction: float) -> bool:
    """Whether ``key`` is in the debug-mode sample: a hash of the key (BLAKE2b of its ``repr``, the same in every
    process) below ``fraction`` of the range."""
    import hashlib

    if fraction <= 0.0:
        return False
    if fraction >= 1.0:
        return True
    digest = hashlib.blake2b(stable_key(key), digest_size=8).digest()
    return int.from_bytes(digest, "big") < fraction * 2**64


def resolve_algorithm(frame: FrameSpec) -> Algorithm:
    """The executor's constructors: the class the driver resolved (swagkit.optimized's class of a card, with the
    card's parameters, or the user's class) and its debug-mode twin (wrapped in the kind's debug wrapper, which
    imports the verification package and Hypothesis: only when a key is checked)."""
    params = dict(frame.algorithm_params)
    cls = frame.algorithm_class
    assert cls is not None
    algorithm_id = frame.algorithm
    kind = "out_of_order" if frame.out_of_order else "fifo"

    def make(monoid: Any) -> Any:
        return cls(monoid, **params)

    def make_checked(monoid: Any) -> Any:
        if algorithm_id is not None:
            return create(algorithm_id, monoid, "optimized", check=True)
        # a user's class: its kind's model, and the invariants and budget of the algorithm it names, if any
        return checked(cls(monoid, **params), monoid=monoid, kind=kind)

    return Algorithm(make, make_checked, cls)


def partition_function(
    frame: FrameSpec, aggregates: Sequence[AggregateSpec]
) -> Callable[[Iterable[Any]], Iterator[Any]]:
    """The ``mapInArrow`` function of one call (``RecordBatch`` iterator in, out)."""
    specs = tuple(aggregates)

    def process(batches: Iterable[Any]) -> Iterator[Any]:
        yield from PartitionRunner(frame, specs).run(batches)

    return process


class PartitionRunner:
    """One partition's pass: chunks, key runs, the current key's state (see the module docstring)."""

    def __init__(self, frame: FrameSpec, aggregates: Sequence[AggregateSpec]) -> None:
        self.frame = frame
        self.lanes = tuple(_lane(spec) for spec in aggregates)
        self.algorithm = resolve_algorithm(frame)
        self.key: tuple[Any, ...] | None = None
        self.state: KeyState | None = None
        self.grouped = frame.range is not None  # range frames: groups must not straddle chunks

    def run(self, batches: Iterable[Any]) -> Iterator[Any]:
        pa = _pa()
        size = self.frame.chunk_rows
        pending: list[Any] = []
        rows = 0
        for batch in batches:
            for offset in range(0, batch.num_rows, size):  # a batch larger than a chunk is cut into chunks
                pending.append(batch.slice(offset, size))
                rows += pending[-1].num_rows
                if rows < size:
                    continue
                done, rest = self._split(pa.Table.from_batches(pending).combine_chunks())
                if done is not None:
                    yield from self._chunk(done)
                pending = rest.to_batches() if rest is not None else []
                rows = sum(b.num_rows for b in pending)
        if pending:
            yield from self._chunk(pa.Table.from_batches(pending).combine_chunks())

    def _split(self, table: Any) -> tuple[Any, Any]:
        """(rows to compute now, rows to keep for the next chunk): the last group is held back for ``range``."""
        if not self.grouped:
            return table, None
        ends = self._boundaries(table, with_groups=True)
        cut = int(ends[-2]) if len(ends) > 1 else 0
        if cut == 0:
            return None, table
        return table.slice(0, cut), table.slice(cut)

    def _boundaries(self, table: Any, with_groups: bool) -> Any:
        """Ends of the runs of equal keys (and, ``with_groups``, equal group column) in ``table``."""
        pc = _pc()
        columns = list(self.frame.keys)
        if with_groups:
            columns.append(self.frame.arrival if self.frame.arrival is not None else self.frame.order_by[0])
        ends = [np.asarray(pc.run_end_encode(_single(table.column(c))).run_ends) for c in columns]
        return np.unique(np.concatenate(ends)).astype(np.int64)

    def _chunk(self, table: Any) -> Iterator[Any]:
        n = table.num_rows
        key_ends = self._boundaries(table, with_groups=False)
        group_ends = self._boundaries(table, with_groups=True) if self.grouped else None
        values, valid = zip(*(_inputs(table.column(lane.spec.column), lane) for lane in self.lanes), strict=True)
        times: Any = _times(table.column(self.frame.order_by[0]), self.frame) if self.grouped else None
        key_columns = [_single(table.column(c)) for c in self.frame.keys]
        pieces: list[list[Piece]] = [[] for _ in self.lanes]
        start = 0
        for end in key_ends.tolist():
            key = tuple(column[start].as_py() for column in key_columns)
            if self.state is None or key != self.key:
                self.key = key
                self.state = new_key_state(
                    key, self.frame, self.lanes, self.algorithm, sampled(key, self.frame.check_fraction)
                )
            data = RunData(
                end - start,
                [v[start:end] for v in values],
                [None if m is None else m[start:end] for m in valid],
            )
            if group_ends is not None:
                inside = group_ends[(group_ends > start) & (group_ends <= end)]
                data.times = times[start:end]
                data.group_ends = inside - start
            for i, piece in enumerate(self.state.run(data)):
                pieces[i].append(piece)
            start = end
        assert start == n
        for lane, lane_pieces in zip(self.lanes, pieces, strict=True):
            table = table.append_column(lane.spec.name, _assemble(lane.spec, lane_pieces, n))
        yield from table.to_batches()


def _single(column: Any) -> Any:
    """A table column as one Arrow array (the chunk's columns were combined, so this is the only chunk)."""
    return column.chunk(0) if column.num_chunks == 1 else column.combine_chunks()


def _lane(spec: AggregateSpec) -> Lane:
    monoid = spec.monoid()
    if spec.value_kind == "object" and spec.nullable:
        monoid = with_null_lift(monoid)  # a NULL (None) lifts to the identity: skipped
    return Lane(spec, monoid, spec.nullable)


def _inputs(column: Any, lane: Lane) -> tuple[Any, Any]:
    """One lane's inputs for a chunk: (values, validity mask or None)."""
    pa, pc = _pa(), _pc()
    array = _single(column)
    valid = None if array.null_count == 0 else np.asarray(array.is_valid())
    kind = lane.spec.value_kind
    if kind in ("f64", "i64"):
        target = pa.float64() if kind == "f64" else pa.int64()
        typed = array.cast(target, safe=True)
        if valid is not None:
            typed = pc.fill_null(typed, pa.scalar(lane.monoid.identity, type=target))
        return np.asarray(typed.to_numpy(zero_copy_only=False)), valid
    items = array.to_pylist()
    if lane.spec.struct_input:
        items = [None if item is None else tuple(item.values()) for item in items]
    return items, valid


def _times(column: Any, frame: FrameSpec) -> Any:
    """The ``range`` order column as numpy (int64 or float64); NULL or NaN times are refused."""
    pa = _pa()
    array = _single(column)
    if array.null_count:
        raise ValueError(f"sliding_aggregate: the range order column {frame.order_by[0]!r} holds NULLs")
    times = np.asarray(array.cast(pa.float64() if frame.time_is_float else pa.int64()).to_numpy(zero_copy_only=False))
    if frame.time_is_float and np.isnan(times).any():
        raise ValueError(f"sliding_aggregate: the range order column {frame.order_by[0]!r} holds NaN")
    return times


def _assemble(spec: AggregateSpec, pieces: list[Piece], n: int) -> Any:
    """One output column of a chunk from its runs' pieces: numbers straight from numpy buffers, else Python
    objects; rows with an empty frame get :attr:`AggregateSpec.empty_value`."""
    pa = _pa()
    masks = [np.zeros(_length(p[0]), dtype=bool) if p[1] is None else p[1] for p in pieces]
    empty = np.concatenate(masks) if any(p[1] is not None for p in pieces) else None
    arrays = [_numeric(p[0]) for p in pieces]
    if all(a is not None for a in arrays) and spec.empty_value is None and not _is_string(spec.arrow_type):
        numbers = np.concatenate(arrays) if len(arrays) > 1 else arrays[0]
        if spec.to_double:
            numbers = numbers.astype(np.float64)
        return pa.array(numbers, mask=empty).cast(spec.arrow_type, safe=True)
    items: list[Any] = []
    for answers in (p[0] for p in pieces):
        items.extend(answers.tolist() if isinstance(answers, np.ndarray) else answers)
    if empty is not None:
        for i in np.flatnonzero(empty).tolist():
            items[i] = spec.empty_value
    if spec.to_double:
        items = [None if x is None else float(x) for x in items]
    assert len(items) == n
    return pa.array(items, type=spec.arrow_type)


def _length(answers: Any) -> int:
    return len(answers)


def _numeric(answers: Any) -> Any:
    """``answers`` as a numeric numpy array when they are a typed buffer (``array.array``, numpy), else ``None``."""
    import array

    if isinstance(answers, array.array):
        return np.frombuffer(answers, dtype=np.float64 if answers.typecode == "d" else np.int64)
    if isinstance(answers, np.ndarray) and answers.dtype.kind in "if":
        return answers
    return None


def _is_string(arrow_type: Any) -> bool:
    pa = _pa()
    return bool(pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type))
