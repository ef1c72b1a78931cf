#!/usr/bin/env bash
# Controller benchmark: converged-sync CPU time, API requests during a full resync and heap per
# tenant, at N tenants (default 1000) on a real kube-apiserver, and with M the heap growth per tenant
# from N to M tenants. Prints its figures; see docs/benchmarks.md. Usage: bench-controller.sh [N] [M]
# BENCH_RECORD=1 writes the figures into docs/benchmarks.md (tools/run-benchmark.sh).
set -euo pipefail
# The operator image's GC flags (controller/pom.xml): the heap per tenant depends on them.
exec "$(dirname "${BASH_SOURCE[0]}")/run-benchmark.sh" controller controller io.tenantry.controller.bench.ControllerBenchmark "-Xmx2g -XX:+UseG1GC -XX:+UseStringDeduplication" "$@"
