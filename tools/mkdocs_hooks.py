"""MkDocs hooks of the documentation site (``mkdocs.yml``): the benchmark results live in ``benchmarks/results/``
(written by ``swagkit bench``), outside ``docs/``; the site serves them as ``benchmarks/results/…`` and the pages'
links to ``../benchmarks/results/`` point there, so docs/performance.md reads the same on GitHub and on the site."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

RESULTS = Path(__file__).resolve().parent.parent / "benchmarks" / "results"


def on_files(files: Files, config: Any) -> Files:
    for path in sorted(RESULTS.iterdir()):
        if path.suffix in (".png", ".svg", ".md", ".csv", ".json"):
            files.append(File.generated(config, f"benchmarks/results/{path.name}", abs_src_path=str(path)))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    depth = page.file.src_uri.count("/")
    return markdown.replace("](../benchmarks/results/", "](" + "../" * depth + "benchmarks/results/")
