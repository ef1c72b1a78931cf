#!/usr/bin/env bash
# Runs one benchmark on two commits back to back, alternating BEFORE and AFTER, RUNS times each,
# each in a worktree of its own (under ~/.cache/tenantry/compare), and prints every run's summary
# lines ("median ...") and, per side, the median over the runs of the first figure of the first
# summary line, with AFTER's over BEFORE's: how a change is shown not to slow a benchmark.
# BENCH_RECORD=1 writes the output into docs/benchmarks.md, block compare-BENCH.
#
#   tools/bench-compare.sh BEFORE AFTER RUNS BENCH [ARGS...]
#   e.g. tools/bench-compare.sh main HEAD 3 allocation 200 32 3 1
set -euo pipefail
before=${1:?before} after=${2:?after} runs=${3:?runs} bench=${4:?benchmark}
shift 4
cd "$(dirname "${BASH_SOURCE[0]}")/.."
work="${BENCH_COMPARE_DIR:-$HOME/.cache/tenantry/compare}"
out="$(mktemp)"
declare -A commit figures
for side in before after; do
  rev=${!side}
  commit[$side]=$(git rev-parse --short "$rev")
  git worktree remove --force "$work/$side" 2>/dev/null || rm -rf "$work/$side"
  git worktree prune
  git worktree add --detach "$work/$side" "$rev" >&2
done
{
  echo "tools/bench-$bench.sh $*: $before (${commit[before]}) against $after (${commit[after]}), $runs runs each, alternating"
  for ((i = 1; i <= runs; i++)); do
    for side in before after; do
      log="$work/$side-$i.log"
      (cd "$work/$side" && env -u BENCH_RECORD "tools/bench-$bench.sh" "$@" >"$log" 2>&1) || { echo "run $i, $side: failed (log $log)"; exit 1; }
      line=$(grep -m1 '^median' "$log")
      echo "run $i, $side: $line"
      figures[$side]+="$(sed -E 's/^[^=]*= ([0-9.]+).*/\1/' <<<"$line") "
    done
  done
  median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
  b=$(median <<<"${figures[before]}") a=$(median <<<"${figures[after]}")
  echo "median of the runs' first figure: before $b, after $a; after ÷ before = $(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.2f", a / b}')"
} | tee "$out"
if [[ ${BENCH_RECORD:-} == 1 ]]; then
  BENCH_COMMIT="${commit[before]}..${commit[after]}" tools/record-figures.sh "compare-$bench" docs/benchmarks.md "$out" \
    "tools/bench-compare.sh $before $after $runs $bench $*"
fi
rm -f "$out"
for side in before after; do git worktree remove --force "$work/$side"; done
