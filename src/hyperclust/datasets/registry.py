"""The dataset registry: names, files, SHA-256 checksums, public URLs and facts.

Names are the folder names of the benchmark collection (``shared/data`` in the repository's
checkout): ``cora-ca``, ``zoo``, ``walmart-trips``, ... and the HSBM homophily sweep as
``hsbm-node-0.3`` .. ``hsbm-node-0.9`` and ``hsbm-edge-0.3`` .. ``hsbm-edge-0.9``.

Checksums are hard-coded here (copied from the collection's ``SHA256SUMS``); the package never
reads them from the data directory. URLs point at ``raw.githubusercontent.com`` at the commit
the collection was taken from. Except for LEGCN, whose full commit hash is known, the commits
are the *abbreviated* hashes given by the collection's README (GitHub resolves abbreviated
commit hashes in URLs; no machine used to build this could check it). A download is only
accepted when its SHA-256 matches, so a wrong or changed URL fails loudly, never silently.

Counts (``n_edges``) are those of the default load: duplicate hyperedges (same member *set*)
merged into one with summed weight, singletons kept, repeated members collapsed.
``n_edges_raw`` is the number of hyperedges in the source file, ``n_edges_unique`` the number
of distinct member sets of size >= 2.
"""

from __future__ import annotations

import difflib
import os
import warnings
from dataclasses import asdict, dataclass, field
from pathlib import Path
from urllib.parse import quote

import numpy as np

from ..hypergraph import Hypergraph

__all__ = ["DatasetSpec", "FileSpec", "DATASETS", "get_spec", "dataset_names", "load_dataset",
           "list_datasets", "dataset_info", "default_cache_dir", "locate_dataset",
           "LabelLeakWarning"]

_HYPERGCN = "https://raw.githubusercontent.com/malllabiisc/HyperGCN/de04938/"
_MMACL = "https://raw.githubusercontent.com/JongsooLee-HYU/MMACL/7111f70/"
_LEGCN = "https://raw.githubusercontent.com/ycq091044/LEGCN/d03f4745370a7493b18fb65f6d46f71b436a027b/"
_CHODROW = "https://raw.githubusercontent.com/PhilChodrow/HypergraphModularity/f43f6ed/"
_HYPERUFG = "https://raw.githubusercontent.com/kellysylvia77/HyperUFG/a8ddcf6/"
_HYPERPCI = "https://raw.githubusercontent.com/iroumpos/hyper_PCI/0e9e19d/"

