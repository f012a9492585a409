"""Hypothesis profiles for the test suite.

``ci`` (used by ``tools/check.sh``): no deadline (shared CI machines are noisy), derandomized and without an
example database, so every run explores the same examples. ``dev`` (default): no deadline, random exploration.
Select with ``HYPOTHESIS_PROFILE=ci``.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", deadline=None, derandomize=True, database=None, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))
