#!/usr/bin/env bash
# Runs every test: builds the pinned test binaries (cached, idempotent), then unit tests
# (Surefire) and the integration suites on real clusters (Failsafe). Extra arguments go to Maven,
# e.g. tools/test.sh -Dtenantry.cluster=kubeconfig to run the suites against your own cluster.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash tools/build-test-binaries.sh
mvn -B verify "$@"