# Relative path in the collection -> SHA-256 (from shared/data/SHA256SUMS).
_SHA256 = {
    "20newsw100/20newsW100.content":
        "99022653fbf1c22d29e71ca1b382ec41a74dc3c9661774096dc1776c0077cd46",
    "20newsw100/20newsW100.edges":
        "b427937f20ab794e75e0a206f70bbe051ef60807a84f42cfa6cf7ee060acdf16",
    "actor/hypergraph.pickle":
        "581ce085a19e969bfe6e2f55483bd6a6d7c00f1501783cbc1df160528f97bbd6",
    "actor/labels.pickle":
        "2687b67257a4eea2b264978df366dd6235006c022fed70774fc879e9271da078",
    "amazon-ratings/hypergraph.pickle":
        "0761c9493c8db3cab429a34cdad066f0d0f56b411293319d3e01a71bb833af78",
    "amazon-ratings/labels.pickle":
        "0695e53c925b1b831aa33fd493a2d8b4111a5b7f175c92c72835346bc9108fbf",
    "citeseer-cc/features.pickle":
        "a1b1d07241c818e1551b1b4871bbf2116fe870773373372f9dbc5582c78236f4",
    "citeseer-cc/hypergraph.pickle":
        "b8deecbecef20618d4e23af5b81b1936b36810fc4565ca476353e8a6d7f5884d",
    "citeseer-cc/labels.pickle":
        "c3368a596786df4208f2777e1c8017b7a2a20307aee8c7ed4f2571d9f529611d",
    "congress-bills/hyperedges-congress-bills.txt":
        "c8592ce03d9ae7c42b4b03a9e058af57eb793853c3f0bed119849a490aa4c31f",
    "congress-bills/label-names-congress-bills.txt":
        "1263b7a9202be7756351e41d1302a8c9fb720f097a62c484397e80c4cd780651",
    "congress-bills/node-labels-congress-bills.txt":
        "f8680f84cca08b75ff36284918999b0b739b17270e9ecfa7d1816193455ac1e8",
    "contact-high-school-classes/hs.hypergraphx.json":
        "1962793dbec15fd604e0891c1fe35bb6ace0aef44793cc9db0dce7f07391de3c",
    "contact-high-school-classes/hyperedges-contact-high-school-classes.txt":
        "487d6f265f69706fd926cfbcfaea9eebafab8abc35e4fac574a72544118563b6",
    "contact-high-school-classes/label-names-contact-high-school-classes.txt":
        "c5f5d58c6b37e8b61d909820db374da5473889b0d268734e8ce6f202c1dcd60a",
    "contact-high-school-classes/node-labels-contact-high-school-classes.txt":
        "a429e9a9f7fd12f9d586dd06fd9803a821b7a09afdd55536543a5a3c3382741b",
    "cora-ca/features.pickle":
        "a20ab3c4903d6cf97d277f5ce8d26735e31d08c888cdd11e3f0a5bb78d7c0602",
    "cora-ca/hypergraph.pickle":
        "777d661210bdd122a4ce25284e07c6368e875a28122e75dca912c631db0935f6",
    "cora-ca/labels.pickle":
        "0e6edd0d971dde22c1116fa662362262163a7a6d557eafd60ac6857de4569527",
    "cora-cc/features.pickle":
        "a20ab3c4903d6cf97d277f5ce8d26735e31d08c888cdd11e3f0a5bb78d7c0602",
    "cora-cc/hypergraph.pickle":
        "49abc7fff72a07de24e50d9d740d5cc63a32a40b2508995c16816fcb2729de80",
    "cora-cc/labels.pickle":
        "0e6edd0d971dde22c1116fa662362262163a7a6d557eafd60ac6857de4569527",
    "dblp-ca/hypergraph.pickle":
        "a8dbbed2041a8c1b836cbc29986ca777128eb9d75f2e006da899a801971f3278",
    "dblp-ca/labels.pickle":
        "8c95becadfa803f4dcfa56d535758619622a5f80ed18b481ab854754cd5927c8",
    "house-committees/hyperedges-house-committees.txt":
        "d45b8b4532034c78232e6a1abb71b28777818b51035de84c5c14d9de2264432d",
    "house-committees/label-names-house-committees.txt":
        "52d6e50299ac02938e2c0996d5083f10d3bd78007cfaed73df3828b26310e514",
    "house-committees/node-labels-house-committees.txt":
        "3611f1fb43b0caa8a56efd0bfbdfec061a9732322b0eca45d7b05bf83f8ed7a2",
    "house-committees/node-names-house-committees.txt":
        "658ef236d3e96727ab33e4ab476e0bb68c8f7afdf61cefc6c28583867e53c88f",
    "hsbm-synthetic/hyperedge_homophily/0.3/hyperedge.npy":
        "62b3a1c0f6ccee84b50abb2448bc1e87a1afb45f011d2ea7426518219a11633a",
    "hsbm-synthetic/hyperedge_homophily/0.3/labels.npy":
        "685259ffe7e153e4a406f6fc842d910151100a9d0777ff6e929a55c49b76d88e",
    "hsbm-synthetic/hyperedge_homophily/0.4/hyperedge.npy":
        "661eed955490d0128a1656f4fc99ed508cc7509bf0429457f8989cc14afb8750",
    "hsbm-synthetic/hyperedge_homophily/0.4/labels.npy":
        "685259ffe7e153e4a406f6fc842d910151100a9d0777ff6e929a55c49b76d88e",
    "hsbm-synthetic/hyperedge_homophily/0.5/hyperedge.npy":
        "6ca29599ee3dbad69c5cdc2ab83ce120c0b29cbd97b91c87f3abbf877b9ce795",
    "hsbm-synthetic/hyperedge_homophily/0.5/labels.npy":
        "685259ffe7e153e4a406f6fc842d910151100a9d0777ff6e929a55c49b76d88e",
    "hsbm-synthetic/hyperedge_homophily/0.6/hyperedge.npy":
        "8ce7e2c1df0b016c79688e57d988f078fb53304f100092375121ee29519700dd",
    "hsbm-synthetic/hyperedge_homophily/0.6/labels.npy":
        "685259ffe7e153e4a406f6fc842d910151100a9d0777ff6e929a55c49b76d88e",
    "hsbm-synthetic/hyperedge_homophily/0.7/hyperedge.npy":
        "a0590acca6854c31ee9abfe623dad23dfaa3c0a0d432f6c46d2f1e4d60b0ad29",
    "hsbm-synthetic/hyperedge_homophily/0.7/labels.npy":
        "685259ffe7e153e4a406f6fc842d910151100a9d0777ff6e929a55c49b76d88e",
    "hsbm-synthetic/hyperedge_homophily/0.8/hyperedge.npy":
        "51bbfdef8e3539125537d90229859f03b4db9d9f833fa2d4c357512266e86a60",
    "hsbm-synthetic/hyperedge_homophily/0.8/labels.npy":
        "685259ffe7e153e4a406f6fc842d910151100a9d0777ff6e929a55c49b76d88e",
    "hsbm-synthetic/hyperedge_homophily/0.9/hyperedge.npy":
        "c40c056849dddea11158bd8e9f9c1763deb2a6af98ff4b670b1599ad0ead4ed0",
    "hsbm-synthetic/hyperedge_homophily/0.9/labels.npy":
        "685259ffe7e153e4a406f6fc842d910151100a9d0777ff6e929a55c49b76d88e",
    "hsbm-synthetic/node_homophily/0.3/hyperedge.npy":
        "565febabc0c9c211faeabe4f06acedb23048e58b489148ab659808487ad6ae52",
    "hsbm-synthetic/node_homophily/0.3/labels.npy":
        "685259ffe7e153e4a406f6fc842d910151100a9d0777ff6e929a55c49b76d88e",
    "hsbm-synthetic/node_homophily/0.4/hyperedge.npy":
        "661eed955490d0128a1656f4fc99ed508cc7509bf0429457f8989cc14afb8750",
    "hsbm-synthetic/node_homophily/0.4/labels.npy":
        "685259ffe7e153e4a406f6fc842d910151100a9d0777ff6e929a55c49b76d88e",
    "hsbm-synthetic/node_homophily/0.5/hyperedge.npy":
        "dcb98965e17c0491cb7ac5975f9352472bb47376a3d28cad3b2540daf56b31bd",
    "hsbm-synthetic/node_homophily/0.5/labels.npy":
        "685259ffe7e153e4a406f6fc842d910151100a9d0777ff6e929a55c49b76d88e",
    "hsbm-synthetic/node_homophily/0.6/hyperedge.npy":
        "8ce7e2c1df0b016c79688e57d988f078fb53304f100092375121ee29519700dd",
    "hsbm-synthetic/node_homophily/0.6/labels.npy":
        "685259ffe7e153e4a406f6fc842d910151100a9d0777ff6e929a55c49b76d88e",
    "hsbm-synthetic/node_homophily/0.7/hyperedge.npy":
        "95ff5bb67a18915e97ead4eb6ebd87af03d065be03531eb0be9b31bffc053a47",
    "hsbm-synthetic/node_homophily/0.7/labels.npy":
        "685259ffe7e153e4a406f6fc842d910151100a9d0777ff6e929a55c49b76d88e",
    "hsbm-synthetic/node_homophily/0.8/hyperedge.npy":
        "51bbfdef8e3539125537d90229859f03b4db9d9f833fa2d4c357512266e86a60",
    "hsbm-synthetic/node_homophily/0.8/labels.npy":
        "685259ffe7e153e4a406f6fc842d910151100a9d0777ff6e929a55c49b76d88e",
    "hsbm-synthetic/node_homophily/0.9/hyperedge.npy":
        "9098c270bd9c6d2841a362eaaa09e49da9e85f9a440e96adeeb14f73fa4080b1",
    "hsbm-synthetic/node_homophily/0.9/labels.npy":
        "685259ffe7e153e4a406f6fc842d910151100a9d0777ff6e929a55c49b76d88e",
    "mag-10/hyperedge-label-identities.txt":
        "52180cd0b27db904eeec0ea6ed13eca2fafd177e0307b5125f603d306f95a542",
    "mag-10/hyperedge-labels.txt":
        "41d42364120770614f15ae2e575c936616c270e97cc25a4961f29524f44edba5",
    "mag-10/hyperedges.txt":
        "5d271d928fcc574238546739fc6ef34544c60076f29103ca2a2e5626f80342fa",
    "mathoverflow-answers/hyperedges-mathoverflow-answers.txt":
        "d896cbdd20d75a69cc4caba9acb8776e98f054aa381e837542e929a0eb6ca434",
    "mathoverflow-answers/label-names-mathoverflow-answers.txt":
        "9f8fdb4f945b50d9b9c38f31958c02a9b35c2ea507fe573692181753f9adda1b",
    "mathoverflow-answers/node-labels-mathoverflow-answers.txt":
        "322ab9aa934006a22973352a25241f0c96db474af19de38a9575ee8d8a462006",
    "mushroom/Mushroom.content":
        "fedb52eb5161cea62fbe247b5b54f86e3ed109f64f625db761475fff141d6ac9",
    "mushroom/Mushroom.edges":
        "116382d50f3bfc1feb16c0f104c76220ca4c56b56fda2b354cbd0bf09ebfb7f9",
    "pokec/hypergraph.pickle":
        "f7cb7de0422450961c4eb5fea89ddb78ef1d050defa52bae9e3a1a40e31dc6e7",
    "pokec/labels.pickle":
        "770a6ad36e941ce7489848ad19157dff4bd5bc2de45d4338ee864cb1714c6607",
    "pubmed-cc-tricl/features.pickle":
        "943fa94f0e759488bc7b2d7042e6315bc1716f22e4bbe7c0759defb62a369159",
    "pubmed-cc-tricl/hypergraph.pickle":
        "16fce8c32f707dc3d330f7e1aaed804e64ab37bf631fdfafe647b7f3f8e2871e",
    "pubmed-cc-tricl/labels.pickle":
        "357564b927162dd3d3caf334afe3ea4192da3c7a9ed5448429c3373c1cac827c",
    "pubmed-cc-tricl/tricl_to_hypergcn_node_ids.npy":
        "93044d4ccc99e2b22669b28e5e51914c89ae485197dc2feacf761457582ba13e",
    "pubmed-cc/hypergraph.pickle":
        "2814bec14eee7a9358781f0ae08dd2d15958754331aad7cf8d4ae7a5fd29cceb",
    "pubmed-cc/labels.pickle":
        "1babaf269f6bc2c1453b9d4178d71c018575beb527576e29a3681e8414200827",
    "senate-committees/hyperedges-senate-committees.txt":
        "cdb6c44832e9ba94549cd48e0807f448ef8b6d8266da3f88e0a07794af4b5b65",
    "senate-committees/label-names-senate-committees.txt":
        "52d6e50299ac02938e2c0996d5083f10d3bd78007cfaed73df3828b26310e514",
    "senate-committees/node-labels-senate-committees.txt":
        "bae42976ab82578ddcaf9d230c1e445f28c2bbf80c79d96d23457e488181fa00",
    "senate-committees/node-names-senate-committees.txt":
        "79538621a5f67449dfe36801128dc93c75d2a0c078c5ff5c2bdc775b1871c398",
    "walmart-trips/hyperedges-walmart-trips.txt":
        "641e580c64710d30da7621ae326137dbdcf503f10cf06fd39ab20b0e1b39ec00",
    "walmart-trips/label-names-walmart-trips.txt":
        "20ab1f4c2b6ec85b54b1da71e7f5339b804375d6d6df5db7d1deb1910bf2e761",
    "walmart-trips/node-labels-walmart-trips.txt":
        "6799bfdc85df02f62a9f8b8ae8c34a61763e69eb3c4799cee12461cefacc58ed",
    "zoo/zoo.content":
        "a6cef38fda93f7987439c4efbbc31c094e1298aa8e7415463e3d6fea8899b560",
    "zoo/zoo.edges":
        "78907f834a28e4e52758b165883ac348e0f0ff6ba7a0a243e5cd08231d4f311b",
}


