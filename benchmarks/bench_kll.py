"""Whole-stream quantiles: swagkit's compiled q-digest against Apache DataSketches' KLL sketch, accuracy at equal
memory and update speed, measured in one run (a script, not a test).

``datasketches`` is a benchmark-only dependency, never one of swagkit's: this script installs it
(``pip install datasketches==5.2.0``) when it is missing, or explains how to and exits (``--no-install``).

For each ε in {0.1, 0.05, 0.01} over a 20-bit value universe, the q-digest (deterministic: rank error <= ε·N
guaranteed) is built and compressed; its memory is counted as 16 bytes per stored range (two int64) -- the
paper counts 12. KLL's ``k`` is then chosen so that its serialized size is as close as possible to that. Both
are compared with exact ranks at every distinct value: the largest normalized rank error ``max |r̂ - r| / N``
(KLL is randomized: worst and mean over several seeds, each a new sketch over a shuffled copy of the stream).
Speed: updates per second through one Python call per item, and through the bulk entry points.

    python benchmarks/bench_kll.py [--items N] [--trials T] [--no-install]
"""

from __future__ import annotations

import argparse
import importlib
import random
import subprocess
import sys
import time
from typing import Any

import swagkit.optimized as opt
from swagkit.verify.bench.exp004 import kll_for_bytes, qdigest_vs_kll


def load_datasketches(install: bool) -> Any:
    try:
        return importlib.import_module("datasketches")
    except ImportError:
        pass
    cmd = [sys.executable, "-m", "pip", "install", "--quiet", "datasketches==5.2.0"]
    if install:
        print("datasketches is not installed (a benchmark-only dependency); installing:", " ".join(cmd), flush=True)
        if subprocess.run(cmd, check=False).returncode == 0:
            importlib.invalidate_caches()
            try:
                return importlib.import_module("datasketches")
            except ImportError:
                pass
    print(
        "This comparison needs Apache DataSketches' Python package, which swagkit itself does not depend on.\n"
        f"Install it into this environment with\n    {' '.join(cmd)}\nand run the script again."
    )
    return None


def streams(n: int, seed: int) -> dict[str, list[int]]:
    rng = random.Random(seed)
    top = (1 << 20) - 1
    uniform = [rng.randrange(top + 1) for _ in range(n)]
    return {
        "uniform": uniform,
        "pareto": [min(top, int(rng.paretovariate(0.7))) for _ in range(n)],
        "sorted": sorted(uniform),
    }


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--items", type=int, default=200_000)
    p.add_argument("--trials", type=int, default=5)
    p.add_argument("--no-install", action="store_true")
    args = p.parse_args()
    ds = load_datasketches(not args.no_install)
    if ds is None:
        return
    import numpy as np

    n = args.items
    print(f"swagkit compiled: {opt.COMPILED}; datasketches {getattr(ds, '__version__', '5.2.0')}; N = {n:,}")
    print(
        f"{'stream':<8} {'eps':>5} {'bytes':>8} {'qd err':>8} {'KLL k':>6} {'KLL bytes':>9} "
        f"{'KLL err (worst/mean)':>21} {'qd guarantee':>12}"
    )
    for name, values in streams(n, 1).items():
        for eps in (0.1, 0.05, 0.01):
            qd_bytes, qd_err, k, errs, size = qdigest_vs_kll(ds, np, values, eps, args.trials, name != "sorted")
            print(
                f"{name:<8} {eps:>5} {qd_bytes:>8,} {qd_err:>8.4f} {k:>6} {size:>9,} "
                f"{max(errs):>10.4f} / {sum(errs) / len(errs):.4f} {eps:>12}"
            )
    # speed: one Python call per item, and the bulk entry points
    values = streams(n, 2)["uniform"]
    arr = np.asarray(values, dtype=np.int32)
    rows = []
    for eps in (0.1, 0.01):
        d = opt.QDigest(20, eps)
        ins = d.insert
        t0 = time.perf_counter()
        for v in values:
            ins(v)
        t_qd = time.perf_counter() - t0
        t0 = time.perf_counter()
        opt.QDigest(20, eps).insert_many(values)
        t_qd_bulk = time.perf_counter() - t0
        d.compress()
        k, _ = kll_for_bytes(ds, arr, 16 * d.node_count())
        s = ds.kll_ints_sketch(k)
        upd = s.update
        t0 = time.perf_counter()
        for v in values:
            upd(v)
        t_kll = time.perf_counter() - t0
        t0 = time.perf_counter()
        ds.kll_ints_sketch(k).update(arr)
        t_kll_bulk = time.perf_counter() - t0
        rows.append((eps, k, n / t_qd, n / t_kll, n / t_qd_bulk, n / t_kll_bulk))
    print(
        f"\n{'eps':>5} {'KLL k':>6} {'qd insert/s':>12} {'KLL update/s':>13} {'ratio':>6} "
        f"{'qd insert_many/s':>17} {'KLL update(array)/s':>20} {'ratio':>6}"
    )
    for eps, k, a, b, c, e in rows:
        print(f"{eps:>5} {k:>6} {a:>12,.0f} {b:>13,.0f} {a / b:>6.2f} {c:>17,.0f} {e:>20,.0f} {c / e:>6.2f}")


if __name__ == "__main__":
    main()
