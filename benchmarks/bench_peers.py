"""swagkit against the peers a user would pick instead (issue 16): a script, not a pytest test.

The measurement is ``swagkit bench --only peers`` (:mod:`swagkit.verify.bench.peers`, whose docstring says what
each line measures and the targets); this script prints the same lines as one table, with a closing summary of
the targets met and missed.

    python benchmarks/bench_peers.py            # 2 M floats, 7 repeats
    python benchmarks/bench_peers.py --quick    # 2^19 floats, 3 repeats
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Iterable

import swagkit.optimized as opt
from swagkit.verify.bench import peers


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="2^19 floats, 50 k per-call items, 3 repeats")
    ap.add_argument("--repeats", type=int, default=None)
    ap.add_argument("--only", choices=("array", "per-call"), default=None)
    args = ap.parse_args(argv)
    sizes = peers.QUICK if args.quick else peers.FULL
    if args.repeats:
        sizes = dataclasses.replace(sizes, repeat=args.repeats)
    print(f"swagkit.optimized compiled: {opt.COMPILED}; window {sizes.window}; median of {sizes.repeat} paired ratios")
    print(f"{'section':9s} {'contender':44s} {'baseline':22s} {'M items/s':>9s} {'ratio':>9s} {'target':>7s}")
    notes: list[str] = []
    lines: list[peers.PeerLine] = []
    if args.only in (None, "array"):
        lines += _printed(peers.array_lines(sizes.array_items, sizes.repeat, sizes.window, notes))
    if args.only in (None, "per-call"):
        lines += _printed(peers.per_call_lines(sizes.call_items, sizes.repeat, sizes.window, notes))
    for note in dict.fromkeys(notes):
        print(f"note: {note}")
    missed = [x for x in lines if x.target is not None and x.ratio < x.target]
    print(
        f"\n{len(lines) - len(missed)} of {len(lines)} lines with a target met; missed: "
        + (", ".join(f"{x.name} vs {x.baseline} ({x.ratio:.2f}× < {x.target:g}×)" for x in missed) or "none")
    )


def _printed(lines: Iterable[peers.PeerLine]) -> list[peers.PeerLine]:
    out = []
    for line in lines:
        print(line.text(), flush=True)
        out.append(line)
    return out


if __name__ == "__main__":
    main()
