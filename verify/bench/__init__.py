"""``swagkit bench``: the papers' experiments reproduced on this machine, as CSV, PNG figures and a Markdown report.

Each experiment is a module ``expNNN`` (NNN: the paper it reproduces, as in docs/) with ``ID``, ``TITLE``, size
presets ``FULL``/``QUICK``/``TINY`` and ``run(sizes, progress) -> Outcome`` (:mod:`.report`). Timings alternate
the contenders in one run and are judged by medians of paired ratios (:mod:`.timing`); ``⊗`` counts, which do not
depend on the machine, stand beside every timing. :mod:`.figures` draws the PNGs when matplotlib (the ``bench``
extra) is installed; :mod:`.cli` is the ``swagkit bench`` subcommand. :mod:`.peers` (experiment ``peers``) sets
swagkit beside the libraries a user would pick instead, :mod:`.engine_peers` (experiment ``engines``) beside the
window engines, rows per second with a correctness column; :mod:`.readme` writes README.md's performance block from
a checked-in run (``swagkit bench --readme``).
"""

from __future__ import annotations

from .cli import EXPERIMENTS, add_subparser, run

__all__ = ["EXPERIMENTS", "add_subparser", "run"]
