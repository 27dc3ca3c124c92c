"""What a fit runs under, not what it computes: thread limits (:mod:`.threads`), progress
bars (:mod:`.progress`) and per-iteration timing logs (:mod:`.iteration_clock`)."""
