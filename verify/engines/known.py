"""Known engine findings: accepted signatures that keep a user's CI green on known bugs and red on new ones
(issue 24 §6).

A known-findings file is JSON, data only (nothing in it is imported or run)::

    {"known": [
      {"engine": "duckdb", "aggregate": "var_samp", "frame_kind": "rows", "class": "sign",
       "note": "negative variance on a constant run", "link": "https://github.com/duckdb/duckdb/issues/..."}
    ]}

``aggregate`` and ``frame_kind`` may be ``"*"`` (any). A finding whose signature matches an entry is reported as
*known* and does not fail the run; an entry that matched nothing in a run is listed as *not seen* (with enough
cases, a sign the engine fixed it: its repro script says for sure).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

__all__ = ["KnownFinding", "KnownFindingsError", "Signature", "load_known", "match_known", "write_known"]

#: a finding's signature: (engine, aggregate, frame kind, class)
Signature = tuple[str, str, str, str]
_FIELDS = ("engine", "aggregate", "frame_kind", "class")


class KnownFindingsError(ValueError):
    """A known-findings file that cannot be read (one line: the file and what is wrong)."""


@dataclass(frozen=True)
class KnownFinding:
    """One accepted signature, with why it is accepted."""

    engine: str
    aggregate: str
    frame_kind: str
    klass: str
    note: str = ""
    link: str = ""

    def matches(self, signature: Signature) -> bool:
        mine = (self.engine, self.aggregate, self.frame_kind, self.klass)
        return all(m in ("*", s) for m, s in zip(mine, signature, strict=True))


def load_known(path: str | Path) -> list[KnownFinding]:
    """The entries of a known-findings file (:class:`KnownFindingsError` naming the file when it is malformed)."""
    try:
        document = json.loads(Path(path).read_text(encoding="utf-8"))
        entries = document["known"]
        if not isinstance(entries, list):
            raise TypeError("'known' is not a list")
        return [_entry(e) for e in entries]
    except OSError as error:
        raise KnownFindingsError(f"{path}: cannot read it ({error.strerror or error})") from None
    except (ValueError, KeyError, TypeError) as error:
        raise KnownFindingsError(f"{path}: not a known-findings file ({error})") from None


def _entry(entry: Mapping[str, object]) -> KnownFinding:
    if not isinstance(entry, Mapping):
        raise TypeError(f"an entry is {type(entry).__name__}, not an object")
    values = [entry[name] for name in _FIELDS]
    if not all(isinstance(v, str) and v for v in values):
        raise ValueError(f"entry {dict(entry)!r}: {', '.join(_FIELDS)} must be non-empty strings")
    note, link = entry.get("note", ""), entry.get("link", "")
    engine, aggregate, frame_kind, klass = (str(v) for v in values)
    return KnownFinding(engine, aggregate, frame_kind, klass, note=str(note), link=str(link))


def match_known(signature: Signature, known: Iterable[KnownFinding]) -> KnownFinding | None:
    """The first entry that accepts ``signature``, or None."""
    return next((k for k in known if k.matches(signature)), None)


def write_known(path: str | Path, entries: Iterable[KnownFinding]) -> None:
    """Write ``entries`` as a known-findings file (e.g. to accept a run's findings: ``--accept``)."""
    rows = [
        {"engine": e.engine, "aggregate": e.aggregate, "frame_kind": e.frame_kind, "class": e.klass}
        | ({"note": e.note} if e.note else {})
        | ({"link": e.link} if e.link else {})
        for e in entries
    ]
    Path(path).write_text(json.dumps({"known": rows}, indent=2) + "\n", encoding="utf-8")
