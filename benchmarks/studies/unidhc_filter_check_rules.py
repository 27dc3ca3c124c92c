"""Rules for Uni-DHC's held-out filter check (``gamma_init="heldout"``), compared offline.

``collect``: per set and seed, the held-out terms
(:func:`~hyperclust.cluster.hsbm_heldout.heldout_terms`) of each candidate's clustering of
the 3 split copies (the canonical filter relearned on each, and the atoms I, P, P^2, I-P,
(I-P)^2), the share of each held-out hyperedge's member pairs still co-members in a
training hyperedge, and the ACC / NMI of the full Uni-DHC forced to each candidate (labels
only score). ``rules``: the candidate each rule keeps and the resulting mean ACC / NMI.
``overlap``: that share alone, per set (3 splits x the seeds, no fit).
``sweep``: the registered ``unidhc`` along the homophily sweep with hyperedges held out
(10%, the check before) and without (``FILTER_EDGE_SHARE``, the check now).

    OMP_NUM_THREADS=1 PYTHONPATH=src python benchmarks/studies/unidhc_filter_check_rules.py \\
        collect --sets wisconsin --seeds 0 1 2 3 4 --out /tmp/rules
    PYTHONPATH=src python benchmarks/studies/unidhc_filter_check_rules.py rules --out /tmp/rules
    OMP_NUM_THREADS=1 PYTHONPATH=src python benchmarks/studies/unidhc_filter_check_rules.py \
        sweep --sets sbm-h0.0 sbm-h0.5 sbm-h1.0 --out /tmp/rules
    PYTHONPATH=src python benchmarks/studies/unidhc_filter_check_rules.py overlap \
        --sets cornell wisconsin --out /tmp/rules
"""

from __future__ import annotations

import argparse
import pickle
import warnings
from pathlib import Path

import numpy as np

SPLITS = 3


def _load(name, seed, data_dir):
    from hyperclust.datasets import hypergraph_sbm, load_dataset

    if name.startswith("sbm-h"):  # the homophily sweep's input, "sbm-h0.5"
        return hypergraph_sbm(2000, 4, homophily=float(name[5:]), n_features=32,
                              random_state=seed)
    return load_dataset(name, data_dir=data_dir, download=False)


def _pair_overlap(split):
    """Per held-out hyperedge, the share of its member pairs that are co-members of a
    training hyperedge (1: the held-out hyperedge states nothing the training one lacks)."""
    H = split.train.incidence  # (n, m) sparse
    C = (H @ H.T).tocsr()
    out = []
    for row in split.heldout:
        m = row.indices
        if m.size < 2:
            continue
        block = C[m][:, m].toarray() > 0
        iu = np.triu_indices(m.size, 1)
        out.append(block[iu].mean())
    return np.array(out)


def collect(hg, seed):
    from hyperclust.cluster.hsbm_heldout import heldout_terms, split_hypergraph
    from hyperclust.cluster.unidhc import UniDHC
    from hyperclust.cluster.unidhc_output import atom_names, filter_labels
    from hyperclust.metrics import acc, nmi
    from hyperclust.models.contrast import atom_coefficients

    k, y = hg.n_classes, hg.labels
    est = UniDHC(k, gamma_init="heldout", random_state=seed)
    est.n_init_ = 10
    atoms = dict(zip(atom_names(2), atom_coefficients(2)))
    splits = []
    for j in range(SPLITS):
        s = split_hypergraph(hg, random_state=seed + 1000 * j)
        labels = filter_labels(est, s.train, 2, seed, k, 300)
        splits.append({"terms": {c: heldout_terms(s, z) for c, z in labels.items()},
                       "split_acc": {c: acc(y, z) for c, z in labels.items()},
                       "overlap": None if s.heldout is None else _pair_overlap(s)})
    full = {}
    for c, g in {"canonical": "canonical", **atoms}.items():
        z = UniDHC(k, gamma_init=g, random_state=seed).fit(hg).labels_
        full[c] = (acc(y, z), nmi(y, z))
    return {"splits": splits, "full": full}


