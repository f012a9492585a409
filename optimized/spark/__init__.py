"""swagkit.optimized.spark -- per-key sliding-window aggregates on Spark DataFrames, computed by swagkit's
aggregators: :func:`sliding_aggregate` (issue 15 §3).

* :mod:`.frames` -- :func:`sliding_aggregate` itself: arguments checked and resolved on the driver, the job built;
* :mod:`.frames_spec` -- what one call computes, as plain data pickled to the executors;
* :mod:`.frames_exec` / :mod:`.frames_keys` -- the executor side: Arrow batches in, one key's window at a time.

Importing this package imports neither pyspark, pyarrow, numpy nor Hypothesis: the functions import what they need
when called, and only ``check=True`` reaches the verification package (:mod:`swagkit.verify`), on the executors.
"""

from __future__ import annotations

from .frames import DEFAULT_CHECK_FRACTION, DEFAULT_CHUNK_ROWS, sliding_aggregate

__all__ = ["sliding_aggregate", "DEFAULT_CHUNK_ROWS", "DEFAULT_CHECK_FRACTION"]
