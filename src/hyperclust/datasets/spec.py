"""What a registered dataset is: :class:`DatasetSpec` (one per dataset) and its files."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

__all__ = ["FileSpec", "DatasetSpec", "HOMOPHILIC", "HETEROPHILIC"]

HOMOPHILIC = "homophilic"
HETEROPHILIC = "heterophilic"


@dataclass(frozen=True)
class FileSpec:
    """One file of a dataset.

    Attributes
    ----------
    name : str
        File name inside the dataset folder.
    sha256 : str
    url : str or None
        Public URL; None when the file has none of its own.
    required : bool
        Needed to load (optional files are verified when present).

    Examples
    --------
    >>> f = FileSpec("hyperedges.txt", "ab" * 32, None, required=False)
    >>> f.name, len(f.sha256), f.required
    ('hyperedges.txt', 64, False)
    """

    name: str
    sha256: str
    url: str | None
    required: bool = True


@dataclass(frozen=True, kw_only=True)
class DatasetSpec:
    """One registered dataset: source, files with checksums, format, statistics.

    ``format`` is a name of :data:`hyperclust.io.formats.FORMATS`; ``folder`` defaults to
    ``name``; ``reader_options`` go to the reader; ``original_ids_file``: an optional ``.npy``
    of the nodes' ids in a parent dataset; ``quiet`` silences known reader warnings.

    Examples
    --------
    >>> spec = DatasetSpec(
    ...     name="toy", format="edgelist", files=(FileSpec("toy.txt", "0" * 64, None),),
    ...     source="hand-made", description="two hyperedges", n_nodes=4, n_edges=2,
    ...     n_edges_raw=2, n_edges_unique=2, n_classes=None, n_features=None,
    ...     isolated_nodes=0, homophily="n/a")
    >>> spec.folder, spec.has_features, spec.as_dict()["files"][0]["name"]
    ('toy', False, 'toy.txt')
    """

    name: str
    folder: str = ""
    format: str
    files: tuple
    source: str
    description: str
    n_nodes: int
    n_edges: int
    n_edges_raw: int
    n_edges_unique: int
    n_classes: int | None
    n_features: int | None
    isolated_nodes: int
    homophily: str
    notes: str = ""
    reader_options: dict = field(default_factory=dict)
    original_ids_file: str | None = None
    quiet: bool = False

    def __post_init__(self):
        if not self.folder:
            object.__setattr__(self, "folder", self.name)

    @property
    def has_features(self) -> bool:
        return self.n_features is not None

    def as_dict(self) -> dict:
        d = asdict(self)
        d["files"] = [asdict(f) for f in self.files]
        d["has_features"] = self.has_features
        return d
