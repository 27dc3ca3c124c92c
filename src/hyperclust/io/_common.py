"""Helpers shared by the readers: integer-line parsing, label encoding, construction."""

from __future__ import annotations

import dataclasses
import itertools
import json
from pathlib import Path

import numpy as np

from ..hypergraph import Hypergraph
from .errors import DataFormatError
from .text_fields import looks_utf16

CONSTRUCTOR_OPTIONS = ("duplicates", "singletons", "empty")


def check_options(options: dict) -> dict:
    """Validate the keyword options passed through to the Hypergraph constructors."""
    unknown = set(options) - set(CONSTRUCTOR_OPTIONS)
    if unknown:
        raise TypeError(f"unexpected keyword arguments {sorted(unknown)}; readers accept "
                        f"{list(CONSTRUCTOR_OPTIONS)} (passed to Hypergraph.from_pairs)")
    return options


def require_dir(directory) -> Path:
    """``directory`` as a Path, or :class:`DataFormatError` when it is not a folder."""
    d = Path(directory)
    if not d.is_dir():
        raise DataFormatError("not a directory" if d.exists() else "directory not found", d)
    return d


def single_match(d: Path, pattern: str, what: str) -> Path | None:
    """The one file of ``d`` matching ``pattern``, or None; several are an error."""
    found = sorted(d.glob(pattern))
    if len(found) > 1:
        raise DataFormatError(f"several {what} files ({', '.join(p.name for p in found)}); "
                              "pass the file name explicitly", d)
    return found[0] if found else None


