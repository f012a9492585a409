"""How well ``swagkit verify``'s defaults find the planted bugs (issue 25): per bug, the seeds of ``--seeds`` that
find it, the median seconds to the first failing example (shrinking off), and over the first ``--shrunk`` seeds
that find it, the median seconds to a shrunk replay and the replay's length.

Every run is the command line a user types (``swagkit verify --impl … | --exec … --seed S --no-spark``), run
in-process; "found" is exit status 1 with a finding. Shrinking is switched off for the first measure by leaving
Hypothesis' shrink phase out of the machines' settings (the search itself is unchanged). The planted bugs come
from ``tests/`` (Python classes), ``tests/protocol/daba_lite.c`` (compiled here with ``-DBUG_…``) and the
compiled-kernel corpus (``tests/planted/kernel_*.py``: a variant build of one extension, measured in a child
process that loads it; their argv aim ``swagkit verify`` at the registered algorithms).

Usage::

    python tools/find_rates.py                      # every bug, 20 seeds, 3 shrunk
    python tools/find_rates.py --only BUG_SIZE --seeds 5 --json rates.json
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"

#: planted bug -> the ``swagkit verify`` arguments that aim at it, read off the corpus (``tests/planted/``, one
#: file per bug; ``{exec:FLAG}`` is the C driver built with ``-DFLAG``)
TARGETS: dict[str, list[str]] = {}


def corpus() -> list[tuple[Path, dict[str, object], list[str]]]:
    """The one-file-per-bug corpus (``tests/planted/*.py``), read as data: each file, its ``BUG`` (``{}`` for a
    helper) and the names of its public classes (the planted classes)."""
    import ast

    found = []
    for path in sorted((TESTS / "planted").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        bug: dict[str, object] = {}
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "BUG" for t in node.targets):
                bug = dict(ast.literal_eval(node.value))
        classes = [n.name for n in tree.body if isinstance(n, ast.ClassDef) and not n.name.startswith("_")]
        found.append((path, bug, classes))
    return found


def _corpus_targets() -> dict[str, list[str]]:
    """Each planted class of the corpus, and each C-driver flag, with its ``BUG["argv"]``."""
    found: dict[str, list[str]] = {}
    for path, bug, classes in corpus():
        argv = [str(a) for a in bug.get("argv", ())]  # type: ignore[attr-defined]
        if "flag" in bug:  # an --exec bug: the C driver built with -D<flag>
            found[str(bug["flag"])] = argv
        for name in classes:
            found[name] = ["--impl", f"planted.{path.stem}:{name}", *argv]
    return found


TARGETS.update(_corpus_targets())


def _kernel_targets() -> dict[str, dict[str, object]]:
    """The compiled-kernel bugs of the corpus (``tests/planted/kernel_*.py``): each ``BUG`` by its file's name
    (``argv`` aims ``swagkit verify`` at the registered algorithms; ``kernel`` is the header patch)."""
    return {path.stem: bug for path, bug, _ in corpus() if path.stem.startswith("kernel_") and bug}


#: kernel bug -> its BUG; measured in a child process running the variant build (tests/planted/_variant.py)
KERNELS = _kernel_targets()
TARGETS.update({name: list(bug["argv"]) for name, bug in KERNELS.items()})  # type: ignore[call-overload]


@dataclass
class Rate:
    """One bug's measures (seconds are medians; ``None`` where no seed found it)."""

    bug: str
    seeds: int
    found: int = 0
    first_failure_s: float | None = None
    shrunk_s: float | None = None
    replay_steps: float | None = None
    missed_seeds: list[int] = field(default_factory=list)


def build_driver(flag: str, directory: Path) -> str:
    exe = directory / f"daba_lite_{flag.lower()}"
    if not exe.exists():
        cmd = ["cc", "-O2", "-Wall", "-Werror", "-std=c99", "-D_POSIX_C_SOURCE=200809L", f"-D{flag}"]
        subprocess.run([*cmd, "-o", str(exe), str(TESTS / "protocol" / "daba_lite.c")], check=True)
    return str(exe)


@contextlib.contextmanager
def no_shrinking() -> Iterator[None]:
    """The machines' settings without Hypothesis' shrink phase (the search is unchanged)."""
    from hypothesis import Phase

    from swagkit.verify.kinds import machines

    original = machines.machine_settings

    def settings_without_shrink(*args: object, **kwargs: object) -> object:
        chosen = original(*args, **kwargs)  # type: ignore[arg-type]
        return chosen.__class__(chosen, phases=[p for p in chosen.phases if p is not Phase.shrink])

    from swagkit.verify import arrays

    original_arrays = arrays.array_settings

    def arrays_without_shrink(examples: int) -> object:
        chosen = original_arrays(examples)
        return chosen.__class__(chosen, phases=[p for p in chosen.phases if p is not Phase.shrink])

    from swagkit.verify import replay

    original_trace_shrink = replay.shrunk_trace
    machines.machine_settings = settings_without_shrink  # type: ignore[assignment]
    arrays.array_settings = arrays_without_shrink  # type: ignore[assignment]
    replay.shrunk_trace = lambda *args, **kwargs: None  # no delta debugging of the trace either
    try:
        yield
    finally:
        machines.machine_settings = original
        arrays.array_settings = original_arrays
        replay.shrunk_trace = original_trace_shrink


#: flags added to every run (``--extra``): e.g. ``--examples 12`` for the count-only defaults of earlier versions
EXTRA: list[str] = []


def run_once(argv: list[str], seed: int, replay_dir: str) -> tuple[bool, float, int | None]:
    """``swagkit verify ARGV --seed SEED``: found?, seconds, the shrunk counterexample's steps (if printed)."""
    from swagkit.verify.cli import main

    out, err = io.StringIO(), io.StringIO()
    started = time.perf_counter()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(["verify", *argv, *EXTRA, "--seed", str(seed), "--no-spark", "--replay-dir", replay_dir])
    seconds = time.perf_counter() - started
    if status not in (0, 1):
        raise SystemExit(f"swagkit verify {shlex.join(argv)} --seed {seed}: exit {status}\n{err.getvalue()}")
    steps = re.search(r"counterexample \((\d+) steps", out.getvalue())
    return status == 1, seconds, int(steps[1]) if steps else None


def measure(bug: str, argv: list[str], seeds: int, shrunk: int, replay_dir: str) -> Rate:
    rate = Rate(bug, seeds)
    firsts: list[float] = []
    with no_shrinking():
        for seed in range(seeds):
            found, seconds, _ = run_once(argv, seed, replay_dir)
            if found:
                rate.found += 1
                firsts.append(seconds)
            else:
                rate.missed_seeds.append(seed)
    finding = [s for s in range(seeds) if s not in rate.missed_seeds][:shrunk]
    shrink_times, lengths = [], []
    for seed in finding:
        found, seconds, steps = run_once(argv, seed, replay_dir)
        if found:
            shrink_times.append(seconds)
            if steps is not None:
                lengths.append(steps)
    rate.first_failure_s = statistics.median(firsts) if firsts else None
    rate.shrunk_s = statistics.median(shrink_times) if shrink_times else None
    rate.replay_steps = statistics.median(lengths) if lengths else None
    return rate


def measure_variant(bug: str, seeds: int, shrunk: int, replay_dir: str) -> Rate:
    """:func:`measure` of a kernel bug, in a child process that loads the variant build in place of the module."""
    from planted import _variant

    kernel = KERNELS[bug]["kernel"]
    so = _variant.build(kernel)  # type: ignore[arg-type]
    code = (
        f"sys.path[:0] = [{str(ROOT / 'tools')!r}, {str(TESTS)!r}]\n"
        "import json, find_rates\n"
        f"find_rates.EXTRA[:] = {EXTRA!r}\n"
        f"rate = find_rates.measure({bug!r}, {TARGETS[bug]!r}, {seeds}, {shrunk}, {replay_dir!r})\n"
        "print(json.dumps(find_rates.asdict(rate)))\n"
    )
    env = {**os.environ, "SWAGKIT_REPLAY_DIR": replay_dir}
    child = subprocess.run(_variant.command(kernel, so, code), capture_output=True, text=True, env=env)  # type: ignore[arg-type]
    if child.returncode != 0:
        raise SystemExit(f"{bug}: the variant's measure failed\n{child.stderr[-3000:]}")
    return Rate(**json.loads(child.stdout.strip().splitlines()[-1]))


def _cell(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=20, help="seeds per bug (default 20)")
    parser.add_argument("--shrunk", type=int, default=3, help="finding seeds re-run with shrinking (default 3)")
    parser.add_argument("--only", nargs="+", metavar="BUG", help=f"bugs to measure (known: {', '.join(TARGETS)})")
    parser.add_argument("--json", metavar="FILE", help="also write the measures as JSON")
    parser.add_argument("--extra", default="", metavar="ARGS", help="flags added to every run, e.g. '--examples 12'")
    args = parser.parse_args()
    EXTRA[:] = shlex.split(args.extra)
    unknown = [b for b in args.only or () if b not in TARGETS]
    if unknown:
        parser.error(f"unknown bug {', '.join(unknown)}")
    sys.path.insert(0, str(TESTS))
    from swagkit.verify.process import conformance_monoids_registered

    rates = []
    with tempfile.TemporaryDirectory() as tmp, conformance_monoids_registered():
        print("| bug | found | first failure (s) | shrunk replay (s) | replay steps |")
        print("|---|---:|---:|---:|---:|")
        for bug in args.only or TARGETS:
            if bug in KERNELS:
                rate = measure_variant(bug, args.seeds, args.shrunk, str(Path(tmp) / "replays"))
                rates.append(rate)
                cells = [_cell(rate.first_failure_s), _cell(rate.shrunk_s), _cell(rate.replay_steps, 0)]
                print(f"| {bug} | {rate.found}/{rate.seeds} | {' | '.join(cells)} |", flush=True)
                continue
            argv = [
                build_driver(a[len("{exec:") : -1], Path(tmp)) if a.startswith("{exec:") else a for a in TARGETS[bug]
            ]
            rate = measure(bug, argv, args.seeds, args.shrunk, str(Path(tmp) / "replays"))
            rates.append(rate)
            cells = [_cell(rate.first_failure_s), _cell(rate.shrunk_s), _cell(rate.replay_steps, 0)]
            print(f"| {bug} | {rate.found}/{rate.seeds} | {' | '.join(cells)} |", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps([asdict(r) for r in rates], indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
