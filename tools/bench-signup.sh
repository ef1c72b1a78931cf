#!/usr/bin/env bash
# Signup-to-serving benchmark: open-loop signups through the allocation API until each customer's
# first HTTP 200 through Traefik from its own tenant, with the signup hold on and off, against a
# peer (plain HTTPRoutes), plus a burst larger than the pool. See docs/benchmarks.md.
# Usage: tools/bench-signup.sh [rates/s, 2,5,10] [seconds per rate, 120] [pool buffer, 400]
#        [burst clients, 32] [Traefik providersThrottleDuration, 100ms]
# BENCH_RECORD=1 writes the figures into docs/benchmarks.md (tools/record-figures.sh).
# Needs root: the kwok pods' addresses (10.244.0.0/16) are made local to this machine for the run
# (`ip route add local ... dev lo`), so that Traefik reaches each pod at its own address.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
pods=10.244.0.0/16
if ! ip route replace local "$pods" dev lo 2>/dev/null; then
  echo "error: tools/bench-signup.sh needs to route $pods to this machine (ip route add local $pods dev lo): run it as root" >&2
  exit 1
fi
trap 'ip route del local "$pods" dev lo 2>/dev/null || true' EXIT
bash tools/build-test-binaries.sh >&2
mvn -q -B -pl controller -am test-compile dependency:build-classpath \
  -Dmdep.outputFile=target/bench.classpath >&2
out="$(mktemp)"
status=0
# The commit the figures are measured on, +changes when the tree differs from it (docs aside).
BENCH_COMMIT="$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . ':!docs' || echo '+changes')"
export BENCH_COMMIT
java -Xmx3g -Dtenantry.tools="$PWD/tools" \
  -cp "controller/target/test-classes:controller/target/classes:$(cat controller/target/bench.classpath)" \
  io.tenantry.controller.bench.SignupBenchmark "$@" | tee "$out" || status=$?
if [[ ${BENCH_RECORD:-} == 1 ]]; then
  tools/record-figures.sh signup docs/benchmarks.md "$out" "tools/bench-signup.sh $*"
fi
rm -f "$out"
exit "$status"
