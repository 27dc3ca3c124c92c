"""A restricted unpickler for the benchmark pickles and ``.npy`` object arrays: globals resolve
only from a fixed table (numpy reconstruction, scipy.sparse classes, builtin containers), so a
file cannot run code.
"""

from __future__ import annotations

import _compat_pickle
import codecs
import collections
import copyreg
import importlib
import io
import os
import pickle
from struct import error as struct_error

import numpy as np
import scipy.sparse as sp

from .errors import DataFormatError

__all__ = ["UnsafePickleError", "safe_load", "safe_loads", "load_npy", "expanded_size"]


class UnsafePickleError(DataFormatError):
    """A pickle references a global outside the allow-list (a :class:`DataFormatError`).

    Examples
    --------
    >>> err = UnsafePickleError("refused to unpickle global 'os.system'", "x.pickle")
    >>> str(err), isinstance(err, DataFormatError)
    ("x.pickle: refused to unpickle global 'os.system'", True)
    """


def _numpy_attr(submodule: str, name: str):
    # numpy 2 moved numpy.core to numpy._core; old files name either path.
    for prefix in ("numpy._core", "numpy.core"):
        try:
            return getattr(importlib.import_module(f"{prefix}.{submodule}"), name)
        except (ImportError, AttributeError):
            continue
    raise ImportError(f"numpy has no {submodule}.{name}")


_SAFE_TEXT_CODECS = {"latin1", "latin-1", "iso-8859-1", "iso8859-1", "ascii", "utf-8", "utf8"}


def _codecs_encode(obj, encoding="utf-8", errors="strict"):
    # Python 3 writes bytes in protocol <= 2 pickles as _codecs.encode(str, "latin1").
    if str(encoding).lower() not in _SAFE_TEXT_CODECS:
        raise UnsafePickleError(f"refused _codecs.encode with codec {encoding!r}")
    return codecs.encode(obj, encoding, errors)


#: Containers a pickle may call, each only on an already materialised value: a call such as
#: ``bytes(10**12)`` or ``list(<lazy iterable>)`` would allocate without bound.
_MATERIALISED = (list, tuple, dict, set, frozenset, str, bytes, bytearray, float, complex,
                 bool, type(None))


def _bounded(cls):
    def make(*args, **kwargs):
        for a in (*args, *kwargs.values()):
            if isinstance(a, int) and not isinstance(a, bool) and cls in (bytes, bytearray,
                                                                          str, list, tuple):
                raise UnsafePickleError(f"refused {cls.__name__}({a}) (it would allocate)")
            if not isinstance(a, (*_MATERIALISED, int)):
                raise UnsafePickleError(f"refused {cls.__name__}() of a "
                                        f"{type(a).__name__}")
        return cls(*args, **kwargs)

    make.__name__ = cls.__name__
    _REAL_CLASS[make] = cls
    return make


_REAL_CLASS: dict = {}


def _reconstructor(cls, base, state):
    # copyreg._reconstructor(cls, base, state) names the base class (dict for dok_matrix);
    # the table holds a bounded wrapper for it, so hand copyreg the class itself.
    if base in _REAL_CLASS and state is not None and not isinstance(state, _MATERIALISED):
        raise UnsafePickleError(f"refused {_REAL_CLASS[base].__name__} state of type "
                                f"{type(state).__name__}")
    return copyreg._reconstructor(cls, _REAL_CLASS.get(base, base), state)


def _bounded_reconstruct(reconstruct):
    # numpy pickles an array as _reconstruct(ndarray, (0,), b"b") and then sets its state;
    # a larger shape here would allocate before any size check.
    def make(subtype, shape, dtype):
        if subtype is not np.ndarray or int(np.prod(shape, dtype=np.float64)) > 1:
            raise UnsafePickleError(f"refused numpy _reconstruct of shape {shape!r}")
        return reconstruct(subtype, shape, dtype)

    return make


#: The largest sparse-matrix dimension a pickle may declare (its index arrays would need
#: gigabytes; no dataset here comes close).
MAX_SPARSE_DIM = 10**8


def _allowed_globals() -> dict:
    table = {}
    for mod in ("numpy.core.multiarray", "numpy._core.multiarray"):
        table[(mod, "_reconstruct")] = _bounded_reconstruct(
            _numpy_attr("multiarray", "_reconstruct"))
        table[(mod, "scalar")] = _numpy_attr("multiarray", "scalar")
    for mod in ("numpy.core.numeric", "numpy._core.numeric"):
        try:
            table[(mod, "_frombuffer")] = _numpy_attr("numeric", "_frombuffer")
        except ImportError:  # numpy < 1.x without protocol-5 support
            pass
    table[("numpy", "ndarray")] = np.ndarray
    table[("numpy", "dtype")] = np.dtype
    for cls in (np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
                np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128):
        table[("numpy", cls.__name__)] = cls
    builtins = __import__("builtins")
    for name in ("dict", "list", "set", "frozenset", "tuple", "int", "float", "complex", "str",
                 "bytes", "bytearray", "bool"):
        table[("builtins", name)] = _bounded(getattr(builtins, name))
    table[("builtins", "object")] = object
    table[("collections", "OrderedDict")] = collections.OrderedDict
    table[("collections", "defaultdict")] = collections.defaultdict
    # copyreg._reconstructor only calls base.__new__(cls) for classes that passed this table.
    table[("copyreg", "_reconstructor")] = _reconstructor
    table[("_codecs", "encode")] = _codecs_encode
    return table


