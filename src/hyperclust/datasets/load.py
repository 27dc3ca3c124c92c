"""Loading a registered dataset: locate its files, read them, list the registry."""

from __future__ import annotations

import warnings

import numpy as np

from ..hypergraph import Hypergraph
from .locate import locate_dataset, resolve_folder
from .registry import DATASETS, get_spec
from .spec import DatasetSpec

__all__ = ["load_dataset", "list_datasets", "dataset_info", "LabelLeakWarning"]


class LabelLeakWarning(UserWarning):
    """Features built from the labels were requested: clustering scores become meaningless.

    Examples
    --------
    Make it an error, so that no experiment can use leaked features by accident:

    >>> import warnings
    >>> issubclass(LabelLeakWarning, UserWarning)
    True
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("error", LabelLeakWarning)
    ...     warnings.warn("features built from the labels", LabelLeakWarning)
    Traceback (most recent call last):
    ...
    hyperclust.datasets.load.LabelLeakWarning: features built from the labels
    """


def _read(spec: DatasetSpec, folder, options) -> Hypergraph:
    """Read ``folder`` in ``spec``'s format (single-file formats: the spec's first file)."""
    from ..io.formats import FORMATS, Source

    fmt = FORMATS[spec.format]
    source = Source(folder if fmt.directory else folder / spec.files[0].name)
    extra = dict(spec.reader_options)
    if spec.original_ids_file and (folder / spec.original_ids_file).is_file():
        from ..io.safe_pickle import load_npy

        extra["original_ids"] = load_npy(folder / spec.original_ids_file)
    with warnings.catch_warnings():
        if spec.quiet:
            warnings.simplefilter("ignore", UserWarning)
        return fmt.read(source, name=spec.name, **extra, **options)


def load_dataset(name: str, data_dir=None, cache_dir=None, download: bool = True, *,
                 leak_labels_as_features: bool = False, leak_noise_std: float = 1.0,
                 random_state=0, base_url: str | None = None, timeout: float = 60.0,
                 **options) -> Hypergraph:
    """Load a registered dataset as a :class:`~hyperclust.Hypergraph`.

    Files are looked up in ``data_dir`` (the collection root or the dataset's folder), then
    ``$HYPERCLUST_DATA``, then the cache (``cache_dir``, ``$HYPERCLUST_CACHE``,
    ``~/.cache/hyperclust``), where missing files are downloaded when ``download`` is true.
    Every file is checked against its SHA-256.

    Parameters
    ----------
    name : str
        A name from :func:`list_datasets` (case-insensitive).
    data_dir, cache_dir : str or PathLike, optional
    download : bool
    leak_labels_as_features : bool
        Replace the features by one-hot labels plus Gaussian noise. **This leaks the
        labels**: scores obtained with it measure nothing (:class:`LabelLeakWarning`).
    leak_noise_std, random_state : float, int or numpy Generator
        Standard deviation and seed of that noise.
    base_url : str, optional
        Download from ``base_url + "/" + <folder>/<file>`` (also ``$HYPERCLUST_BASE_URL``).
    timeout : float
        Network timeout in seconds.
    **options
        ``duplicates``, ``singletons``, ``empty`` (:meth:`Hypergraph.from_pairs`); by default
        duplicate hyperedges are merged, singletons kept, empty hyperedges dropped.

    Returns
    -------
    Hypergraph
        Labels mapped to ``0..k-1`` (None for mag-10); features None if the dataset has none.

    Raises
    ------
    ValueError
        Unknown name (with close matches), bad options.
    ChecksumError
        A file does not match its checksum.
    FileNotFoundError, DownloadError
        The files are neither local nor downloadable.

    Examples
    --------
    A dataset registered for the example (a HIF file with labels), loaded from a local
    folder, its checksum verified, nothing downloaded:

    >>> import hashlib, json, pathlib, tempfile
    >>> from hyperclust.datasets import DatasetSpec, FileSpec, register_dataset
    >>> doc = {"nodes": [{"node": v, "attrs": {"label": y}} for v, y in enumerate([0, 0, 1, 1])],
    ...        "incidences": [{"edge": e, "node": v} for e, vs in enumerate([[0, 1, 2], [2, 3]])
    ...                       for v in vs]}
    >>> data = json.dumps(doc).encode()
    >>> register_dataset(DatasetSpec(
    ...     name="toy", format="hif", source="hand-made", description="4 nodes",
    ...     files=(FileSpec("toy.json", hashlib.sha256(data).hexdigest(), None),),
    ...     n_nodes=4, n_edges=2, n_edges_raw=2, n_edges_unique=2, n_classes=2,
    ...     n_features=None, isolated_nodes=0, homophily="n/a"))
    >>> with tempfile.TemporaryDirectory() as d:
    ...     _ = (pathlib.Path(d) / "toy.json").write_bytes(data)
    ...     hg = load_dataset("toy", data_dir=d, download=False)
    >>> hg.name, [e.tolist() for e in hg.edges()], hg.labels.tolist(), hg.features is None
    ('toy', [[0, 1, 2], [2, 3]], [0, 0, 1, 1], True)
    >>> from hyperclust.datasets.registry import DATASETS
    >>> del DATASETS["toy"]
    """
    spec = get_spec(name)
    folder = resolve_folder(spec, data_dir, cache_dir, download, base_url, timeout)
    hg = _read(spec, folder, options)
    if leak_labels_as_features:
        hg = _leak_labels(hg, leak_noise_std, random_state)
    return hg


