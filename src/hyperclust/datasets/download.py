"""Checksummed, atomic downloads into the dataset cache: a file is streamed to a temporary
file and moved into place only when complete with the expected SHA-256.
"""

from __future__ import annotations

import hashlib
import http.client
import os
import tempfile
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlparse

from ..io.errors import DataFormatError

__all__ = ["ChecksumError", "DownloadError", "sha256sum", "download_file", "verify_file"]

_ALLOWED_SCHEMES = ("http", "https", "file")
_CHUNK = 1 << 16


class ChecksumError(DataFormatError):
    """A file's SHA-256 differs from the registry's.

    Parameters
    ----------
    path : str or PathLike
    expected, actual : str
        Hex digests (kept as attributes).
    what : str
        What was checked, named in the message.
    recovery : str, optional
        How to fix it, appended to the message.

    Examples
    --------
    >>> err = ChecksumError("zoo.edges", "ab" * 32, "cd" * 32, recovery="delete it")
    >>> err.path, err.actual[:4], str(err).endswith("version); delete it")
    ('zoo.edges', 'cdcd', True)
    """

    def __init__(self, path, expected: str, actual: str, what: str = "file",
                 recovery: str | None = None):
        self.expected, self.actual = expected, actual
        fix = f"; {recovery}" if recovery else ""
        super().__init__(f"SHA-256 mismatch for {what}: expected {expected}, got {actual} "
                         f"(the file is corrupt or not the published version){fix}", path)


class DownloadError(OSError):
    """A download failed (network, HTTP status, truncated body).

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     download_file(f"file://{d}/missing.txt", f"{d}/x.txt", "0" * 64)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    hyperclust.datasets.download.DownloadError: download of file://.../missing.txt failed after 0 bytes: URLError: ...
    """


def sha256sum(path) -> str:
    """Hex SHA-256 of a file (64 lower-case hex digits).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     _ = (pathlib.Path(d) / "abc.txt").write_bytes(b"abc")
    ...     sha256sum(pathlib.Path(d) / "abc.txt")
    'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'
    """
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def verify_file(path, expected: str) -> None:
    """Raise :class:`ChecksumError` when the file's SHA-256 differs from ``expected`` (any case).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = pathlib.Path(d) / "abc.txt"
    ...     _ = path.write_bytes(b"abc")
    ...     verify_file(path, "BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD")
    ...     _ = path.write_bytes(b"abd")
    ...     verify_file(path, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    Traceback (most recent call last):
    ...
    hyperclust.datasets.download.ChecksumError: ...abc.txt: SHA-256 mismatch for file: expected ba7816bf..., got ...
    """
    actual = sha256sum(path)
    if actual != expected.lower():
        raise ChecksumError(path, expected.lower(), actual)


def _stream(url: str, out, timeout: float) -> str:
    """Write the body of ``url`` to ``out``; its SHA-256 hex digest, or ``DownloadError``."""
    h = hashlib.sha256()
    received = 0
    try:
        req = urllib.request.Request(url, headers={"User-Agent": "hyperclust"})
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            length = resp.headers.get("Content-Length")
            while True:
                block = resp.read(_CHUNK)
                if not block:
                    break
                out.write(block)
                h.update(block)
                received += len(block)
    except urllib.error.HTTPError as exc:
        raise DownloadError(f"download of {url} failed: HTTP {exc.code} {exc.reason}") from None
    except (urllib.error.URLError, http.client.HTTPException, OSError) as exc:
        reason = getattr(exc, "reason", None) or exc
        raise DownloadError(f"download of {url} failed after {received} bytes: "
                            f"{type(exc).__name__}: {reason}") from None
    if length is not None and length.isdigit() and received != int(length):
        raise DownloadError(f"download of {url} is truncated: {received} of {length} bytes")
    return h.hexdigest()


def download_file(url: str, dest, sha256: str, *, timeout: float = 60.0) -> Path:
    """Download ``url`` to ``dest``, verifying its SHA-256, atomically.

    Parameters
    ----------
    url : str
        An ``http``, ``https`` or ``file`` URL.
    dest : str or PathLike
        Final path; a file already there with the right hash is kept.
    sha256 : str
    timeout : float
        Seconds for the connection and for each read.

    Returns
    -------
    Path
        ``dest``.

    Raises
    ------
    ChecksumError
        The downloaded bytes have another hash (nothing is left behind).
    DownloadError
        Any network/HTTP failure or a truncated body.

    Examples
    --------
    A ``file://`` URL stands in for a server; a wrong hash leaves nothing behind:

    >>> import pathlib, tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     d = pathlib.Path(d)
    ...     _ = (d / "served.txt").write_bytes(b"abc")
    ...     good = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    ...     out = download_file((d / "served.txt").as_uri(), d / "cache" / "abc.txt", good)
    ...     print(out.read_bytes())
    ...     try:
    ...         download_file((d / "served.txt").as_uri(), d / "cache" / "bad.txt", "0" * 64)
    ...     except ChecksumError:
    ...         print(sorted(p.name for p in (d / "cache").iterdir()))
    b'abc'
    ['abc.txt']
    """
    dest = Path(dest)
    expected = sha256.lower()
    if dest.is_file() and sha256sum(dest) == expected:
        return dest
    scheme = urlparse(url).scheme.lower()
    if scheme not in _ALLOWED_SCHEMES:
        raise ValueError(f"refusing to download {url!r}: scheme must be one of {_ALLOWED_SCHEMES}")
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".part", dir=dest.parent)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as out:
            actual = _stream(url, out, timeout)
            out.flush()
            os.fsync(out.fileno())
        if actual != expected:
            raise ChecksumError(dest, expected, actual, what=f"download of {url}")
        os.replace(tmp, dest)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return dest
