"""Checksummed, atomic downloads into the dataset cache.

A file is streamed to a temporary file next to its destination while its SHA-256 is
computed; only a complete file with the expected hash is moved into place with
:func:`os.replace` (atomic on POSIX and Windows). Any failure (HTTP error, timeout, a
connection dropped mid-body, a hash mismatch) removes the temporary file, so the cache never
holds a partial or unverified file.
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
    """A file's SHA-256 differs from the registry's."""

    def __init__(self, path, expected: str, actual: str, what: str = "file",
                 recovery: str | None = None):
        self.expected, self.actual = expected, actual
        fix = f"; {recovery}" if recovery else ""
        super().__init__(f"SHA-256 mismatch for {what}: expected {expected}, got {actual} "
                         f"(the file is corrupt or not the published version){fix}", path)


class DownloadError(OSError):
    """A download failed (network, HTTP status, truncated body)."""


def sha256sum(path) -> str:
    """Hex SHA-256 of a file."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def verify_file(path, expected: str) -> None:
    """Raise :class:`ChecksumError` (naming the file, expected and actual hash) on mismatch."""
    actual = sha256sum(path)
    if actual != expected.lower():
        raise ChecksumError(path, expected.lower(), actual)


def download_file(url: str, dest, sha256: str, *, timeout: float = 60.0) -> Path:
    """Download ``url`` to ``dest``, verifying its SHA-256, atomically.

    Parameters
    ----------
    url : str
        An ``http``, ``https`` or ``file`` URL.
    dest : str or PathLike
        Final path; its directory is created. An existing file with the right hash is kept
        and nothing is requested.
    sha256 : str
        Expected hex digest.
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
        Any network/HTTP failure or a body shorter than its ``Content-Length``.
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
        h = hashlib.sha256()
        received = 0
        with os.fdopen(fd, "wb") as out:
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
            out.flush()
            os.fsync(out.fileno())
        actual = h.hexdigest()
        if actual != expected:
            raise ChecksumError(dest, expected, actual, what=f"download of {url}")
        os.replace(tmp, dest)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return dest
