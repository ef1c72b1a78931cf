#!/usr/bin/env bash
# Runs every test: builds the pinned test binaries (cached, idempotent), then the unit tests of
# every module (Surefire, no cluster; their wall time is printed), then the build rules and the
# integration suites on real clusters (Failsafe). Extra arguments go to Maven, e.g.
# tools/test.sh -Dtenantry.cluster=kubeconfig to run the suites against your own cluster.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash tools/build-test-binaries.sh
started=$(date +%s)
mvn -B test "$@"
echo "[test.sh] unit tests of every module (compilation included): $(( $(date +%s) - started )) s wall time"
# The unit tests ran above: Surefire is told to find none this time.
mvn -B verify -Dtest=NONE -Dsurefire.failIfNoSpecifiedTests=false "$@"
