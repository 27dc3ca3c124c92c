"""Text tables of users' own files: lines streamed with size guards, fields split with CSV
quoting, and the rule that decides whether id tokens are integers or kept as written."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import numpy as np

from .errors import DataFormatError

__all__ = ["iter_lines", "split_fields", "file_sep", "ids_from_tokens", "is_canonical_int", "quote_field",
           "all_canonical"]

#: Bytes read at a time; a file is never held whole in memory.
CHUNK_BYTES = 1 << 20
#: A line longer than this is an error (a binary or corrupt file), not a reason to allocate.
MAX_LINE_BYTES = 16 << 20

_CANONICAL_INT = re.compile(r"-?(?:0|[1-9][0-9]{0,18})")
# Fields are separated by commas, spaces and tabs only: other Unicode white space (a
# no-break space copied from a web page) is part of an id, as a spreadsheet keeps it.
_FIELD = re.compile(r'"((?:[^"]|"")*)"|([^ \t,"]+)|([ \t,]+)|(")')
_SEPARATORS = re.compile(r"[ \t,]+")
_BLANKS = " \t"


def is_canonical_int(token: str) -> bool:
    """Whether ``token`` is an integer as ``str(int)`` writes it (at most 19 digits).

    Examples
    --------
    >>> [is_canonical_int(t) for t in ("7", "-3", "0", "007", "+7", "-0", "7.0", "1_000")]
    [True, True, True, False, False, False, False, False]
    """
    return _CANONICAL_INT.fullmatch(token) is not None and token != "-0"


_CANONICAL_LINES = re.compile(r"(?:-?(?:0|[1-9][0-9]{0,18})\n)*")


def all_canonical(tokens: list[str]) -> bool:
    """:func:`is_canonical_int` of every token, in one regex pass.

    Examples
    --------
    >>> all_canonical(["10", "-2", "0"]), all_canonical(["10", "007"]), all_canonical([])
    (True, False, True)
    """
    if not tokens:
        return True
    text = "\n".join(tokens) + "\n"
    return _CANONICAL_LINES.fullmatch(text) is not None and "\n-0\n" not in "\n" + text


def ids_from_tokens(tokens: list[str]) -> np.ndarray:
    """Ids from tokens: int64 when every token is a canonical int64, else the tokens as written.

    Examples
    --------
    >>> ids_from_tokens(["10", "-2", "10"]).tolist()
    [10, -2, 10]
    >>> ids_from_tokens(["7", "007", "0007"]).tolist()
    ['7', '007', '0007']
    >>> ids_from_tokens(["1", "99999999999999999999"]).tolist()  # beyond int64: as written
    ['1', '99999999999999999999']
    """
    if all_canonical(tokens):
        try:
            return np.array(tokens, dtype=np.int64) if tokens else np.zeros(0, np.int64)
        except (OverflowError, ValueError):
            pass
    return np.asarray(tokens, dtype=object)


_LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029\x00"


def quote_field(token: str) -> str:
    """``token`` as :func:`split_fields` reads it back: CSV-quoted when it holds a separator, quote or ``#``.

    Raises
    ------
    ValueError
        An empty token, or one holding a line break or NUL.

    Examples
    --------
    >>> quote_field("ana"), quote_field("Smith, John")
    ('ana', '"Smith, John"')
    >>> split_fields(quote_field('say "hi"') + "," + quote_field("#1"))
    ['say "hi"', '#1']
    """
    if not token or any(c in _LINE_BREAKS for c in token):
        raise ValueError(f"node id {token!r} cannot be written to a line-based file (it is "
                         "empty or holds a line break); use write_hif")
    if any(c.isspace() or c in ',"#' for c in token):
        return '"' + token.replace('"', '""') + '"'
    return token


def _split_default(line: str) -> list[str]:
    fields, last = [], None
    for m in _FIELD.finditer(line):
        quoted, plain, sep, stray = m.groups()
        if sep is not None:
            last = None
            continue
        if stray is not None or last is not None:
            raise ValueError("a quote must open and close a whole field")
        last = quoted.replace('""', '"') if quoted is not None else plain
        fields.append(last)
    return fields


def split_fields(line: str, sep: str | None = None, keep_empty: bool = False) -> list[str]:
    """The stripped fields of one line, with CSV quoting.

    ``sep=None`` splits at commas and/or whitespace; a one-character ``sep`` uses :mod:`csv`, a
    longer one splits on the string. Empty fields are dropped unless ``keep_empty`` (then a line
    with a comma splits at commas only).

    Raises
    ------
    ValueError
        A quote that does not open and close a whole field.

    Examples
    --------
    >>> split_fields('"Smith, John","Doe, Jane",bob')
    ['Smith, John', 'Doe, Jane', 'bob']
    >>> split_fields("a, b  c")
    ['a', 'b', 'c']
    >>> split_fields('x y;"p;q"', sep=";")
    ['x y', 'p;q']
    >>> split_fields("1.0,,2.0", keep_empty=True)
    ['1.0', '', '2.0']
    >>> split_fields("New\u00a0York, Oslo")  # a no-break space is part of the id
    ['New\xa0York', 'Oslo']
    """
    if sep is None and keep_empty and "," in line:
        sep = ","
    if sep is None:
        if '"' in line:
            return _split_default(line)
        return [t for t in _SEPARATORS.split(line) if t]
    if len(sep) == 1 and ('"' in line or keep_empty):
        try:
            fields = next(csv.reader([line], delimiter=sep, strict=True))
        except csv.Error as exc:
            raise ValueError(f"bad quoting ({exc})") from None
    else:
        fields = line.split(sep)
    return [t.strip(_BLANKS) for t in fields if keep_empty or t.strip(_BLANKS)]


def file_sep(path, sep: str | None) -> str | None:
    """``sep``, or a tab for a ``.tsv`` file when none is given.

    Examples
    --------
    >>> file_sep("trips.tsv", None), file_sep("trips.tsv", ";"), file_sep("trips.txt", None)
    ('\\t', ';', None)
    """
    return "\t" if sep is None and Path(path).suffix.lower() == ".tsv" else sep


def looks_utf16(head: bytes) -> bool:
    """Whether a file's first bytes are UTF-16: a byte-order mark, or a NUL in every other byte.

    Examples
    --------
    >>> looks_utf16("a b\\n".encode("utf-16")), looks_utf16("a b\\n".encode("utf-16-le"))
    (True, True)
    >>> looks_utf16(b"a b\\n"), looks_utf16(b"\\x1f\\x8b\\x08\\x00\\x00")
    (False, False)
    """
    if head[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return True
    head = head[:200] if len(head) % 2 == 0 else head[:min(200, len(head) - 1)]
    return len(head) >= 4 and (not any(head[1::2]) and all(head[0::2]) or
                               not any(head[0::2]) and all(head[1::2]))


def _decode(block: bytes, path, line_no: int, first: bool) -> str:
    try:
        return block.decode("utf-8-sig" if first else "utf-8")
    except UnicodeDecodeError as exc:
        raise DataFormatError(f"not UTF-8 text (byte {exc.start} of the line)", path,
                              line_no + block[:exc.start].count(b"\n") + 1) from None


def iter_lines(path):
    """``(line number, line)`` of a UTF-8 text file (BOM dropped), read in chunks.

    Raises
    ------
    DataFormatError
        Missing file, a directory, not UTF-8, a NUL byte, or a line over ``MAX_LINE_BYTES``.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "e.txt"
    >>> _ = path.write_bytes(b"\\xef\\xbb\\xbfa b\\r\\n\\r\\nc\\n")
    >>> list(iter_lines(path))
    [(1, 'a b'), (2, ''), (3, 'c')]
    """
    try:
        fh = open(path, "rb")
    except FileNotFoundError:
        raise DataFormatError("file not found", path) from None
    except IsADirectoryError:
        raise DataFormatError("expected a file, found a directory", path) from None
    with fh:
        pending, line_no, first = b"", 0, True
        while True:
            chunk = fh.read(CHUNK_BYTES)
            if first and looks_utf16(chunk):
                raise DataFormatError("UTF-16 text, not UTF-8: save it as UTF-8", path, 1)
            if b"\0" in chunk:
                at = line_no + (pending + chunk[:chunk.index(b"\0")]).count(b"\n") + 1
                raise DataFormatError("holds NUL bytes: a binary file, not text", path, at)
            data = pending + chunk
            cut = data.rfind(b"\n") + 1 if chunk else len(data)
            if len(data) - cut > MAX_LINE_BYTES:
                raise DataFormatError(f"a line is longer than {MAX_LINE_BYTES >> 20} MiB: not "
                                      "a table of ids", path, line_no + 1)
            block, pending = data[:cut], data[cut:]
            if block:
                for line in _decode(block, path, line_no, first).splitlines():
                    line_no += 1
                    yield line_no, line
                first = False
            if not chunk:
                return
