#!/usr/bin/env bash
# Backup benchmark: a PostgreSQL database of SIZE_MIB (default 1024) backed up through Tenantry (the
# backup Job's dump script and agent, the agent as a JVM of its own as in the Job, the transfer
# endpoint, the local store) against a plain `pg_dump -Fc > FILE`, and restored through Tenantry
# (restore script and agent, into a fresh database) against `pg_restore --single-transaction -d DB
# FILE`, side by side in one run, ROUNDS times (default 3). Prints the wall times, MiB/s and the
# ratios (per round, and their median) with their targets; fails only if a backup or restore fails
# or the restored row counts differ. See docs/benchmarks.md.
# Usage: tools/bench-backup.sh [SIZE_MIB] [ROUNDS]
# BENCH_RECORD=1 writes the figures into docs/benchmarks.md (tools/run-benchmark.sh).
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/run-benchmark.sh" backup backup io.tenantry.backup.bench.BackupBenchmark "-Xmx2g" "$@"
