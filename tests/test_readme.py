"""The README's API tour runs as written (every ```python block, in order, in one namespace)."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_python_blocks_run() -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)
    assert blocks, "README has no python blocks"
    namespace: dict[str, object] = {}
    for block in blocks:
        exec(compile(block, str(README), "exec"), namespace)  # noqa: S102 - the README is ours


def test_readme_states_the_two_commands_and_ci_runs_the_test_command() -> None:
    text = README.read_text(encoding="utf-8")
    assert "bash tools/verify.sh" in text and "bash tools/check.sh" in text
    ci = (README.parent / ".ci" / "run").read_text(encoding="utf-8")
    assert "bash tools/check.sh" in ci


def test_readme_algorithm_table_is_the_registry_table() -> None:
    """The README's algorithm table is exactly ``swagkit list --markdown`` (it cannot drift from the registry)."""
    from swagkit.verify import registry

    assert registry.guarantees_markdown().strip() in README.read_text(encoding="utf-8")


def test_readme_robustness_table_is_what_the_classes_declare() -> None:
    """The README's robustness table is exactly ``robustness_markdown()``, read from the classes' own
    ``exception_safety`` declarations (which the fault-injection tests hold them to)."""
    from swagkit.verify import registry

    assert registry.robustness_markdown().strip() in README.read_text(encoding="utf-8")


def test_readme_generated_tables_are_current() -> None:
    """Every ``<!-- generated: … -->`` block is what ``tools/sync_readme.py`` writes (three blocks: the
    algorithm, paper-004 and robustness tables)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("sync_readme", README.parent / "tools" / "sync_readme.py")
    assert spec is not None and spec.loader is not None
    sync = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sync)
    text = README.read_text(encoding="utf-8")
    assert len(sync.BLOCK.findall(text)) == 3
    assert sync.synced(text) == text
    stale = text.replace("| DABA | `daba` |", "| DABA | `dabba` |", 1)
    assert stale != text and sync.synced(stale) == text