_SPARSE_CLASSES = {
    f"{fmt}_{kind}": getattr(sp, f"{fmt}_{kind}")
    for fmt in ("csr", "csc", "coo", "lil", "dok", "bsr", "dia")
    for kind in ("matrix", "array")
    if hasattr(sp, f"{fmt}_{kind}")
}

_ALLOWED = _allowed_globals()


class _RestrictedUnpickler(pickle.Unpickler):
    def __init__(self, file, *, encoding, protocol):
        super().__init__(file, encoding=encoding)
        self._protocol = protocol

    def find_class(self, module, name):
        key = (module, name)
        if self._protocol < 3:  # Python 2 names (e.g. __builtin__.set, copy_reg._reconstructor)
            if key in _compat_pickle.NAME_MAPPING:
                key = _compat_pickle.NAME_MAPPING[key]
            elif module in _compat_pickle.IMPORT_MAPPING:
                key = (_compat_pickle.IMPORT_MAPPING[module], name)
        if key in _ALLOWED:
            return _ALLOWED[key]
        # scipy moved its classes between private modules (scipy.sparse.csr -> _csr ...).
        if (key[0] == "scipy.sparse" or key[0].startswith("scipy.sparse.")) and key[1] in _SPARSE_CLASSES:
            return _SPARSE_CLASSES[key[1]]
        raise UnsafePickleError(
            f"refused to unpickle global '{module}.{name}': only numpy arrays, scipy.sparse "
            "matrices and builtin containers are allowed")


def _check_sparse(obj):
    # A crafted sparse matrix could carry out-of-range indices; scipy checks them here.
    if sp.issparse(obj):
        shape = getattr(obj, "_shape", None) or obj.shape
        if len(shape) != 2 or max(shape) > MAX_SPARSE_DIM:
            raise UnsafePickleError(f"refused a sparse matrix of shape {shape} (more than "
                                    f"{MAX_SPARSE_DIM} rows or columns)")
        if hasattr(obj, "check_format"):
            obj.check_format(full_check=True)
    return obj


#: A pickle may expand to at most this many entries per byte (plus ``_EXPANSION_BASE``):
#: counted with every shared reference expanded, as a reader will flatten them. Honest
#: pickles hold at most ~0.5 entries per byte (an int takes 2 bytes or more).
_EXPANSION_PER_BYTE = 4
_EXPANSION_BASE = 10**6


def _children(obj):
    if isinstance(obj, dict):
        return [*obj.keys(), *obj.values()]
    if isinstance(obj, (list, tuple, set, frozenset)):
        return list(obj)
    if isinstance(obj, np.ndarray) and obj.dtype == object:
        return obj.ravel().tolist()
    return ()


def _leaf_size(obj) -> int:
    if isinstance(obj, np.ndarray):
        return max(int(obj.size), 1)
    if sp.issparse(obj):
        return max(int(getattr(obj, "nnz", 1)), 1)
    return 1


def expanded_size(root) -> int:
    """Entries of ``root`` counting every shared reference each time it occurs (no expansion made).

    Raises
    ------
    DataFormatError
        A container that holds itself.

    Examples
    --------
    >>> shared = list(range(1000))
    >>> expanded_size({k: shared for k in range(50)})  # 1 + 50 keys + 50 x (1 + 1000)
    50101
    """
    sizes, visiting, stack = {}, set(), [(root, False)]
    while stack:
        obj, done = stack.pop()
        key = id(obj)
        if done:
            visiting.discard(key)
            sizes[key] = 1 + sum(sizes[id(c)] for c in _children(obj))
            continue
        if key in sizes:
            continue
        kids = _children(obj)
        if not kids:
            sizes[key] = _leaf_size(obj)
            continue
        if key in visiting:
            raise DataFormatError("not a valid pickle (a container holds itself)")
        visiting.add(key)
        stack.append((obj, True))
        for c in kids:
            if id(c) in visiting:
                raise DataFormatError("not a valid pickle (a container holds itself)")
            if id(c) not in sizes:
                stack.append((c, False))
    return sizes[id(root)]


def _check_expansion(obj, n_bytes: int, path):
    limit = _EXPANSION_PER_BYTE * n_bytes + _EXPANSION_BASE
    size = expanded_size(obj)
    if size > limit:
        raise DataFormatError(f"refused: its shared references expand to {size:,} entries "
                              f"from {n_bytes:,} bytes (at most {limit:,}); a reader would "
                              "run out of memory", path)
    return obj


def _load_stream(data: bytes, encoding: str):
    # The C unpickler does not expose the protocol; the PROTO opcode (0x80) opens protocol 2+.
    protocol = data[1] if len(data) > 1 and data[0] == 0x80 else 0
    return _RestrictedUnpickler(io.BytesIO(data), encoding=encoding, protocol=protocol).load()


