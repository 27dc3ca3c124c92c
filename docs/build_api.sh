#!/usr/bin/env bash
# Build the API reference (HTML) with pdoc: offline, from the numpydoc docstrings.
# Usage: bash docs/build_api.sh [OUTPUT_DIR]   (default docs/api; $PYTHON picks the
# interpreter). Needs `pip install pdoc` (in the test extra); with the deep/interop extras
# installed too, every page is complete.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$root/docs/api}"
PYTHONPATH="$root/src${PYTHONPATH:+:$PYTHONPATH}" "${PYTHON:-python}" - "$out" <<'PY'
import pkgutil
import sys
from pathlib import Path

import pdoc
import pdoc.render

import importlib

import hyperclust

# Every public module (no part of its name starts with "_"): pdoc follows __all__, which
# lists names, not modules, so the modules are named here.
modules = ["hyperclust"] + sorted(
    info.name for info in pkgutil.walk_packages(hyperclust.__path__, "hyperclust.")
    if not any(part.startswith("_") for part in info.name.split(".")))
# Packages such as hyperclust.cluster import their classes on first use: load them so pdoc
# sees them.
for module in map(importlib.import_module, modules):
    for name in getattr(module, "__all__", ()):
        vars(module).setdefault(name, getattr(module, name))
pdoc.render.configure(docformat="numpy")
pdoc.pdoc(*modules, output_directory=Path(sys.argv[1]))
PY
echo "API reference written to $out/index.html"
