"""The differential runs of paper 004's structures (kinds ``sketch`` and ``time_decayed``).

:func:`run_sketch_task` and :func:`run_time_decayed_task` take the same
:class:`~swagkit.verify.kinds.differential.DiffTask` as every kind's run. These structures take no monoid, so the
task's monoid is only the placeholder the registry lists them under (``count``; :func:`make_tasks
<swagkit.verify.spark.make_tasks>` makes no other). The seed picks everything else:

* the **parameters**: the card's ``stress_params`` (settings whose provable level budget α is small enough that
  the ladders discard on several levels within a task, the regime the error proofs are about) or the registered
  ones, cycled by seed; α is always the provable default, so every error bound is a hard failure;
* the **stream**: a paper-like one (``flow`` or ``looping`` by seed parity) riffled with an adversarial one
  (``reversed``, ``permutation``, ``bursts``, ``very_late``, ``all_equal``, ``two_heavy``) from
  :mod:`swagkit.spec.decay.streams`, weighted on odd seeds; the clock is the running maximum.

Reference and optimized are driven in lock-step with the exact oracle
(:class:`~swagkit.spec.decay.oracle.ExactStream`). Every few arrivals a random query goes to both and the
answers must be identical (the implementations are specified to give the same answers, floats bit for bit);
now and then both compress (or maintain). At four checkpoints (and at the end) the two snapshots must be equal,
the structure's spec checker runs on the snapshot against the oracle (invariants, error and space bounds,
cutoffs only rising since the previous checkpoint), and a few answers are checked against the oracle's exact
values with the theorem's bound. A hard failure ends the run with its step; soft findings (the family lower
bound P2 that truncation breaks, closure P3) are reported in :attr:`DiffResult.soft`, never failures.

:func:`run_merge_on_spark` is the mergeability run of a sketch (:func:`merge_stage`, the sketch kind's extra
Spark stage): q-digests are built per Spark partition (one per chunk,
merged inside the partition) over a seeded stream and merged by ``RDD.reduce``; the merged digest must keep the
whole-stream rank guarantee and the size bound against the exact answer, the compiled merge must equal the
reference merge (same snapshot), and both must be equivalent to one digest of the whole stream
(:func:`~swagkit.reference.qdigest.qdigests_equivalent`: ranks within ``εN``). A failed merge run is written
as a replay file (:func:`write_merge_replay`) that :func:`run_merge_locally` re-runs without Spark: the same
partitions (:func:`spark_slices`), reduce order and pickling between worker and driver.

A task of ``steps`` operations replays ``steps // 2`` arrivals (each with its queries, so the operation count is
close to ``steps``): the checkers are linear in the stream, which keeps every run well under a second.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import pickle
import random
import shlex
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, TextIO

from swagkit.spec.checkers._decay_common import CheckReport
from swagkit.spec.checkers.window_quantiles import default_windows
from swagkit.spec.decay import Decay, ExponentialDecay, NoDecay, PolynomialDecay, SlidingWindowDecay
from swagkit.spec.decay.bounds import qdigest_size_bound, value_division_error
from swagkit.spec.decay.oracle import ExactStream, RankProfile, heavy_hitters_violation, quantile_violation
from swagkit.spec.decay.streams import Arrival, generate
from swagkit.spec.errors import InvariantViolation

from ..base import Subject, checked_ids
from ..differential import DiffResult, DiffTask, compiled
from .common import Capabilities, run_checker

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = [
    "run_sketch_task",
    "run_time_decayed_task",
    "MergeTask",
    "MergeResult",
    "run_merge_on_spark",
    "check_merged",
    "merge_stage",
    "run_merge_locally",
    "spark_slices",
    "write_merge_replay",
]

PAPER_LIKE = ("flow", "looping")
ADVERSARIAL = ("reversed", "permutation", "bursts", "very_late", "all_equal", "two_heavy")
#: arrivals between two lock-step queries, and between two compress (maintain) calls
QUERY_EVERY = 4
COMPRESS_EVERY = 97
#: checkpoints per run (snapshots, the spec checker, answers against the oracle); the last arrival is one too
CHECKPOINTS = 4
PHIS = (0.0, 0.1, 0.5, 0.9, 1.0)


class _Failure(Exception):
    """A difference found by the runner (reported as a failed :class:`DiffResult`)."""


def run_sketch_task(task: DiffTask, reference: Subject, optimized: Subject) -> DiffResult:
    """Run ``task`` for a sketch locally (module docstring); never raises."""
    return _Run(task, reference, optimized, sketch=True).outcome()


def run_time_decayed_task(task: DiffTask, reference: Subject, optimized: Subject) -> DiffResult:
    """Run ``task`` for a time-decayed structure locally (module docstring); never raises."""
    return _Run(task, reference, optimized, sketch=False).outcome()


def _identical(a: Any, b: Any) -> bool:
    """Equal answers, floats bit for bit (``-0.0`` is not ``0.0``, NaN equals NaN)."""
    if isinstance(a, float) or isinstance(b, float):
        return type(a) is type(b) and a.hex() == b.hex()
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_identical(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and bool(a == b)


def _first_difference(a: Any, b: Any) -> str:
    """The first snapshot field that differs (snapshots are frozen dataclasses)."""
    if dataclasses.is_dataclass(a) and dataclasses.is_dataclass(b):
        for f in dataclasses.fields(a):
            x, y = getattr(a, f.name), getattr(b, f.name, None)
            if x != y:
                return f"{f.name}: reference {_short(x)}, optimized {_short(y)}"
    return f"reference {_short(a)}, optimized {_short(b)}"


def _short(x: Any) -> str:
    text = repr(x)
    return text if len(text) <= 120 else text[:117] + "..."


def _stream(task: DiffTask, rng: random.Random, n: int, time_bits: int, value_bits: int) -> tuple[str, list[Arrival]]:
    """A paper-like stream riffled with an adversarial one (each keeps its own order), clock = running max."""
    paper = PAPER_LIKE[task.seed % 2]
    adversary = rng.choice(ADVERSARIAL)
    weighted = task.seed % 2 == 1
    n_paper = n - n // 3
    a = generate(paper, n_paper, time_bits=time_bits, value_bits=value_bits, seed=task.seed, weighted=weighted)
    b = generate(
        adversary, n - n_paper, time_bits=time_bits, value_bits=value_bits, seed=task.seed + 1, weighted=weighted
    )
    out: list[Arrival] = []
    i = j = now = 0
    while i < len(a) or j < len(b):
        take_a = j >= len(b) or (i < len(a) and rng.random() < (len(a) - i) / (len(a) - i + len(b) - j))
        x = a[i] if take_a else b[j]
        i, j = (i + 1, j) if take_a else (i, j + 1)
        now = max(now, x.now)
        out.append(Arrival(x.value, x.timestamp, now, x.weight))
    return f"{paper}+{adversary}{' (weighted)' if weighted else ''}", out


class _Run:
    """One decay differential run: the structures, the oracle, and the bookkeeping of the result."""

    def __init__(self, task: DiffTask, reference: Subject, optimized: Subject, *, sketch: bool) -> None:
        self.task = task
        self.reference, self.optimized = reference, optimized
        self.sketch = sketch
        self.step = -1
        self.last_op = "setup"
        self.operations = 0
        self.report = CheckReport()
        self.compiled = False

    def outcome(self) -> DiffResult:
        try:
            self.execute()
        except _Failure as f:
            return self.result(False, f"after {self.last_op} (step {self.step}): {f}")
        except InvariantViolation as err:
            return self.result(False, f"after {self.last_op} (step {self.step}): checker: {err}")
        except Exception as exc:  # reported with the seed rather than failing the whole Spark job
            return self.result(False, f"after {self.last_op} (step {self.step}): raised {exc!r}")
        return self.result(True, "")

    def result(self, ok: bool, detail: str) -> DiffResult:
        soft = Counter(finding.invariant for finding in self.report.soft)
        return DiffResult(
            self.task,
            ok,
            self.step if not ok else self.step + 1,
            detail,
            self.operations,
            0,
            self.compiled,
            tuple(sorted(soft.items())),
        )

    # -- setup -----------------------------------------------------------------------------------------------

    def execute(self) -> None:
        task = self.task
        a = task.algorithm
        _, _, card = checked_ids(a, self.reference.facts)
        # the card's stress settings, then the registered ones (``{}``), by seed
        options = (*(card.stress_params if card is not None else ()), {})
        params = {**self.reference.params, **options[task.seed % len(options)]}
        self.compiled = compiled()
        self.ref = self.reference.new(**params)
        self.opt = self.optimized.new(**params)
        self.can = Capabilities.of(self.ref)
        self.checker = card.checker if card is not None else None
        self.rng = rng = random.Random(f"decay/{a}/{task.seed}")
        self.vbits = params.get("universe_bits", params.get("value_bits", 1))
        self.tbits = params.get("time_bits", 10)
        self.oracle = ExactStream(value_bits=self.vbits, time_bits=self.tbits)
        self.truth: dict[int, int] = {}  # the sketch's multiset
        self.previous: Any = None
        self.decays: list[Decay] = []
        n = max(8, task.steps // 2)
        self.stream_name, arrivals = _stream(task, rng, n, self.tbits, self.vbits)
        checkpoints = {min(n - 1, (k * n) // CHECKPOINTS) for k in range(1, CHECKPOINTS + 1)}
        for i, arrival in enumerate(arrivals):
            self.step = i
            self._arrive(arrival)
            if i % QUERY_EVERY == QUERY_EVERY - 1:
                self._lockstep_query()
            if i % COMPRESS_EVERY == COMPRESS_EVERY - 1:
                self._both("compress" if self.sketch else self.can.maintenance)
            if i in checkpoints:
                self._checkpoint()

    # -- lock-step operations --------------------------------------------------------------------------------

    def _both(self, name: str, *args: Any) -> Any:
        """``name(*args)`` on reference and optimized; the answers must be identical."""
        self.last_op = f"{name}({', '.join(_short(x) for x in args)})"
        self.operations += 1
        got_ref = getattr(self.ref, name)(*args)
        got_opt = getattr(self.opt, name)(*args)
        if not _identical(got_ref, got_opt):
            raise _Failure(f"optimized answered {_short(got_opt)}, reference {_short(got_ref)}")
        return got_ref

    def _arrive(self, x: Arrival) -> None:
        if self.sketch:
            self._both("insert", x.value, x.weight)
            self.truth[x.value] = self.truth.get(x.value, 0) + x.weight
            return
        if x.now != self.ref.now:
            self._both("advance", x.now)
            self.oracle.advance(x.now)
        self._both("insert", *self.can.insert_args(x))
        self.oracle.insert(x.value if self.can.values else 0, x.timestamp, x.weight)

    def _decay(self) -> Decay:
        return self.rng.choice(
            [PolynomialDecay(1.0), ExponentialDecay(0.05), SlidingWindowDecay(max(1, self._window())), NoDecay()]
        )

    def _window(self) -> int:
        now = self.ref.now
        return self.rng.choice([0, 1, self.rng.randrange(1, 17), self.rng.randrange(now + 3)])

    def _lockstep_query(self) -> None:
        rng = self.rng
        x = rng.randrange((1 << self.vbits) + 1)
        phi = rng.choice(PHIS)
        name: str
        args: tuple[Any, ...]
        if self.sketch:
            name, args = rng.choice(
                [("rank", (x,)), ("frequency", (min(x, (1 << self.vbits) - 1),)), ("quantile", (phi,))]
            )
        elif not self.can.values:
            name, args = "count", (self._window(),)
        elif self.can.fixed_decay:
            name, args = rng.choice(
                [
                    ("decayed_count", ()),
                    ("decayed_rank", (x,)),
                    ("decayed_quantile", (phi,)),
                    ("decayed_heavy_hitters", (max(phi, 0.05),)),
                ]
            )
        else:
            w, d = self._window(), self._decay()
            lo, hi = sorted((rng.randrange(1 << self.vbits), rng.randrange(1 << self.vbits)))
            name, args = rng.choice(
                [
                    ("count", (w,)),
                    ("rank", (x, w)),
                    ("range_count", (lo, hi, w)),
                    ("quantile", (phi, w)),
                    ("heavy_hitters", (max(phi, 0.05), w)),
                    ("decayed_count", (d,)),
                    ("decayed_rank", (x, d)),
                    ("decayed_quantile", (phi, d)),
                    ("decayed_heavy_hitters", (max(phi, 0.05), d)),
                ]
            )
        self._both(name, *args)

    # -- checkpoints -----------------------------------------------------------------------------------------

    def _checkpoint(self) -> None:
        self.last_op = "checkpoint"
        state, other = self.ref.snapshot(), self.opt.snapshot()
        if state != other:
            raise _Failure(f"snapshots differ: {_first_difference(state, other)}")
        if self.sketch:
            if self.checker is not None:
                self.checker(state, self.truth.items(), report=self.report)
            self._qdigest_answers()
        elif self.can.fixed_decay:
            run_checker(self.checker, self.can, state, self.oracle, self.previous, self.report, [], self.ref.decay)
            self._value_division_answers()
        else:
            decay = self._decay() if self.can.values else None
            run_checker(
                self.checker,
                self.can,
                state,
                self.oracle,
                self.previous,
                self.report,
                [decay] if decay is not None else [],
                None,
            )
            self._window_answers(state, decay)
        self.previous = state

    def _require(self, ok: bool, what: str) -> None:
        if not ok:
            raise _Failure(f"answer outside the guarantee: {what}")

    def _qdigest_answers(self) -> None:
        profile = RankProfile.of(self.truth.items())
        eps_n = Fraction(self.ref.eps) * self.ref.total
        for x in sorted({0, 1 << self.vbits, *(self.rng.randrange(1 << self.vbits) for _ in range(4))}):
            got, true = self._both("rank", x), profile.rank_lt(x)
            self._require(got <= true <= got + eps_n, f"rank({x}) = {got}, r = {true}, εN = {float(eps_n):.6g}")
        for phi in PHIS:
            q = self._both("quantile", phi)
            v = quantile_violation(profile, q, phi, self.ref.eps)
            self._require(v is None, f"quantile({phi}) = {q}: {v}")

    def _window_answers(self, state: Any, decay: Decay | None = None) -> None:
        eps = Fraction(self.ref.eps)
        quantiles = self.can.values
        for w in default_windows(state, limit=8)[:8]:
            got, d = self._both("count", w), self.oracle.count_window(w)
            self._require(got <= d and d - got <= eps * d, f"count({w}) = {got}, D_w = {d}, ε = {self.ref.eps}")
            if not quantiles:
                continue
            profile = self.oracle.window_profile(w)
            x = self.rng.randrange((1 << self.vbits) + 1)
            got, r = self._both("rank", x, w), profile.rank_lt(x)
            self._require(
                got <= r and r - got <= eps * d, f"rank({x}, {w}) = {got}, r = {r}, ε·D_w = {float(eps * d):.6g}"
            )
            phi = self.rng.choice(PHIS)
            q = self._both("quantile", phi, w)
            v = quantile_violation(profile, q, phi, self.ref.eps)
            self._require(v is None, f"quantile({phi}, {w}) = {q}: {v}")
            hh = self._both("heavy_hitters", 0.2, w)
            v = heavy_hitters_violation(profile, hh, 0.2, self.ref.eps)
            self._require(v is None, f"heavy_hitters(0.2, {w}) = {hh}: {v}")
        if decay is not None:  # Theorem 3: any decay, error ε·D
            profile = self.oracle.decayed_profile(decay)
            for phi in (0.1, 0.5, 0.9):
                q = self._both("decayed_quantile", phi, decay)
                v = quantile_violation(profile, q, phi, self.ref.eps)
                self._require(v is None, f"decayed_quantile({phi}, {decay.name}) = {q}: {v}")

    def _value_division_answers(self) -> None:
        eps = value_division_error(self.ref.theta, self.ref.beta)
        profile = self.oracle.decayed_profile(self.ref.decay)
        d = profile.total
        for x in (0, self.rng.randrange(1 << self.vbits), 1 << self.vbits):
            got, true = self._both("decayed_rank", x), profile.rank_lt(x)
            self._require(
                abs(got - true) <= eps * d + 1e-9 * d, f"decayed_rank({x}) = {got}, R = {true}, ε·D = {eps * d:.6g}"
            )
        for phi in PHIS:
            q = self._both("decayed_quantile", phi)
            v = quantile_violation(profile, q, phi, eps)
            self._require(v is None, f"decayed_quantile({phi}) = {q}: {v}")
        hh = self._both("decayed_heavy_hitters", 0.2)
        v = heavy_hitters_violation(profile, hh, 0.2, eps)
        self._require(v is None, f"decayed_heavy_hitters(0.2) = {hh}: {v}")


# ----------------------------------------------------------------------------------------------------------------
# mergeability at scale: q-digests per partition, merged by RDD.reduce


@dataclass(frozen=True)
class MergeTask:
    """One seeded merge run of sketch ``algorithm``: ``items`` stream values over ``partitions`` Spark
    partitions, one sketch per ``chunk`` items (merged within the partition, then across partitions by
    ``reduce``)."""

    algorithm: str
    seed: int
    items: int = 20000
    partitions: int = 8
    chunk: int = 500
    universe_bits: int = 10
    eps: float = 0.05


@dataclass(frozen=True)
class MergeResult:
    """Outcome of a :class:`MergeTask`: ``ok``, the problem (``detail``), the stream, how many digests were
    merged, the merged digest's size and its bound, the worst rank error over ``εN``, and soft findings."""

    task: MergeTask
    ok: bool
    detail: str
    stream: str
    digests: int
    nodes: int
    size_bound: int
    rank_error: float
    compiled: bool
    soft: tuple[tuple[str, int], ...] = ()


