"""The Spark session every Spark face of swagkit runs on.

The embedded default is local Spark (``local[2,4]``: two cores, and a failed task -- a Python worker killed by
the OOM killer, say -- is retried up to 4 times; plain ``local[N]`` never retries), UI off, loopback only: see
:func:`local_session`. :func:`session_for` takes an explicit master URL (``--spark-master``: a cluster).
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["TASK_RETRIES", "SparkJobError", "local_session", "session_for"]

#: how often the embedded local session retries a failed task (``local[N,F]`` allows F failures per task)
TASK_RETRIES = 4


class SparkJobError(RuntimeError):
    """The Spark job failed or lost results (e.g. a task failed more than ``TASK_RETRIES`` times): the
    machinery broke, nothing was verified. ``swagkit verify`` exits with status 4 for it."""


def local_session(app_name: str = "swagkit-verify", cores: int = 2, retries: int = TASK_RETRIES) -> SparkSession:
    """The embedded default: local Spark on loopback with the UI off and small shuffles; a failed task is
    retried (``local[cores,retries]``)."""
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master(f"local[{cores},{retries}]")
        .appName(app_name)
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", str(cores))
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    return session


def session_for(master: str, app_name: str = "swagkit-verify") -> SparkSession:
    """A session on an explicit master URL (a cluster, or ``local[N]``)."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    session = SparkSession.builder.master(master).appName(app_name).config("spark.ui.enabled", "false").getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    return session
