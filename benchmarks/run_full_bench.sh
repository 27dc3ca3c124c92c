#!/usr/bin/env bash
# The full benchmark behind docs/results/bench/: every shared dataset x every method x 5 seeds,
# peers on the subsets they accept, then one merged report.
#
#   nice -n 10 bash benchmarks/run_full_bench.sh            # everything, in stages
#   STAGE=cheap bash benchmarks/run_full_bench.sh           # one stage:
#       cheap | peers | dhg | hymmsbm | hycosbm | hyperneo | unidhc | unidhc-filter | report
#   SETS="SMALL SYNTH" STAGE=unidhc bash benchmarks/run_full_bench.sh   # some dataset sets
#
# Each stage writes its own results store under $WORK (so stages may run at the same time),
# and is resumable: rerunning skips finished runs. The report stage merges the stores over
# the committed records ($OUT/results.json.gz: rows not rerun stay, marked by their
# provenance in the report) and writes report.md, results.json.gz and the PNGs into $OUT.
# Needs the shared data directory ($HYPERCLUST_DATA, default ../shared/data) and, for peers,
# `pip install hyperclust[peers]`; for peer-hymmsbm (stage hymmsbm, part of "all" only when
# set) $HYMMSBM_DIR, a checkout of nickruggeri/Hy-MMSBM (no pip package; run, not imported);
# likewise for peer-hycosbm (stage hycosbm) $HYCOSBM_DIR, a checkout of badalyananna/HyCoSBM,
# and for peer-hyperneo (stage hyperneo) $HYPERNEO_DIR, a checkout of kazuibasou/hyperneo.
set -euo pipefail
cd "$(dirname "$0")/.."

DATA=${HYPERCLUST_DATA:-../shared/data}
WORK=${WORK:-/tmp/hyperclust-bench-work}
OUT=${OUT:-docs/results/bench}
SEEDS=${SEEDS:-5}
THREADS=${THREADS:-1}
STAGE=${STAGE:-all}
SETS=${SETS:-SMALL SYNTH HSBM LARGE}
PUBLISHED=${PUBLISHED:-../shared/docs/published-results.csv}
PYTHON=${PYTHON:-python3}  # the interpreter that has hyperclust

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
# The API default (auto) and its strongest candidate (ahcka) first, beside the others.
CHEAP=${CHEAP:-"auto ahcka kmeans hgnn spectral-zhou spectral-clique spectral-clique-unit spectral-star
       spectral-collapsed"}
PEERS="peer-hypernetx peer-xgi peer-hypergraphx"
PEER_DATA="zoo senate-committees contact-high-school-classes house-committees congress-bills
           cora-ca cora-cc citeseer-cc pubmed-cc-tricl mushroom 20newsw100 pokec"
DHG_DATA="zoo cora-ca cora-cc citeseer-cc pubmed-cc-tricl mushroom 20newsw100"

chosen=""
for set in $SETS; do
  case $set in
    SMALL|SYNTH|HSBM|LARGE) chosen+=" ${!set}" ;;
    *) echo "error: SETS takes SMALL SYNTH HSBM LARGE, got '$set'" >&2; exit 2 ;;
  esac
done
chosen=" $(echo $chosen) "

# The datasets of a list that belong to the chosen sets, in the list's order.
among() { local d; for d in $*; do [[ $chosen == *" $d "* ]] && printf '%s ' "$d"; done; true; }

# bench DATASETS ARGS...: one resumable grid call; nothing when no chosen dataset is listed.
# Exit code 1 (some runs failed, e.g. kmeans on a feature-less set) is a result, not an
# error: the failures are in the store and the report.
bench() {
  local datasets rc; datasets=$(among "$1"); shift
  [[ -n $datasets ]] || return 0
  "$PYTHON" -m hyperclust bench --data-dir "$DATA" --seeds "$SEEDS" --threads "$THREADS" \
         --no-plots --published "$PUBLISHED" "$@" --datasets $datasets || {
    rc=$?; (( rc == 1 )) || return $rc; }
}

if [[ $STAGE == all || $STAGE == cheap ]]; then
  # Every protocol: all nodes everywhere, isolated-removed where isolated nodes exist, lcc
  # on the subsets the peers accept (stage peers), so that peers meet ours on their nodes.
  bench "$SMALL $SYNTH $HSBM $LARGE" --out "$WORK/cheap" --time-limit 180 --methods $CHEAP \
        --protocols all
  bench "$COVERED" --out "$WORK/cheap" --time-limit 180 --methods $CHEAP \
        --protocols isolated-removed
  bench "$PEER_DATA" --out "$WORK/cheap" --time-limit 180 --methods $CHEAP --protocols lcc
fi
if [[ $STAGE == all || $STAGE == peers ]]; then
  bench "$PEER_DATA" --out "$WORK/peers" --time-limit 180 --methods $PEERS \
        --protocols isolated-removed lcc
fi
if [[ $STAGE == all || $STAGE == dhg ]]; then
  # DHG's HGNN smoothing + k-means (the peer of our hgnn baseline) needs node features.
  bench "$DHG_DATA" --out "$WORK/dhg" --time-limit 180 --methods peer-dhg \
        --protocols all isolated-removed
fi
if [[ ($STAGE == all && -n ${HYMMSBM_DIR:-}) || $STAGE == hymmsbm ]]; then
  bench "$PEER_DATA" --out "$WORK/hymmsbm" --time-limit 300 --methods peer-hymmsbm \
        --protocols all isolated-removed
fi
if [[ ($STAGE == all && -n ${HYCOSBM_DIR:-}) || $STAGE == hycosbm ]]; then
  # HyCoSBM's attribute term (gamma 0.8) needs node features
  bench "$DHG_DATA" --out "$WORK/hycosbm" --time-limit 600 --methods peer-hycosbm \
        --protocols all
fi
if [[ ($STAGE == all && -n ${HYPERNEO_DIR:-}) || $STAGE == hyperneo ]]; then
  # HyperNEO's attribute term (gamma 0.8, one k-means category per node) needs node features
  bench "$DHG_DATA" --out "$WORK/hyperneo" --time-limit 600 --methods peer-hyperneo \
        --protocols all
fi
if [[ $STAGE == all || $STAGE == unidhc ]]; then
  bench "$SMALL $SYNTH $HSBM $LARGE" --out "$WORK/unidhc" --time-limit 300 \
        --methods unidhc --protocols all
  bench "$COVERED" --out "$WORK/unidhc" --time-limit 300 --methods unidhc \
        --protocols isolated-removed
fi
if [[ $STAGE == all || $STAGE == unidhc-filter ]]; then
  bench "$SMALL $SYNTH $HSBM $LARGE" --out "$WORK/unidhc-filter" --time-limit 300 \
        --methods unidhc-filter --protocols all
fi
if [[ $STAGE == all || $STAGE == report ]]; then
  mkdir -p "$OUT"
  # Start from the committed records: rows not rerun stay (the report marks them by their
  # provenance); rows of the stores under $WORK replace them (later stores win).
  if [[ -f $OUT/results.json.gz ]]; then
    gunzip -c "$OUT/results.json.gz" > "$OUT/results.json"
  else
    rm -f "$OUT/results.json"
  fi
  stores=()
  for d in "$WORK"/*/; do [[ -f $d/results.json ]] && stores+=("$d"); done
  "$PYTHON" -m hyperclust bench --out "$OUT" --report-only --published "$PUBLISHED" \
         ${stores[@]+--merge "${stores[@]}"}
  gzip -9 -n -c "$OUT/results.json" > "$OUT/results.json.gz"
  rm -f "$OUT/results.json"
fi
