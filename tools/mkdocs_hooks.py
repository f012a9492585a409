"""MkDocs hooks of the documentation site (``mkdocs.yml``).

* The benchmark results live in ``benchmarks/results/`` (written by ``swagkit bench``), outside ``docs/``: the site
  serves them as ``benchmarks/results/…`` and the pages' links to ``../benchmarks/results/`` point there, so
  docs/performance.md reads the same on GitHub and on the site.
* The docstrings cross-reference in Sphinx roles (``:class:`~swagkit.spec.Monoid```, which ``help()`` and the IDEs
  show as written); on the API reference pages a role becomes the name it shows (``Monoid``)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

RESULTS = Path(__file__).resolve().parent.parent / "benchmarks" / "results"
ROLE = re.compile(r":(?:mod|class|meth|func|data|attr|exc|obj|const):<code>(~?)\.*([^<]*)</code>")


def on_files(files: Files, config: Any) -> Files:
    for path in sorted(RESULTS.iterdir()):
        if path.suffix in (".png", ".svg", ".md", ".csv", ".json"):
            files.append(File.generated(config, f"benchmarks/results/{path.name}", abs_src_path=str(path)))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    depth = page.file.src_uri.count("/")
    return markdown.replace("](../benchmarks/results/", "](" + "../" * depth + "benchmarks/results/")


def on_page_content(html: str, page: Any, config: Any, files: Files) -> str:
    return ROLE.sub(lambda m: f"<code>{m.group(2).rsplit('.', 1)[-1] if m.group(1) else m.group(2)}</code>", html)
