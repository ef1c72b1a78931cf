#!/usr/bin/env bash
# Allocation benchmark: the allocation API against the API server's ceiling, side by side. For C
# clients it alternates W-second windows of allocations over HTTP (A) and of plain Tenant updates
# (B), P pairs after a warm-up pair, and prints a table per pair and the medians of the pairwise
# ratios (allocations/s / updates/s, p50 allocation / p50 update), the refill time and the writes
# the API server took per call. See docs/benchmarks.md.
# Usage: tools/bench-allocation.sh [S spares, 1000] [C clients, 32] [P pairs, 3] [W seconds, 4]
#        [the pool's maxProvisioning during the allocation windows, 5]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash tools/build-test-binaries.sh >&2
mvn -q -B -pl controller -am test-compile dependency:build-classpath \
  -Dmdep.outputFile=target/bench.classpath >&2
exec java -Xmx2g -Dtenantry.tools="$PWD/tools" \
  -cp "controller/target/test-classes:controller/target/classes:$(cat controller/target/bench.classpath)" \
  io.tenantry.controller.bench.AllocationBenchmark "$@"
