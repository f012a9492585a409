"""The README is short and says how to start; the tables of the docs pages are generated and current.

(Its code blocks, and those of docs/*.md, run in tests/test_docs.py.)
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"


def _sync() -> ModuleType:
    spec = importlib.util.spec_from_file_location("sync_readme", ROOT / "tools" / "sync_readme.py")
    assert spec is not None and spec.loader is not None
    sync = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sync)
    return sync


def test_readme_is_at_most_300_lines() -> None:
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 300


def test_readme_states_the_two_commands_and_ci_runs_the_test_command() -> None:
    """The two set-up commands are in the README, each alone in its own sh block, with how long it takes; the
    CI runs exactly the README's test command."""
    text = README.read_text(encoding="utf-8")
    blocks = re.findall(r"```sh\n(.*?)```", text, flags=re.S)
    assert "bash tools/verify.sh\n" in blocks and "bash tools/check.sh\n" in blocks
    setup = text.split("## Set up", 1)[1].split("\n## ", 1)[0]
    assert "minutes" in setup and ".venv/bin/swagkit" in setup and "source .venv/bin/activate" in setup
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "bash tools/check.sh" in ci


def test_readme_starts_with_verifying_your_own_aggregator() -> None:
    """Right after the set-up: your own aggregator, in Python and in any language, and what a finding looks like."""
    sections = re.findall(r"^## (.*)$", README.read_text(encoding="utf-8"), flags=re.M)
    assert sections[:2] == ["Set up", "Verify your own aggregator"]
    own = README.read_text(encoding="utf-8").split("## Verify your own aggregator", 1)[1].split("\n## ", 1)[0]
    assert "verify_aggregator(" in own and "--impl" in own and "--exec" in own and "docs/protocol.md" in own
    assert "<- FAILS" in own and "replay file:" in own


def test_readme_links_every_docs_page() -> None:
    text = README.read_text(encoding="utf-8")
    for page in sorted((ROOT / "docs").glob("*.md")):
        assert f"](docs/{page.name})" in text, f"README does not link docs/{page.name}"


def test_generated_tables_are_current() -> None:
    """Every ``<!-- generated: … -->`` block, wherever it lives, is what ``tools/sync_readme.py`` writes (three
    blocks: the algorithm, paper-004 and robustness tables), and a stale one is rewritten."""
    sync = _sync()
    counts = {}
    for page in sync.pages():
        text = page.read_text(encoding="utf-8")
        counts[page.relative_to(ROOT).as_posix()] = len(sync.BLOCK.findall(text))
        assert sync.synced(text) == text, f"{page.name}: run python tools/sync_readme.py"
    assert sum(counts.values()) == 3 and counts["docs/algorithms.md"] == 2 and counts["docs/robustness.md"] == 1
    text = (ROOT / "docs" / "algorithms.md").read_text(encoding="utf-8")
    stale = text.replace("| DABA | `daba` |", "| DABA | `dabba` |", 1)
    assert stale != text and sync.synced(stale) == text
    assert sync.main(["--check"]) == 0


def test_algorithm_tables_are_the_registry_tables() -> None:
    """docs/algorithms.md holds ``swagkit list --markdown`` and the paper-004 table; docs/robustness.md the table
    read from the classes' own ``exception_safety`` declarations (which the fault-injection tests hold them to)."""
    from swagkit.verify import registry

    algorithms = (ROOT / "docs" / "algorithms.md").read_text(encoding="utf-8")
    assert registry.guarantees_markdown().strip() in algorithms
    assert registry.decayed_markdown().strip() in algorithms
    robustness = (ROOT / "docs" / "robustness.md").read_text(encoding="utf-8")
    assert registry.robustness_markdown().strip() in robustness


def _version() -> str:
    import tomllib

    with open(ROOT / "pyproject.toml", "rb") as f:
        return str(tomllib.load(f)["project"]["version"])


def test_the_changelog_is_short_and_its_first_version_is_the_package_s() -> None:
    """Issue 26 §4: entries of a few lines (details live in docs/), and one version number: pyproject.toml's is the
    changelog's first and the installed package's (``swagkit --version``; the wheel test checks the wheel's)."""
    from swagkit.verify.cli.common import version

    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    first = re.search(r"^## \[([^\]]+)\]", text, flags=re.M)
    assert first and first.group(1) == _version(), (first and first.group(0), _version())
    assert version() in (_version(), "unknown (not installed)"), "the installed swagkit is another version"
    entries = re.findall(r"^- .*\n(?:  .*\n)*", text, flags=re.M)
    assert len(entries) > 20
    long = [e.splitlines()[0] for e in entries if len(e.splitlines()) > 3]
    assert not long, long
    assert max(len(line) for line in text.splitlines()) <= 115