def choose(record, views=("edges", "attributes"), first="canonical", margin=2.0):
    """The candidate a rule keeps: :func:`split_choice`'s rule (precision weighting over
    ``views``, ``first`` kept unless beaten by ``margin`` paired standard errors)."""
    errors, var = {}, {}
    cands = list(record["splits"][0]["terms"])
    for s in record["splits"]:
        terms = s["terms"]
        w = {}
        for v in views:
            judged = [t[v] for t in terms.values() if t[v] is not None]
            pooled = np.mean([t.var() / t.size for t in judged]) if judged else 0.0
            if pooled > 1e-15:
                w[v] = 1.0 / pooled
        W = sum(w.values())
        for c in cands:
            e = sum(w[v] * terms[c][v].mean() for v in w) / W if W else 0.5
            d = sum((w[v] / W) ** 2 * np.var(terms[c][v] - terms[first][v]) / terms[c][v].size
                    for v in w) if W else 0.0
            errors.setdefault(c, []).append(e)
            var.setdefault(c, []).append(d)
    mean = {c: np.mean(errors[c]) for c in cands}
    se = {c: np.sqrt(np.sum(var[c])) / len(record["splits"]) for c in cands}
    beat = [c for c in cands if c != first and mean[c] < mean[first] - margin * se[c]]
    return min(beat, key=mean.get) if beat else first


RULES = {
    "both, canonical first (today)": {},
    "attributes, canonical first": {"views": ("attributes",)},
    "edges, canonical first": {"views": ("edges",)},
    "both, I first": {"first": "I"},
    "attributes, I first": {"views": ("attributes",), "first": "I"},
}


def rules(records, sets):
    for name in sets:
        recs = records[name]
        overlap = [s["overlap"].mean() for r in recs.values() for s in r["splits"]
                   if s["overlap"] is not None and s["overlap"].size]
        print(f"{name}: held-out pair overlap {np.mean(overlap) if overlap else float('nan'):.2f}")
        for rule, kw in RULES.items():
            picks = [choose(r, **kw) for r in recs.values()]
            a, n = np.array([r["full"][p] for r, p in zip(recs.values(), picks)]).T
            print(f"  {rule:32s} {a.mean():.3f} ± {a.std():.3f} (worst {a.min():.3f}) / "
                  f"{n.mean():.3f} ± {n.std():.3f}  {' '.join(picks)}")


def overlap(names, seeds, data_dir):
    from hyperclust.cluster.hsbm_heldout import split_hypergraph

    for name in names:
        hg = _load(name, 0, data_dir)
        shares = [_pair_overlap(s).mean() for seed in seeds for j in range(SPLITS)
                  for s in [split_hypergraph(hg, random_state=seed + 1000 * j)]
                  if s.heldout is not None]
        print(name, f"{np.mean(shares):.2f}" if shares else "no hyperedge held out", flush=True)


def sweep(names, seeds, data_dir):
    from hyperclust.cluster import unidhc_output
    from hyperclust.cluster.registry import make_estimator
    from hyperclust.metrics import acc, nmi

    for name in names:
        for share in (0.1, 0.0):
            unidhc_output.FILTER_EDGE_SHARE = share
            rows, picks = [], []
            for seed in seeds:
                hg = _load(name, seed, data_dir)
                est = make_estimator("unidhc", hg.n_classes, random_state=seed).fit(hg)
                rows.append((acc(hg.labels, est.labels_), nmi(hg.labels, est.labels_)))
                picks.append(est.filter_family_)
            a, n = np.array(rows).T
            print(f"{name} edge share {share}: {a.mean():.3f} ± {a.std():.3f} (worst "
                  f"{a.min():.3f}) / {n.mean():.3f} ± {n.std():.3f}  {' '.join(picks)}",
                  flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("part", choices=("collect", "rules", "sweep", "overlap"))
    parser.add_argument("--sets", nargs="+", default=None)
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2, 3, 4])
    parser.add_argument("--out", required=True, help="folder of the per-set pickles")
    parser.add_argument("--data-dir",
                        default=str(Path(__file__).resolve().parents[3] / "shared" / "data"))
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    warnings.simplefilter("ignore")
    if args.part in ("sweep", "overlap"):
        return globals()[args.part](args.sets, args.seeds, args.data_dir)
    if args.part == "collect":
        for name in args.sets:
            for seed in args.seeds:
                path = out / f"{name}-{seed}.pkl"
                if path.exists():
                    continue
                hg = _load(name, seed, args.data_dir)
                path.write_bytes(pickle.dumps(collect(hg, seed)))
                print(name, seed, "done", flush=True)
        return
    records = {}
    for path in sorted(out.glob("*.pkl")):
        name, seed = path.stem.rsplit("-", 1)
        records.setdefault(name, {})[int(seed)] = pickle.loads(path.read_bytes())
    rules(records, args.sets or sorted(records))


if __name__ == "__main__":
    main()
