"""The array entry points of a compiled implementation, checked against their twins (issue 25 §3).

The state machines drive an aggregator one operation at a time. ``swagkit.optimized`` also runs whole arrays as
one C loop -- ``window_array`` (paper 000 §7.1's static window) through a class's typed fast path, an
out-of-order class's ``slide`` through its in-order kernel, ``window_sum`` through its block kernel -- code that
no machine reaches and whose bugs no single-operation check sees. An *array task* runs them on Hypothesis-drawn
arrays (up to :data:`MAX_LENGTH` items, windows up to :data:`MAX_WINDOW`; for ``slide`` times that mostly rise,
with repeats and stragglers) and compares every answer with the twin's:

* ``window_array(cls, monoid, values, w)`` of a class with no constructor parameters: the answers of the same
  call on the reference class (the same ⊗ sequence, so the same doubles) and, for a monoid whose answers are
  exact, each frame's own fold (the model);
* ``obj.slide(times, values, w)``: the reference object's answers, and its snapshot and ⊗ count afterwards;
* ``window_sum(monoid, values, w)``: bit for bit its pure-Python twin ``window_sum_python``.

A refusal (a NaN, an out-of-range value) must be the same exception type on both sides. Which entry point a
class has is read off the class (``slide``) and its kind, never off an algorithm id. A failure is shrunk by
Hypothesis within the shrink budget and written as a ``python_only: "arrays"`` replay file holding the call's
arguments as data (:func:`write_replay`); ``swagkit replay FILE`` makes the call again on both sides
(:func:`swagkit.verify.replay.rearray`).
"""

from __future__ import annotations

import array
import math
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

import hypothesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from swagkit.spec.library import LIBRARY
from swagkit.spec.monoid import fold

from .kinds.base import Subject
from .kinds.machines import no_local_constants, shrink_deadline
from .replayfile import VERSION, replay_dir, save

__all__ = [
    "MAX_LENGTH",
    "MAX_WINDOW",
    "WINDOW_SUM",
    "ArrayCase",
    "entry_point",
    "compare",
    "search_arrays",
    "write_replay",
]

#: the longest array drawn (the kernels' block and node cases all occur well below it at the windows drawn)
MAX_LENGTH = 160
#: the largest window drawn (beyond it the kernels only repeat their steady state)
MAX_WINDOW = 40
#: the entry point that belongs to a monoid, not a class
WINDOW_SUM = "window_sum"


def _typecode(monoid_id: str) -> str | None:
    """The ``array.array`` typecode of a typed library monoid's values (its fast path's kind: ``*_f64`` C doubles,
    ``*_i64`` int64), ``None`` for an untyped one."""
    kind = LIBRARY[monoid_id].factory().fast_path
    return None if kind is None else "d" if kind.endswith("_f64") else "q"


@dataclass(frozen=True)
class ArrayCase:
    """One call of an array entry point: ``entry`` (``window_array``, ``slide`` or ``window_sum``) of
    ``algorithm`` (``None`` for ``window_sum``) over the library monoid ``monoid``; ``times`` for ``slide``."""

    entry: str
    algorithm: str | None
    monoid: str
    values: tuple[Any, ...]
    window: int
    times: tuple[Any, ...] = ()
    #: the values passed as an ``array.array`` of C doubles or int64 (read in place by the kernels) not a list
    buffer: bool = False

    def describe(self) -> str:
        who = f"{self.algorithm} " if self.algorithm else ""
        args = f"times={self.time_arguments()!r}, " if self.entry == "slide" else ""
        vals = f"array({_typecode(self.monoid)!r}, {list(self.values)!r})" if self.buffer else repr(list(self.values))
        return f"{who}{self.entry}({self.monoid}, {args}values={vals}, window={self.window})"

    def arguments(self) -> Any:
        """The values as the call passes them: a list, or an ``array.array`` when :attr:`buffer`."""
        code = _typecode(self.monoid)
        return array.array(code, self.values) if self.buffer and code is not None else list(self.values)

    def time_arguments(self) -> Any:
        """The times as ``slide`` gets them: a list, or (:attr:`buffer`) an ``array.array`` of int64 or doubles,
        which with a buffer of values takes a typed class's in-order kernel."""
        if not self.buffer:
            return list(self.times)
        return array.array("d" if any(isinstance(t, float) for t in self.times) else "q", self.times)

    def as_dict(self) -> dict[str, Any]:
        """The case as JSON data (a replay file's ``case``)."""
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}

    @classmethod
    def of(cls, data: Mapping[str, Any]) -> ArrayCase:
        """The case :meth:`as_dict` wrote (``TypeError``/``KeyError``/``ValueError`` for malformed data)."""
        case = cls(
            str(data["entry"]),
            None if data["algorithm"] is None else str(data["algorithm"]),
            str(data["monoid"]),
            tuple(data["values"]),
            int(data["window"]),
            tuple(data.get("times", ())),
            bool(data.get("buffer", False)),
        )
        if case.entry not in (WINDOW_SUM, "window_array", "slide") or case.monoid not in LIBRARY:
            raise ValueError(f"unknown entry point {case.entry!r} or monoid {case.monoid!r}")
        return case


