#!/usr/bin/env bash
# Provisioning benchmark: time for N new tenants (default 1000) to be Ready with Tenantry against a
# `kubectl apply --server-side` of the same objects (rendered by the operator's builders) on the same
# simulated cluster, alternating the sides over R rounds (default 3) of N/R tenants; then the API
# requests of one full resync of each side's converged tenants. Prints tables; see docs/benchmarks.md.
# BENCH_RECORD=1 writes the figures into docs/benchmarks.md (tools/run-benchmark.sh).
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/run-benchmark.sh" provisioning controller io.tenantry.controller.bench.ProvisioningBenchmark "-Xmx2g" "$@"
