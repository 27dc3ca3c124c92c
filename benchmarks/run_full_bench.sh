#!/usr/bin/env bash
# The full benchmark behind docs/results/bench/: every shared dataset x every method x 5 seeds,
# peers on the subsets they accept, then one merged report.
#
#   nice -n 10 bash benchmarks/run_full_bench.sh            # everything, in stages
#   STAGE=cheap bash benchmarks/run_full_bench.sh           # one stage (cheap|peers|dhg|unidhc|report)
#
# Each stage writes its own results store under $WORK (so stages may run at the same time),
# and is resumable: rerunning skips finished runs. The report stage merges the stores and
# writes report.md, results.json and the PNGs into $OUT. Needs the shared data directory
# ($HYPERCLUST_DATA, default ../shared/data) and, for peers, `pip install hyperclust[peers]`.
set -euo pipefail
cd "$(dirname "$0")/.."

DATA=${HYPERCLUST_DATA:-../shared/data}
WORK=${WORK:-/tmp/hyperclust-bench-work}
OUT=${OUT:-docs/results/bench}
SEEDS=${SEEDS:-5}
THREADS=${THREADS:-1}
STAGE=${STAGE:-all}
PUBLISHED=${PUBLISHED:-../shared/docs/published-results.csv}

# Smallest first, so that an interrupted run still covers most datasets.
# mathoverflow-answers (641 classes) is left out of the quality grid; mag-10 has no node
# labels and takes part in timing only.
SMALL="zoo senate-committees contact-high-school-classes house-committees congress-bills
       cora-ca cora-cc citeseer-cc pubmed-cc-tricl mushroom"
HSBM="hsbm-node-0.3 hsbm-node-0.4 hsbm-node-0.5 hsbm-node-0.6 hsbm-node-0.7 hsbm-node-0.8
      hsbm-node-0.9 hsbm-edge-0.3 hsbm-edge-0.4 hsbm-edge-0.5 hsbm-edge-0.6 hsbm-edge-0.7
      hsbm-edge-0.8 hsbm-edge-0.9"
SYNTH="synthetic-h0.1-n2000 synthetic-h0.3-n2000 synthetic-h0.5-n2000 synthetic-h0.7-n2000
       synthetic-h0.9-n2000"
LARGE="pokec actor 20newsw100 amazon-ratings pubmed-cc dblp-ca mag-10 walmart-trips"
# Datasets with isolated nodes or published isolated-removed numbers get both protocols.
COVERED="cora-ca cora-cc citeseer-cc pubmed-cc-tricl zoo mushroom 20newsw100 pokec
         amazon-ratings pubmed-cc dblp-ca"
CHEAP="kmeans hgnn spectral-zhou spectral-clique spectral-clique-unit spectral-star spectral-collapsed"
DEEP="unidhc unidhc-filter"
PEERS="peer-hypernetx peer-xgi peer-hypergraphx"
PEER_DATA="zoo senate-committees contact-high-school-classes house-committees congress-bills
           cora-ca cora-cc citeseer-cc pubmed-cc-tricl mushroom 20newsw100 pokec"

bench() { python -m hyperclust.bench.cli --data-dir "$DATA" --seeds "$SEEDS" \
            --threads "$THREADS" --no-plots --published "$PUBLISHED" "$@"; }

if [[ $STAGE == all || $STAGE == cheap ]]; then
  bench --out "$WORK/cheap" --time-limit 180 --methods $CHEAP --protocols all \
        --datasets $SMALL $SYNTH $HSBM $LARGE
  bench --out "$WORK/cheap" --time-limit 180 --methods $CHEAP --protocols isolated-removed \
        --datasets $COVERED
fi
if [[ $STAGE == all || $STAGE == peers ]]; then
  # Peers on the subsets they accept; ours (the cheap methods, stage "cheap") on the same.
  bench --out "$WORK/peers" --time-limit 180 --methods $PEERS --protocols isolated-removed lcc \
        --datasets $PEER_DATA
  bench --out "$WORK/peers" --time-limit 180 --methods $CHEAP --protocols lcc \
        --datasets $PEER_DATA
fi
if [[ $STAGE == all || $STAGE == dhg ]]; then
  # DHG's HGNN smoothing + k-means (the peer of our hgnn baseline) needs node features.
  bench --out "$WORK/dhg" --time-limit 180 --methods peer-dhg --protocols all isolated-removed \
        --datasets zoo cora-ca cora-cc citeseer-cc pubmed-cc-tricl mushroom 20newsw100
fi
if [[ $STAGE == all || $STAGE == unidhc ]]; then
  # The deep methods cost 10-60 s a run here: unidhc first everywhere, then the variant.
  HSBM_SUB="hsbm-node-0.3 hsbm-node-0.5 hsbm-node-0.7 hsbm-node-0.9 hsbm-edge-0.3 hsbm-edge-0.5
            hsbm-edge-0.7 hsbm-edge-0.9"
  bench --out "$WORK/unidhc" --time-limit 300 --methods unidhc --protocols all \
        --datasets $SMALL $SYNTH $HSBM_SUB $LARGE
  bench --out "$WORK/unidhc" --time-limit 300 --methods unidhc --protocols isolated-removed \
        --datasets $COVERED
  bench --out "$WORK/unidhc" --time-limit 300 --methods unidhc-filter --protocols all \
        --datasets $SMALL $SYNTH $HSBM_SUB $LARGE
fi
if [[ $STAGE == all || $STAGE == report ]]; then
  mkdir -p "$OUT"
  rm -f "$OUT/results.json"
  python -m hyperclust.bench.cli --out "$OUT" --report-only --published "$PUBLISHED" \
        --merge "$WORK"/*/
fi
