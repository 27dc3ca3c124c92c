"""Exceptions raised by the readers, so that callers (the CLI) can print one line."""

from __future__ import annotations

from os import PathLike

__all__ = ["DataFormatError"]


class DataFormatError(ValueError):
    """A file is missing, malformed or inconsistent.

    The message starts with ``path:line:`` when they are known, like a compiler error.

    Parameters
    ----------
    message : str
        What is wrong.
    path : str or PathLike, optional
        The offending file.
    line : int, optional
        1-based line number in ``path``.

    Examples
    --------
    >>> err = DataFormatError("weight 'x' is not a number", "edges.txt", 3)
    >>> str(err), err.line, err.reason
    ("edges.txt:3: weight 'x' is not a number", 3, "weight 'x' is not a number")
    >>> isinstance(err, ValueError)
    True
    """

    def __init__(self, message: str, path: str | PathLike | None = None, line: int | None = None):
        self.path = None if path is None else str(path)
        self.line = line
        self.reason = message
        where = ""
        if self.path is not None:
            where = self.path + (f":{line}" if line is not None else "") + ": "
        super().__init__(where + message)
