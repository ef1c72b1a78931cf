#!/usr/bin/env bash
# Controller benchmark: converged-sync CPU time, API requests during a full resync and heap per
# tenant, at N tenants (default 1000) on a real kube-apiserver, and with M the heap growth per tenant
# from N to M tenants. Prints its figures; see docs/benchmarks.md. Usage: bench-controller.sh [N] [M]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash tools/build-test-binaries.sh >&2
mvn -q -B -pl controller -am test-compile dependency:build-classpath \
  -Dmdep.outputFile=target/bench.classpath >&2
# The operator image's GC flags (controller/pom.xml): the heap per tenant depends on them.
exec java -Xmx2g -XX:+UseG1GC -XX:+UseStringDeduplication -Dtenantry.tools="$PWD/tools" \
  -cp "controller/target/test-classes:controller/target/classes:$(cat controller/target/bench.classpath)" \
  io.tenantry.controller.bench.ControllerBenchmark "$@"