def _leak_labels(hg: Hypergraph, noise_std: float, random_state) -> Hypergraph:
    """``hg`` with one-hot labels plus N(0, noise_std^2) noise as features, and a warning."""
    if hg.labels is None:
        raise ValueError(f"{hg.name}: leak_labels_as_features needs node labels")
    if not np.isfinite(noise_std) or noise_std < 0:
        raise ValueError(f"leak_noise_std must be a non-negative number, got {noise_std!r}")
    warnings.warn(f"{hg.name}: features built from the labels (one-hot + N(0, {noise_std}^2) "
                  "noise). They LEAK THE LABELS: clustering scores on them are meaningless "
                  "for unsupervised evaluation.", LabelLeakWarning, stacklevel=3)
    y = hg.labels
    k = int(y.max()) + 1 if (y >= 0).any() else 1
    X = np.zeros((hg.n_nodes, k))
    lab = np.flatnonzero(y >= 0)
    X[lab, y[lab]] = 1.0
    X += np.random.default_rng(random_state).normal(0.0, noise_std, size=X.shape)
    return hg.replace(features=X)


def list_datasets(data_dir=None, cache_dir=None) -> list[dict]:
    """One record per registered dataset.

    Parameters
    ----------
    data_dir, cache_dir : str or PathLike, optional
        Where to look for the files (see :func:`load_dataset`).

    Returns
    -------
    list of dict
        Keys ``name, n_nodes, n_edges, n_classes, features, format, homophily, available``
        (``available``: the files are present; checksums are checked only when loading).

    Examples
    --------
    Nothing is downloaded; ``available`` only looks for files:

    >>> rows = list_datasets()
    >>> {k: rows[0][k] for k in ("name", "n_nodes", "n_edges", "n_classes", "format")}
    {'name': 'cora-ca', 'n_nodes': 2708, 'n_edges': 970, 'n_classes': 7, 'format': 'hypergcn'}
    >>> sorted(rows[0])
    ['available', 'features', 'format', 'homophily', 'n_classes', 'n_edges', 'n_nodes', 'name']
    """
    rows = []
    for spec in DATASETS.values():
        rows.append({
            "name": spec.name, "n_nodes": spec.n_nodes, "n_edges": spec.n_edges,
            "n_classes": spec.n_classes, "features": spec.n_features, "format": spec.format,
            "homophily": spec.homophily,
            "available": locate_dataset(spec.name, data_dir, cache_dir) is not None,
        })
    return rows


def dataset_info(name: str) -> dict:
    """All registry facts about ``name`` (case-insensitive): the fields of :class:`DatasetSpec`,
    ``files`` as a list of dicts, and ``has_features``.

    Examples
    --------
    >>> info = dataset_info("Zoo")
    >>> info["n_nodes"], info["n_classes"], info["format"], [f["name"] for f in info["files"]]
    (101, 7, 'le', ['zoo.content', 'zoo.edges'])
    """
    return get_spec(name).as_dict()