def _merge_stream(task: MergeTask) -> tuple[str, list[tuple[int, int]]]:
    kinds = PAPER_LIKE + ADVERSARIAL
    kind = kinds[task.seed % len(kinds)]
    weighted = task.seed % 2 == 1
    arrivals = generate(
        kind, task.items, time_bits=12, value_bits=task.universe_bits, seed=task.seed, weighted=weighted
    )
    return f"{kind}{' (weighted)' if weighted else ''}", [(a.value, a.weight) for a in arrivals]


def _build_digests(
    classes: tuple[Any, Any], bits: int, eps: float, chunk: int, items: Iterable[tuple[int, int]]
) -> Iterable[tuple[Any, Any, int]]:
    """Partition side: one (reference, optimized) pair of digests per ``chunk`` items."""
    ref: Any = None
    opt: Any = None
    filled = 0
    for x, w in items:
        if ref is None:
            ref, opt = classes[0](bits, eps), classes[1](bits, eps)
        ref.insert(x, w)
        opt.insert(x, w)
        filled += 1
        if filled == chunk:
            yield ref, opt, 1
            ref = opt = None
            filled = 0
    if ref is not None:
        yield ref, opt, 1


def _merge_pairs(a: tuple[Any, Any, int], b: tuple[Any, Any, int]) -> tuple[Any, Any, int]:
    """The reduce function: merge ``b``'s digests into ``a``'s (same order for both implementations)."""
    a[0].merge(b[0])
    a[1].merge(b[1])
    return a[0], a[1], a[2] + b[2]


