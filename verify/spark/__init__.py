"""Everything swagkit does on Spark.

* :mod:`.session` -- the embedded local session (retries failed tasks) or a cluster's;
* :mod:`.differential` -- seeded lock-step runs of the registry's algorithms (reference vs optimized vs model),
  fanned out as Spark tasks, failures brought back as replay files;
* :mod:`.sql_cli` -- ``swagkit verify --spark-sql``: Spark SQL's window frames (default and segment tree) as two
  of the window engines (:mod:`swagkit.verify.engines`), judged by their exact oracle;
* :func:`sliding_aggregate`, per-key sliding-window aggregates on DataFrames, is a runtime feature: it lives in
  :mod:`swagkit.optimized.spark` and is re-exported here under its old name.

The names of :mod:`.differential` and :mod:`.session` are re-exported here. Importing this package does not import
pyspark; the functions that need it import it when called.
"""

from __future__ import annotations

from swagkit.optimized.spark import sliding_aggregate

from .differential import (
    MODEL_EVERY,
    DiffResult,
    DiffTask,
    differential_algorithms,
    make_tasks,
    replay_failure,
    run_on_spark,
    run_task,
    summarize,
)
from .session import TASK_RETRIES, SparkJobError, local_session, session_for

__all__ = [
    "sliding_aggregate",
    "DiffTask",
    "DiffResult",
    "make_tasks",
    "run_task",
    "run_on_spark",
    "local_session",
    "session_for",
    "summarize",
    "differential_algorithms",
    "SparkJobError",
    "TASK_RETRIES",
    "MODEL_EVERY",
    "replay_failure",
]