def read_text(path) -> str:
    """A UTF-8 text file's text; missing or undecodable is a :class:`DataFormatError`."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise DataFormatError("file not found", path) from None
    except IsADirectoryError:
        raise DataFormatError("expected a file, found a directory", path) from None
    if looks_utf16(data[:200]):
        raise DataFormatError("UTF-16 text, not UTF-8: save it as UTF-8", path, 1)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise DataFormatError(f"not UTF-8 text (byte {exc.start})", path, line) from None


def parse_int_lines(path, *, skip_blank: bool = False, comment: str | None = None,
                    what: str = "node id"):
    """Parse a file of integer lists, one record per line, separated by commas and/or whitespace.

    Parameters
    ----------
    path : str or PathLike
    skip_blank : bool
        Skip blank lines; otherwise a blank line is a record with no entries.
    comment : str, optional
        Lines starting with this prefix are skipped.
    what : str
        Name of an entry, for error messages.

    Returns
    -------
    values : ndarray of int64, shape (n_entries,)
    sizes : ndarray of int64, shape (n_records,)
    line_numbers : ndarray of int64, shape (n_records,)
        1-based.
    """
    try:
        data = Path(path).read_bytes()
    except OSError:
        data = None  # read_text below raises the proper error
    fast = _parse_int_bytes(data) if data is not None else None
    if fast is not None:
        values, sizes, line_no = fast
        if skip_blank:
            keep = sizes > 0
            sizes, line_no = sizes[keep], line_no[keep]
        return values, sizes, line_no
    lines = read_text(path).splitlines()
    line_no = np.arange(1, len(lines) + 1)
    if skip_blank or comment:
        keep = [not ((skip_blank and not ln.strip()) or (comment and ln.lstrip().startswith(comment)))
                for ln in lines]
        lines = list(itertools.compress(lines, keep))
        line_no = line_no[np.asarray(keep, dtype=bool)] if keep else line_no
    tokens = [ln.replace(",", " ").split() for ln in lines]
    values, sizes = tokens_to_ints(tokens, line_no, path, what)
    return values, sizes, line_no


def tokens_to_ints(tokens, line_no, path, what: str):
    """Flatten per-line tokens into int64 values and per-line counts; a non-integer names its line."""
    sizes = np.fromiter(map(len, tokens), dtype=np.int64, count=len(tokens))
    flat = list(itertools.chain.from_iterable(tokens))
    try:
        values = np.array(flat, dtype=np.int64) if flat else np.zeros(0, np.int64)
    except (ValueError, OverflowError):
        for ln_no, toks in zip(line_no, tokens):  # error path only: locate the bad token
            for tok in toks:
                try:
                    int(tok)
                except ValueError:
                    raise DataFormatError(f"{what} {tok!r} is not an integer", path,
                                          int(ln_no)) from None
        raise DataFormatError(f"{what}s out of the int64 range", path) from None
    return values, sizes


def read_json(path):
    """Parse a JSON file; a missing file or invalid JSON raises :class:`DataFormatError`."""
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except FileNotFoundError:
        raise DataFormatError("file not found", path) from None
    except IsADirectoryError:
        raise DataFormatError("expected a file, found a directory", path) from None
    except json.JSONDecodeError as exc:
        raise DataFormatError(f"invalid JSON: {exc.msg}", path, exc.lineno) from None
    except RecursionError:
        raise DataFormatError("JSON nested too deeply to be a hypergraph", path) from None
    except UnicodeDecodeError as exc:
        with open(path, "rb") as fh:
            if looks_utf16(fh.read(200)):
                raise DataFormatError("UTF-16 text, not UTF-8: save it as UTF-8", path, 1) \
                    from None
        raise DataFormatError(f"not UTF-8 text (byte {exc.start})", path) from None


def _parse_int_bytes(data: bytes):
    """Vectorised :func:`parse_int_lines` for digits and ``, \\t\\n`` only; None otherwise."""
    buf = np.frombuffer(data, dtype=np.uint8)
    if buf.size == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64)
    digit = (buf - np.uint8(48)) < 10  # uint8 wrap-around: True exactly for b"0".."9"
    if not np.all(digit | (buf == 10) | (buf == 44) | (buf == 32) | (buf == 9)):
        return None
    edge = np.diff(digit.view(np.int8), prepend=np.int8(0), append=np.int8(0))
    starts = np.flatnonzero(edge == 1)
    lengths = np.flatnonzero(edge == -1) - starts
    del edge, digit
    if starts.size and lengths.max() > 18:  # could overflow int64
        return None
    # Horner's rule over digit positions (at most 18 passes over the tokens).
    values = np.zeros(starts.size, dtype=np.int64)
    for k in range(int(lengths.max()) if starts.size else 0):
        live = np.flatnonzero(lengths > k)
        values[live] = values[live] * 10 + (buf[starts[live] + k] - 48)
    newlines = np.flatnonzero(buf == 10)
    n_lines = newlines.size + (0 if buf[-1] == 10 else 1)
    sizes = np.bincount(np.searchsorted(newlines, starts), minlength=n_lines).astype(np.int64)
    return values, sizes, np.arange(1, n_lines + 1)


def check_id_range(values, sizes, line_no, low: int, high: int, path, what="node id"):
    """Raise naming the line of the first entry outside ``[low, high]``."""
    if values.size == 0:
        return
    bad = np.flatnonzero((values < low) | (values > high))
    if bad.size:
        rec = int(np.searchsorted(np.cumsum(sizes), bad[0], side="right"))
        raise DataFormatError(f"{what} {values[bad[0]]} outside [{low}, {high}] "
                              f"({bad.size} such entries)", path, int(line_no[rec]))


def encode_labels(raw, path=None):
    """Map raw class labels (integral numbers) to ``0..k-1`` in sorted order; negatives stay ``-1``.

    Returns
    -------
    labels : ndarray of int64, shape (n,)
    classes : ndarray, shape (k,)
        ``classes[c]`` is the raw label mapped to ``c``.
    """
    arr = np.asarray(raw)
    if arr.ndim != 1:
        arr = arr.reshape(-1) if arr.ndim == 2 and 1 in arr.shape else arr
    if arr.ndim != 1:
        raise DataFormatError(f"labels must be one-dimensional, got shape {arr.shape}", path)
    if arr.size and not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            raise DataFormatError(f"labels must be numbers, got dtype {arr.dtype}", path) from None
    if np.issubdtype(arr.dtype, np.floating):
        bad = np.flatnonzero(~np.isfinite(arr) | (arr != np.round(arr)))
        if bad.size:
            raise DataFormatError(f"label of node {bad[0]} is {arr[bad[0]]!r}, not an integer", path)
    arr = arr.astype(np.int64)
    out = np.full(arr.shape[0], -1, dtype=np.int64)
    ok = arr >= 0
    classes, inv = np.unique(arr[ok], return_inverse=True)
    out[ok] = inv.reshape(-1)
    return out, classes


def build(nodes, edges, n_nodes, n_edges, *, labels=None, features=None, weights=None,
          node_names=None, edge_names=None, name=None, notes=None, original_ids=None,
          node_ids=None, edge_ids=None, **options) -> Hypergraph:
    """Build a Hypergraph from membership pairs, reader notes in ``cleaning.extra``."""
    hg = Hypergraph.from_pairs(nodes, edges, n_nodes=n_nodes, n_edges=n_edges, weights=weights,
                               edge_names=edge_names, edge_ids=edge_ids,
                               **{"duplicates": "merge", **check_options(options)})
    cleaning = hg.cleaning
    if notes:
        cleaning = dataclasses.replace(cleaning, extra={**cleaning.extra, **notes})
    return Hypergraph(hg.incidence, weights=hg.weights, features=features, labels=labels,
                      node_names=node_names, edge_names=hg.edge_names, parent_positions=original_ids,
                      cleaning=cleaning, name=name, node_ids=node_ids,
                      edge_ids=None if edge_ids is None else hg.edge_ids)
