#!/usr/bin/env bash
# The main job, from a clean clone: make .venv, install swagkit (compiled; pyspark included) and run
# `swagkit verify` over every registered algorithm × monoid × implementation. Extra arguments go to it.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check ".[spark,engines]"
exec .venv/bin/swagkit verify "$@"
