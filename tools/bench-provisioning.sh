#!/usr/bin/env bash
# Provisioning benchmark: time for N new tenants (default 1000) to be Ready with Tenantry against a
# `kubectl apply --server-side` of the same objects (rendered by the operator's builders) on the same
# simulated cluster, alternating the sides over R rounds (default 3) of N/R tenants; then the API
# requests of one full resync of each side's converged tenants. Prints tables; see docs/benchmarks.md.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash tools/build-test-binaries.sh >&2
mvn -q -B -pl controller -am test-compile dependency:build-classpath \
  -Dmdep.outputFile=target/bench.classpath >&2
exec java -Xmx2g -Dtenantry.tools="$PWD/tools" \
  -cp "controller/target/test-classes:controller/target/classes:$(cat controller/target/bench.classpath)" \
  io.tenantry.controller.bench.ProvisioningBenchmark "$@"
