"""Every code example of README.md and the documentation site's pages (docs/, every page) works as printed, and
the site's generated pages are current.

* every ```python block runs alone, in a fresh namespace, in a temporary working directory (a test per block, its
  id naming the file and line); a block that starts Spark (``local_session``) is marked ``spark`` and gets the test
  run's session first;
* every ``swagkit ...`` command line of a ```sh or ```console block (``$ `` prompts in console blocks) parses with
  the real argument parser;
* every relative link and image points at a file of the repository.
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)


def _blocks(languages: tuple[str, ...]) -> list[tuple[str, int, str, str]]:
    """(page, line of the block's first code line, language, code) of every fenced block in ``languages``."""
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for m in FENCE.finditer(text):
            if m.group(1) in languages:
                line = text.count("\n", 0, m.start()) + 2
                found.append((str(page.relative_to(ROOT)), line, m.group(1), m.group(2)))
    return found


def _needs_spark(code: str) -> bool:
    return "local_session" in code or "pyspark" in code


PYTHON = _blocks(("python", "py"))


def test_the_pages_have_python_blocks() -> None:
    pages = {page for page, *_ in PYTHON}
    assert {"README.md", "docs/api.md", "docs/debug-mode.md", "docs/spark.md"} <= pages
    assert len(PYTHON) >= 15


@pytest.mark.parametrize(
    ("page", "line", "code"),
    [
        pytest.param(page, line, code, id=f"{page}:{line}", marks=[pytest.mark.spark] if _needs_spark(code) else [])
        for page, line, _, code in PYTHON
    ],
)
def test_python_block_runs_alone(
    page: str,
    line: int,
    code: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
) -> None:
    """The block runs in a fresh namespace with nothing defined by the blocks before it, and writes nothing into
    the repository (the working directory and the replay directory are temporary)."""
    if _needs_spark(code):
        request.getfixturevalue("spark")  # the test run's session: the block's local_session() returns it
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SWAGKIT_REPLAY_DIR", str(tmp_path / "replays"))
    namespace: dict[str, Any] = {"__name__": f"docblock_{line}"}
    # the leading newlines make a traceback name the page's own line numbers
    compiled = compile("\n" * (line - 1) + code, str(ROOT / page), "exec")
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compiled, namespace)  # noqa: S102 - the documentation is ours


def _command_lines() -> list[tuple[str, int, str]]:
    """(page, line, command line) of every swagkit command in a sh or console block."""
    found = []
    for page, first, language, code in _blocks(("sh", "console")):
        for offset, raw in enumerate(code.splitlines()):
            text = raw.strip()
            if language == "console":
                if not text.startswith("$ "):
                    continue  # output
                text = text[2:]
            if re.match(r"(\.venv/bin/)?swagkit( |$)", text):
                found.append((page, first + offset, text))
    return found


COMMANDS = _command_lines()


def test_the_pages_show_commands() -> None:
    assert len(COMMANDS) >= 40
    assert {page for page, *_ in COMMANDS} >= {"README.md", "docs/cli.md", "docs/verify-your-own.md"}


@pytest.mark.parametrize(("page", "line", "command"), [pytest.param(*c, id=f"{c[0]}:{c[1]}") for c in COMMANDS])
def test_command_line_parses(page: str, line: int, command: str) -> None:
    """The documented command line is one ``swagkit`` accepts (flags, choices, values), shell comments aside."""
    from swagkit.verify.cli import build_parser

    argv = shlex.split(command, comments=True)[1:]
    assert argv, f"{page}:{line}: no subcommand"
    if argv == ["--version"]:
        with pytest.raises(SystemExit) as done:
            build_parser().parse_args(argv)
        assert done.value.code == 0
        return
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:  # argparse's usage error
        pytest.fail(f"{page}:{line}: `{command}` does not parse (exit {exc.code})")
    assert args.command == argv[0]


#: the subcommands whose documented command lines run here as printed (seconds, no files needed); the others
#: (verify, engines, bench, corpus, replay, explain --replay) take minutes or the files of a run: parsed above
RUN_AS_PRINTED = ("list", "explain", "--version")


@pytest.mark.parametrize(
    ("page", "line", "command"),
    [
        pytest.param(*c, id=f"{c[0]}:{c[1]}")
        for c in COMMANDS
        if shlex.split(c[2], comments=True)[1] in RUN_AS_PRINTED and "--replay" not in c[2]  # a run's file
    ],
)
def test_quick_command_line_runs(
    page: str, line: int, command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A documented ``swagkit list``/``explain``/``--version`` runs and exits 0 (in a temporary directory: an
    ``explain --svg`` writes its picture there)."""
    from swagkit.verify.cli import main

    monkeypatch.chdir(tmp_path)
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        code = main(shlex.split(command, comments=True)[1:])
    assert code == 0, f"{page}:{line}: `{command}` exited {code}"
    assert printed.getvalue().strip(), f"{page}:{line}: `{command}` printed nothing"


LINK = re.compile(r"\]\(([^)\s]+)\)")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(page: Path) -> None:
    """Every relative link or image of the page names a file or folder of the repository (anchors aside); an
    anchor into another page names one of its headings."""
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):
            continue  # http(s), mailto
        path, _, anchor = target.partition("#")
        resolved = (page.parent / path).resolve() if path else page
        assert resolved.exists(), f"{page.name}: broken link {target}"
        if anchor and resolved.suffix == ".md":
            assert anchor in _anchors(resolved), f"{page.name}: no heading #{anchor} in {resolved.name}"


def _anchors(page: Path) -> set[str]:
    """GitHub's anchors of the page's headings (lower case, punctuation dropped, spaces to hyphens)."""
    headings = re.findall(r"^#+ (.*)$", FENCE.sub("", page.read_text(encoding="utf-8")), flags=re.M)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}


# tests/conftest.py: the documentation's examples do not depend on the compiled switch;
# it runs in one pass only, the pure-Python one (it balances the two)
pytestmark = pytest.mark.once
ONCE_PASS = "pure"


def test_the_algorithm_pages_are_generated_from_the_current_cards() -> None:
    """docs/algorithms/<id>.md and its explain SVG, one per card (tools/docs_pages.py), match what the cards and
    ``swagkit explain`` give now; and the site's navigation lists every page of docs/ (mkdocs.yml; the strict
    build in CI fails on a page left out, this names it sooner)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("docs_pages", ROOT / "tools" / "docs_pages.py")
    assert spec is not None and spec.loader is not None
    pages = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(pages)
    from swagkit.spec.algorithms import CARDS

    for card in CARDS:
        text, svg = pages.page(card)
        assert (ROOT / "docs" / "algorithms" / f"{card.id}.md").read_text(encoding="utf-8") == text, card.id
        assert (ROOT / "docs" / "algorithms" / f"{card.id}.svg").read_text(encoding="utf-8") == svg, card.id
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    listed = set(re.findall(r":\s+([\w./-]+\.md)$", nav, flags=re.M))
    site = {str(p.relative_to(ROOT / "docs")) for p in (ROOT / "docs").rglob("*.md")}
    assert site <= listed, sorted(site - listed)
