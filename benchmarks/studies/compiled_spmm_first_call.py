"""What loading the compiled kernel costs a process (issue 32 item 4): CPU seconds of
``import numba``, of the kernel module's import, and of the first float32 and float64
calls (a compilation when numba's cache holds no kernel for that signature, else a cache
load), beside scipy's kernel on the same first product. Run it twice: the first run after
``--cold`` (which deletes this kernel's numba cache files) compiles, the second loads.

    PYTHONPATH=src python benchmarks/studies/compiled_spmm_first_call.py --cold
    PYTHONPATH=src python benchmarks/studies/compiled_spmm_first_call.py
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path


def timed(fn):
    c0 = time.process_time()
    out = fn()
    return out, time.process_time() - c0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cold", action="store_true", help="delete the kernel's cache files first")
    args = ap.parse_args(argv)
    import numpy as np
    import scipy.sparse as sp

    import hyperclust.operators as ops
    from hyperclust.operators.kernels import add_product_rows

    cache = Path(ops.__file__).parent / "__pycache__"
    if args.cold:
        for f in cache.glob("_numba_spmm.*"):
            f.unlink()
    _, t_numba = timed(lambda: __import__("numba"))
    from hyperclust.operators import compiled_spmm

    add, t_module = timed(compiled_spmm.kernel)
    print(f"import numba {t_numba:.2f} s CPU; kernel module {t_module:.2f} s; "
          f"cached files before: {'none' if args.cold else len(list(cache.glob('_numba_spmm.*')))}")
    for dtype in (np.float32, np.float64):
        A = sp.random(2 ** 14, 2 ** 14, density=2 ** -6, format="csr", dtype=dtype,
                      random_state=0)
        X = np.ones((2 ** 14, 16), dtype)
        out = np.zeros((2 ** 14, 16), dtype)
        _, t_first = timed(lambda: add(A.indptr, A.indices, A.data, X, out, 0, A.shape[0],
                                       compiled_spmm.PREFETCH_AHEAD))
        _, t_second = timed(lambda: add(A.indptr, A.indices, A.data, X, out, 0, A.shape[0],
                                        compiled_spmm.PREFETCH_AHEAD))
        _, t_scipy = timed(lambda: add_product_rows(A, X, out, 0, A.shape[0]))
        print(f"  {np.dtype(dtype).name}: first call {t_first:.3f} s CPU, second "
              f"{t_second * 1e3:.2f} ms, scipy {t_scipy * 1e3:.2f} ms ({A.nnz} nonzeros x 16)")


if __name__ == "__main__":
    main()
