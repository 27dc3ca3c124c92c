"""benchmarks/bench_auto_heldout.py: answers --help; its table row from hand-made rows."""

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _script():
    spec = importlib.util.spec_from_file_location(
        "bench_auto_heldout", ROOT / "benchmarks" / "bench_auto_heldout.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_answers_help_without_measuring(capsys):
    with pytest.raises(SystemExit) as exit_:
        _script().main(["--help"])
    assert exit_.value.code == 0 and capsys.readouterr().out.startswith("usage:")


def test_report_row_on_hand_made_rows():
    rows = [{"acc": 0.8, "nmi": 0.5, "selected": "a", "scores": {"a": 0.2, "b": 0.3},
             "truth_score": 0.1, "train_acc": {"a": 0.7, "b": 0.6}, "spearman": -1.0,
             "full_acc": {"a": 0.8, "b": 0.9}},
            {"acc": 0.6, "nmi": 0.3, "selected": "b", "scores": {"a": 0.3, "b": 0.2},
             "truth_score": 0.25, "train_acc": {"a": 0.7, "b": 0.5}, "spearman": 1.0,
             "full_acc": {"a": 0.8, "b": 0.7}}]
    cells = [c.strip() for c in _script().report("toy", rows).split("|")[1:-1]]
    assert cells[:4] == ["toy", "0.700 ± 0.141", "0.400 ± 0.141", "a x1, b x1"]
    assert cells[4] == "a 0.700"                  # best training fit by mean ACC
    assert cells[5] == "+0.00" and cells[6] == "1/2"  # median Spearman; truth below all once
    assert cells[7] == "a 0.800" and cells[8] == ""   # best full fit; no k-means candidate


def test_splits_study_answers_help(capsys):
    spec = importlib.util.spec_from_file_location(
        "auto_splits", ROOT / "benchmarks" / "studies" / "auto_splits.py")
    module = importlib.util.module_from_spec(spec)
    import sys
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        spec.loader.exec_module(module)
        with pytest.raises(SystemExit) as exit_:
            module.main(["--help"])
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    assert exit_.value.code == 0 and capsys.readouterr().out.startswith("usage:")
