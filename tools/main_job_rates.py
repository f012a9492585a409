"""How often the main job's search finds a planted bug registered as an algorithm (issue 25 §1): the default
before (one round of 12 examples × 40 steps per combination) against the seconds default (a first round of
``FIRST_ROUND_EXAMPLES``, then further seeds in the share of the budget a whole main job gives each combination,
``--share``: read it off the ``further rounds:`` line of ``swagkit verify``).

Each Python class of the planted corpus (``tests/planted/*.py``) is registered as an algorithm with the facts of
the registered algorithm it derives from (kind, checker, ⊗ budget) and searched on its ``BUG["argv"]`` monoid,
exactly as the main job searches a combination: the same task, seed derivation and rounds. Shrinking is off
(found or not is the measure). Prints, per bug, the seeds of ``--seeds`` that find it under each default and the
median seconds spent per seed.

Usage::

    python tools/main_job_rates.py --share 0.36 --seeds 20
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tools")]

from find_rates import corpus, no_shrinking  # noqa: E402

from swagkit.verify import registry  # noqa: E402
from swagkit.verify.cli.main_job import DEFAULT_EXAMPLES, DEFAULT_STEPS, FIRST_ROUND_EXAMPLES  # noqa: E402
from swagkit.verify.rounds import further_rounds, merge_rounds  # noqa: E402
from swagkit.verify.runner import Outcome, Task, run_task  # noqa: E402


def planted_classes() -> list[tuple[str, type, str]]:
    """(name, class, monoid) of every Python class of the corpus that derives from a registered algorithm."""
    out = []
    for path, bug, classes in corpus():
        argv = [str(a) for a in bug.get("argv", ())]  # type: ignore[attr-defined]
        if "flag" in bug or "kernel" in bug or "--monoid" not in argv:
            continue
        module = importlib.import_module(f"planted.{path.stem}")
        out += [(name, getattr(module, name), argv[argv.index("--monoid") + 1]) for name in classes]
    return out


def registered_as(name: str, cls: type) -> tuple[str, registry.AlgorithmInfo]:
    """``cls`` as a registered algorithm: with the facts of the algorithm whose reference class is its nearest
    base (the first id of a class registered under several params), else -- a model subclass, like the ``--kind
    ooo`` bugs -- as an out-of-order structure with the model's checks alone."""
    for base in cls.__mro__[1:]:
        ids = [a for a in registry.algorithm_ids() if registry.resolve_class(a, "reference") is base]
        if ids:
            return ids[0], dataclasses.replace(registry.algorithm(ids[0]), id=f"planted_{name}", card=None)
    info = registry.AlgorithmInfo(f"planted_{name}", name, name, "tests/planted", None, None, kind="out_of_order")
    return "(model)", info


def found(outcome: Outcome) -> bool:
    return outcome.status == "FAIL" and any(f.family == "correctness" for f in outcome.findings)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--share", type=float, required=True, help="worker-seconds of further rounds per search")
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--only", nargs="*", help="class names")
    args = parser.parse_args()
    print(f"{'bug':<28} {'parent':<12} {'monoid':<14} {'12 × 40':>8} {'s':>6} {'seconds':>8} {'s':>6}")
    with no_shrinking():
        for name, cls, monoid in planted_classes():
            if args.only and name not in args.only:
                continue
            parent, info = registered_as(name, cls)
            with registry.registered(info, {"reference": cls}):
                (combo,) = registry.combos([info.id], [monoid], ["reference"])
                old, new, old_s, new_s = 0, 0, [], []
                for seed in range(args.seeds):
                    task = Task("machine", monoid, combo, DEFAULT_EXAMPLES, DEFAULT_STEPS, seed)
                    began = time.perf_counter()
                    old += found(run_task(task))
                    old_s.append(time.perf_counter() - began)
                    began = time.perf_counter()
                    first = run_task(dataclasses.replace(task, examples=FIRST_ROUND_EXAMPLES))
                    # the share the whole main job gives each search: one search's further rounds as planned there
                    (again,) = further_rounds([first], args.share, 1) or (None,)
                    total = merge_rounds(first, run_task(again)) if again is not None else first
                    new += found(total)
                    new_s.append(time.perf_counter() - began)
                print(
                    f"{name:<28} {parent:<12} {monoid:<14} {old:>5}/{args.seeds} {statistics.median(old_s):6.2f} "
                    f"{new:>5}/{args.seeds} {statistics.median(new_s):6.2f}",
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
