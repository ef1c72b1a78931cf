#!/usr/bin/env bash
# Runs one benchmark (a main class in a module's test classes) and prints its output. With
# BENCH_RECORD=1 it then writes the figures into docs/benchmarks.md, between the markers
# <!-- figures:NAME --> and <!-- /figures:NAME --> (tools/record-figures.sh), under the command
# tools/bench-NAME.sh ARGS and the commit the run started on; BENCH_BLOCK names another block (a
# benchmark whose runs of different shapes each have one).
#
#   run-benchmark.sh NAME MODULE MAIN-CLASS "JAVA FLAGS" [ARGS...]
set -euo pipefail
name=${1:?name} module=${2:?module} class=${3:?main class} flags=${4:?java flags}
shift 4
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash tools/build-test-binaries.sh >&2
# The commit the figures are measured on, +changes when the tree differs from it (docs aside).
BENCH_COMMIT="${BENCH_COMMIT:-$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . ':!docs' || echo '+changes')}"
export BENCH_COMMIT
mvn -q -B -pl "$module" -am test-compile dependency:build-classpath -Dmdep.outputFile=target/bench.classpath >&2
out="$(mktemp)"
status=0
# shellcheck disable=SC2086 # the flags are separate words
java $flags -Dtenantry.tools="$PWD/tools" \
  -cp "$module/target/test-classes:$module/target/classes:$(cat "$module/target/bench.classpath")" \
  "$class" "$@" | tee "$out" || status=$?
# A run that ended in a guard's verdict is recorded with it; one that broke off is not.
if [[ ${BENCH_RECORD:-} == 1 ]] && { [[ $status == 0 ]] || grep -q '^GUARD FAILED' "$out"; }; then
  tools/record-figures.sh "${BENCH_BLOCK:-$name}" docs/benchmarks.md "$out" "tools/bench-$name.sh $*"
fi
rm -f "$out"
exit "$status"