def run_merge_on_spark(spark: SparkSession, task: MergeTask, classes: tuple[Any, Any]) -> MergeResult:
    """Build sketches per partition of a seeded stream on ``spark`` with ``classes`` (reference, optimized;
    shipped to the workers with the partition function), merge them with ``reduce`` and check the result
    (:func:`check_merged`)."""
    stream, items = _merge_stream(task)
    is_compiled = compiled()
    build: Callable[[Iterable[tuple[int, int]]], Iterable[tuple[Any, Any, int]]] = functools.partial(
        _build_digests, classes, task.universe_bits, task.eps, task.chunk
    )
    try:
        ref, opt, digests = (
            spark.sparkContext.parallelize(items, task.partitions).mapPartitions(build).reduce(_merge_pairs)
        )
        return _checked_against_one_digest(task, stream, items, classes[0], ref, opt, digests, is_compiled)
    except Exception as exc:  # a broken class or a failed job: reported with the seed
        return MergeResult(task, False, f"raised {exc!r}", stream, 0, 0, 0, math.inf, is_compiled)


def _checked_against_one_digest(
    task: MergeTask, stream: str, items: Sequence[tuple[int, int]], cls: Any, ref: Any, opt: Any, digests: int, c: bool
) -> MergeResult:
    """:func:`check_merged` against one ``cls`` digest of the whole stream (``c``: the optimized is compiled)."""
    sequential = cls(task.universe_bits, task.eps)
    for x, w in items:
        sequential.insert(x, w)
    sequential.compress()
    return check_merged(task, stream, items, ref, opt, sequential, digests, c)


