"""Uni-DHC: deep hypergraph clustering with a learnable polynomial spectral filter.

Input ``X`` -> filter ``sum_k gamma_k P^k X`` learned by a label-free objective -> residual
encoder trained on it -> k-means on the filter (and encoder) output. Our reconstruction of
"A Unified Framework for Deep Hypergraph Clustering Beyond Homophily" (ICML 2026); design
and measurements: docs/unidhc.md, "Pipeline".
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.preprocessing import normalize
from threadpoolctl import threadpool_limits

from ..models.adaptivity import choose_family, smoothness_zscore
from .._validation import DEVICE, FINITE_ARRAY, Interval, Options
from ..models.basis import (FAMILIES as _FAMILIES, basis_response, borrow_for_isolated,
                            family_coefficients, feature_neighbors, polynomial_basis)
from ..operators import propagation
from ..operators.propagation import PropagationOperator
from ..runtime.threads import limit_imported_torch
from .base import SHARED_CONSTRAINTS, HypergraphClusterer, check_hypergraph, check_n_clusters
from .baselines import INPUT, N_COMPONENTS, N_STRUCTURAL
from .rounding import kmeans_labels
from .node_order import pays_on_structural_input
from .spectral import N_INIT, resolve_settings
from .unidhc_output import (MIN_HELDOUT_COLUMNS, choose_by_splits, conductance_output,
                            heldout_choice, heldout_filter)

__all__ = ["UniDHC", "family_coefficients"]

_LEARNED = ("heldout", "canonical", "alignment", "contrast", "auto")
CONTRAST_STEPS = 300
"""Adam steps of the filter objective."""
EMBEDDINGS = ("by-input", "concat", "filter", "heldout", "split", "auto")
VIEWS = ("dropout", "complementary")
NEIGHBOR_PAIR_BUDGET = 2 ** 23
"""Most (isolated, connected) pairs compared exactly; beyond it isolated nodes search a
seeded sample of the connected nodes."""
ENCODE_ROWS = 2 ** 12
"""Rows per encoder pass in the embedding (a pass's hidden layer stays in cache)."""
MIN_THREADED_ROWS = 1024
"""Encoder blocks of fewer rows run on one torch thread: on a few rows torch splits each
row's sums between threads (docs/unidhc.md, "Determinism")."""


def _filter_output(coefficients, B) -> np.ndarray:
    """``sum_k gamma_k B[k]`` in the basis dtype (float32, the network's precision)."""
    return np.tensordot(np.asarray(coefficients, dtype=B.dtype), B, axes=1)


def _row_sums_of_squares(X) -> np.ndarray:
    """``np.sum(X * X, axis=1)`` bit for bit, by blocks of rows (no n x d temporary)."""
    out = np.empty(X.shape[0], dtype=X.dtype)
    for lo in range(0, X.shape[0], ENCODE_ROWS):
        block = X[lo:lo + ENCODE_ROWS]
        np.sum(block * block, axis=1, out=out[lo:lo + ENCODE_ROWS])
    return out


def _deep():
    """``(torch, train_unidhc)``, imported on first use (torch is optional)."""
    try:
        import torch
    except ImportError:
        raise ImportError("UniDHC needs torch, which is not installed: "
                          "pip install hyperclust[deep]") from None
    from ..models.unidhc import train_unidhc

    return torch, train_unidhc


class UniDHC(HypergraphClusterer):
    """Deep hypergraph clustering with a learnable polynomial filter ``sum_k gamma_k P^k``.

    Parameters
    ----------
    n_clusters : int
    order : int, default 2
        Highest order ``K`` of the float32 basis ``[X, PX, ..., P^K X]``.
    gamma_init : {"canonical", "heldout", "alignment", "contrast", "auto", "low-pass", \
"identity", "high-pass", "uniform"} or array
        Filter before the encoder's training. ``"canonical"``: the mixture of the atoms
        ``I, P..P^K, (I-P)..(I-P)^K`` learned by the feature-split canonical correlation
        (:func:`hyperclust.models.canonical.canonical_correlation`; ``P^2`` on a structural
        input). ``"heldout"`` (the registered ``unidhc``): that filter or the atom that best
        predicts held-out columns (:func:`~hyperclust.cluster.unidhc_output.heldout_filter`).
        ``"alignment"``, ``"contrast"``: the mixture learned by
        :func:`hyperclust.models.contrast.feature_split_alignment` or
        :func:`~hyperclust.models.contrast.energy_contrast`. ``"auto"``: ``P^2``, ``I - P`` or
        ``I`` by :func:`hyperclust.models.adaptivity.smoothness_zscore`. A family name or
        ``order + 1`` power-basis coefficients: that filter.
    order_penalty : float, default 0.03
        Of ``"contrast"``: the gain in log energy ratio each order must bring.
    self_loops : float, default 1.0
        Self-loop weight of :class:`~hyperclust.operators.PropagationOperator`.
    input : {"auto", "features", "structural"}, default "auto"
        ``"auto"``: features when present, else
        :func:`hyperclust.operators.eigensolvers.structural_features`.
    n_components : int, "auto" or None, default "auto"
        Seeded truncated-SVD projection of the input (``"auto"``: 128 when d > 256).
    n_structural : int or "auto", default "auto"
        Columns of the structural input (``"auto"``: ``2 * n_clusters`` clipped to [4, 32]).
    isolated_neighbors : int or None, default 10
        With features, isolated nodes take half of each propagated term from this many
        nearest connected nodes (:func:`hyperclust.models.basis.borrow_for_isolated`; exact
        up to :data:`NEIGHBOR_PAIR_BUDGET` pairs, sampled beyond); None or 0: off.
    hidden_dim : int, default 256
        Hidden width of the residual encoder ``Z + MLP(Z)`` (the identity at the start).
    epochs : int, default 20
        Passes of at most :data:`hyperclust.models.unidhc.MAX_BATCHES_PER_EPOCH` batches.
    lr, gamma_lr : float, default 1e-3, 0.0
        Adam learning rates of the encoder and of gamma (0: the filter stays).
    batch_size : int, default 512
        Nodes per step; each step also draws ``batch_size // 2`` hyperedges.
    decorrelation_weight, consistency_weight, gamma_reg : float, default 0.1, 1.0, 1.0
        Weights of the hyperedge decorrelation, the node consistency and
        ``||gamma - gamma_init||^2``.
    dropout : float, default 0.2
        Feature dropout making the two views when ``views="dropout"``.
    views : {"dropout", "complementary"}, default "dropout"
        Two dropout copies of the filter output, or complementary random halves of it.
    embedding : {"by-input", "concat", "filter", "heldout", "split", "auto"}, default "by-input"
        What k-means clusters. ``"concat"``: the L2-normalised filter and encoder outputs
        side by side; ``"filter"``: the filter output; ``"by-input"``: concat on features,
        filter on a structural input. ``"heldout"``: concat where it wins on held-out
        columns (:func:`~hyperclust.cluster.unidhc_output.heldout_choice`). ``"split"``:
        concat, filter or ``P^2 X`` by a split's held-out hyperedges and columns
        (:func:`~hyperclust.cluster.unidhc_output.split_choice`). ``"auto"``: the lowest
        :func:`~hyperclust.selection.objectives.rwr_conductance` among these, the encoder
        output and ``X``. A structural input keeps the filter for ``"heldout"``, ``"split"``.
    n_init : int or "auto", default "auto"
        k-means restarts (:func:`hyperclust.cluster.spectral.resolve_settings`).
    random_state : int, default 0
    device : str, default "cpu"
    verbose : bool, default False
        tqdm progress bar over epochs.

    Attributes
    ----------
    labels_ : ndarray, shape (n_nodes,)
    embedding_ : ndarray of float32, shape (n_nodes, 2 d) (``"concat"``)
        What k-means clustered; its first ``n_filter_columns_`` columns are the filter output.
    n_filter_columns_ : int
    coefficients_, initial_coefficients_ : ndarray, shape (order + 1,)
        Gamma (power basis) after and before the encoder's training.
    loss_history_ : list of dict
        Per-epoch mean losses (:func:`~hyperclust.models.unidhc.train_on_batches`); empty
        where no encoder was trained.
    input_kind_ : {"features", "structural"}
    smoothness_z_ : float or None
        The z-score of ``gamma_init="auto"``.
    filter_family_ : str
        The objective's name when learned, the atom kept by ``"heldout"``, or ``"custom"``.
    mixture_weights_ : ndarray, shape (2 order + 1,) or None
        Learned atom weights.
    filter_errors_ : dict or None
        ``gamma_init="heldout"``: each candidate filter's mean held-out error.
    filter_trajectory_ : list of dict
        The learning's ``{"step", "objective", "gamma"}`` every 10 steps.
    n_isolated_borrowing_, n_init_ : int
        Isolated nodes that borrowed from feature neighbours; k-means restarts used.
    selected_, scores_, selection_reason_ : str, dict or None, str
        The output ``embedding`` chose, the scores it chose by, both in one line.

    Examples
    --------
    >>> from hyperclust.datasets.synthetic import hypergraph_sbm
    >>> hg = hypergraph_sbm(120, 2, homophily=0.9, n_features=8, random_state=0)
    >>> est = UniDHC(2, epochs=2, hidden_dim=16, random_state=0).fit(hg)
    >>> est.labels_.shape, est.embedding_.shape, est.coefficients_.shape
    ((120,), (120, 16), (3,))
    """

    #: Outputs indexed by node (:mod:`hyperclust.cluster.node_order` restores their order).
    _node_outputs = ("labels_", "embedding_", "candidate_labels_")
    _cache_order_pays = pays_on_structural_input

    _parameter_constraints = {
        **SHARED_CONSTRAINTS,
        "order": [Interval(int, 0)],
        "gamma_init": [Options(_LEARNED + _FAMILIES), FINITE_ARRAY],  # length: _validate
        "order_penalty": [Interval(float, 0)],
        "self_loops": [Interval(float, 0)],
        "input": INPUT,
        "n_components": N_COMPONENTS,
        "n_structural": N_STRUCTURAL,
        "isolated_neighbors": [Interval(int, 0), None],
        "hidden_dim": [Interval(int, 1)],
        "epochs": [Interval(int, 0)],
        "lr": [Interval(float, 0)],
        "gamma_lr": [Interval(float, 0)],
        "batch_size": [Interval(int, 2)],
        "decorrelation_weight": [Interval(float, 0)],
        "consistency_weight": [Interval(float, 0)],
        "gamma_reg": [Interval(float, 0)],
        "dropout": [Interval(float, 0, 1, closed="left")],
        "views": [Options(VIEWS)],
        "embedding": [Options(EMBEDDINGS)],
        "n_init": N_INIT,
        "device": [DEVICE],
        "verbose": [bool, Interval(int, 0)],
    }

    def __init__(self, n_clusters=2, *, order=2, gamma_init="canonical", order_penalty=0.03,
                 self_loops=1.0, input="auto", n_components="auto", n_structural="auto",
                 isolated_neighbors=10, hidden_dim=256, epochs=20, lr=1e-3, gamma_lr=0.0,
                 batch_size=512, decorrelation_weight=0.1, consistency_weight=1.0,
                 gamma_reg=1.0, dropout=0.2, views="dropout", embedding="by-input",
                 n_init="auto", random_state=0, device="cpu", verbose=False):
        self.n_clusters = n_clusters
        self.order = order
        self.gamma_init = gamma_init
        self.order_penalty = order_penalty
        self.self_loops = self_loops
        self.input = input
        self.n_components = n_components
        self.n_structural = n_structural
        self.isolated_neighbors = isolated_neighbors
        self.hidden_dim = hidden_dim
        self.epochs = epochs
        self.lr = lr
        self.gamma_lr = gamma_lr
        self.batch_size = batch_size
        self.decorrelation_weight = decorrelation_weight
        self.consistency_weight = consistency_weight
        self.gamma_reg = gamma_reg
        self.dropout = dropout
        self.views = views
        self.embedding = embedding
        self.n_init = n_init
        self.random_state = random_state
        self.device = device
        self.verbose = verbose

    def _validate(self):
        """``order``, after checking an array ``gamma_init`` has ``order + 1`` entries."""
        order = int(self.order)
        if not isinstance(self.gamma_init, str) and np.shape(self.gamma_init) != (order + 1,):
            raise ValueError(f"gamma_init must be a finite array of length order + 1 = "
                             f"{order + 1}, got shape {np.shape(self.gamma_init)}")
        return order

    def _prepare_input(self, hg, seed, n_clusters):
        from .baselines import node_input, reduce_features, structural_dim

        # one BLAS thread: a dense product's rounding depends on how many threads split it,
        # and the SVD / eigensolver carry it on (docs/unidhc.md, "Determinism")
        with threadpool_limits(1, user_api="blas"):
            X, kind = node_input(hg, self.input, seed, n_components_structural=structural_dim(
                self.n_structural, n_clusters))
            X = reduce_features(X, self.n_components, seed)
        X = X.toarray() if hasattr(X, "toarray") else np.asarray(X, dtype=np.float64)
        scale = np.sqrt(np.mean(_row_sums_of_squares(X)))
        # X / scale (unit mean row norm) is formed where it is read: no float64 copy of X
        return X, (scale if scale > 0 else X.dtype.type(1)), kind

    def _initial_filter(self, hg, P, scaled_input, B, order, seed, k):
        """The filter's coefficients (power basis) before the encoder's training."""
        self.smoothness_z_, self.mixture_weights_, self.filter_trajectory_ = None, None, []
        self.filter_errors_ = None
        if not isinstance(self.gamma_init, str):
            self.filter_family_ = "custom"
            return np.asarray(self.gamma_init, dtype=np.float64)
        family = self.gamma_init
        if family == "heldout":
            (g, self.filter_family_, self.mixture_weights_, self.filter_trajectory_,
             self.filter_errors_) = heldout_filter(self, hg, P, B, order, seed, k, CONTRAST_STEPS)
            return g
        if family in ("canonical", "alignment") and self.input_kind_ == "structural":
            # structural columns are the hypergraph's eigenvectors: a filter only rescales
            # them, which the feature-split objectives cannot see; P^2 weighs them by diffusion
            family = "low-pass"
        if family in ("canonical", "alignment", "contrast"):
            self.filter_family_ = family
            from ..models.contrast import atom_coefficients, filter_objective, learn_mixture

            X = scaled_input() if family == "contrast" else None  # the others read B
            objective, penalty = filter_objective(family, P, X, B, ~hg.isolated, seed,
                                                  float(self.order_penalty), n_clusters=k)
            if objective is None:
                return family_coefficients("identity", order)
            self.mixture_weights_, self.filter_trajectory_ = learn_mixture(
                objective, order, penalty, steps=CONTRAST_STEPS)
            return self.mixture_weights_ @ atom_coefficients(order)
        if family == "auto":
            self.smoothness_z_ = smoothness_zscore(P, scaled_input(), random_state=seed)
            family = choose_family(self.smoothness_z_)
        if family == "high-pass" and order < 1:
            family = "identity"
        self.filter_family_ = family
        return family_coefficients(family, order)

    def _isolated_search(self, hg, X, scale, seed):
        """A callable returning ``(isolated nodes, their feature neighbours)``, or None."""
        self.n_isolated_borrowing_ = 0
        isolated = np.flatnonzero(hg.isolated)
        if not self.isolated_neighbors or self.input_kind_ != "features" \
                or not 0 < isolated.size < hg.n_nodes:
            return None
        connected = np.flatnonzero(~hg.isolated)
        keep = max(10 * self.isolated_neighbors, NEIGHBOR_PAIR_BUDGET // isolated.size)
        if keep < connected.size:
            warnings.warn(
                f"{isolated.size} isolated nodes x {connected.size} connected nodes exceed the "
                f"exact neighbour-search budget; isolated nodes search a seeded sample of "
                f"{keep} connected nodes", RuntimeWarning, stacklevel=3)
            connected = np.sort(np.random.default_rng(seed).choice(connected, size=keep,
                                                                    replace=False))
        self.n_isolated_borrowing_ = int(isolated.size)

        def search():
            with threadpool_limits(1, user_api="blas"):  # exact ties, whatever the threads
                return isolated, feature_neighbors(X, isolated, connected,
                                                   self.isolated_neighbors, scale=scale)
        return search

    def fit(self, hypergraph, y=None):
        """Fit on ``hypergraph`` (labels, if any, are ignored). Returns ``self``."""
        torch = _deep()[0]
        hg = check_hypergraph(hypergraph)
        k = check_n_clusters(self.n_clusters, hg.n_nodes)
        order = self._validate()
        seed = self._rng_seed(self.random_state)
        self.n_init_ = resolve_settings(hg.n_nodes, n_init=self.n_init)[1]
        X, scale, self.input_kind_ = self._prepare_input(hg, seed, k)
        search = self._isolated_search(hg, X, scale, seed)
        borrowing = None if search is None else search()
        P = PropagationOperator(hg, self_loops=self.self_loops, dtype=propagation.BASIS_DTYPE)
        B = polynomial_basis(P, X, order, scale=scale)
        g0 = self._initial_filter(hg, P, lambda: X / scale, B, order, seed, k)
        self.initial_coefficients_ = g0.copy()
        del X  # read no more: a copy of it (a structural input) would sit under the peak
        B = B if borrowing is None else borrow_for_isolated(B, *borrowing)
        limit_imported_torch(torch)  # where this fit imported it: limited, then given back

        def train(basis):
            # H^T's CSR read as H in CSC: the layout the hyperedge means need, no conversion
            return self._train(basis, hg.incidence_t.T, g0, seed)

        self.selected_, self.scores_ = self.embedding, None
        if self.embedding == "by-input":
            self.selected_ = "concat" if self.input_kind_ == "features" else "filter"
        net, self.loss_history_ = None, []
        if self.gamma_lr > 0 or self.selected_ not in ("heldout", "split", "filter"):
            net, self.loss_history_ = train(B)
        # gamma_lr = 0: the trained gamma is g0 in the network's float32
        gamma = g0 if net is None else net.filter.gamma.detach().cpu().numpy()
        self.coefficients_ = np.asarray(gamma, dtype=np.float32).astype(np.float64)
        Z = _filter_output(self.coefficients_, B)
        if self.embedding == "auto":
            (self.selected_, self.scores_, self.candidate_labels_, self.embedding_,
             self.n_filter_columns_) = conductance_output(hg, k, self.n_init_, seed, B,
                                                          normalize(Z), self._encode(net, Z))
            self.labels_ = self.candidate_labels_[self.selected_]
            self.selection_reason_ = self._selection_reason()
            return self
        if self.embedding == "heldout":  # a structural input has no columns to hold out
            self.selected_, self.scores_ = heldout_choice(
                B, self.coefficients_, lambda half: train(half)[0], self._encode, k,
                self.n_init_, seed) if self.input_kind_ == "features" \
                and B.shape[2] >= MIN_HELDOUT_COLUMNS else ("filter", None)
        if self.embedding == "split":
            self.selected_, self.scores_ = choose_by_splits(self, hg, k, self.n_init_, seed) \
                if self.input_kind_ == "features" else ("filter", None)
            if self.selected_ == "low-pass":
                Z = _filter_output(family_coefficients("low-pass", order), B)
        parts = [normalize(Z)]
        if self.selected_ == "concat":
            if net is None:
                net, self.loss_history_ = train(B)
            parts.append(self._encode(net, Z))
        self.n_filter_columns_ = Z.shape[1]
        self.embedding_ = np.hstack(parts)
        del B, Z, parts, net, P  # they would sit under k-means' copy of the embedding
        self.labels_ = kmeans_labels(self.embedding_, k, self.n_init_, seed)
        self.selection_reason_ = self._selection_reason()
        return self

    def _selection_reason(self) -> str:
        """``selected_`` and ``scores_`` in one line."""
        scores = self.scores_
        if not scores:
            return (f"output {self.selected_} (embedding={self.embedding!r}, "
                    f"{self.input_kind_} input)")
        if self.embedding == "heldout":
            how, shown = "held-out canonical score, higher is better", {
                name: sum(v) for name, v in scores.items()}
        elif self.embedding == "split":
            how, shown = "held-out error, lower is better", scores
        else:
            how, shown = "label-free conductance, lower is better", scores
        return (f"output {self.selected_} ({how}: "
                + ", ".join(f"{name} {value:.4f}" for name, value in shown.items()) + ")")

    def _train(self, B, incidence, g0, seed):
        """The encoder (and gamma when ``gamma_lr > 0``) trained on the basis ``B``."""
        return _deep()[1](
            B, incidence, g0, hidden_dim=self.hidden_dim, epochs=self.epochs, lr=self.lr,
            gamma_lr=self.gamma_lr, batch_size=self.batch_size, gamma_reg=self.gamma_reg,
            decorrelation_weight=self.decorrelation_weight, dropout=float(self.dropout),
            consistency_weight=self.consistency_weight, views=self.views, random_state=seed,
            device=self.device, verbose=self.verbose)

    def _encode(self, net, Z):
        # rows in blocks: the hidden layer of all rows at once dominated the peak memory
        torch = _deep()[0]
        out, threads = np.empty(Z.shape, dtype=np.float32), torch.get_num_threads()
        try:
            with torch.no_grad():
                for lo in range(0, Z.shape[0], ENCODE_ROWS):
                    block = Z[lo:lo + ENCODE_ROWS]
                    # torch splits a row's sums between threads only in blocks of a few rows
                    torch.set_num_threads(threads if len(block) >= MIN_THREADED_ROWS else 1)
                    out[lo:lo + ENCODE_ROWS] = net.encoder(torch.as_tensor(
                        block, dtype=torch.float32, device=self.device)).cpu().numpy()
        finally:
            torch.set_num_threads(threads)
        return normalize(out, copy=False)

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
        return self.coefficients_ @ basis_response(lambdas, len(self.coefficients_) - 1)