@dataclass(frozen=True)
class FileSpec:
    """One file of a dataset.

    Attributes
    ----------
    name : str
        File name inside the dataset folder.
    sha256 : str
        Expected SHA-256 (hex).
    url : str or None
        Canonical public URL; None when the file has no public source of its own.
    required : bool
        Needed to load the dataset (optional files are verified when present).
    """

    name: str
    sha256: str
    url: str | None
    required: bool = True


@dataclass(frozen=True)
class DatasetSpec:
    """Everything known about one registered dataset (see the module notes for counts)."""

    name: str
    folder: str
    format: str
    files: tuple
    source: str
    description: str
    n_nodes: int
    n_edges: int
    n_edges_raw: int
    n_edges_unique: int
    n_classes: int | None
    n_features: int | None
    isolated_nodes: int
    homophily: str
    notes: str = ""
    reader_options: dict = field(default_factory=dict)

    @property
    def has_features(self) -> bool:
        return self.n_features is not None

    def as_dict(self) -> dict:
        d = asdict(self)
        d["files"] = [asdict(f) for f in self.files]
        d["has_features"] = self.has_features
        return d


def _files(folder: str, base: str | None, remote: dict, optional=()) -> tuple:
    out = []
    for name, rpath in remote.items():
        out.append(FileSpec(name, _SHA256[f"{folder}/{name}"],
                            None if base is None else base + quote(rpath)))
    for name in optional:
        out.append(FileSpec(name, _SHA256[f"{folder}/{name}"], None, required=False))
    return tuple(out)


