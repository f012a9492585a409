#!/usr/bin/env bash
# The whole test suite, from a clean clone: make .venv, install swagkit with its test extras (the Cython
# extension is compiled; pyspark and ruff included), lint and format-check with ruff, type-check all four
# packages with mypy --strict, then run pytest twice: on the compiled extension and on the pure-Python fallback
# (SWAGKIT_PUREPYTHON=1); meanwhile the built wheel is installed and tried in a fresh virtual environment
# (tools/wheel_test.sh) and the documentation site is built strictly (mkdocs.yml).
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
# The engines swagkit engines checks come as large wheels (about 120 MB, pinned in pyproject.toml's test extra) and
# pip keeps no cache of downloaded wheels here: a wheelhouse outside the clone keeps them, so that a fresh clone
# installs them from disk (the first run fills it; SWAGKIT_WHEELHOUSE moves it).
WHEELHOUSE=${SWAGKIT_WHEELHOUSE:-${XDG_CACHE_HOME:-$HOME/.cache}/swagkit-wheelhouse}
ENGINE_WHEELS="duckdb==2.0.1 datafusion==55.0.0 polars==2.1.0 polars-runtime-32==2.1.0"
mkdir -p "$WHEELHOUSE"
# shellcheck disable=SC2086
if ! .venv/bin/python -m pip install --quiet --no-index --no-deps --find-links "$WHEELHOUSE" $ENGINE_WHEELS \
    2>/dev/null; then
    .venv/bin/python -m pip download --quiet --no-deps --dest "$WHEELHOUSE" $ENGINE_WHEELS || true
    .venv/bin/python -m pip install --quiet --no-index --no-deps --find-links "$WHEELHOUSE" $ENGINE_WHEELS || true
fi
# swagkit's sdist and wheel (`python -m build`: the wheel is built from the sdist, so a file the sdist leaves out
# fails here; its Cython extensions are most of the set-up time, on both cores) build while pip installs the test
# dependencies (mostly unpacking), then the wheel goes in: the same result as pip install ".[test]", a minute sooner
rm -rf build/dist && mkdir -p build
.venv/bin/python -m pip install --quiet --disable-pip-version-check build
.venv/bin/python -m build --outdir build/dist . >build/wheel.log 2>&1 &
wheel=$!
mapfile -t DEPS < <(.venv/bin/python -c '
import tomllib
project = tomllib.load(open("pyproject.toml", "rb"))["project"]
extras = project["optional-dependencies"]
print("\n".join(project["dependencies"] + extras["test"] + extras["docs"]))')
.venv/bin/python -m pip install --quiet --disable-pip-version-check "${DEPS[@]}"
if ! wait "$wheel"; then
    cat build/wheel.log
    exit 1
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check --no-deps --force-reinstall build/dist/swagkit-*.whl
# alongside the checks below: the wheel as a user gets it, in a fresh virtual environment outside the checkout
# (swagkit --version, a quick swagkit verify, the README's first example), then the documentation site, built
# strictly (a broken link, a page left out of the nav or a missing reference fails) from the installed package
(bash tools/wheel_test.sh build/dist && .venv/bin/mkdocs build --strict --quiet &&
    echo "docs: the site built strictly into build/site/") >build/wheel-test.log 2>&1 &
wheel_test=$!

echo "== ruff (lint, format) (install took ${SECONDS} s)"
.venv/bin/ruff check --no-cache .
.venv/bin/ruff format --no-cache --check .

echo "== mypy --strict (spec, reference, optimized, verify)"
.venv/bin/python tools/link_tree.py >/dev/null
MYPYPATH=build/tree .venv/bin/mypy --strict --cache-dir build/mypy-cache \
    -p swagkit.spec -p swagkit.reference -p swagkit.optimized -p swagkit.verify

export HYPOTHESIS_PROFILE=${HYPOTHESIS_PROFILE:-ci}
# The two passes are independent processes (their own Spark session, their own temporary directories): they run
# side by side, one per core, and their reports are printed one after the other.
# (CrossHair runs only spec and reference: once, in the compiled pass. The "once" tests never touch
# swagkit.optimized -- the spec, users' classes, protocol programs --: they do not depend on the switch, and one run
# is enough; tests/conftest.py gives each to one pass (SWAGKIT_PASS; a module's ONCE_PASS), which balances the two.)
mkdir -p build
echo "== pytest: the compiled extension and the pure-Python fallback (SWAGKIT_PUREPYTHON=1), in parallel (at ${SECONDS} s)"
SWAGKIT_PASS=compiled SWAGKIT_EXPECT_COMPILED=1 .venv/bin/python -m pytest -p no:cacheprovider -q "$@" \
    >build/pytest-compiled.log 2>&1 &
compiled=$!
SWAGKIT_PASS=pure SWAGKIT_PUREPYTHON=1 .venv/bin/python -m pytest -p no:cacheprovider -q -m "not crosshair" "$@" \
    >build/pytest-pure.log 2>&1 &
pure=$!
status=0
wait "$compiled" || status=1
wait "$pure" || status=1
wait "$wheel_test" || status=1
echo "== pytest, compiled extension"
cat build/pytest-compiled.log
echo "== pytest, pure-Python fallback (SWAGKIT_PUREPYTHON=1)"
cat build/pytest-pure.log
echo "== the wheel in a fresh virtual environment (tools/wheel_test.sh), the documentation site (mkdocs build --strict)"
cat build/wheel-test.log
echo "== done in ${SECONDS} s"
exit "$status"
