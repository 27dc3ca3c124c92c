"""Uni-DHC: deep hypergraph clustering with a learnable polynomial spectral filter.

Our reconstruction of "A Unified Framework for Deep Hypergraph Clustering Beyond Homophily"
(ICML 2026; only the abstract is public), see ``docs/unidhc.md``. Pipeline:

1. node input X (features, seeded truncated SVD when d > 256; feature-less hypergraphs get
   :func:`hyperclust.operators.eigensolvers.structural_features` with ``2 * n_clusters`` columns), rescaled
   to unit mean row norm;
2. the filter is learned from a neutral start (the uniform mixture of low- and high-pass atoms)
   by a label-free objective (:mod:`hyperclust.models.canonical`): the canonical
   correlation of the filtered half of the feature columns with the raw other half (or a
   fixed atom predicting held-out data better: ``gamma_init="heldout"``);
3. the basis ``[T_0(P) X, ..., T_K(P) X]`` is precomputed in factored form; isolated nodes
   take half of each propagated term from their nearest connected nodes in feature space;
4. a residual encoder ``Z + MLP(Z)`` (the identity at the start) is trained on the filter
   output (two dropout views, node consistency, hyperedge decorrelation); gamma stays where
   the contrast put it unless ``gamma_lr > 0``;
5. k-means (several inits) on the L2-normalised filter output concatenated with the
   L2-normalised encoder output.
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
"""Adam steps of the filter objective (on ``2 K + 1`` weights; converged well before)."""
EMBEDDINGS = ("by-input", "concat", "filter", "heldout", "split", "auto")
VIEWS = ("dropout", "complementary")
NEIGHBOR_PAIR_BUDGET = 2 ** 23
"""Most (isolated, connected) pairs compared exactly (about .25 s at d = 128 on one core;
every shared dataset needs under 2 ** 22); beyond it the candidates are a seeded uniform
sample of the connected nodes (a budget of 2 ** 30 costs 10 s and 4.6 GB at 10^5 nodes)."""
ENCODE_ROWS = 2 ** 12
"""Rows per encoder pass in the embedding. The hidden layer of a pass (4096 x 256 float32,
4 MB) stays in cache: encoding 10^5 rows took .16 s CPU in passes of 2^16 rows and .06 s in
passes of 2^12, with the same bits (checked on 20newsw100 and at 10^5 nodes)."""
MIN_THREADED_ROWS = 1024
"""Encoder blocks of fewer rows run on one torch thread: on a few rows torch splits each
row's sums between threads (7 rows gave other bits on 2 threads than on 1); from 8 rows on
the bits did not depend on the threads."""


def _filter_output(coefficients, B) -> np.ndarray:
    """``sum_k gamma_k B[k]`` in the basis dtype (float32): the embedding and its k-means stay
    in the precision the network trained in (a float64 product cast the whole basis)."""
    return np.tensordot(np.asarray(coefficients, dtype=B.dtype), B, axes=1)


def _row_sums_of_squares(X) -> np.ndarray:
    """``np.sum(X * X, axis=1)``, shape (n,), bit for bit, by blocks of
    :data:`ENCODE_ROWS` rows: the whole ``X * X`` was a fresh n x d float64 array (256 MB
    at 10^6 x 32), whose first touch cost more than the sums."""
    out = np.empty(X.shape[0], dtype=X.dtype)
    for lo in range(0, X.shape[0], ENCODE_ROWS):
        block = X[lo:lo + ENCODE_ROWS]
        np.sum(block * block, axis=1, out=out[lo:lo + ENCODE_ROWS])
    return out


def _deep():
    """``(torch, train_unidhc)`` on first use: torch is the optional ``hyperclust[deep]``;
    importing this module must not load it."""
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
        Highest polynomial order ``K``: with the learned filter, K = 2 ties K = 3 for the
        best mean ACC along the homophily sweep and is one product cheaper (docs/unidhc.md,
        "K sweep"). The basis ``[X, PX, ..., P^K X]`` is computed in float32
        (:data:`hyperclust.operators.propagation.BASIS_DTYPE`; the network trains in float32):
        mean ACC/NMI within 0.006 of float64 (less than one std) over 5 seeds on 10 shared
        sets (docs/results/bench/dtype_settings.md).
    gamma_init : {"canonical", "heldout", "alignment", "contrast", "auto", "low-pass", \
"identity", "high-pass", "uniform"} or array
        Filter before the encoder's training. ``"heldout"`` (the registered ``unidhc``):
        the ``"canonical"`` filter, or the atom of ``I, P..P^K, (I-P)..(I-P)^K`` whose
        clustering of split copies best predicts their held-out attribute columns
        (:func:`~hyperclust.cluster.unidhc_output.heldout_filter`; not the class default:
        :class:`~hyperclust.distributed.DistributedUniDHC` shares it and does not split).
        ``"canonical"``: learned from the uniform
        mixture of the atoms ``I, P..P^K, (I-P)..(I-P)^K`` (no family chosen beforehand) by
        the label-free feature-split canonical correlation
        (:func:`hyperclust.models.canonical.canonical_correlation`: the ``n_clusters - 1``
        largest squared canonical correlations of the filtered half of the feature columns
        with the raw other half). ``"alignment"``: the same mixture learned by the linear
        kernel alignment of the two halves
        (:func:`hyperclust.models.contrast.feature_split_alignment`; smooths too much at
        mid homophily, docs/unidhc.md). ``"contrast"``: the same mixture
        learned by the energy contrast against a row-shuffled input
        (:func:`~hyperclust.models.contrast.energy_contrast`, ``order_penalty`` per
        order; over-smooths at mid homophily, docs/unidhc.md). ``"auto"``: the smoothness
        z-score (:func:`hyperclust.models.adaptivity.smoothness_zscore`) chooses low-pass ``P^2``
        (z < -2), high-pass ``I - P`` (z > 2) or the identity.
    order_penalty : float, default 0.03
        Of ``gamma_init="contrast"``: the gain in log signal-to-chance energy ratio each
        propagation order must bring.
    self_loops : float, default 1.0
        Self-loop weight of :class:`~hyperclust.operators.PropagationOperator`.
    input : {"auto", "features", "structural"}, default "auto"
        Node input; ``"auto"`` = features when present, else the label-free spectral
        embedding :func:`hyperclust.operators.eigensolvers.structural_features` (``n_structural`` columns).
    n_components : int, "auto" or None, default "auto"
        Seeded truncated-SVD projection of the input (``"auto"``: 128 when d > 256).
    n_structural : int or "auto", default "auto"
        Columns of the structural input; ``"auto"`` = ``2 * n_clusters`` clipped to [4, 32]
        (:func:`hyperclust.cluster.baselines.structural_dim`).
    isolated_neighbors : int or None, default 10
        Isolated nodes (in no hyperedge) take half of each propagated basis term (orders >= 1)
        from the mean of their ``isolated_neighbors`` nearest connected nodes by cosine
        similarity of the input (:func:`hyperclust.models.basis.borrow_for_isolated`);
        ``None`` or 0 leaves them with their raw input, as propagation alone does. Only with
        node features (a structural input carries nothing for isolated nodes). Exact search
        up to :data:`NEIGHBOR_PAIR_BUDGET` pairs, a seeded sample of candidates beyond.
    hidden_dim : int, default 256
        Hidden width of the residual encoder ``Z + MLP(Z)`` (its last layer starts at zero,
        so the encoder starts as the identity on the filter output).
    epochs : int, default 20
        Passes over the nodes in batches of ``batch_size``; an epoch holds at most
        :data:`hyperclust.models.unidhc.MAX_BATCHES_PER_EPOCH` (8) batches, so training
        time stops growing with ``n`` beyond 4,096 nodes.
    lr : float, default 1e-3
        Adam learning rate of the encoder.
    gamma_lr : float, default 0.0
        Adam learning rate of gamma during the encoder's training. 0 keeps the filter where
        ``gamma_init`` put it: the consistency and decorrelation losses move gamma to one
        shape whatever the data (docs/unidhc.md).
    batch_size : int, default 512
        Nodes per step; each step also draws ``batch_size // 2`` hyperedges.
    decorrelation_weight : float, default 0.1
        Weight of the hyperedge-level Barlow-Twins decorrelation (the node consistency has
        weight 1). At 1 it hurt the encoder output on every real dataset measured.
    consistency_weight : float, default 1.0
        Weight of the node-level consistency loss.
    gamma_reg : float, default 1.0
        Weight of ``||gamma - gamma_init||^2``.
    dropout : float, default 0.2
        Feature dropout making the two views when ``views="dropout"``.
    views : {"dropout", "complementary"}, default "dropout"
        The encoder's two views of a node: two independent dropout copies of its filter
        output, or complementary random halves of its entries (``"complementary"``: they
        share no feature noise; it fixes some sets where the encoder loses to its own
        filter and breaks others, measured in docs/unidhc.md, "The deep part").
    embedding : {"by-input", "concat", "filter", "heldout", "split", "auto"}, default "by-input"
        What k-means clusters: the L2-normalised filter output beside the L2-normalised
        encoder output, or the filter output alone. ``"by-input"``: the concatenation on
        features, the filter output alone (no encoder trained at ``gamma_lr = 0``) on a
        structural input, where the encoder lost .05-.08 ACC to it (docs/unidhc.md).
        ``"heldout"``: the concatenation only
        when it wins on feature columns its encoder did not see
        (:func:`~hyperclust.cluster.unidhc_output.heldout_choice`: encoders retrained
        without each of 4 column folds, both clusterings scored against the held-out fold
        by the canonical criterion of the filter); a structural input keeps the filter
        output (no independent columns to check the encoder on); the full encoder is
        trained only when the concatenation is kept (``gamma_lr = 0``), so
        ``loss_history_`` is empty otherwise (``selected_``, ``scores_``: per-fold
        scores). ``"split"``: the concatenation, the filter output or the fixed ``P^2 X``
        (``coefficients_`` stays the learned filter), each fitted on a split of the input
        (:func:`~hyperclust.cluster.hsbm_heldout.split_hypergraph`) and judged by ``auto``'s
        held-out hyperedges and columns
        (:func:`~hyperclust.cluster.unidhc_output.split_choice`: the concatenation stays
        unless another is better by 2 paired standard errors); a structural input keeps
        the filter output; costs one more fit (``selected_``, ``scores_``: held-out
        errors). ``"auto"`` clusters each of these, the
        encoder output and the two fixed filters (``P^2 X`` and ``X``) and keeps the
        clustering with the lowest label-free :func:`~hyperclust.selection.objectives.rwr_conductance`
        (``balance="min"``) on the mixed hypergraph + attribute-kNN walk (``selected_``,
        ``scores_``).
    n_init : int or "auto", default "auto"
        k-means restarts; ``"auto"``: 10 below 10^5 nodes, 3 from there on, the rule
        measured for the spectral methods
        (:func:`hyperclust.cluster.spectral.resolve_settings`); every shared dataset is
        below 10^5 nodes and keeps 10.
    random_state : int, default 0
    device : str, default "cpu"
    verbose : bool, default False
        tqdm progress bar over epochs.

    Attributes
    ----------
    labels_ : ndarray, shape (n_nodes,)
    embedding_ : ndarray of float32, shape (n_nodes, 2 d) (``"concat"``)
        What k-means clustered (float32, the precision of the basis and the network).
    n_filter_columns_ : int
        Leading columns of ``embedding_`` that hold the filter block; the rest is the
        encoder block.
    coefficients_ : ndarray, shape (order + 1,)
        Learned gamma (power basis).
    initial_coefficients_ : ndarray, shape (order + 1,)
    loss_history_ : list of dict
        Per-epoch mean losses (:func:`~hyperclust.models.unidhc.train_on_batches`).
    input_kind_ : str
        ``"features"`` or ``"structural"``.
    smoothness_z_ : float or None
        The z-score (``None`` when ``gamma_init`` is not ``"auto"``).
    filter_family_ : str
        Family of the initial filter (the objective's name when learned, the atom kept by
        the held-out check, ``"custom"`` for an explicit array).
    mixture_weights_ : ndarray, shape (2 order + 1,) or None
        Learned atom weights (atoms ``I, P..P^K, (I-P)..(I-P)^K``), ``None`` unless learned.
    filter_errors_ : dict or None
        ``gamma_init="heldout"``: each candidate filter's mean held-out error, else None.
    filter_trajectory_ : list of dict
        The learning's ``{"step", "objective", "gamma"}`` every 10 steps (empty otherwise).
    n_isolated_borrowing_ : int
        Isolated nodes whose propagated terms came partly from their feature neighbours.
    n_init_ : int
        k-means restarts used.
    selected_, scores_ : str, dict or None
        The output ``embedding`` chose and the scores it chose by (None: no choice scored).
    selection_reason_ : str
        Both in one line (printed by the command line).

    Examples
    --------
    >>> from hyperclust.datasets.synthetic import hypergraph_sbm
    >>> hg = hypergraph_sbm(120, 2, homophily=0.9, n_features=8, random_state=0)
    >>> est = UniDHC(2, epochs=2, hidden_dim=16, random_state=0).fit(hg)
    >>> est.labels_.shape, est.embedding_.shape, est.coefficients_.shape
    ((120,), (120, 16), (3,))
    """

    #: Outputs indexed by node (put back in the given order after a fit on the
    #: cache-friendly numbering: :mod:`hyperclust.cluster.node_order`).
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
        """The check of two parameters together (the table is checked by ``fit``):
        ``gamma_init`` coefficients need ``order + 1`` of them; returns ``order``."""
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
        # X / scale (unit mean row norm) formed where it is read (the basis's float32 first
        # term, the searched rows): a float64 copy was 256 MB of fresh memory at 10^6 x 32
        return X, (scale if scale > 0 else X.dtype.type(1)), kind

    def _initial_filter(self, hg, P, scaled_input, B, order, seed, k):
        """Step 2: the filter's coefficients (power basis) before the encoder's training
        (``scaled_input()``: the input ``X / scale``, formed for the objectives reading it)."""
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
            # the structural columns are eigenvectors of the hypergraph itself: a filter only
            # rescales them (the canonical correlation is blind to that) and the two halves
            # share no independent noise; P^K weighs them by diffusion time K
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
        """Step 3b's search (it reads the input alone): a callable returning ``(isolated
        nodes, their feature neighbours)``, or None where no node borrows."""
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
        B = B if borrowing is None else borrow_for_isolated(B, *borrowing)  # step 3b
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
        """The output chosen (``selected_``) and by what score (``scores_``), in one line."""
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
        """Step 4: the encoder (and gamma when ``gamma_lr > 0``) trained on the basis ``B``."""
        return _deep()[1](
            B, incidence, g0, hidden_dim=self.hidden_dim, epochs=self.epochs, lr=self.lr,
            gamma_lr=self.gamma_lr, batch_size=self.batch_size, gamma_reg=self.gamma_reg,
            decorrelation_weight=self.decorrelation_weight, dropout=float(self.dropout),
            consistency_weight=self.consistency_weight, views=self.views, random_state=seed,
            device=self.device, verbose=self.verbose)

    def _encode(self, net, Z):
        # rows in blocks: the encoder's hidden layer (hidden_dim wide, two tensors of it) for
        # all 10^6 rows at once was 2 GB, most of the fit's peak memory
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
