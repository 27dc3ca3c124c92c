"""Benchmark data access through ``hyperclust.datasets.load_dataset`` ($HYPERCLUST_DATA or
../shared/data beside the repository)."""

from __future__ import annotations

import os
from pathlib import Path

from hyperclust import Hypergraph
from hyperclust.datasets import load_dataset

DATA_DIR = Path(os.environ.get("HYPERCLUST_DATA", Path(__file__).resolve().parents[1].parent / "shared" / "data"))


def load(name: str) -> Hypergraph:
    """Structure + labels of a shared dataset, as the library loader returns it."""
    return load_dataset(name, data_dir=str(DATA_DIR))