def spark_slices(items: Sequence[Any], partitions: int) -> list[list[Any]]:
    """The partitions ``SparkContext.parallelize(items, partitions)`` makes of a list (a session's default
    ``batchSize``, as :func:`~swagkit.verify.spark.local_session` builds): pyspark pickles the list in batches of
    ``max(1, min(n // partitions, 1024))`` items and the JVM slices the batches evenly over the partitions
    (``ParallelCollectionRDD.slice``: batches ``[p·B/P, (p+1)·B/P)``)."""
    size = max(1, min(len(items) // partitions, 1024))
    batches = [list(items[i : i + size]) for i in range(0, len(items), size)]
    b = len(batches)
    return [
        [x for batch in batches[p * b // partitions : (p + 1) * b // partitions] for x in batch]
        for p in range(partitions)
    ]


def run_merge_locally(task: MergeTask, classes: tuple[Any, Any]) -> MergeResult:
    """:func:`run_merge_on_spark` without Spark (a merge replay): the same partitions (:func:`spark_slices`),
    each reduced in order and pickled as a worker sends it to the driver, which reduces the partitions' digests
    in partition order (``RDD.reduce``), then the same check."""
    stream, items = _merge_stream(task)
    is_compiled = compiled()
    try:
        partials = []
        for part in spark_slices(items, task.partitions):
            built = list(_build_digests(classes, task.universe_bits, task.eps, task.chunk, part))
            if built:  # an empty partition sends nothing
                partials.append(pickle.loads(pickle.dumps(functools.reduce(_merge_pairs, built))))
        ref, opt, digests = functools.reduce(_merge_pairs, partials)
        return _checked_against_one_digest(task, stream, items, classes[0], ref, opt, digests, is_compiled)
    except Exception as exc:  # a broken class: reported like the Spark run's
        return MergeResult(task, False, f"raised {exc!r}", stream, 0, 0, 0, math.inf, is_compiled)


def write_merge_replay(
    result: MergeResult, reference: Subject, optimized: Subject, directory: str | None = None
) -> str:
    """Bring a failed merge run back as a ``python_only: "merge"`` replay file (issue 14 §3); its path ("": the
    run passes when re-run locally with :func:`run_merge_locally`). The header names the algorithm, both
    implementations and the :class:`MergeTask` (``merge``); the lines list the partitions, for reading."""
    from ... import replayfile

    task = result.task
    if run_merge_locally(task, (reference.factory, optimized.factory)).ok:
        return ""
    placeholder = next(iter(getattr(optimized.facts, "monoids", None) or ()), "none")  # the registry's listing
    header = replayfile.registered_header(optimized, placeholder)
    header["failure"] = f"spark merge seed {task.seed}: {result.detail}"
    kind = getattr(optimized.facts, "kind", None)
    header.update(
        kind=kind.name if kind is not None else "sketch",
        against=reference.implementation,
        merge=dataclasses.asdict(task),
        stream=result.stream,
    )
    _, items = _merge_stream(task)
    rows: list[dict[str, Any]] = []
    start = 0
    for number, part in enumerate(spark_slices(items, task.partitions), 1):
        digests = -(-len(part) // task.chunk)
        rows.append({"op": "partition", "id": number, "items": [start, start + len(part)], "digests": digests})
        start += len(part)
    head = {"op": "hello", "swagkit_replay": replayfile.VERSION, **header, "python_only": "merge"}
    return replayfile.save(directory or replayfile.replay_dir(), head, rows)


def check_merged(
    task: MergeTask,
    stream: str,
    items: Sequence[tuple[int, int]],
    ref: Any,
    opt: Any,
    sequential: Any,
    digests: int,
    compiled: bool,
) -> MergeResult:
    """The merge run's verdict: the merged reference digest passes the q-digest checker against the exact
    multiset (rank guarantee ``r̂ <= r <= r̂ + εN``, size ``<= 4b/ε + 1`` and the family lower bound P2 after the
    merge's compress, soundness, conservation), the optimized merge has the same snapshot, and both are
    equivalent to one digest of the whole stream."""
    from swagkit.reference.qdigest import qdigests_equivalent

    truth: dict[int, int] = {}
    for x, w in items:
        truth[x] = truth.get(x, 0) + w
    bound = qdigest_size_bound(task.universe_bits, task.eps)
    report = CheckReport()
    detail = ""
    _, _, card = checked_ids(task.algorithm, None)
    checker = card.checker if card is not None else None
    try:
        state = ref.snapshot()
        if checker is not None:
            checker(state, truth.items(), structure=f"merged {task.algorithm} (reference)", report=report)
        other = opt.snapshot()
        if other != state:
            detail = f"merged snapshots differ: {_first_difference(state, other)}"
        else:
            if checker is not None:
                checker(other, truth.items(), structure=f"merged {task.algorithm} (optimized)", report=report)
            if not (qdigests_equivalent(ref, sequential) and qdigests_equivalent(opt, sequential)):
                detail = "the merged digest is not equivalent (ranks within εN) to one digest of the whole stream"
    except InvariantViolation as err:
        detail = f"checker: {err}"
    soft = Counter(f.invariant for f in report.soft)
    return MergeResult(
        task,
        not detail,
        detail,
        stream,
        digests,
        ref.node_count(),
        bound,
        report.measures.get("qdigest rank error / εN", math.inf),
        compiled,
        tuple(sorted(soft.items())),
    )


def merge_stage(
    session: SparkSession, subjects: Sequence[tuple[Subject, Subject]], seeds: int, steps: int, out: TextIO, err: TextIO
) -> int:
    """The sketch kind's extra Spark stage (``swagkit verify``): for every selected sketch that merges, one
    :func:`run_merge_on_spark` per Spark seed, ``20 × steps`` items each. Exit status 0, 1 (a failed merge)
    or 4 (the job failed to run)."""
    status = 0
    for reference, optimized in subjects:
        if not callable(getattr(reference.factory, "merge", None)):
            continue
        status = max(status, _merge_runs(session, reference, optimized, seeds, steps, out, err))
    return status


def _merge_runs(
    session: SparkSession, reference: Subject, optimized: Subject, seeds: int, steps: int, out: TextIO, err: TextIO
) -> int:
    name = reference.name
    tasks = [MergeTask(name, seed, items=20 * steps) for seed in range(seeds)]
    print(f"spark: {len(tasks)} {name} merge runs of {tasks[0].items:,} items", file=err, flush=True)
    start = time.perf_counter()
    classes = (reference.factory, optimized.factory)
    try:
        results = [run_merge_on_spark(session, t, classes) for t in tasks]
    except Exception as exc:  # the job failed, not the merge check: status 4
        print(
            f"spark: {name} merge FAILED TO RUN ({type(exc).__name__}): {str(exc).splitlines()[0] if str(exc) else ''}",
            file=out,
        )
        return 4
    elapsed = time.perf_counter() - start
    for r in results:
        if not r.ok:
            print(
                f"\n==================== SPARK MERGE: {name} seed {r.task.seed} ({r.stream}) "
                f"====================\n{r.detail}",
                file=out,
            )
            print(
                'reproduce: python -c "from swagkit.verify.spark import local_session; '
                f"from {classes[0].__module__} import {classes[0].__name__} as Ref; "
                f"from {classes[1].__module__} import {classes[1].__name__} as Opt; "
                "from swagkit.verify.kinds.decay.spark import MergeTask, run_merge_on_spark; "
                f'print(run_merge_on_spark(local_session(), {r.task!r}, (Ref, Opt)))"',
                file=out,
            )
            path = write_merge_replay(r, reference, optimized)  # the run again on the driver, without Spark
            if path:
                print(f"replay: swagkit replay {shlex.quote(path)}", file=out)
    failed = [r for r in results if not r.ok]
    ok = [r for r in results if r.ok]
    worst = max((r.rank_error for r in ok), default=0.0)
    nodes = max((r.nodes for r in ok), default=0)
    t = tasks[0]
    verdict = (
        f"{len(failed)} of {len(results)} run(s) FAILED"
        if failed
        else f"optimized merge == reference merge ({'compiled' if all(r.compiled for r in ok) else 'pure-Python'})"
    )
    print(
        f"{'FAILED' if failed else 'OK'}: spark {name} merge, {len(results)} run(s) of {t.items:,} items: "
        f"{sum(r.digests for r in results):,} digests built on {t.partitions} partitions and merged by reduce; "
        f"whole-stream rank error <= {worst:.2f}·εN, <= {nodes} ranges (bound {results[0].size_bound}); "
        f"{verdict}; in {elapsed:.1f}s",
        file=out,
    )
    return 1 if failed else 0
