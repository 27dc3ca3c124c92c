#!/usr/bin/env bash
# Build the API reference (HTML) with pdoc: offline, from the numpydoc docstrings.
# Usage: bash docs/build_api.sh [OUTPUT_DIR]   (default docs/api; $PYTHON picks the
# interpreter). Needs `pip install pdoc` (in the test extra); with the deep/interop extras
# installed too, every page is complete.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$root/docs/api}"
PYTHONPATH="$root/src${PYTHONPATH:+:$PYTHONPATH}" "${PYTHON:-python}" - "$out" <<'PY'
import sys
from pathlib import Path

import pdoc
import pdoc.render

import hyperclust.cluster

# hyperclust.cluster imports its estimators on first use; load them so pdoc sees them.
for name in hyperclust.cluster.__all__:
    getattr(hyperclust.cluster, name)
# hyperclust/__init__ lists only top-level names in __all__, so name the public modules.
modules = ["hyperclust", "hyperclust.hypergraph", "hyperclust.convert", "hyperclust.cluster",
           "hyperclust.cluster.base", "hyperclust.cluster.registry",
           "hyperclust.cluster.baselines", "hyperclust.cluster.spectral",
           "hyperclust.cluster.unidhc", "hyperclust.plotting", "hyperclust.io",
           "hyperclust.datasets", "hyperclust.metrics", "hyperclust.operators",
           "hyperclust.cli"]
pdoc.render.configure(docformat="numpy")
pdoc.pdoc(*modules, output_directory=Path(sys.argv[1]))
PY
echo "API reference written to $out/index.html"