def _hypergcn(folder, base, rpath, features=True):
    names = ["hypergraph.pickle", "labels.pickle"] + (["features.pickle"] if features else [])
    return {n: f"{rpath}/{n}" for n in names}


def _benson(name, with_node_names=False):
    names = [f"hyperedges-{name}.txt", f"node-labels-{name}.txt", f"label-names-{name}.txt"]
    if with_node_names:
        names.append(f"node-names-{name}.txt")
    return {n: f"data/{name}/{n}" for n in names}


_STATS = {  # name: (n_nodes, n_edges, n_edges_raw, n_edges_unique, n_classes, n_features, isolated)
    "cora-ca": (2708, 970, 1072, 970, 7, 1433, 320),
    "cora-cc": (2708, 1483, 1579, 1483, 7, 1433, 1274),
    "citeseer-cc": (3312, 1004, 1079, 1004, 6, 3703, 1854),
    "pubmed-cc": (19717, 7531, 7963, 7531, 3, None, 15877),
    "pubmed-cc-tricl": (3840, 7531, 7963, 7531, 3, 500, 0),
    "dblp-ca": (41302, 20865, 22363, 20865, 6, None, 0),
    "zoo": (101, 41, 43, 40, 7, 16, 0),
    "mushroom": (8124, 293, 298, 287, 2, 22, 0),
    "20newsw100": (16242, 100, 100, 100, 4, 100, 0),
    "senate-committees": (282, 301, 315, 301, 2, None, 0),
    "house-committees": (1290, 336, 341, 335, 2, None, 0),
    "congress-bills": (1718, 84799, 84799, 83105, 2, None, 0),
    "walmart-trips": (88860, 65979, 69906, 65979, 11, None, 0),
    "mathoverflow-answers": (73851, 5445, 5446, 5445, 641, None, 0),
    "contact-high-school-classes": (327, 7818, 7818, 7818, 9, None, 0),
    "actor": (16255, 10083, 10164, 9940, 3, None, 494),
    "amazon-ratings": (22299, 1828, 2090, 1828, 5, None, 19175),
    "pokec": (14998, 2051, 2406, 2051, 2, None, 11798),
    "mag-10": (80729, 51889, 51889, 51889, None, None, 531),
    "hsbm-node-0.3": (10000, 12500, 12500, 12500, 2, None, 244),
    "hsbm-node-0.4": (10000, 8788, 8788, 8788, 2, None, 720),
    "hsbm-node-0.5": (10000, 13843, 13843, 13843, 2, None, 172),
    "hsbm-node-0.6": (10000, 13772, 13772, 13772, 2, None, 160),
    "hsbm-node-0.7": (10000, 13777, 13777, 13777, 2, None, 144),
    "hsbm-node-0.8": (10000, 8725, 8725, 8725, 2, None, 712),
    "hsbm-node-0.9": (10000, 12536, 12536, 12536, 2, None, 237),
    "hsbm-edge-0.3": (10000, 14991, 14991, 14991, 2, None, 120),
    "hsbm-edge-0.4": (10000, 8788, 8788, 8788, 2, None, 720),
    "hsbm-edge-0.5": (10000, 16550, 16550, 16550, 2, None, 92),
    "hsbm-edge-0.6": (10000, 13772, 13772, 13772, 2, None, 160),
    "hsbm-edge-0.7": (10000, 16530, 16530, 16530, 2, None, 64),
    "hsbm-edge-0.8": (10000, 8725, 8725, 8725, 2, None, 712),
    "hsbm-edge-0.9": (10000, 16534, 16534, 16534, 2, None, 65),
}