def safe_load(path_or_file, *, encoding: str = "ASCII"):
    """Unpickle a file admitting only numpy, scipy.sparse and builtin container types.

    Parameters
    ----------
    path_or_file : str, PathLike or binary file object
        The pickle (a file object is read from its current position).
    encoding : str
        How to decode Python 2 ``str``; on a decoding error the load is retried with ``"latin1"``.

    Raises
    ------
    UnsafePickleError
        The pickle names any other global (e.g. ``os.system``); nothing is executed.
    DataFormatError
        Not a valid pickle, or one that expands past the size guard.

    Examples
    --------
    >>> import pickle, tempfile, pathlib
    >>> import scipy.sparse as sp
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = pathlib.Path(d) / "hypergraph.pickle"
    ...     _ = path.write_bytes(pickle.dumps({"e0": [0, 1, 2], "X": sp.eye(2, format="csr")}))
    ...     obj = safe_load(path)
    >>> obj["e0"], obj["X"].toarray().tolist()
    ([0, 1, 2], [[1.0, 0.0], [0.0, 1.0]])
    """
    if isinstance(path_or_file, (str, bytes, os.PathLike)):
        path = os.fspath(path_or_file)
        with open(path, "rb") as fh:
            data = fh.read()
    else:
        path = getattr(path_or_file, "name", None)
        data = path_or_file.read()
    return safe_loads(data, encoding=encoding, path=path)


def safe_loads(data: bytes, *, encoding: str = "ASCII", path=None):
    """:func:`safe_load` for a bytes object; ``path`` only names it in errors.

    Examples
    --------
    >>> import os, pickle
    >>> safe_loads(pickle.dumps({"labels": np.array([0, 1])}))["labels"].tolist()
    [0, 1]
    >>> class Exploit:
    ...     def __reduce__(self):
    ...         return os.system, ("echo pwned",)
    >>> safe_loads(pickle.dumps(Exploit()), path="evil.pickle")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    hyperclust.io.safe_pickle.UnsafePickleError: evil.pickle: refused to unpickle global '...system'...
    """
    try:
        try:
            obj = _check_sparse(_load_stream(data, encoding))
        except UnicodeDecodeError:
            if encoding.lower() in ("latin1", "latin-1", "bytes"):
                raise
            obj = _check_sparse(_load_stream(data, "latin1"))
        return _check_expansion(obj, len(data), path)
    except UnsafePickleError as exc:
        if path is not None and exc.path is None:
            raise UnsafePickleError(exc.reason, path) from None
        raise
    except DataFormatError:
        raise
    except MemoryError:
        raise DataFormatError("not a valid pickle (it asks for more memory than there is)",
                              path) from None
    except RecursionError:
        raise DataFormatError("not a valid pickle (nested too deeply)", path) from None
    except (pickle.UnpicklingError, EOFError, UnicodeDecodeError, TypeError, ValueError,
            AttributeError, IndexError, KeyError, OverflowError, struct_error) as exc:
        raise DataFormatError(f"not a valid pickle ({type(exc).__name__}: {exc})", path) from None


def load_npy(path):
    """Read a ``.npy`` file; an object payload goes through :func:`safe_loads`, never ``allow_pickle``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as d:
    ...     edges = np.empty((), dtype=object)
    ...     edges[()] = {0: [0, 1, 2], 1: [2, 3]}
    ...     np.save(pathlib.Path(d) / "hyperedge.npy", edges, allow_pickle=True)
    ...     arr = load_npy(pathlib.Path(d) / "hyperedge.npy")
    >>> arr.shape, arr.item()
    ((), {0: [0, 1, 2], 1: [2, 3]})
    """
    from numpy.lib import format as npformat

    path = os.fspath(path)
    with open(path, "rb") as fh:
        try:
            version = npformat.read_magic(fh)
            readers = {(1, 0): npformat.read_array_header_1_0,
                       (2, 0): npformat.read_array_header_2_0}
            if version not in readers:
                raise ValueError(f"unsupported .npy version {version}")
            shape, fortran, dtype = readers[version](fh)
        # numpy parses the header with ast/tokenize: a corrupt header can raise
        # SyntaxError, tokenize.TokenError, TypeError, ... besides ValueError.
        except Exception as exc:  # noqa: BLE001
            raise DataFormatError(f"not a valid .npy file ({type(exc).__name__}: {exc})",
                                  path) from None
        if not dtype.hasobject:
            fh.seek(0)
            try:
                return np.load(fh, allow_pickle=False)
            except (ValueError, OSError, EOFError, TypeError) as exc:
                raise DataFormatError(f"not a valid .npy file ({exc})", path) from None
        arr = safe_loads(fh.read(), path=path)
    if not isinstance(arr, np.ndarray):
        raise DataFormatError(f"object .npy payload is a {type(arr).__name__}, not an array", path)
    if arr.shape != tuple(shape):
        raise DataFormatError(f"object .npy payload has shape {arr.shape}, header says {shape}", path)
    return arr
