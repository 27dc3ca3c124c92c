"""Benchmark data for the scripts here: the shared datasets through the harness
(:func:`hyperclust.bench.data.default_data_dir`: $HYPERCLUST_DATA or ../shared/data)."""

from __future__ import annotations

from hyperclust import Hypergraph
from hyperclust.bench.data import default_data_dir
from hyperclust.datasets import resolve_dataset

DATA_DIR = default_data_dir()


def load(name: str, data_dir=None) -> Hypergraph:
    """Structure + labels of a shared dataset (or a synthetic name), as the library loads it."""
    return resolve_dataset(name, str(data_dir or DATA_DIR))
