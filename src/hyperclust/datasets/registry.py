"""The dataset registry: ``{name: DatasetSpec}``, looked up case-insensitively."""

from __future__ import annotations

import difflib

from .._registry import add_entry
from .catalog import read_catalog
from .spec import DatasetSpec, FileSpec

__all__ = ["DatasetSpec", "FileSpec", "DATASETS", "get_spec", "dataset_names",
           "register_dataset"]

#: ``{name: DatasetSpec}`` in catalog order.
DATASETS: dict[str, DatasetSpec] = {spec.name: spec for spec in read_catalog()}


def register_dataset(spec: DatasetSpec, *, replace: bool = False) -> None:
    """Add ``spec`` to the registry (e.g. from a plugin's entry point).

    Examples
    --------
    >>> register_dataset(DatasetSpec(
    ...     name="toy", format="edgelist", files=(FileSpec("toy.txt", "0" * 64, None),),
    ...     source="hand-made", description="a toy", n_nodes=3, n_edges=1, n_edges_raw=1,
    ...     n_edges_unique=1, n_classes=None, n_features=None, isolated_nodes=0,
    ...     homophily="n/a"))
    >>> get_spec("TOY").folder
    'toy'
    >>> del DATASETS["toy"]
    """
    from ..io.formats import FORMATS

    name = getattr(spec, "name", None)
    if isinstance(name, str) and name != name.lower():  # names are looked up lower-cased
        raise ValueError(f"dataset names are lower-case, got {name!r}")
    if getattr(spec, "format", None) not in FORMATS:
        raise ValueError(f"unknown format {getattr(spec, 'format', None)!r}; use one of "
                         f"{', '.join(FORMATS)}")
    add_entry(DATASETS, name, spec, DatasetSpec, "dataset", replace=replace)


def dataset_names() -> list[str]:
    """All registered dataset names (lower case), in registry order.

    Examples
    --------
    >>> names = dataset_names()
    >>> names[0], "cora-ca" in names, all(n == n.lower() for n in names)
    ('cora-ca', True, True)
    """
    return list(DATASETS)


def get_spec(name: str) -> DatasetSpec:
    """The :class:`DatasetSpec` of ``name`` (any case, surrounding spaces ignored).

    Raises
    ------
    ValueError
        For an unknown name, listing the closest registered names.

    Examples
    --------
    >>> spec = get_spec(" Cora-CA ")
    >>> spec.name, spec.format, spec.n_nodes, spec.n_classes
    ('cora-ca', 'hypergcn', 2708, 7)
    >>> get_spec("cora-xx")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: unknown dataset 'cora-xx'; did you mean ...cora-ca...? registered: ...
    """
    if not isinstance(name, str):
        raise TypeError(f"dataset name must be a string, got {type(name).__name__}")
    key = name.strip().lower()
    if key in DATASETS:
        return DATASETS[key]
    close = difflib.get_close_matches(key, DATASETS, n=4, cutoff=0.5)
    hint = f"did you mean {', '.join(close)}? " if close else ""
    raise ValueError(f"unknown dataset {name!r}; {hint}registered: {', '.join(DATASETS)}")
