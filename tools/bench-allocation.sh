#!/usr/bin/env bash
# Allocation benchmark: the allocation API against the API server's ceiling, side by side. For C
# clients it alternates W-second windows of allocations over HTTP (A) and of plain Tenant updates
# (B), P pairs after a warm-up pair, and prints a table per pair and the medians of the pairwise
# ratios (allocations/s / updates/s, p50 allocation / p50 update), the refill time and the writes
# the API server took per call. See docs/benchmarks.md.
# Usage: tools/bench-allocation.sh [S spares, 1000] [C clients, 32] [P pairs, 3] [W seconds, 4]
#        [the pool's maxProvisioning during the allocation windows, 5]
# BENCH_RECORD=1 writes the figures into docs/benchmarks.md (tools/run-benchmark.sh).
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/run-benchmark.sh" allocation controller io.tenantry.controller.bench.AllocationBenchmark "-Xmx2g" "$@"