def entry_point(subject: Subject, kind_name: str) -> str | None:
    """The array entry point of ``subject``'s class: ``slide`` when the class has one, ``window_array`` for a
    FIFO class built from the monoid alone (the fast path is registered per class), else ``None``."""
    if hasattr(subject.factory, "slide"):
        return "slide"
    if kind_name == "fifo" and not subject.params and subject.takes_monoid:
        return "window_array"
    return None


def _same(a: Any, b: Any) -> bool:
    """Equal answers, two NaNs included (both sides met ±inf the same way)."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return bool(a == b) and type(a) is type(b)


def _call(f: Callable[[], Any]) -> tuple[list[Any] | None, BaseException | None]:
    try:
        return list(f()), None
    except Exception as exc:  # a refusal: the twin must refuse alike
        return None, exc


def _differs(
    got: list[Any] | None, gerr: BaseException | None, want: list[Any] | None, werr: BaseException | None, twin: str
) -> str:
    """What differs between the implementation's outcome and the twin's ("" when nothing)."""
    if gerr is not None or werr is not None:
        if type(gerr) is type(werr):
            return ""
        said = f"raised {type(gerr).__name__}: {gerr}" if gerr is not None else "answered"
        return f"it {said}, where {twin} " + (f"raised {type(werr).__name__}" if werr is not None else "answered")
    assert got is not None and want is not None
    if len(got) != len(want):
        return f"{len(got)} answers, {twin} gives {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        if not _same(g, w):
            return f"answer #{i} (the frame ending at values[{i}]) is {g!r}, {twin} gives {w!r}"
    return ""


def compare(case: ArrayCase, implementation: Subject | None, twin: Subject | None) -> str:
    """Run ``case`` on ``implementation`` and on ``twin`` (the reference subject; for ``window_sum`` both
    ``None``: the compiled kernel against its pure-Python twin); ``""`` when they agree, else what differs."""
    monoid = LIBRARY[case.monoid].factory()
    values, w = case.arguments(), case.window
    if case.entry == WINDOW_SUM:
        from swagkit.optimized import window_sum
        from swagkit.optimized._window_sum import window_sum_python

        got, gerr = _call(lambda: window_sum(monoid, values, w))
        want, werr = _call(lambda: window_sum_python(monoid, values, w))
        return _differs(got, gerr, want, werr, "the pure-Python twin")
    assert implementation is not None and twin is not None
    if case.entry == "window_array":
        from swagkit.optimized import window_array

        got, gerr = _call(lambda: window_array(implementation.factory, monoid, values, w))
        want, werr = _call(lambda: window_array(twin.factory, monoid, values, w))
        problem = _differs(got, gerr, want, werr, "the reference class")
        if not problem and want is not None and monoid.tolerance == "exact":  # selection or integer arithmetic
            xs = list(case.values)
            frames = [
                monoid.lower(fold(monoid, [monoid.lift(v) for v in xs[max(0, i - w + 1) : i + 1]]))
                for i in range(len(xs))
            ]
            problem = _differs(got, None, frames, None, "the frame's fold (the model)")
        return problem
    ours, theirs = implementation.new(monoid), twin.new(monoid)
    times = case.time_arguments()
    got, gerr = _call(lambda: ours.slide(times, values, w))
    want, werr = _call(lambda: theirs.slide(times, values, w))
    problem = _differs(got, gerr, want, werr, "the reference object")
    if not problem and ours.combine_count != theirs.combine_count:
        problem = f"{ours.combine_count} ⊗ calls, the reference object {theirs.combine_count}"
    if not problem and ours.snapshot() != theirs.snapshot():
        problem = "the snapshot after the call differs from the reference object's"
    return problem


#: the steps between consecutive times of ``slide``: mostly rising, some repeats, a few stragglers
_TIME_STEPS = st.sampled_from((1, 1, 1, 1, 1, 2, 3, 0, 0, -1, -4))


def cases(
    entry: str, algorithm: str | None, monoid_id: str, values: st.SearchStrategy[Any]
) -> st.SearchStrategy[ArrayCase]:
    """Calls of ``entry``: arrays of up to :data:`MAX_LENGTH` values, windows mostly small (where every block
    and node case occurs within the array), sometimes beyond the array."""

    @st.composite
    def draw(data: st.DrawFn) -> ArrayCase:
        # the shape first (how the values are passed, the length, where a NaN goes), then the values: drawn after
        # the values, the flags came out correlated with them (a NaN in the last slot of a C buffer in 2 of 72)
        buffer = _typecode(monoid_id) is not None and data(st.booleans())
        # the length drawn, not left to the list: Hypothesis' lists stay short (a dozen items at most in 48 draws)
        n = data(st.one_of(st.integers(0, 24), st.integers(0, MAX_LENGTH)))
        nan_at = None
        if n and monoid_id.endswith("_f64") and entry != "slide" and data(st.integers(0, 2)) == 0:
            # one NaN, refused by both sides, at an edge more often than not (where a scan's bounds go wrong)
            nan_at = data(st.one_of(st.just(n - 1), st.just(0), st.integers(0, n - 1)))
        w = data(st.one_of(st.integers(1, 9), st.integers(1, MAX_WINDOW)))
        xs = data(st.lists(values, min_size=n, max_size=n))
        if nan_at is not None:
            xs[nan_at] = math.nan
        times: tuple[Any, ...] = ()
        if entry == "slide":
            steps = data(st.lists(_TIME_STEPS, min_size=n, max_size=n))
            t = 0
            ts = []
            for step in steps:
                t += step
                ts.append(t)
            times = tuple(float(t) for t in ts) if data(st.booleans()) else tuple(ts)
        return ArrayCase(entry, algorithm, monoid_id, tuple(xs), w, times, buffer)

    return draw()


def array_settings(examples: int) -> settings:
    """The Hypothesis settings of an array search: ``examples`` cases, no database, no deadline (a module-level
    function, so a measurement can switch the shrink phase off as it does the machines')."""
    return settings(
        max_examples=examples,
        database=None,
        deadline=None,
        derandomize=False,
        suppress_health_check=list(HealthCheck),
        phases=(Phase.generate, Phase.shrink),
        report_multiple_bugs=False,
    )


def search_arrays(
    entry: str,
    algorithm: str | None,
    monoid_id: str,
    subjects: tuple[Subject, Subject] | None,
    values: st.SearchStrategy[Any],
    *,
    examples: int,
    seed: int,
    shrink_seconds: float,
) -> tuple[ArrayCase | None, str]:
    """Hypothesis' search for a case where ``compare`` finds a difference (``examples`` cases from ``seed``); the
    smallest failing case found within ``shrink_seconds`` and what differs, or ``(None, "")``."""
    implementation, twin = subjects if subjects is not None else (None, None)
    failed: list[tuple[ArrayCase, str]] = []

    @array_settings(examples)
    @hypothesis.seed(seed)
    @given(cases(entry, algorithm, monoid_id, values))
    def agrees(case: ArrayCase) -> None:
        problem = compare(case, implementation, twin)
        if problem:
            failed.append((case, problem))
            raise AssertionError(problem)

    try:
        with shrink_deadline(shrink_seconds), no_local_constants():  # a seed means one run, in any process
            agrees()
    except AssertionError:
        return failed[-1]  # Hypothesis runs the reported (smallest) case last
    return None, ""


def write_replay(case: ArrayCase, problem: str, implementation: str) -> str:
    """The replay file of a failing call (``python_only: "arrays"``: the call as data, then reading rows: the call
    and what differed); its path."""
    head = {
        "op": "hello",
        "swagkit_replay": VERSION,
        "kind": "arrays",
        "algorithm": case.algorithm,
        "entry": case.entry,
        "implementation": implementation,
        "against": "reference",
        "monoid": case.monoid,
        "python_only": "arrays",
        "case": case.as_dict(),
    }
    rows = [{"op": case.entry, "id": 1, "repr": case.describe()[:300]}, {"op": "differs", "id": 1, "repr": problem}]
    return save(replay_dir(), head, rows)
