"""Uni-DHC on a partitioned hypergraph: input, filter start and basis on the cluster, one
trainer streaming mini-batches from the basis files, inference and k-means per block
(docs/distributed.md, "Uni-DHC").
"""

from __future__ import annotations

import inspect
import time
from pathlib import Path

import numpy as np

from ..cluster.base import HypergraphClusterer, check_n_clusters
from ..cluster.spectral import resolve_settings
from ..cluster.unidhc import CONTRAST_STEPS, UniDHC, family_coefficients
from ..cluster.baselines import structural_dim
from ..models.adaptivity import choose_family
from ..models.contrast import atom_coefficients
from ..operators.propagation import BASIS_DTYPE
from .._validation import Interval, Options, check_int, check_parameters
from ..runtime.threads import limit_imported_torch
from ._params import twin_init
from ._tasks import RETRIES
from .alignment import alignment_start
from .basis import sampled_hyperedge_means, usable_edge_counts, write_power_basis
from .batches import BasisFileBatches, given_orders
from .client import resolve_client
from .inputs import as_partitioned, fit_blocks
from .scratch import scratch_folder
from .kmeans import SAMPLE_SIZE, block_kmeans, node_rank_blocks
from .operator import propagation
from .partitioned import load_feature_block
from .smoothness import block_smoothness_zscore
from .storage import keep_output
from .structural import structural_blocks
from .unidhc_blocks import divided, embed_block, save, square_sum

__all__ = ["DistributedUniDHC", "MAX_FEATURES", "KMEANS_BYTES"]

#: Most feature columns taken as they are (the single-process ``n_components="auto"`` projects
#: wider inputs by a truncated SVD, which is not distributed).
MAX_FEATURES = 256


#: Bytes of the embedding gathered here for k-means by default: up to them it runs on every
#: row, as ``UniDHC``. On a sample its restarts are drawn apart from ``UniDHC``'s, and an
#: embedding with local optima of nearly equal inertia then ends in another one: a block
#: model of 250,000 nodes (structural input, 8 columns) has three within 0.07%, reached by
#: 1, 3 and 2 of 6 k-means++ starts, and the labels of two of them agree at ARI .90.
KMEANS_BYTES = 2 ** 28

#: Values of ``gamma_init`` the distributed estimator refuses: the energy contrast needs a
#: row-shuffled copy of the whole input.
UNSUPPORTED_STARTS = ("contrast",)
#: Parameters ``fit`` reads itself; every other shared one is a training option.
FIT_PARAMETERS = ("order", "gamma_init", "order_penalty", "self_loops", "input",
                  "n_components", "n_structural", "embedding", "n_init", "random_state",
                  "device", "verbose")


def _shared_parameters(twin, not_taken):
    return [name for name in inspect.signature(twin.__init__).parameters
            if name not in ("self", "n_clusters", *not_taken)]


def training_parameters() -> list:
    """Parameters of :func:`~hyperclust.models.unidhc.train_on_batches` that ``UniDHC`` shares."""
    from ..models.unidhc import train_on_batches

    shared = set(_shared_parameters(UniDHC, DistributedUniDHC.NOT_DISTRIBUTED))
    return [name for name in inspect.signature(train_on_batches).parameters
            if name in shared and name not in FIT_PARAMETERS]


def _check_projection(n_components, width: int) -> None:
    """Refuse an ``n_components`` that would project the input (SVD is not distributed)."""
    if n_components is None:
        return
    if isinstance(n_components, str) and n_components == "auto":
        if width > MAX_FEATURES:
            raise ValueError(f"the node features have {width} columns; the distributed "
                             f"Uni-DHC takes at most {MAX_FEATURES} (project them, e.g. by "
                             "a truncated SVD, before partitioning)")
        return
    n_components = check_int(n_components, "n_components", 1, alternatives="'auto' or None")
    if n_components < width:
        raise ValueError(f"n_components={n_components} asks for a truncated SVD of the "
                         f"{width} input columns, which is not distributed; project them "
                         "before partitioning, or pass n_components=None")