_HOMOPHILIC = "homophilic"
_HETEROPHILIC = "heterophilic"

_DEFS = [
    # name, folder, format, base, remote files, optional files, source, description, homophily, notes
    ("cora-ca", "cora-ca", "A", _HYPERGCN, _hypergcn("cora-ca", _HYPERGCN, "data/coauthorship/cora"), (),
     "malllabiisc/HyperGCN@de04938:data/coauthorship/cora",
     "Cora co-authorship: papers, a hyperedge per author; 1433 binary bag-of-words features.",
     _HOMOPHILIC, "320 nodes in no hyperedge."),
    ("cora-cc", "cora-cc", "A", _HYPERGCN, _hypergcn("cora-cc", _HYPERGCN, "data/cocitation/cora"), (),
     "malllabiisc/HyperGCN@de04938:data/cocitation/cora",
     "Cora co-citation: papers, a hyperedge per citing paper; 1433 binary features.",
     _HOMOPHILIC, "1274 of 2708 nodes in no hyperedge: report the protocol (all / isolated removed)."),
    ("citeseer-cc", "citeseer-cc", "A", _HYPERGCN,
     _hypergcn("citeseer-cc", _HYPERGCN, "data/cocitation/citeseer"), (),
     "malllabiisc/HyperGCN@de04938:data/cocitation/citeseer",
     "Citeseer co-citation; 3703 binary features.", _HOMOPHILIC, "1854 isolated nodes."),
    ("pubmed-cc", "pubmed-cc", "A", _HYPERGCN,
     _hypergcn("pubmed-cc", _HYPERGCN, "data/cocitation/pubmed", features=False), (),
     "malllabiisc/HyperGCN@de04938:data/cocitation/pubmed",
     "Pubmed co-citation, structure and labels only (the features file is not carried).",
     _HOMOPHILIC, "15877 of 19717 nodes isolated; pubmed-cc-tricl is its covered part with features."),
    ("pubmed-cc-tricl", "pubmed-cc-tricl", "A", _MMACL,
     _hypergcn("pubmed-cc-tricl", _MMACL, "dataset/cocitation/pubmed"),
     ("tricl_to_hypergcn_node_ids.npy",),
     "JongsooLee-HYU/MMACL@7111f70:dataset/cocitation/pubmed",
     "Pubmed co-citation restricted to the 3840 covered nodes, 500 TF-IDF features (TriCL setup).",
     _HOMOPHILIC, "When tricl_to_hypergcn_node_ids.npy is present (local copies only; it has no "
     "public URL) it becomes hg.original_ids, the node ids in pubmed-cc."),
    ("dblp-ca", "dblp-ca", "A", _HYPERGCN,
     _hypergcn("dblp-ca", _HYPERGCN, "data/coauthorship/dblp", features=False), (),
     "malllabiisc/HyperGCN@de04938:data/coauthorship/dblp",
     "DBLP co-authorship, structure and labels only (features not carried).", _HOMOPHILIC,
     "A scale test."),
    ("zoo", "zoo", "B", _LEGCN, {"zoo.content": "data/zoo/zoo.content",
                                 "zoo.edges": "data/zoo/zoo.edges"}, (),
     "ycq091044/LEGCN@d03f474:data/zoo",
     "UCI Zoo: animals, hyperedges = shared categorical attribute values; 16 features.",
     _HOMOPHILIC, "Raw labels 1..7 mapped to 0..6."),
    ("mushroom", "mushroom", "B", _LEGCN, {"Mushroom.content": "data/Mushroom/Mushroom.content",
                                           "Mushroom.edges": "data/Mushroom/Mushroom.edges"}, (),
     "ycq091044/LEGCN@d03f474:data/Mushroom",
     "UCI Mushroom: hyperedges = shared attribute values; 22 categorical features.",
     _HOMOPHILIC, ""),
    ("20newsw100", "20newsw100", "B", _LEGCN,
     {"20newsW100.content": "data/20newsW100/20newsW100.content",
      "20newsW100.edges": "data/20newsW100/20newsW100.edges"}, (),
     "ycq091044/LEGCN@d03f474:data/20newsW100",
     "20 Newsgroups (4 groups), hyperedges = 100 words; 100 binary features.", _HOMOPHILIC,
     "Node ids of the .content file are not in row order; node i is row i."),
    ("senate-committees", "senate-committees", "C", _CHODROW,
     _benson("senate-committees", with_node_names=True), (),
     "PhilChodrow/HypergraphModularity@f43f6ed:data/senate-committees",
     "US Senate committees: senators, a hyperedge per committee; party labels.", _HETEROPHILIC,
     "Structure only. 11 hyperedges list a member twice (collapsed)."),
    ("house-committees", "house-committees", "C", _CHODROW,
     _benson("house-committees", with_node_names=True), (),
     "PhilChodrow/HypergraphModularity@f43f6ed:data/house-committees",
     "US House committees; party labels.", _HETEROPHILIC, "Structure only."),
    ("congress-bills", "congress-bills", "C", _CHODROW, _benson("congress-bills"), (),
     "PhilChodrow/HypergraphModularity@f43f6ed:data/congress-bills",
     "US Congress bill co-sponsorship; party labels.", _HOMOPHILIC,
     "Structure only; 1694 singleton hyperedges (kept by default)."),
    ("walmart-trips", "walmart-trips", "C", _CHODROW, _benson("walmart-trips"), (),
     "PhilChodrow/HypergraphModularity@f43f6ed:data/walmart-trips",
     "Walmart products, a hyperedge per shopping trip; 11 department labels.", _HOMOPHILIC,
     "Structure only; a scale test."),
    ("mathoverflow-answers", "mathoverflow-answers", "C", _CHODROW,
     _benson("mathoverflow-answers"), (),
     "PhilChodrow/HypergraphModularity@f43f6ed:data/mathoverflow-answers",
     "MathOverflow questions, a hyperedge per answering user; 641 tag classes.", _HOMOPHILIC,
     "Too many classes for quality tables; a scale test."),
    ("contact-high-school-classes", "contact-high-school-classes", "C", _CHODROW,
     _benson("contact-high-school-classes"), ("hs.hypergraphx.json",),
     "PhilChodrow/HypergraphModularity@f43f6ed:data/contact-high-school-classes",
     "High-school face-to-face contacts; 9 class labels.", _HOMOPHILIC,
     "hs.hypergraphx.json (optional, from the hypergraphx wheel) holds the same data in "
     "hypergraphx's JSON, with contact counts as weights."),
    ("actor", "actor", "A", _HYPERUFG,
     _hypergcn("actor", _HYPERUFG, "datasets/actor", features=False), (),
     "kellysylvia77/HyperUFG@a8ddcf6:datasets/actor",
     "Actor co-occurrence (film pages); 3 classes.", _HETEROPHILIC,
     "Structure only; float labels cast to int; 156 singletons, 1775 repeated memberships."),
    ("amazon-ratings", "amazon-ratings", "A", _HYPERUFG,
     _hypergcn("amazon-ratings", _HYPERUFG, "datasets/amazon", features=False), (),
     "kellysylvia77/HyperUFG@a8ddcf6:datasets/amazon",
     "Amazon product co-purchase; 5 rating classes.", _HETEROPHILIC,
     "Structure only; hyperedges cover 14% of nodes. Heterophilic by its source's node-level "
     "measure; the pairwise same-class rate in hyperedges (0.37) is above random (0.22)."),
    ("pokec", "pokec", "A", _HYPERUFG,
     _hypergcn("pokec", _HYPERUFG, "datasets/pokec", features=False), (),
     "kellysylvia77/HyperUFG@a8ddcf6:datasets/pokec",
     "Pokec social network; 2 gender classes.", _HETEROPHILIC,
     "Structure only; hyperedges cover 21% of nodes."),
    ("mag-10", "mag-10", "E", _HYPERPCI,
     {n: f"cat-edge-MAG-10/{n}" for n in ("hyperedges.txt", "hyperedge-labels.txt",
                                          "hyperedge-label-identities.txt")}, (),
     "iroumpos/hyper_PCI@0e9e19d:cat-edge-MAG-10",
     "MAG-10 co-authorship, hyperedges labelled by venue; no node labels.", "n/a",
     "Structure-only scale test; hyperedge label line 40706 is corrupt (reported, not fatal)."),
]

