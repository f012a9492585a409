"""A real Spark standalone cluster on 127.0.0.1 (pyspark's own ``spark-class`` master and worker, as users who
outgrow one machine run it), and swagkit's Spark paths against ``spark://127.0.0.1:PORT``: the engines' fan-out
(``swagkit engines --spark --master``) and ``swagkit verify --spark --impl`` on a user's class with a planted bug.
Both run as the user runs them, in a fresh process (a driver of its own: this test run's local session stays)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = [pytest.mark.spark, pytest.mark.once]  # compiled pass only (tests/conftest.py)

HERE = Path(__file__).resolve().parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _spark_class() -> str:
    import pyspark

    return str(Path(pyspark.__file__).parent / "bin" / "spark-class")


def _wait_for(port: int, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.3)
    raise TimeoutError(f"nothing listens on 127.0.0.1:{port} after {seconds} s")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A standalone master and one worker (1 core, 1 GB) on loopback; yields the master URL."""
    logs = tmp_path_factory.mktemp("spark-cluster")
    env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_LOG_DIR": str(logs), "SPARK_WORKER_DIR": str(logs)}
    env["PYSPARK_PYTHON"] = sys.executable
    env["PYTHONPATH"] = os.pathsep.join([str(HERE), env.get("PYTHONPATH", "")])  # the executors import the user's class
    port = _free_port()
    master_url = f"spark://127.0.0.1:{port}"
    spark_class = _spark_class()
    master = subprocess.Popen(
        [spark_class, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", str(port)]
        + ["--webui-port", str(_free_port())],
        env=env,
        stdout=(logs / "master.log").open("w"),
        stderr=subprocess.STDOUT,
    )
    worker = None
    try:
        _wait_for(port, 60)
        worker = subprocess.Popen(
            [spark_class, "org.apache.spark.deploy.worker.Worker", master_url, "--host", "127.0.0.1"]
            + ["--cores", "1", "--memory", "1g", "--webui-port", str(_free_port())],
            env=env,
            stdout=(logs / "worker.log").open("w"),
            stderr=subprocess.STDOUT,
        )
        yield master_url
    finally:
        for process in (worker, master):
            if process is not None:
                process.terminate()
                try:
                    process.wait(20)
                except subprocess.TimeoutExpired:
                    process.kill()


def _swagkit(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "PYSPARK_PYTHON": sys.executable}
    env["PYTHONPATH"] = os.pathsep.join([str(HERE), env.get("PYTHONPATH", "")])
    command = [sys.executable, "-m", "swagkit.verify", *argv]
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=300, check=False)


def test_engines_fan_out_over_a_standalone_cluster(cluster: str, tmp_path: Path) -> None:
    done = _swagkit(
        "engines",
        "--spark",
        "--master",
        cluster,
        "--engine",
        "sqlite",
        "--cases",
        "16",
        "--known",
        "none",
        "--out",
        str(tmp_path / "out"),
        cwd=tmp_path,
    )
    assert done.returncode in (0, 1), done.stdout + done.stderr
    assert f"on Spark ({cluster})" in done.stdout
    findings = json.loads((tmp_path / "out" / "findings.json").read_text())
    matrix = (tmp_path / "out" / "matrix.csv").read_text()
    assert matrix.count("\nsqlite,") >= 5  # the workers' matrices came back and merged
    assert (done.returncode == 1) == bool(findings)


def test_verify_spark_impl_on_a_standalone_cluster_finds_a_planted_bug(cluster: str, tmp_path: Path) -> None:
    done = _swagkit(
        "verify",
        "--spark",
        "--impl",
        "test_spark_scale:DropsWhenBig",
        "--monoid",
        "string_concat",
        "--spark-ops",
        "200000",
        "--spark-master",
        cluster,
        "--replay-dir",
        str(tmp_path),
        cwd=tmp_path,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "SPARK FINDING" in done.stdout and "replay: swagkit replay" in done.stdout, done.stdout
