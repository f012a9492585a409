"""Hypothesis profiles for the test suite, and the one Spark session of a test run.

``ci`` (used by ``tools/check.sh``): no deadline (shared CI machines are noisy), derandomized and without an
example database, so every run explores the same examples. ``dev`` (default): no deadline, random exploration.
Select with ``HYPOTHESIS_PROFILE=ci``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import settings

settings.register_profile("ci", deadline=None, derandomize=True, database=None, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    """The one local Spark session of a test run (the JVM takes 8-16 s to start): every Spark test asks for
    it, and the CLI's Spark stage finds it through ``getOrCreate``."""
    from swagkit.verify.spark import local_session

    session = local_session("swagkit-tests")
    yield session
    session.stop()
