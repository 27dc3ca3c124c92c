"""No input under 10 MB drives the process past 2 GB before a clear error: each hostile file
is given to the command line in a child process that reports its peak memory."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

LIMIT_KB = 2 * 1024 * 1024  # 2 GB
_CHILD = ("import resource, sys\n"
          "from hyperclust.cli import main\n"
          "code = main(sys.argv[1:])\n"
          "print('MAXRSS', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
          "sys.exit(code)\n")


def _run(args, cwd):
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1] / "src"),
               OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    done = subprocess.run([sys.executable, "-c", _CHILD, *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)
    peak = int(done.stderr.rsplit("MAXRSS", 1)[1].split()[0])
    return done.returncode, done.stdout + done.stderr, peak


def _pickle_bomb(d: Path) -> list[str]:
    shared = list(range(100_000))
    (d / "h").mkdir()
    (d / "h" / "hypergraph.pickle").write_bytes(pickle.dumps({f"e{k}": shared
                                                              for k in range(20_000)}))
    return ["info", "h"]


def _npz_bomb(d: Path) -> list[str]:
    (d / "e.txt").write_text("0 1\n1 2\n")
    header = np.lib.format.header_data_from_array_1_0(np.zeros((1, 1)))
    header["shape"] = (12_000, 12_000)  # 1.15 GB of zeros, about 5 MB compressed
    # the fastest deflate level: writing the bomb was most of this test's time, and 230x is
    # still far past the reader's 50x
    with zipfile.ZipFile(d / "x.npz", "w", zipfile.ZIP_DEFLATED, compresslevel=1) as zf:
        with zf.open("x.npy", "w", force_zip64=True) as fh:
            np.lib.format.write_array_header_1_0(fh, header)
            block = bytes(1 << 24)
            for _ in range(12_000 * 12_000 * 8 // len(block)):
                fh.write(block)
            fh.write(bytes(12_000 * 12_000 * 8 % len(block)))
    return ["cluster", "e.txt", "--k", "2", "--features", "x.npz"]


def _long_line(d: Path) -> list[str]:
    (d / "e.txt").write_text(" ".join(f"n{i}" for i in range(1_200_000)))  # 9.5 MB, one line
    return ["info", "e.txt"]


def _sparse_file(d: Path) -> list[str]:
    with open(d / "e.txt", "wb") as fh:  # 2 GB of NUL bytes that take no disk
        fh.truncate(2 << 30)
    return ["info", "e.txt"]


def _huge_ids(d: Path) -> list[str]:
    rows = "".join(f"{10**17 + 7 * i} {10**18 - 13 * i}\n" for i in range(200_000))
    (d / "e.txt").write_text(rows)  # ~8 MB: ids are ids, not positions
    return ["info", "e.txt"]


@pytest.mark.parametrize("make, status, message", [
    (_pickle_bomb, 2, "shared references expand to"),
    (_npz_bomb, 2, "decompresses to"),
    (_long_line, 0, "n_nodes=1200000"),
    (_sparse_file, 2, "NUL bytes"),
    (_huge_ids, 0, "n_nodes=400000"),
], ids=["pickle-bomb", "npz-bomb", "long-line", "sparse-2GB", "huge-ids"])
def test_hostile_input_stays_under_2GB(make, status, message, tmp_path):
    args = make(tmp_path)
    code, err, peak_kb = _run(args, tmp_path)
    assert code == status, err
    assert "Traceback" not in err
    assert message in err
    assert peak_kb < LIMIT_KB, f"peak {peak_kb / 1024:.0f} MB"
