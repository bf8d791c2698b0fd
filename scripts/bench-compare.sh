#!/usr/bin/env bash
# Two builds side by side: `make bench`'s figures for each, alternated in the same hour, since this
# machine's speed varies from hour to hour. Compare medians and ratios of the rounds, not one run.
#
#   scripts/bench-compare.sh OLD_BIN NEW_BIN [rounds, default 2] [sizes ...]
#   CAPACITY=0 and RUNS=n pass through to scripts/bench.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
old=$1 new=$2 rounds=${3:-2}
shift $(( $# > 2 ? 3 : 2 ))
for round in $(seq "$rounds"); do
  for side in old new; do
    bin=$old; [ "$side" = new ] && bin=$new
    echo "== round $round, $side: $bin ($(date -u +%H:%M) UTC)"
    BIN=$bin scripts/bench.sh "$@"
  done
done