for _kind, _sub, _remote in (("node", "node_homophily", "Node Homophily"),
                             ("edge", "hyperedge_homophily", "Hyperedge Homophily")):
    for _h in ("0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9"):
        _folder = f"hsbm-synthetic/{_sub}/{_h}"
        _DEFS.append((
            f"hsbm-{_kind}-{_h}", _folder, "D", _HYPERUFG,
            {n: f"Synthetic Data/{_remote}/{_h}/{n}" for n in ("hyperedge.npy", "labels.npy")}, (),
            f"kellysylvia77/HyperUFG@a8ddcf6:Synthetic Data/{_remote}/{_h}",
            f"HSBM synthetic, {_kind} homophily {_h}: 10000 nodes, 2 balanced classes, "
            "hyperedges of size 3.",
            _HETEROPHILIC if float(_h) < 0.5 else ("neutral" if _h == "0.5" else _HOMOPHILIC),
            "Structure only. Upstream, the 0.4, 0.6 and 0.8 files of the node and hyperedge "
            "sweeps are identical." if _h in ("0.4", "0.6", "0.8") else "Structure only."))


def _make(defn) -> DatasetSpec:
    name, folder, fmt, base, remote, optional, source, desc, hom, notes = defn
    n, m, raw, uniq, k, d, iso = _STATS[name]
    opts = {}
    if fmt == "C":
        opts["dataset"] = next(iter(remote))[len("hyperedges-"):-len(".txt")]
    return DatasetSpec(name=name, folder=folder, format=fmt,
                       files=_files(folder, base, remote, optional), source=source,
                       description=desc, n_nodes=n, n_edges=m, n_edges_raw=raw,
                       n_edges_unique=uniq, n_classes=k, n_features=d, isolated_nodes=iso,
                       homophily=hom, notes=notes, reader_options=opts)


DATASETS: dict[str, DatasetSpec] = {d[0]: _make(d) for d in _DEFS}


