"""Uni-DHC's basis at 10^6 x 32 (order 2) in numpy's memory (advised for huge pages) and in
plain pages (:func:`hyperclust.models.fresh_memory.plain_empty`): user and system CPU of the
first computation (the first touch of the result and the work block) and of a second one in
the same buffers (the products alone: what the page size costs them), each variant in a
fresh process, interleaved. Also the first touch alone of 512 MiB each way.

    OMP_NUM_THREADS=1 HYPERCLUST_NUM_THREADS=1 PYTHONPATH=src \\
        python benchmarks/studies/basis_memory.py --input hsbm.npz --repeats 3

``--input``: a hypergraph saved by ``benchmarks/bench_unidhc_setup.py`` (``save_input``);
without it the HSBM of ``--n`` nodes is built first.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VARIANTS = ("numpy", "plain")


def _usage():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime, r.ru_stime, r.ru_minflt


def _delta(before, after):
    return {"user_s": after[0] - before[0], "sys_s": after[1] - before[1],
            "faults": after[2] - before[2]}


def child(path, variant) -> dict:
    """The basis with ``variant``'s buffers, then the products again in the same buffers."""
    import numpy as np

    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_unidhc_setup import load_input

    from hyperclust.models.fresh_memory import plain_empty
    from hyperclust.operators.propagation import BASIS_DTYPE, PropagationOperator

    hg = load_input(path)
    X = np.asarray(hg.features)
    P = PropagationOperator(hg, self_loops=1.0, dtype=BASIS_DTYPE)
    empty = np.empty if variant == "numpy" else plain_empty
    shape = (3,) + X.shape
    before = _usage()
    out, work = empty(shape, BASIS_DTYPE), empty((P.n_edges, X.shape[1]), BASIS_DTYPE)
    np.divide(X, 2.0, out=out[0])
    for k in (1, 2):
        P.apply(out[k - 1], out=out[k], work=work)
    first = _delta(before, _usage())
    before = _usage()
    for k in (1, 2):
        P.apply(out[k - 1], out=out[k], work=work)
    again = _delta(before, _usage())
    before = _usage()
    block = empty((128 * 2 ** 20,), np.float32)  # 512 MiB
    block.fill(1.0)
    touch = _delta(before, _usage())
    return {"variant": variant, "first": first, "again": again, "touch_512mib": touch,
            "checksum": float(out[2].sum(dtype=np.float64))}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--input", help="saved hypergraph (bench_unidhc_setup's format)")
    ap.add_argument("--n", type=float, default=1e6)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(child(*args.child)))
        return
    import numpy as np

    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_unidhc_setup import save_input

    from hyperclust.bench.provenance import load_average, run_provenance

    print(json.dumps(run_provenance()), flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        path = args.input or str(Path(tmp) / "hsbm.npz")
        if not args.input:
            save_input(int(args.n), Path(path))
        runs = {v: [] for v in VARIANTS}
        for _ in range(args.repeats):
            for v in VARIANTS:
                out = subprocess.run([sys.executable, __file__, "--child", path, v],
                                     capture_output=True, text=True, check=True,
                                     env=dict(os.environ, PYTHONPATH=str(ROOT / "src")))
                runs[v].append(json.loads(out.stdout.strip().splitlines()[-1]))
                print(json.dumps(runs[v][-1]), flush=True)
    for v, rs in runs.items():
        cells = []
        for part in ("first", "again", "touch_512mib"):
            for key in ("user_s", "sys_s"):
                vals = [r[part][key] for r in rs]
                cells.append(f"{part} {key} {min(vals):.3f}/{np.median(vals):.3f}")
            tot = [r[part]["user_s"] + r[part]["sys_s"] for r in rs]
            cells.append(f"{part} total {min(tot):.3f}/{np.median(tot):.3f}")
        print(f"{v:6s} (min/median) " + "; ".join(cells))
    print("same checksum:", len({r["checksum"] for rs in runs.values() for r in rs}) == 1,
          "load after", load_average())


if __name__ == "__main__":
    main()
