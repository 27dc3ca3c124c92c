"""The numba code behind :mod:`hyperclust.operators.compiled_spmm` (load it through
:func:`~hyperclust.operators.compiled_spmm.kernel`). Without numba, ``add_rows`` is None."""

from __future__ import annotations

try:
    import numba
    from llvmlite import ir
    from numba.core import cgutils, types
    from numba.extending import intrinsic
except ImportError:
    numba = None

__all__ = ["add_rows"]

#: Bytes per cache line on the x86-64 and ARM cores this targets. Kept in this file: numba's
#: cache is invalidated by edits to the file that defines the kernel, not to its imports.
CACHE_LINE = 64


def _add_rows(indptr, indices, data, X, out, lo, hi, ahead):
    """``out[lo:hi] += A[lo:hi] @ X`` for ``A = (data, indices, indptr)``, prefetching the
    ``X`` row of the nonzero ``ahead`` positions on (``ahead = 0``: no prefetch)."""
    d = X.shape[1]
    row_bytes = d * X.itemsize
    end = indptr[hi]
    for i in range(lo, hi):
        for jj in range(indptr[i], indptr[i + 1]):
            if ahead > 0 and jj + ahead < end:
                first = indices[jj + ahead] * row_bytes
                for b in range(0, row_bytes, CACHE_LINE):
                    prefetch(X, first + b)
                prefetch(X, first + row_bytes - 1)
            a = data[jj]
            j = indices[jj]
            for k in range(d):
                out[i, k] += a * X[j, k]


if numba is None:
    add_rows = None
else:
    @intrinsic
    def prefetch(typingctx, arr, offset):
        """``llvm.prefetch`` (read, high locality) of the byte ``offset`` of a C array."""
        def codegen(context, builder, signature, args):
            ary = context.make_array(signature.args[0])(context, builder, args[0])
            base = builder.bitcast(ary.data, ir.IntType(8).as_pointer())
            ptr = builder.gep(base, [args[1]])
            i32 = ir.IntType(32)
            fnty = ir.FunctionType(ir.VoidType(), [ptr.type, i32, i32, i32])
            fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch")
            builder.call(fn, [ptr, i32(0), i32(3), i32(1)])
            return context.get_dummy_value()

        if isinstance(arr, types.Array) and isinstance(offset, types.Integer):
            return types.void(arr, types.intp), codegen
        return None

    try:
        add_rows = numba.njit(nogil=True, cache=True)(_add_rows)
    except RuntimeError:  # no writable cache directory: compiled once per process
        add_rows = numba.njit(nogil=True)(_add_rows)
