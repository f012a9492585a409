#!/usr/bin/env bash
# The wheel as a user gets it (issue 26 §3): `bash tools/wheel_test.sh DIST_DIR` installs the wheel that
# `python -m build` left in DIST_DIR into a fresh virtual environment (not editable; run from an empty directory,
# so nothing of the checkout is on the path), then runs `swagkit --version` (it must name the version
# pyproject.toml and CHANGELOG.md state, as must the wheel's file name), `swagkit verify --quick --no-spark` and the
# README's first Python example. A module or data file missing from the wheel fails here. Then the sdist, installed
# where no C compiler works (CC=/bin/false), must give the pure-Python fallback with its documented warning.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DIST=$(cd "$1" && pwd)
PY=${PYTHON:-python3}

version=$("$PY" -c 'import sys, tomllib; print(tomllib.load(open(sys.argv[1], "rb"))["project"]["version"])' \
    "$ROOT/pyproject.toml")
changelog=$(grep -m1 -o '^## \[[^]]*\]' "$ROOT/CHANGELOG.md" | sed 's/^## \[\(.*\)\]$/\1/')
wheels=("$DIST"/swagkit-"$version"-*.whl)
if [ "$changelog" != "$version" ] || [ ! -f "${wheels[0]}" ]; then
    echo "wheel test: pyproject.toml says $version, CHANGELOG.md's first version is $changelog," \
        "the wheels are: $(ls "$DIST")" >&2
    exit 1
fi

HERE=$(mktemp -d)
trap 'rm -rf "$HERE"' EXIT
"$PY" -m venv "$HERE/venv"
"$HERE/venv/bin/python" -m pip install --quiet --disable-pip-version-check "${wheels[0]}"
cd "$HERE"  # an empty directory: the installed package alone

said=$("$HERE/venv/bin/swagkit" --version)
if [ "$said" != "swagkit $version" ]; then
    echo "wheel test: swagkit --version says '$said', pyproject.toml $version" >&2
    exit 1
fi
echo "wheel test: ${wheels[0]##*/} installed; $said"
"$HERE/venv/bin/swagkit" verify --quick --no-spark
"$HERE/venv/bin/python" - "$ROOT/README.md" <<'EOF'
import re
import sys

text = open(sys.argv[1], encoding="utf-8").read()
example = re.search(r"```python\n(.*?)```", text, flags=re.S)
assert example, "README.md has no Python example"
exec(compile(example.group(1), "README.md (first example)", "exec"), {"__name__": "__main__"})
print("wheel test: the README's first example ran")
EOF

"$PY" -m venv "$HERE/nocc"
sdists=("$DIST"/swagkit-"$version".tar.gz)
CC=/bin/false CXX=/bin/false "$HERE/nocc/bin/python" -m pip install --quiet --disable-pip-version-check "${sdists[0]}"
"$HERE/nocc/bin/python" - <<'EOF'
import warnings

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import swagkit.optimized as fast
    from swagkit.spec.library import string_concat

assert not fast.COMPILED and fast.FALLBACK_REASONS, "extensions compiled without a compiler?"
assert any(w.category is fast.PurePythonFallbackWarning for w in caught), [str(w.message) for w in caught]
window = fast.DABALite(string_concat())
for ch in "abc":
    window.insert(ch)
window.evict()
assert window.query() == "bc"
print("wheel test: the sdist without a C compiler runs on the pure-Python fallback, with its warning")
EOF
