"""Where a registered dataset's files are: the data directory, ``$HYPERCLUST_DATA`` or the
download cache (downloading missing files there), each file checked against its SHA-256."""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import quote

from .registry import get_spec
from .spec import DatasetSpec

__all__ = ["default_cache_dir", "locate_dataset", "resolve_folder"]


def default_cache_dir(cache_dir=None) -> Path:
    """``cache_dir`` (``~`` expanded), else ``$HYPERCLUST_CACHE``, else ``~/.cache/hyperclust``.

    Examples
    --------
    >>> import pathlib
    >>> default_cache_dir("/tmp/hc-cache")
    PosixPath('/tmp/hc-cache')
    >>> default_cache_dir("~/x") == pathlib.Path.home() / "x"
    True
    """
    if cache_dir is not None:
        return Path(cache_dir).expanduser()
    env = os.environ.get("HYPERCLUST_CACHE")
    if env:
        return Path(env).expanduser()
    return Path("~/.cache/hyperclust").expanduser()


def _candidates(spec: DatasetSpec, data_dir, cache_dir) -> list[tuple[str, Path]]:
    out = []
    for origin, root in (("data_dir", data_dir), ("$HYPERCLUST_DATA", os.environ.get("HYPERCLUST_DATA"))):
        if root:
            root = Path(root).expanduser()
            out.append((origin, root / spec.folder))
            out.append((origin, root))  # the dataset folder itself
    out.append(("cache", default_cache_dir(cache_dir) / spec.folder))
    return out


def _has_required(spec: DatasetSpec, folder: Path) -> bool:
    return all((folder / f.name).is_file() for f in spec.files if f.required)


def locate_dataset(name: str, data_dir=None, cache_dir=None):
    """The local folder holding the required files of ``name``, or None (checksums not verified).

    Parameters
    ----------
    name : str
    data_dir : str or PathLike, optional
        The collection root (holding ``<folder>/``) or the dataset folder; searched first,
        then ``$HYPERCLUST_DATA``, then the cache.
    cache_dir : str or PathLike, optional
        See :func:`default_cache_dir`.

    Examples
    --------
    ``data_dir`` is searched first; empty stand-ins of ``cora-ca``'s files are enough to be
    *located* (loading would verify their checksums and fail):

    >>> import pathlib, tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     root = pathlib.Path(d)
    ...     (root / "cora-ca").mkdir()
    ...     for f in get_spec("cora-ca").files:
    ...         _ = (root / "cora-ca" / f.name).write_bytes(b"")
    ...     found = locate_dataset("cora-ca", data_dir=root, cache_dir=root / "cache")
    ...     print(found.relative_to(root))
    cora-ca
    """
    spec = get_spec(name)
    for _, folder in _candidates(spec, data_dir, cache_dir):
        if folder.is_dir() and _has_required(spec, folder):
            return folder
    return None


def _base_url(base_url):
    base = base_url if base_url is not None else os.environ.get("HYPERCLUST_BASE_URL")
    return base.rstrip("/") + "/" if base else None


def _fetch_missing(spec: DatasetSpec, folder: Path, base_url, timeout) -> None:
    from .download import download_file

    base = _base_url(base_url)
    for f in spec.files:
        if not f.required or (folder / f.name).is_file():
            continue
        if base is not None:
            url = base + quote(f"{spec.folder}/{f.name}")
        elif f.url is not None:
            url = f.url
        else:
            raise FileNotFoundError(f"{spec.name}: {f.name} has no public URL; place the dataset "
                                    "folder under data_dir or $HYPERCLUST_DATA")
        download_file(url, folder / f.name, f.sha256, timeout=timeout)


def resolve_folder(spec: DatasetSpec, data_dir, cache_dir, download, base_url, timeout) -> Path:
    """The folder holding ``spec``'s files (missing ones downloaded when ``download``), verified.

    Parameters
    ----------
    spec : DatasetSpec
    data_dir, cache_dir : str or PathLike or None
        As for :func:`locate_dataset`; a given ``data_dir`` must hold the dataset.
    download : bool
    base_url : str or None
        A mirror to download from (also ``$HYPERCLUST_BASE_URL``).
    timeout : float

    Returns
    -------
    Path

    Raises
    ------
    FileNotFoundError
        ``data_dir`` lacks the dataset, or it is nowhere local and ``download`` is false.
    ChecksumError
        A file present differs from the registry's hash.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     resolve_folder(get_spec("zoo"), d, d, False, None, 1.0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    FileNotFoundError: dataset 'zoo' is not in data directory ...; omit the data directory to download it into the cache
    """
    from .download import ChecksumError, verify_file

    if data_dir is not None:
        root = Path(data_dir).expanduser()
        if not root.is_dir():
            raise FileNotFoundError(f"data directory not found: {root}" if not root.exists()
                                    else f"data directory is a file, not a folder: {root}")
        if not any(folder.is_dir() and _has_required(spec, folder)
                   for origin, folder in _candidates(spec, data_dir, cache_dir)
                   if origin == "data_dir"):
            raise FileNotFoundError(
                f"dataset {spec.name!r} is not in data directory {root} (looked for "
                f"{root / spec.folder} holding {', '.join(f.name for f in spec.files if f.required)}"
                "); omit the data directory to download it into the cache")
    searched = []
    for origin, folder in _candidates(spec, data_dir, cache_dir):
        searched.append(f"{folder} ({origin})")
        if folder.is_dir() and _has_required(spec, folder):
            break
    else:
        folder = default_cache_dir(cache_dir) / spec.folder
        cache = default_cache_dir(cache_dir)
        if download and cache.exists() and not cache.is_dir():
            where = "$HYPERCLUST_CACHE=" if cache_dir is None else "cache_dir "
            raise NotADirectoryError(f"the download cache {where}{cache} is not a folder; "
                                     "point it at a folder (or unset it)")
        if not download:
            raise FileNotFoundError(
                f"dataset {spec.name!r} not found locally (searched: {'; '.join(searched)}); "
                "pass data_dir=, set $HYPERCLUST_DATA, or allow download=True")
        _fetch_missing(spec, folder, base_url, timeout)
    in_cache = folder.resolve().is_relative_to(default_cache_dir(cache_dir).resolve())
    for f in spec.files:
        if (folder / f.name).is_file():
            try:
                verify_file(folder / f.name, f.sha256)
            except ChecksumError as exc:
                fix = ("delete it and load again to download a fresh copy" if in_cache else
                       "replace it with the original file from " +
                       (f.url or "the dataset's public source") +
                       ", or remove the data directory option to use the download cache")
                raise ChecksumError(exc.path, exc.expected, exc.actual,
                                    recovery=fix) from None
    return folder
