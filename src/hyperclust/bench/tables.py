"""The one report writer of the benchmarks: markdown tables of aggregated rows and their commits."""

from __future__ import annotations

from pathlib import Path

__all__ = ["fmt_mean_std", "markdown_row", "markdown_table", "commits_of", "write_markdown"]


def fmt_mean_std(mean, std, digits: int = 3) -> str:
    """``"0.600 ± 0.141"``; ``""`` when there is no mean.

    Examples
    --------
    >>> fmt_mean_std(0.6, 0.1414), fmt_mean_std(0.06, 0.01, digits=4), fmt_mean_std(None, None)
    ('0.600 ± 0.141', '0.0600 ± 0.0100', '')
    """
    if mean is None:
        return ""
    return f"{mean:.{digits}f} ± {std:.{digits}f}"


def markdown_row(cells) -> str:
    """One line of a markdown table.

    Examples
    --------
    >>> markdown_row(["zoo", 101, 0.9])
    '| zoo | 101 | 0.9 |'
    """
    return "| " + " | ".join(str(c) for c in cells) + " |"


def markdown_table(head, rows) -> list[str]:
    """The lines of a markdown table: header, separator, one line per row.

    Examples
    --------
    >>> markdown_table(["dataset", "ACC"], [["zoo", "0.6"]])
    ['| dataset | ACC |', '|---|---|', '| zoo | 0.6 |']
    """
    return [markdown_row(head), "|" + "---|" * len(head)] + [markdown_row(r) for r in rows]


def commits_of(rows) -> str:
    """The short commits that made ``rows`` (``+dirty``; ``unknown`` without provenance).

    Examples
    --------
    >>> commits_of([{"commit": "0123456789abcdef", "dirty": True}, {}])
    '0123456789+dirty, unknown'
    """
    return ", ".join(sorted({(r.get("commit") or "unknown")[:10] + ("+dirty" if r.get("dirty") else "")
                             for r in rows}))


def write_markdown(path, lines, *, append: bool = False) -> Path:
    """Write (or append) ``lines`` to ``path``, creating its folder; return the path.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "out" / "table.md"
    >>> write_markdown(path, ["# title", ""]).read_text()
    '# title\\n\\n'
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a" if append else "w") as fh:
        fh.write("\n".join(lines) + "\n")
    return path