class DistributedUniDHC(HypergraphClusterer):
    """Uni-DHC (:class:`hyperclust.cluster.UniDHC`) on a Dask cluster.

    Parameters not in :attr:`NOT_DISTRIBUTED` take ``UniDHC``'s defaults and meaning. With
    the same parameters and seed, the filter start and batches are those of
    ``UniDHC(isolated_neighbors=None)``; the basis agrees to float32 rounding. Refused: an
    ``n_components`` that would project the input (at most :data:`MAX_FEATURES` columns),
    ``embedding="auto"`` and ``gamma_init="contrast"``.

    Parameters
    ----------
    n_clusters : int
    order, gamma_init, order_penalty, self_loops, input, n_components, n_structural
        As in :class:`hyperclust.cluster.UniDHC`.
    hidden_dim, epochs, lr, gamma_lr, batch_size, decorrelation_weight, consistency_weight, gamma_reg, dropout
        As in :class:`hyperclust.cluster.UniDHC` (:func:`training_parameters`).
    embedding : {"by-input", "concat", "filter"}, default "by-input"
    n_init, random_state, device, verbose
        As in :class:`hyperclust.cluster.UniDHC`; ``device`` is the trainer's.
    sample_size : int or None, default None
        Rows of the k-means++ sample; None: every row up to :data:`KMEANS_BYTES`.
    block_size : int, default 100,000
        Nodes per row block when ``fit`` gets an in-memory hypergraph.
    blocks_per_worker : int or None, default 1
        Merge stored row blocks into at most this many per worker; None: the stored blocks.
    scratch_dir : str, optional
        Where the basis is written (readable by workers and this process); default: inside
        the partitioned directory.
    client : dask.distributed.Client, str or None
        A client, a scheduler address, or None for a new ``LocalCluster(n_workers)``.
    n_workers : int, default 2
    output : str, optional
        Folder where the workers write labels and embedding as parquet; then ``labels_``,
        ``embedding_`` and ``node_ids_`` are None. Default: gather them here.

    Attributes
    ----------
    labels_ : ndarray of int64, shape (n_nodes,)
    embedding_ : ndarray of float32, shape (n_nodes, 2 d) (``"concat"``) or (n_nodes, d)
    n_filter_columns_ : int
    coefficients_, initial_coefficients_ : ndarray, shape (order + 1,)
    mixture_weights_ : ndarray, shape (2 order + 1,) or None
    filter_trajectory_, loss_history_ : list of dict
    input_kind_, filter_family_ : str
    smoothness_z_ : float or None
    n_init_, n_blocks_ : int
    node_ids_ : ndarray, shape (n_nodes,)
    timings_ : dict
        Wall seconds per step.

    Examples
    --------
    >>> import distributed
    >>> from hyperclust.datasets.synthetic import hypergraph_sbm
    >>> hg = hypergraph_sbm(120, 2, homophily=0.9, n_features=8, random_state=0)
    >>> with distributed.Client(processes=False, n_workers=1, dashboard_address=":0") as c:
    ...     est = DistributedUniDHC(2, epochs=2, hidden_dim=16, block_size=50,
    ...                             client=c).fit(hg)
    >>> est.labels_.shape, est.embedding_.shape, est.coefficients_.shape
    ((120,), (120, 16), (3,))
    """

    #: Parameters of :class:`hyperclust.cluster.UniDHC` not taken: the feature-neighbour
    #: borrowing of isolated nodes needs a global kNN search (isolated nodes keep their raw
    #: input in the propagated terms, as ``UniDHC(isolated_neighbors=None)``).
    NOT_DISTRIBUTED = ("isolated_neighbors",)
    __init__ = twin_init(UniDHC, _shared_parameters(UniDHC, NOT_DISTRIBUTED),
                         {"sample_size": None, "block_size": 100_000,
                          "blocks_per_worker": 1, "scratch_dir": None, "client": None,
                          "n_workers": 2, "output": None})

    def _check_parameters(self):
        """Check parameters against ``UniDHC``'s constraints; return ``order``."""
        table = {**UniDHC._parameter_constraints,
                 "embedding": [Options(("by-input", "concat", "filter"))],
                 **{name: [Interval(int, 1)] for name in ("block_size", "n_workers")},
                 "sample_size": [Interval(int, 1), None],
                 "blocks_per_worker": [Interval(int, 1), None]}
        check_parameters(table, {name: getattr(self, name) for name in table
                                 if hasattr(self, name)})
        if isinstance(self.gamma_init, str) and self.gamma_init in UNSUPPORTED_STARTS:
            raise ValueError(f"gamma_init={self.gamma_init!r} is not distributed; use "
                             f"'alignment', 'auto', a filter family or an array")
        # UniDHC's own check of gamma_init against order
        return UniDHC(order=self.order, gamma_init=self.gamma_init)._validate()

    def fit(self, hypergraph, y=None):
        """Cluster the nodes of a Hypergraph, PartitionedHypergraph or its directory."""
        from ..cluster.unidhc import _deep

        torch, _ = _deep()
        limit_imported_torch(torch)  # where this fit imported it: limited, then given back
        seed = self._rng_seed(self.random_state)
        order = self._check_parameters()
        with as_partitioned(hypergraph, self.block_size) as stored, \
                self._scratch(stored) as work, \
                resolve_client(self.client, self.n_workers) as client:
            phg = fit_blocks(stored, client, self.blocks_per_worker)
            k = check_n_clusters(self.n_clusters, phg.n_nodes)
            labels, embedding = self._fit(phg, client, Path(work), k, order, seed)
            keep_output(self, client, phg, hypergraph, labels, embedding)
        self.n_blocks_ = phg.n_blocks
        return self

    def _scratch(self, phg):
        base = Path(self.scratch_dir) if self.scratch_dir is not None else phg.path
        if not base.is_dir():
            raise FileNotFoundError(f"scratch_dir {base} is not a directory")
        return scratch_folder("_unidhc-", dir=base)

    # ------------------------------------------------------------ steps
    def _fit(self, phg, client, work, k, order, seed):
        """Every step but the output; futures of labels and embedding per row block."""
        from ..models.unidhc import train_on_batches

        self.timings_ = {}
        clock = [time.perf_counter()]

        def lap(step):
            now = time.perf_counter()
            self.timings_[step] = now - clock[0]
            clock[0] = now

        self.n_init_ = resolve_settings(phg.n_nodes, n_init=self.n_init)[1]
        # float32 products (BASIS_DTYPE), as the single process's basis: half the bytes
        P = propagation(phg, client, self_loops=float(self.self_loops), dtype=BASIS_DTYPE)
        raw, scale = self._input(phg, client, work, k, seed)
        lap("input")
        basis_files, rows = write_power_basis(P, raw, order, work / "basis", scale=scale,
                                              return_rows=True)
        concat = self.embedding == "concat" or (self.embedding == "by-input"
                                                and self.input_kind_ == "features")
        trains = concat or self.gamma_lr > 0
        draws = None
        if trains:
            orders = given_orders(phg)
            draws, means = self._sampled_means(phg, client, rows, orders, order, seed)
        del rows  # the workers free the basis rows
        lap("basis")
        if not (isinstance(self.gamma_init, str) and self.gamma_init == "auto"):
            raw = None  # only the z-score reads the input again: the workers free it
        g0 = self._initial_filter(phg, client, P, lambda: self._scaled_input(
            client, raw, scale, work), basis_files, order, seed, k)
        lap("filter_choice")
        net, self.loss_history_, state = None, [], None
        if trains:
            net, self.loss_history_ = train_on_batches(
                BasisFileBatches(work / "basis", self.device, orders, sampled_means=means), g0,
                **self._training_options(), random_state=seed, device=self.device,
                verbose=self.verbose, draws=draws)
            state = {name: t.detach().cpu().numpy()
                     for name, t in net.encoder.state_dict().items()}
        lap("training")
        # gamma_lr = 0 without training: g0 in the network's float32, as UniDHC
        gamma = g0 if net is None else net.filter.gamma.detach().cpu().numpy()
        self.coefficients_ = np.asarray(gamma, dtype=np.float32).astype(np.float64)
        blocks = [client.submit(embed_block, f, self.coefficients_, state, concat,
                                retries=RETRIES, pure=False) for f in basis_files]
        self.n_filter_columns_ = int(np.load(basis_files[0], mmap_mode="r").shape[2])
        sample_size = self.sample_size
        if sample_size is None:  # float32 rows of d (2 d with the encoder's) columns
            sample_size = max(SAMPLE_SIZE, KMEANS_BYTES // (4 * self.n_filter_columns_
                                                            * (2 if concat else 1)))
        labels, _, _ = block_kmeans(client, blocks, phg.n_nodes, k, n_init=self.n_init_,
                                    sample_size=sample_size, random_state=seed,
                                    row_keys=self._row_keys(client, phg))
        lap("inference_kmeans")
        return labels, blocks

    def _sampled_means(self, phg, client, rows, orders, order, seed):
        """The training's draws, and ``(n_edges, wanted, means)`` of the hyperedges they read."""
        from ..models.unidhc import drawn_hyperedges, planned_draws

        counts = usable_edge_counts(phg, client)
        n_edges = int(counts.sum())
        draws = planned_draws(phg.n_nodes, n_edges, epochs=self.epochs,
                              batch_size=self.batch_size,
                              decorrelation_weight=self.decorrelation_weight,
                              random_state=seed)
        drawn = drawn_hyperedges(draws)
        wanted = drawn if orders[1] is None else np.unique(orders[1][drawn])
        return draws, (n_edges, wanted, sampled_hyperedge_means(phg, client, rows, counts,
                                                                wanted, order + 1))

    @staticmethod
    def _row_keys(client, phg):
        """The k-means keys: node ranks per block, or each block's first position."""
        if phg.node_ranks_path is None:
            return [int(lo) for lo in phg.block_bounds[:-1]]
        return node_rank_blocks(client, phg)

    def _training_options(self) -> dict:
        """The training parameters shared with ``UniDHC`` (read from the signature)."""
        return {name: getattr(self, name) for name in training_parameters()}

    def _input(self, phg, client, work, k, seed):
        """Input blocks (futures, float64) and the scale giving unit mean row norm."""
        use_features = self.input == "features" or (self.input == "auto" and
                                                     phg.n_features is not None)
        n = phg.n_nodes
        if use_features:
            if phg.n_features is None:
                raise ValueError("this hypergraph has no node features; use "
                                 "input='structural' or partition it with features")
            _check_projection(self.n_components, phg.n_features)
            raw = [client.submit(load_feature_block, phg.features_path(b), retries=RETRIES)
                   for b in range(phg.n_blocks)]
            self.input_kind_ = "features"
        else:
            _check_projection(self.n_components, structural_dim(self.n_structural, k))
            raw = structural_blocks(phg, client, structural_dim(self.n_structural, k), seed)
            self.input_kind_ = "structural"
        total = sum(client.gather([client.submit(square_sum, x, retries=RETRIES)
                                   for x in raw]))
        scale = np.sqrt(total / n)
        return raw, (scale if scale > 0 else 1.0)

    @staticmethod
    def _scaled_input(client, raw, scale, work):
        """``X / scale`` blocks (futures) and their files (for the z-score start)."""
        X = [client.submit(divided, x, scale, retries=RETRIES) for x in raw]
        files = client.gather([client.submit(save, str((work / f"input-{b:05d}.npy")
                                                        .resolve()), x, retries=RETRIES,
                                             pure=False)
                               for b, x in enumerate(X)])
        return X, files

    def _initial_filter(self, phg, client, P, scaled_input, basis_files, order, seed, k):
        """The filter's coefficients before training, as ``UniDHC._initial_filter``."""
        self.smoothness_z_, self.mixture_weights_, self.filter_trajectory_ = None, None, []
        if not isinstance(self.gamma_init, str):
            self.filter_family_ = "custom"
            g0 = np.asarray(self.gamma_init, dtype=np.float64)
        elif self.gamma_init in ("canonical", "alignment") and self.input_kind_ == "structural":
            # as UniDHC: a filter only rescales the hypergraph's own eigenvectors
            self.filter_family_ = "low-pass"
            g0 = family_coefficients("low-pass", order)
        elif self.gamma_init in ("canonical", "alignment"):
            self.filter_family_ = self.gamma_init
            learned = alignment_start(phg, client, basis_files, order, seed, CONTRAST_STEPS,
                                      kind=self.gamma_init, n_clusters=k)
            if learned is None:
                g0 = family_coefficients("identity", order)
            else:
                self.mixture_weights_, self.filter_trajectory_ = learned
                g0 = self.mixture_weights_ @ atom_coefficients(order)
        else:
            family = self.gamma_init
            if family == "auto":
                self.smoothness_z_ = block_smoothness_zscore(P, *scaled_input(),
                                                             random_state=seed)
                family = choose_family(self.smoothness_z_)
            if family == "high-pass" and order < 1:
                family = "identity"
            self.filter_family_ = family
            g0 = family_coefficients(family, order)
        self.initial_coefficients_ = g0.copy()
        return g0