def dataset_names() -> list[str]:
    """All registered dataset names, in registry order."""
    return list(DATASETS)


def get_spec(name: str) -> DatasetSpec:
    """The :class:`DatasetSpec` of ``name`` (case-insensitive).

    Raises
    ------
    ValueError
        For an unknown name, listing the closest registered names.
    """
    if not isinstance(name, str):
        raise TypeError(f"dataset name must be a string, got {type(name).__name__}")
    key = name.strip().lower()
    if key in DATASETS:
        return DATASETS[key]
    close = difflib.get_close_matches(key, DATASETS, n=4, cutoff=0.5)
    hint = f"did you mean {', '.join(close)}? " if close else ""
    raise ValueError(f"unknown dataset {name!r}; {hint}registered: {', '.join(DATASETS)}")


# ------------------------------------------------------------------------------ loading
class LabelLeakWarning(UserWarning):
    """Features built from the labels were requested: clustering scores become meaningless."""


def default_cache_dir(cache_dir=None) -> Path:
    """``cache_dir``, else ``$HYPERCLUST_CACHE``, else ``~/.cache/hyperclust``."""
    if cache_dir is not None:
        return Path(cache_dir).expanduser()
    env = os.environ.get("HYPERCLUST_CACHE")
    if env:
        return Path(env).expanduser()
    return Path("~/.cache/hyperclust").expanduser()


def _candidates(spec: DatasetSpec, data_dir, cache_dir) -> list[tuple[str, Path]]:
    out = []
    for origin, root in (("data_dir", data_dir), ("$HYPERCLUST_DATA", os.environ.get("HYPERCLUST_DATA"))):
        if root:
            root = Path(root).expanduser()
            out.append((origin, root / spec.folder))
            out.append((origin, root))  # the dataset folder itself
    out.append(("cache", default_cache_dir(cache_dir) / spec.folder))
    return out


def _has_required(spec: DatasetSpec, folder: Path) -> bool:
    return all((folder / f.name).is_file() for f in spec.files if f.required)


def locate_dataset(name: str, data_dir=None, cache_dir=None):
    """The local folder holding all required files of ``name`` (data_dir, then
    ``$HYPERCLUST_DATA``, then the cache), or None. Checksums are not verified here."""
    spec = get_spec(name)
    for _, folder in _candidates(spec, data_dir, cache_dir):
        if folder.is_dir() and _has_required(spec, folder):
            return folder
    return None


def _base_url(base_url):
    base = base_url if base_url is not None else os.environ.get("HYPERCLUST_BASE_URL")
    return base.rstrip("/") + "/" if base else None


def _fetch_missing(spec: DatasetSpec, folder: Path, base_url, timeout) -> None:
    from .download import download_file

    base = _base_url(base_url)
    for f in spec.files:
        if not f.required or (folder / f.name).is_file():
            continue
        if base is not None:
            url = base + quote(f"{spec.folder}/{f.name}")
        elif f.url is not None:
            url = f.url
        else:
            raise FileNotFoundError(f"{spec.name}: {f.name} has no public URL; place the dataset "
                                    "folder under data_dir or $HYPERCLUST_DATA")
        download_file(url, folder / f.name, f.sha256, timeout=timeout)


def _resolve(spec: DatasetSpec, data_dir, cache_dir, download, base_url, timeout) -> Path:
    from .download import ChecksumError, verify_file

    if data_dir is not None:
        root = Path(data_dir).expanduser()
        if not root.is_dir():
            raise FileNotFoundError(f"data directory not found: {root}" if not root.exists()
                                    else f"data directory is a file, not a folder: {root}")
        if not any(folder.is_dir() and _has_required(spec, folder)
                   for origin, folder in _candidates(spec, data_dir, cache_dir)
                   if origin == "data_dir"):
            raise FileNotFoundError(
                f"dataset {spec.name!r} is not in data directory {root} (looked for "
                f"{root / spec.folder} holding {', '.join(f.name for f in spec.files if f.required)}"
                "); omit the data directory to download it into the cache")
    searched = []
    for origin, folder in _candidates(spec, data_dir, cache_dir):
        searched.append(f"{folder} ({origin})")
        if folder.is_dir() and _has_required(spec, folder):
            break
    else:
        folder = default_cache_dir(cache_dir) / spec.folder
        if not download:
            raise FileNotFoundError(
                f"dataset {spec.name!r} not found locally (searched: {'; '.join(searched)}); "
                "pass data_dir=, set $HYPERCLUST_DATA, or allow download=True")
        _fetch_missing(spec, folder, base_url, timeout)
    in_cache = folder.resolve().is_relative_to(default_cache_dir(cache_dir).resolve())
    for f in spec.files:
        if (folder / f.name).is_file():
            try:
                verify_file(folder / f.name, f.sha256)
            except ChecksumError as exc:
                fix = ("delete it and load again to download a fresh copy" if in_cache else
                       "replace it with the original file from " +
                       (f.url or "the dataset's public source") +
                       ", or remove the data directory option to use the download cache")
                raise ChecksumError(exc.path, exc.expected, exc.actual,
                                    recovery=fix) from None
    return folder


