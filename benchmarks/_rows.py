"""Stored benchmark rows: the commit they were measured at and their .json / .md files
(benchmark helper)."""

from __future__ import annotations

import json
from pathlib import Path

__all__ = ["short_commit", "write_rows"]


def short_commit() -> str:
    """The checkout's commit, 7 hex digits, ``+dirty`` with uncommitted changes."""
    from hyperclust.bench.provenance import git_commit

    info = git_commit()
    return f"{(info['commit'] or 'unknown')[:7]}{'+dirty' if info['dirty'] else ''}"


def write_rows(out: str, rows: list, preamble: str, table: str) -> None:
    """``out.json`` (the rows) and ``out.md`` (``preamble``, a blank line, ``table``)."""
    Path(out + ".json").write_text(json.dumps(rows, indent=1))
    Path(out + ".md").write_text(preamble + "\n\n" + table)
