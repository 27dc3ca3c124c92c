"""Uni-DHC: deep hypergraph clustering with a learnable polynomial spectral filter.

Our reconstruction of "A Unified Framework for Deep Hypergraph Clustering Beyond Homophily"
(ICML 2026; only the abstract is public), see ``docs/unidhc.md``. Pipeline:

1. node input X (features, seeded truncated SVD when d > 256; feature-less hypergraphs get
   :func:`hyperclust.spectral.structural_features` with ``2 * n_clusters`` columns), rescaled
   to unit mean row norm;
2. a label-free smoothness z-score of X on the hypergraph picks the initial filter family
   (low-pass ``P^2``, identity, or high-pass ``I - P``);
3. the basis ``[T_0(P) X, ..., T_K(P) X]`` is precomputed in factored form; isolated nodes
   take half of each propagated term from their nearest connected nodes in feature space;
4. gamma and a residual encoder ``Z + MLP(Z)`` (the identity at the start) are trained (two
   dropout views, node consistency, hyperedge decorrelation, gamma kept near its initial
   shape);
5. k-means (several inits) on the L2-normalised filter output concatenated with the
   L2-normalised encoder output.
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np
from sklearn.preprocessing import normalize

from ..models.adaptivity import choose_family, smoothness_zscore
from ..models.basis import (BASES, basis_response, borrow_for_isolated, feature_neighbors,
                            polynomial_basis)
from ..operators import propagation
from ..operators.propagation import PropagationOperator
from ..threads import current_limit
from .base import HypergraphClusterer, check_hypergraph, check_n_clusters
from .registry import DESCRIPTIONS

__all__ = ["UniDHC", "family_coefficients", "METHODS"]

_FAMILIES = ("low-pass", "identity", "high-pass", "uniform")
EMBEDDINGS = ("concat", "filter", "encoder", "auto")
SELECTION_NEIGHBORS = 10
"""Attribute neighbours of the kNN walk that scores the candidate outputs (as in ``auto``)."""
NEIGHBOR_PAIR_BUDGET = 2 ** 30
"""Most (isolated, connected) pairs compared exactly (about 10-30 s at d = 128 on 2 cores);
beyond it the candidates are a seeded uniform sample of the connected nodes."""


def _family_power(family: str, order: int) -> np.ndarray:
    """Coefficients of a named filter in the power basis ``P^0..P^order``."""
    g = np.zeros(order + 1)
    if family == "low-pass":
        g[min(2, order)] = 1.0  # P^2 X: the study's most reliable fixed filter on real data
    elif family == "identity":
        g[0] = 1.0
    elif family == "high-pass":
        if order < 1:
            raise ValueError("a high-pass filter needs order >= 1")
        g[0], g[1] = 1.0, -1.0  # (I - P) X
    elif family == "uniform":
        g[:] = 1.0 / (order + 1)
    else:
        raise ValueError(f"unknown filter family {family!r}; expected one of {_FAMILIES}")
    return g


def family_coefficients(family: str, order: int, basis: str = "power") -> np.ndarray:
    """Coefficients gamma, shape (order + 1,), of a named filter in the given basis.

    The power-basis polynomial is re-expressed exactly in the ``basis`` polynomials (same
    degree, so least squares on ``order + 1`` or more points is exact).

    Examples
    --------
    >>> family_coefficients("high-pass", 2).tolist()
    [1.0, -1.0, 0.0]
    """
    g = _family_power(family, order)
    if basis == "power":
        return g
    lam = np.linspace(0.0, 1.0, 4 * (order + 1))
    target = g @ basis_response(lam, order, "power")
    A = basis_response(lam, order, basis).T
    coef, *_ = np.linalg.lstsq(A, target, rcond=None)
    return coef


def _deep():
    """``(torch, ENCODERS, train_unidhc)``, imported on first use: torch is the optional
    extra ``hyperclust[deep]``, and importing this module must not load it."""
    try:
        import torch
    except ImportError:
        raise ImportError("UniDHC needs torch, which is not installed: "
                          "pip install hyperclust[deep]") from None
    from ..models.unidhc import ENCODERS, train_unidhc

    return torch, ENCODERS, train_unidhc


def _check_pos_int(value, name, minimum=1):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _check_nonneg(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value) \
            or value < 0:
        raise ValueError(f"{name} must be a non-negative number, got {value!r}")
    return float(value)


class UniDHC(HypergraphClusterer):
    """Deep hypergraph clustering with a learnable polynomial filter ``sum_k gamma_k T_k(P)``.

    Parameters
    ----------
    n_clusters : int
    order : int, default 4
        Highest polynomial order ``K``.
    basis : {"power", "laplacian", "chebyshev"}, default "power"
        ``T_k(P) = P^k``, ``(I - P)^k``, or Chebyshev polynomials of ``2P - I``. Computed
        in float32 (:data:`hyperclust.operators.propagation.BASIS_DTYPE`; the network trains
        in float32): mean ACC/NMI within 0.006 of float64 (less than one std) over 5 seeds
        on 10 shared sets (docs/results/bench/dtype_settings.md).
    gamma_init : {"auto", "low-pass", "identity", "high-pass", "uniform"} or array-like
        Initial filter. ``"auto"``: the label-free smoothness z-score of the input
        (:func:`hyperclust.models.adaptivity.smoothness_zscore`) chooses low-pass ``P^2``
        (z < -threshold), high-pass ``I - P`` (z > threshold) or the identity.
    family_threshold : float, default 2.0
    self_loops : float, default 1.0
        Self-loop weight of :class:`~hyperclust.operators.PropagationOperator`.
    input : {"auto", "features", "structural"}, default "auto"
        Node input; ``"auto"`` = features when present, else the label-free spectral
        embedding :func:`hyperclust.spectral.structural_features` (``n_structural`` columns).
    n_components : int, "auto" or None, default "auto"
        Seeded truncated-SVD projection of the input (``"auto"``: 128 when d > 256).
    isolated_neighbors : int or None, default 10
        Isolated nodes (in no hyperedge) take half of each propagated basis term (orders >= 1)
        from the mean of their ``isolated_neighbors`` nearest connected nodes by cosine
        similarity of the input (:func:`hyperclust.models.basis.borrow_for_isolated`);
        ``None`` or 0 leaves them with their raw input, as propagation alone does. Only with
        node features (a structural input carries nothing for isolated nodes). Exact search:
        time ``O(n_isolated * n_connected * d)``.
    n_structural : int or "auto", default "auto"
        Columns of the structural input; ``"auto"`` = ``2 * n_clusters`` clipped to [4, 32]
        (:func:`hyperclust.cluster.baselines.structural_dim`).
    encoder : {"residual", "mlp"}, default "residual"
        ``"residual"``: ``Z + MLP(Z)`` with the last layer zero-initialised, so the encoder
        starts as the identity on the filter output and learns a correction of it;
        ``"mlp"``: a plain two-layer MLP to ``out_dim`` columns (the first design; it
        loses the filter's geometry where the losses have no reason to keep it, see
        docs/unidhc.md).
    hidden_dim : int, default 256
    out_dim : int, default 64
        Output width of the ``"mlp"`` encoder (the residual one keeps the input width).
    epochs : int, default 20
    lr : float, default 1e-3
        Adam learning rate of the encoder.
    gamma_lr : float, default 1e-3
        Adam learning rate of gamma. At 1e-2 gamma drifted on small hypergraphs (zoo: the
        identity term 0 -> .17) and the filter block lost what the init had (.92 -> .86).
    batch_size, edge_batch_size : int, default 512, 256
    consistency : {"cosine", "infonce"}, default "cosine"
    consistency_weight, decorrelation_weight, gamma_reg : float, default 1.0, 0.1, 1.0
        Loss weights; ``gamma_reg`` multiplies ``||gamma - gamma_init||^2``. A decorrelation
        weight of 1 hurt the encoder output on every real dataset measured (docs/unidhc.md).
    dropout : float, default 0.2
        Feature dropout making the two views.
    positives : {"dropout", "co-member"}, default "dropout"
        Second view of a node: a dropout copy of itself, or of a random hyperedge co-member.
    false_negative_mask : float in (0, 1), "1/k" or None, default None
        Cosine consistency only: each node's most similar batch mates (this fraction of the
        batch, by centred filter output; ``"1/k"`` = ``1 / n_clusters``) are left out of the
        term that pushes different nodes apart. Lifts mushroom, 20newsw100 and cora-ca with
        isolated nodes removed, sinks pubmed-cc-tricl (docs/unidhc.md), hence off by default.
    edge_member_cap : int or None, default 64
        Hyperedges larger than this enter the decorrelation loss through a fresh uniform
        sample of this many members (keeps a step's cost bounded on huge hyperedges).
    embedding : {"concat", "filter", "encoder", "auto"}, default "concat"
        What k-means clusters: L2-normalised filter output, encoder output, or both side by
        side; ``"auto"`` clusters each of these and the two fixed filters (``P^2 X`` and
        ``X``) and keeps the clustering with the lowest label-free
        :func:`~hyperclust.objectives.rwr_conductance` (``balance="min"``) on the mixed
        hypergraph + attribute-kNN walk (``selected_``, ``scores_``).
    n_init : int, default 10
        k-means restarts.
    random_state : int, default 0
    device : str, default "cpu"
    verbose : bool, default False
        tqdm progress bar over epochs.

    Attributes
    ----------
    labels_ : ndarray, shape (n_nodes,)
    embedding_ : ndarray, shape (n_nodes, 2 d) (``"concat"``; ``d + out_dim`` with the
        ``"mlp"`` encoder)
    n_filter_columns_ : int
        Leading columns of ``embedding_`` that hold the filter block (0 with
        ``embedding="encoder"``); the rest is the encoder block.
    coefficients_ : ndarray, shape (order + 1,)
        Learned gamma (in the chosen basis).
    initial_coefficients_ : ndarray, shape (order + 1,)
    loss_history_ : list of dict
        Per-epoch mean losses.
    input_kind_ : str
        ``"features"`` or ``"structural"``.
    smoothness_z_ : float or None
        The z-score (``None`` when ``gamma_init`` is not ``"auto"``).
    filter_family_ : str
        Family of the initial filter (``"custom"`` for an explicit array).
    n_isolated_borrowing_ : int
        Isolated nodes whose propagated terms came partly from their feature neighbours.

    Examples
    --------
    >>> from hyperclust.datasets.synthetic import hypergraph_sbm
    >>> hg = hypergraph_sbm(120, 2, homophily=0.9, n_features=8, random_state=0)
    >>> est = UniDHC(2, epochs=2, hidden_dim=16, random_state=0).fit(hg)
    >>> est.labels_.shape, est.embedding_.shape, est.coefficients_.shape
    ((120,), (120, 16), (5,))
    """

    def __init__(self, n_clusters=2, *, order=4, basis="power", gamma_init="auto",
                 family_threshold=2.0, self_loops=1.0, input="auto", n_components="auto",
                 n_structural="auto", isolated_neighbors=10, encoder="residual",
                 hidden_dim=256, out_dim=64, epochs=20, lr=1e-3, gamma_lr=1e-3,
                 batch_size=512, edge_batch_size=256,
                 consistency="cosine", consistency_weight=1.0, decorrelation_weight=0.1,
                 gamma_reg=1.0, dropout=0.2,
                 positives="dropout", false_negative_mask=None, edge_member_cap=64,
                 embedding="concat", n_init=10,
                 random_state=0, device="cpu", verbose=False):
        self.n_clusters = n_clusters
        self.order = order
        self.basis = basis
        self.gamma_init = gamma_init
        self.family_threshold = family_threshold
        self.self_loops = self_loops
        self.input = input
        self.n_components = n_components
        self.n_structural = n_structural
        self.isolated_neighbors = isolated_neighbors
        self.encoder = encoder
        self.hidden_dim = hidden_dim
        self.out_dim = out_dim
        self.epochs = epochs
        self.lr = lr
        self.gamma_lr = gamma_lr
        self.batch_size = batch_size
        self.edge_batch_size = edge_batch_size
        self.consistency = consistency
        self.consistency_weight = consistency_weight
        self.decorrelation_weight = decorrelation_weight
        self.gamma_reg = gamma_reg
        self.dropout = dropout
        self.positives = positives
        self.false_negative_mask = false_negative_mask
        self.edge_member_cap = edge_member_cap
        self.embedding = embedding
        self.n_init = n_init
        self.random_state = random_state
        self.device = device
        self.verbose = verbose

    # ------------------------------------------------------------------ validation
    def _validate(self):
        order = _check_pos_int(self.order, "order", 0)
        if self.basis not in BASES:
            raise ValueError(f"basis must be one of {BASES}, got {self.basis!r}")
        for name in ("hidden_dim", "out_dim", "batch_size", "edge_batch_size", "n_init"):
            _check_pos_int(getattr(self, name), name)
        _check_pos_int(self.epochs, "epochs", 0)
        from .baselines import structural_dim

        structural_dim(self.n_structural, 2)
        if self.isolated_neighbors is not None:
            _check_pos_int(self.isolated_neighbors, "isolated_neighbors", 0)
        for name in ("lr", "gamma_lr", "consistency_weight", "decorrelation_weight", "gamma_reg",
                     "family_threshold"):
            _check_nonneg(getattr(self, name), name)
        if not 0.0 <= float(self.dropout) < 1.0:
            raise ValueError(f"dropout must be in [0, 1), got {self.dropout!r}")
        if self.consistency not in ("cosine", "infonce"):
            raise ValueError(f"consistency must be 'cosine' or 'infonce', got {self.consistency!r}")
        if self.edge_member_cap is not None:
            _check_pos_int(self.edge_member_cap, "edge_member_cap")
        if self.positives not in ("dropout", "co-member"):
            raise ValueError(f"positives must be 'dropout' or 'co-member', got {self.positives!r}")
        fn = self.false_negative_mask
        if fn is not None and fn != "1/k" and (
                isinstance(fn, (bool, str)) or not isinstance(fn, numbers.Real)
                or not 0.0 < fn < 1.0):
            raise ValueError(f"false_negative_mask must be None, '1/k' or a number in (0, 1), "
                             f"got {fn!r}")
        if fn is not None and self.consistency != "cosine":
            raise ValueError("false_negative_mask applies to consistency='cosine' only")
        encoders = _deep()[1]
        if self.encoder not in encoders:
            raise ValueError(f"encoder must be one of {encoders}, got {self.encoder!r}")
        if self.embedding not in EMBEDDINGS:
            raise ValueError(f"embedding must be one of {EMBEDDINGS}, got {self.embedding!r}")
        if isinstance(self.gamma_init, str):
            if self.gamma_init != "auto" and self.gamma_init not in _FAMILIES:
                raise ValueError(f"gamma_init must be 'auto', one of {_FAMILIES} or an array, "
                                 f"got {self.gamma_init!r}")
        else:
            g = np.asarray(self.gamma_init, dtype=np.float64)
            if g.shape != (order + 1,) or not np.all(np.isfinite(g)):
                raise ValueError(f"gamma_init must be a finite array of length order + 1 = "
                                 f"{order + 1}, got shape {g.shape}")
        return order

    # ------------------------------------------------------------------ fitting
    def _prepare_input(self, hg, seed, n_clusters):
        from .baselines import node_input, reduce_features, structural_dim

        X, kind = node_input(hg, self.input, seed,
                             n_components_structural=structural_dim(self.n_structural, n_clusters))
        X = reduce_features(X, self.n_components, seed)
        X = X.toarray() if hasattr(X, "toarray") else np.asarray(X, dtype=np.float64)
        scale = np.sqrt(np.mean(np.sum(X * X, axis=1)))
        return (X / scale if scale > 0 else X), kind

    def _borrow_for_isolated(self, hg, X, B, seed):
        """Step 3b: isolated nodes take half of each propagated term from feature neighbours."""
        self.n_isolated_borrowing_ = 0
        if not self.isolated_neighbors or self.input_kind_ != "features":
            return B
        isolated = np.flatnonzero(hg.isolated)
        if not 0 < isolated.size < hg.n_nodes:
            return B
        connected = np.flatnonzero(~hg.isolated)
        keep = max(10 * self.isolated_neighbors, NEIGHBOR_PAIR_BUDGET // isolated.size)
        if keep < connected.size:
            warnings.warn(
                f"{isolated.size} isolated nodes x {connected.size} connected nodes exceed the "
                f"exact neighbour-search budget; isolated nodes search a seeded sample of "
                f"{keep} connected nodes", RuntimeWarning, stacklevel=3)
            connected = np.sort(np.random.default_rng(seed).choice(connected, size=keep,
                                                                    replace=False))
        neighbors = feature_neighbors(X, isolated, connected, self.isolated_neighbors)
        self.n_isolated_borrowing_ = int(isolated.size)
        return borrow_for_isolated(B, isolated, neighbors)

    def fit(self, hypergraph, y=None):
        """Fit on ``hypergraph`` (labels, if any, are ignored). Returns ``self``."""
        torch, _, train_unidhc = _deep()
        limit = current_limit()  # torch may have been imported inside this fit's thread limit
        if limit is not None:
            torch.set_num_threads(limit)
        hg = check_hypergraph(hypergraph)
        k = check_n_clusters(self.n_clusters, hg.n_nodes)
        order = self._validate()
        seed = self._rng_seed(self.random_state)
        X, self.input_kind_ = self._prepare_input(hg, seed, k)
        # float32 propagation (propagation.BASIS_DTYPE): the basis is trained in float32
        P = PropagationOperator(hg, self_loops=self.self_loops, dtype=propagation.BASIS_DTYPE)
        self.smoothness_z_ = None
        if isinstance(self.gamma_init, str):
            family = self.gamma_init
            if family == "auto":
                self.smoothness_z_ = smoothness_zscore(P, X, random_state=seed)
                family = choose_family(self.smoothness_z_, self.family_threshold)
            if family == "high-pass" and order < 1:
                family = "identity"
            self.filter_family_ = family
            g0 = family_coefficients(family, order, self.basis)
        else:
            self.filter_family_ = "custom"
            g0 = np.asarray(self.gamma_init, dtype=np.float64)
        self.initial_coefficients_ = g0.copy()
        B = polynomial_basis(P, X, order, self.basis)
        B = self._borrow_for_isolated(hg, X, B, seed)
        net, self.loss_history_ = train_unidhc(
            B, hg.incidence, g0, hidden_dim=self.hidden_dim, out_dim=self.out_dim,
            encoder=self.encoder,
            epochs=self.epochs, lr=self.lr, gamma_lr=self.gamma_lr, batch_size=self.batch_size,
            edge_batch_size=self.edge_batch_size, consistency=self.consistency,
            consistency_weight=self.consistency_weight,
            decorrelation_weight=self.decorrelation_weight, gamma_reg=self.gamma_reg,
            dropout=float(self.dropout), positives=self.positives,
            edge_member_cap=self.edge_member_cap,
            false_negative_fraction=1.0 / k if self.false_negative_mask == "1/k"
            else self.false_negative_mask, random_state=seed, device=self.device,
            verbose=self.verbose)
        self.coefficients_ = net.filter.gamma.detach().cpu().numpy().astype(np.float64)
        Z = np.tensordot(self.coefficients_, B, axes=1)
        blocks = {"filter": lambda: normalize(Z),
                  "encoder": lambda: self._encode(net, Z)}
        if self.embedding == "auto":
            self._select_output(hg, k, seed, order, B, blocks)
            return self
        parts = []
        if self.embedding in ("concat", "filter"):
            parts.append(blocks["filter"]())
        if self.embedding in ("concat", "encoder"):
            parts.append(blocks["encoder"]())
        self.n_filter_columns_ = Z.shape[1] if self.embedding in ("concat", "filter") else 0
        self.embedding_ = np.hstack(parts)
        from .baselines import kmeans_labels

        self.labels_ = kmeans_labels(self.embedding_, k, self.n_init, seed)
        return self

    def _encode(self, net, Z):
        torch = _deep()[0]
        with torch.no_grad():
            Hh = net.encoder(torch.as_tensor(Z, dtype=torch.float32,
                                             device=torch.device(self.device)))
        return normalize(Hh.cpu().numpy().astype(np.float64))

    def _select_output(self, hg, k, seed, order, B, blocks):
        """``embedding="auto"``: cluster every candidate output and keep the one with the
        lowest :func:`~hyperclust.objectives.rwr_conductance` (``balance="min"``) on the mixed
        hypergraph + attribute-kNN walk, the objective ``auto`` selects with."""
        from ..objectives import rwr_conductance
        from ..operators.knn import MixedWalk, knn_affinity
        from .baselines import kmeans_labels

        floor = family_coefficients("low-pass", order, self.basis)
        ident = family_coefficients("identity", order, self.basis)
        filt = blocks["filter"]()
        enc = blocks["encoder"]()
        candidates = {
            "concat": (np.hstack([filt, enc]), filt.shape[1]),
            "filter": (filt, filt.shape[1]),
            "encoder": (enc, 0),
            "fixed-low-pass": (normalize(np.tensordot(floor, B, axes=1)), B.shape[2]),
            "input": (normalize(np.tensordot(ident, B, axes=1)), B.shape[2]),
        }
        A = None
        if hg.features is not None and hg.n_nodes > 1:
            A = knn_affinity(hg.features, SELECTION_NEIGHBORS, random_state=seed)
        walk = MixedWalk(hg, A, beta=0.5)
        scores, labels = {}, {}
        for name, (emb, _) in candidates.items():
            labels[name] = kmeans_labels(emb, k, self.n_init, seed)
            scores[name] = rwr_conductance(hg, labels[name], walk=walk, balance="min")
        names = list(candidates)
        best = min(names, key=lambda c: (scores[c], names.index(c)))
        self.selected_, self.scores_, self.candidate_labels_ = best, scores, labels
        self.embedding_, self.n_filter_columns_ = candidates[best]
        self.labels_ = labels[best]

    def spectral_response(self, lambdas) -> np.ndarray:
        """Learned response ``g(lambda) = sum_k gamma_k T_k(1 - lambda)``.

        Parameters
        ----------
        lambdas : array-like, shape (t,)
            Eigenvalues of the normalized Laplacian ``I - P`` (in [0, 1]).

        Returns
        -------
        ndarray, shape (t,)
        """
        if not hasattr(self, "coefficients_"):
            raise AttributeError("call fit before spectral_response")
        return self.coefficients_ @ basis_response(lambdas, len(self.coefficients_) - 1,
                                                   self.basis)


METHODS = {
    "unidhc": (lambda k, seed, device: UniDHC(k, random_state=seed, device=device),
               DESCRIPTIONS["unidhc"]),
    "unidhc-filter": (lambda k, seed, device: UniDHC(k, embedding="filter", random_state=seed,
                                                     device=device),
                      DESCRIPTIONS["unidhc-filter"]),
}
