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

# The gallery: every runnable example (examples/*.py), its docstring and its code.
import ast
import html

root = Path(hyperclust.__file__).resolve().parents[2]
parts = ["<!doctype html><meta charset='utf-8'><title>hyperclust examples</title>",
         "<h1>Examples</h1><p>Runnable scripts (each is run by the test suite). "
         "<a href='hyperclust.html'>API reference</a></p>"]
for script in sorted((root / "examples").glob("*.py")):
    code = script.read_text()
    about = ast.get_docstring(ast.parse(code)) or ""
    parts.append(f"<h2 id='{script.stem}'>{script.name}</h2><p>{html.escape(about)}</p>"
                 f"<pre><code>{html.escape(code)}</code></pre>")
(Path(sys.argv[1]) / "examples.html").write_text("\n".join(parts), encoding="utf-8")
PY
echo "API reference written to $out/index.html"
