"""Variant builds for the compiled-kernel planted bugs (``BUG["kernel"]`` of a corpus file).

A kernel bug is a patch of one header in ``optimized/include/`` (``old`` → ``new``, exactly one occurrence): the
extension module that includes it is compiled again from its generated C file against the patched copy of the
headers (``-O1``: seconds, not the minute of the release flags), cached under ``build/planted-variants/``, and
loaded in place of the installed module by a meta-path finder -- in a child process only (:func:`command`), so
the installed extension is never replaced or shadowed in the test process.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
CACHE = ROOT / "build" / "planted-variants"

#: the child's first lines: the variant module found before the installed one
_BOOT = """import importlib.util, sys
class _Variant:
    @staticmethod
    def find_spec(name, path=None, target=None):
        return importlib.util.spec_from_file_location(name, {path!r}) if name == {name!r} else None
sys.meta_path.insert(0, _Variant)
"""


def _source(module: str) -> Path:
    """The module's generated C (the build writes it next to the .pyx; Cython makes it when it is missing)."""
    c = ROOT / "optimized" / f"{module}.c"
    if not c.exists():
        subprocess.run(
            [sys.executable, "-m", "cython", "-3", "-I", str(ROOT / "optimized"), str(c.with_suffix(".pyx"))],
            check=True,
            capture_output=True,
        )
    return c


def build(kernel: Mapping[str, Any]) -> Path:
    """The variant extension of ``kernel`` (``module``, ``header``, ``old``, ``new``), built once and cached."""
    module, header = str(kernel["module"]), str(kernel["header"])
    source = _source(module)
    digest = hashlib.sha1()
    for part in (source.read_bytes(), (ROOT / "optimized" / "include" / header).read_bytes()):
        digest.update(part)
    digest.update(repr((header, kernel["old"], kernel["new"])).encode())
    where = CACHE / f"{module}-{digest.hexdigest()[:12]}"
    so = where / f"{module}{sysconfig.get_config_var('EXT_SUFFIX')}"
    if so.exists():
        return so
    include = where / "include"
    shutil.rmtree(where, ignore_errors=True)
    shutil.copytree(ROOT / "optimized" / "include", include)
    text = (include / header).read_text(encoding="utf-8")
    if text.count(kernel["old"]) != 1:
        raise ValueError(f"the patch of {header} must match exactly once, it matches {text.count(kernel['old'])}")
    (include / header).write_text(text.replace(kernel["old"], kernel["new"]), encoding="utf-8")
    cc = [sysconfig.get_config_var("CC").split()[0], "-O1", "-ffp-contract=off", "-fPIC", "-shared"]
    py = sysconfig.get_paths()["include"]
    subprocess.run([*cc, f"-I{include}", f"-I{py}", str(source), "-o", str(so)], check=True, capture_output=True)
    return so


def command(kernel: Mapping[str, Any], so: Path, code: str) -> list[str]:
    """A Python command line running ``code`` with the variant ``so`` in place of ``swagkit.optimized.<module>``."""
    boot = _BOOT.format(path=str(so), name=f"swagkit.optimized.{kernel['module']}")
    return [sys.executable, "-c", boot + code]


def verify_command(kernel: Mapping[str, Any], so: Path, argv: Sequence[str]) -> list[str]:
    """``swagkit verify ARGV`` (``swagkit.verify.cli.main``) over the variant; its exit status is main's."""
    return command(kernel, so, f"from swagkit.verify.cli import main\nsys.exit(main({list(argv)!r}))\n")
