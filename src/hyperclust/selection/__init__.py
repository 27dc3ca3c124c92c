"""Label-free selection among candidate clusterings: the scores (:mod:`.objectives`), the
attribute-alignment test that picks candidates (:mod:`.alignment`) and the one selection loop
that fits, scores and ranks candidates (:mod:`.loop`, re-exported here)."""

from .loop import Ranking, fit_candidates, keep_best, rank_candidates, rank_key, rank_rounds, select

__all__ = ["Ranking", "fit_candidates", "keep_best", "rank_candidates", "rank_key", "rank_rounds",
           "select"]
