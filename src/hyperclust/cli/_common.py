"""What every ``hyperclust`` command shares: the one-line user error, tables, argument checks."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

__all__ = ["UserError", "format_value", "print_table", "check_device", "DATA_HELP",
           "cli_words", "check_data_dir", "check_seed", "method_name"]

DATA_HELP = ("local data directory (a folder of dataset folders, or one dataset folder); "
             "default $HYPERCLUST_DATA, then the download cache")


#: API parameter names in library messages, and the command-line flag each one is.
_API_TO_FLAG = ((re.compile(r"\bheader=False\b"), "--no-header"),
                (re.compile(r"\bheader=True\b"), "--header"),
                (re.compile(r"\bindex_base\b"), "--index-base"),
                (re.compile(r"\bformat=(?=[\s'\"])"), "--format"),
                (re.compile(r"\bsep=(?=[\s'\"])"), "--sep"),
                (re.compile(r"\bdata_dir=(?=[\s'\"])"), "--data-dir"),
                (re.compile(r"\brandom_state\b"), "--seed"),
                (re.compile(r"\bn_clusters\b"), "--k"))


def cli_words(message: str) -> str:
    """``message`` with API parameter names replaced by the command-line flags that set them.

    Examples
    --------
    >>> cli_words("looks like a header and is skipped (pass header=False to keep it)")
    'looks like a header and is skipped (pass --no-header to keep it)'
    """
    for pattern, flag in _API_TO_FLAG:
        message = pattern.sub(flag, message)
    return message


class UserError(Exception):
    """A mistake in the command line or the input: printed as ``hyperclust: error: ...``, exit status 2.

    Examples
    --------
    >>> from hyperclust.cli import main
    >>> main(["cluster", "no/such/file.txt", "--k", "2"])
    2
    """


def format_value(v) -> str:
    """A table cell: floats with 3 decimals, None as ``-``, anything else as ``str``.

    Examples
    --------
    >>> format_value(2 / 3), format_value(None), format_value(42), format_value(True)
    ('0.667', '-', '42', 'True')
    """
    if isinstance(v, float):
        return f"{v:.3f}"
    return "-" if v is None else str(v)


def print_table(rows: list[dict], columns: list[str], out=None) -> None:
    """Print ``rows`` (dicts; missing keys as ``-``) as a plain-text table of ``columns``.

    Examples
    --------
    >>> print_table([{"method": "kmeans", "acc": 0.5}, {"method": "unidhc", "acc": 0.875}],
    ...             ["method", "acc", "nmi"])
    method  acc    nmi
    ------  -----  ---
    kmeans  0.500  -
    unidhc  0.875  -
    """
    out = out or sys.stdout
    cells = [[format_value(r.get(c)) for c in columns] for r in rows]
    widths = [max([len(c)] + [len(row[i]) for row in cells]) for i, c in enumerate(columns)]
    out.write("  ".join(c.ljust(w) for c, w in zip(columns, widths)).rstrip() + "\n")
    out.write("  ".join("-" * w for w in widths) + "\n")
    for row in cells:
        out.write("  ".join(v.ljust(w) for v, w in zip(row, widths)).rstrip() + "\n")


def check_device(device: str) -> str:
    """A usable torch device name (``cpu``, ``cuda``, ``cuda:N``, ``mps``), lower-cased, or a UserError.

    Examples
    --------
    >>> check_device(" CPU ")
    'cpu'
    >>> check_device("gpu")
    Traceback (most recent call last):
    ...
    hyperclust.cli._common.UserError: unknown device 'gpu'; use cpu, cuda, cuda:N or mps
    """
    name = str(device).strip().lower()
    kind, _, index = name.partition(":")
    if kind not in ("cpu", "cuda", "mps") or (index and not index.isdigit()) or \
            (kind != "cuda" and index):
        raise UserError(f"unknown device {device!r}; use cpu, cuda, cuda:N or mps")
    if kind == "cpu":
        return name
    try:
        import torch
    except ImportError:
        raise UserError(f"device {device!r} needs torch, which is not installed") from None
    if kind == "cuda":
        if not torch.cuda.is_available():
            raise UserError(f"device {device!r}: no CUDA GPU is available here; use --device cpu")
        if index and int(index) >= torch.cuda.device_count():
            raise UserError(f"device {device!r}: only {torch.cuda.device_count()} CUDA "
                            "device(s) here")
    elif not (hasattr(torch.backends, "mps") and torch.backends.mps.is_available()):
        raise UserError("device 'mps' is not available here; use --device cpu")
    return name


def check_data_dir(data_dir) -> None:
    """Refuse a ``--data-dir`` or ``$HYPERCLUST_DATA`` that is not a folder.

    Examples
    --------
    >>> check_data_dir("/no/such/folder")
    Traceback (most recent call last):
    ...
    hyperclust.cli._common.UserError: data directory not found: --data-dir /no/such/folder is not a folder
    """
    if data_dir is not None and not Path(data_dir).expanduser().is_dir():
        raise UserError(f"data directory not found: --data-dir {data_dir} is not a folder")
    env = os.environ.get("HYPERCLUST_DATA")
    if env and not Path(env).expanduser().is_dir():
        raise UserError(f"data directory not found: $HYPERCLUST_DATA={env} is not a folder; "
                        "unset it or point it at the data folder")


def check_seed(seed: int) -> int:
    """``--seed`` as every method takes it: an integer in ``[0, 2**32 - 1]``.

    Examples
    --------
    >>> check_seed(-1)
    Traceback (most recent call last):
    ...
    hyperclust.cli._common.UserError: --seed must be between 0 and 4294967295, got -1
    """
    if not 0 <= seed <= 2**32 - 1:
        raise UserError(f"--seed must be between 0 and {2**32 - 1}, got {seed}")
    return seed


def method_name(given: str, known) -> str:
    """``--method`` as registered (any case, ``_`` for ``-``); unknown: a UserError with the closest name.

    Examples
    --------
    >>> method_name("SPECTRAL_Zhou", ["auto", "spectral-zhou"])
    'spectral-zhou'
    >>> method_name("spectral-zou", ["auto", "spectral-zhou"])
    Traceback (most recent call last):
    ...
    hyperclust.cli._common.UserError: unknown method 'spectral-zou' (did you mean spectral-zhou?); available: auto, spectral-zhou
    """
    import difflib

    name = given.strip().lower().replace("_", "-")
    if name in known:
        return name
    close = difflib.get_close_matches(name, list(known), n=1)
    raise UserError(f"unknown method {given!r}"
                    + (f" (did you mean {close[0]}?)" if close else "")
                    + f"; available: {', '.join(known)}")
