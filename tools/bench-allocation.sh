#!/usr/bin/env bash
# Allocation benchmark: latency (p50, p99) and throughput of the allocation API with C clients
# (default 32) draining a warm pool of S spares (default 300), and the refill time. See docs/benchmarks.md.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash tools/build-test-binaries.sh >&2
mvn -q -B -pl controller -am test-compile dependency:build-classpath \
  -Dmdep.outputFile=target/bench.classpath >&2
exec java -Xmx2g -Dtenantry.tools="$PWD/tools" \
  -cp "controller/target/test-classes:controller/target/classes:$(cat controller/target/bench.classpath)" \
  io.tenantry.controller.bench.AllocationBenchmark "$@"
