"""The peer libraries' methods, registered in :data:`hyperclust.cluster.registry.METHODS` when
:mod:`hyperclust.bench` is imported (so the registry never imports the benchmark package).

Examples
--------
>>> from hyperclust.cluster.registry import METHODS, provider_module
>>> METHODS["peer-xgi"].peer, METHODS["peer-xgi"].package, provider_module("peer-xgi")
(True, 'xgi', 'hyperclust.bench.peers')
"""

from __future__ import annotations

from ..cluster.registry import METHODS, Method, register_method

__all__ = ["PEER_METHODS"]

_PEERS = "hyperclust.bench.peers"


def _peer(cls: str, library: str, description: str, *extra_modules: str) -> Method:
    return Method(f"{_PEERS}:{cls}", description, peer=True,
                  requires=(library, *extra_modules), package=library)


#: ``{name: Method}`` of the peer libraries' methods.
PEER_METHODS = {
    "peer-hypergraphx": _peer("HySCPeer", "hypergraphx",
                              "hypergraphx HySC: dense Zhou Laplacian, full eig, k-means",
                              "hypergraphx.communities.hy_sc.model"),
    "peer-xgi": _peer("XGIPeer", "xgi",
                      "XGI spectral_clustering: Zhou Laplacian, eigsh, own k-means"),
    "peer-hypernetx": _peer("HyperNetXPeer", "hypernetx",
                            "HyperNetX spec_clus: random-walk Laplacian (needs a connected "
                            "hypergraph)", "hypernetx.algorithms.clustering.laplacians_clustering"),
    "peer-dhg": _peer("DHGPeer", "dhg",
                      "DHG smoothing_with_HGNN applied twice to the features, k-means"),
    # no pip package: the public code is run in a checkout ($HYMMSBM_DIR), nothing imported
    "peer-hymmsbm": Method("hyperclust.bench.peer_hymmsbm:HyMMSBMPeer",
                           "Hy-MMSBM (public code, run in its checkout): mixed-membership "
                           "hypergraph SBM, EM", peer=True),
    "peer-hycosbm": Method("hyperclust.bench.peer_hycosbm:HyCoSBMPeer",
                           "HyCoSBM (public code, run in its checkout, $HYCOSBM_DIR): "
                           "Hy-MMSBM with node attributes, EM", peer=True),
    "peer-hyperneo": Method("hyperclust.bench.peer_hyperneo:HyperNEOPeer",
                            "HyperNEO (public code, run in its checkout, $HYPERNEO_DIR): "
                            "mixed-membership SBM with one categorical attribute, EM",
                            peer=True),
}

for _name, _method in PEER_METHODS.items():
    if METHODS.get(_name) != _method:  # a reload of this module re-registers the same entries
        register_method(_name, _method)
