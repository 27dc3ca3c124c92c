"""The one line saying why a fitted ``auto`` picked its candidate (``selection_reason_``,
which the CLI prints)."""

from __future__ import annotations

__all__ = ["selection_reason"]


def selection_reason(est) -> str:
    """Why the fitted :class:`~hyperclust.cluster.auto.AutoClusterer` ``est`` picked
    ``est.selected_``: the score, the splits, the kNN screen and every candidate's score in
    rank order.

    Examples
    --------
    >>> from hyperclust.datasets import hypergraph_sbm
    >>> from hyperclust.cluster.auto import AutoClusterer
    >>> hg = hypergraph_sbm(120, 2, homophily=0.9, random_state=0)
    >>> est = AutoClusterer(2, candidates=("hgnn", "hsbm")).fit(hg)
    >>> selection_reason(est) == est.selection_reason_
    True
    """
    what = "random-walk conductance"
    if est.selection == "heldout" and est.split_ is None:
        what += " (too few hyperedges and attribute columns to hold any out)"
    if est.split_ is not None:
        views = [v for v, w in (("hyperedges", est.split_.edge_coverage),
                                ("attribute columns", est.split_.attribute_coverage)) if w]
        how = {"precision": "by its precision over the candidates",
               "coverage": "by the share of nodes it sees"}[est.view_weights]
        what = ("held-out error (1 - AUC on the held-out " + " and ".join(views or ["nothing"])
                + ", each view weighted " + how + ")")
    raced = len(est.raced_) < len(est.scores_)
    if est.n_splits_ > 1:
        what += f", averaged over {est.n_splits_} splits" + (
            f" for the {len(est.raced_)} best of the first" if raced else "")
    elif int(est.n_splits) > 1 and est.split_ is not None:
        what += (", one split: every other candidate was " + (
            f"more than {est.race_margin:g} paired standard errors behind the best or "
            f"could beat it by less than {est.race_indifference:g}"
            if est.race_se == "items" and est.race_margin is not None
            else f"outside the race of the {est.race} best"))
    if est.knn_screen_ is not None:
        what += ("; kNN screen: " + ", ".join(est.knn_screen_) + " fitted on a coarse kNN "
                 "graph " + ("came close to the best, so the accurate search ran"
                             if est.accurate_knn_ else "were far behind the best, so the "
                             "accurate search did not run and they left the race"))
    rounds = {c: sum(c in f for f in est.split_fits_) for c in est.scores_}
    parts = [f"{c} {est.scores_[c]:.4f}{est.ranking_.note(c)}"
             + (" (first split only)" if rounds[c] == 1 < est.n_splits_ else
                f" ({rounds[c]} of {est.n_splits_} splits)" if rounds[c] < est.n_splits_
                else "")
             for c in est.ranking_.order]
    report, notes = est.selection_report_, []
    if report.line:
        notes.append(report.line)
    if est.replaced_:
        notes.append(f"{', '.join(est.replaced_)} collapsed when refitted on all the data "
                     f"(fewer clusters or a giant cluster plus slivers): {est.selected_} instead")
    return (f"selected {est.selected_} by {what}, lower is better: " + ", ".join(parts)
            + "".join(f"; {n}" for n in notes))