def _read(spec: DatasetSpec, folder: Path, options) -> Hypergraph:
    from ..io import benchmark_formats as bf

    readers = {"A": bf.read_hypergcn, "B": bf.read_le, "C": bf.read_benson, "D": bf.read_hsbm,
               "E": bf.read_benson_edge_labelled}
    with warnings.catch_warnings():
        if spec.name == "mag-10":  # the known corrupt label is recorded in cleaning.extra
            warnings.simplefilter("ignore", UserWarning)
        hg = readers[spec.format](folder, name=spec.name, **spec.reader_options, **options)
    ids_file = folder / "tricl_to_hypergcn_node_ids.npy"
    if spec.name == "pubmed-cc-tricl" and ids_file.is_file():
        from ..io.safe_pickle import load_npy

        hg = Hypergraph(hg.incidence, weights=hg.weights, features=hg.features, labels=hg.labels,
                        node_names=hg.node_names, edge_names=hg.edge_names,
                        original_ids=load_npy(ids_file), cleaning=hg.cleaning, name=hg.name)
    return hg


def load_dataset(name: str, data_dir=None, cache_dir=None, download: bool = True, *,
                 leak_labels_as_features: bool = False, leak_noise_std: float = 1.0,
                 random_state=0, base_url: str | None = None, timeout: float = 60.0,
                 **options) -> Hypergraph:
    """Load a registered dataset as a :class:`~hyperclust.Hypergraph`.

    Files are looked up in ``data_dir`` (the collection root holding ``cora-ca/`` ..., or the
    dataset folder itself), then ``$HYPERCLUST_DATA``, then the cache (``cache_dir``, else
    ``$HYPERCLUST_CACHE``, else ``~/.cache/hyperclust``), where missing files are downloaded
    when ``download`` is true. Every file used is checked against the registry's SHA-256.

    Parameters
    ----------
    name : str
        A name from :func:`list_datasets` (case-insensitive).
    data_dir, cache_dir : str or PathLike, optional
    download : bool
        Download missing files into the cache.
    leak_labels_as_features : bool
        Replace the features by one-hot labels plus Gaussian noise (the AllSet/ED-HNN
        practice for feature-less datasets). **This leaks the labels**: clustering scores
        obtained with it measure nothing; a :class:`LabelLeakWarning` is emitted.
    leak_noise_std : float
        Standard deviation of that noise.
    random_state : int or numpy Generator
        Seed of that noise (only used with ``leak_labels_as_features``).
    base_url : str, optional
        Download from ``base_url + "/" + <folder>/<file>`` instead of the public URLs (also
        ``$HYPERCLUST_BASE_URL``), e.g. a mirror or a local test server.
    timeout : float
        Network timeout in seconds.
    **options
        ``duplicates``, ``singletons``, ``empty`` (see :meth:`Hypergraph.from_pairs`). The
        defaults merge duplicate hyperedges, keep singletons, drop empty ones.

    Returns
    -------
    Hypergraph
        Features are None for feature-less datasets; labels mapped to ``0..k-1`` (None for
        mag-10, whose labels are on hyperedges).

    Raises
    ------
    ValueError
        Unknown name (with close matches), bad options.
    ChecksumError
        A local or downloaded file does not match its checksum.
    FileNotFoundError, DownloadError
        The files are neither local nor downloadable.
    """
    spec = get_spec(name)
    folder = _resolve(spec, data_dir, cache_dir, download, base_url, timeout)
    hg = _read(spec, folder, options)
    if leak_labels_as_features:
        hg = _leak_labels(hg, leak_noise_std, random_state)
    return hg


def _leak_labels(hg: Hypergraph, noise_std: float, random_state) -> Hypergraph:
    if hg.labels is None:
        raise ValueError(f"{hg.name}: leak_labels_as_features needs node labels")
    if not np.isfinite(noise_std) or noise_std < 0:
        raise ValueError(f"leak_noise_std must be a non-negative number, got {noise_std!r}")
    warnings.warn(f"{hg.name}: features built from the labels (one-hot + N(0, {noise_std}^2) "
                  "noise). They LEAK THE LABELS: clustering scores on them are meaningless "
                  "for unsupervised evaluation.", LabelLeakWarning, stacklevel=3)
    y = hg.labels
    k = int(y.max()) + 1 if (y >= 0).any() else 1
    X = np.zeros((hg.n_nodes, k))
    lab = np.flatnonzero(y >= 0)
    X[lab, y[lab]] = 1.0
    X += np.random.default_rng(random_state).normal(0.0, noise_std, size=X.shape)
    return hg.replace(features=X)


def list_datasets(data_dir=None, cache_dir=None) -> list[dict]:
    """One record per registered dataset.

    Returns
    -------
    list of dict
        Keys ``name, n_nodes, n_edges, n_classes, features, format, homophily, available``
        (``available``: all required files are present in ``data_dir``,
        ``$HYPERCLUST_DATA`` or the cache; checksums are checked only when loading).
    """
    rows = []
    for spec in DATASETS.values():
        rows.append({
            "name": spec.name, "n_nodes": spec.n_nodes, "n_edges": spec.n_edges,
            "n_classes": spec.n_classes, "features": spec.n_features, "format": spec.format,
            "homophily": spec.homophily,
            "available": locate_dataset(spec.name, data_dir, cache_dir) is not None,
        })
    return rows


def dataset_info(name: str) -> dict:
    """All registry facts about ``name``: files (with checksums and URLs), source,
    description, counts, homophily note."""
    return get_spec(name).as_dict()
