#!/usr/bin/env bash
# Signup-to-serving benchmark: open-loop signups through the allocation API until each customer's
# first HTTP 200 through Traefik from its own tenant, with the signup hold on and off, against a
# peer (plain HTTPRoutes), plus a burst larger than the pool. See docs/benchmarks.md.
# Usage: tools/bench-signup.sh [rates/s, 2,5,10] [seconds per rate, 120] [pool buffer, 400]
#        [burst clients, 32; 0: the rates alone] [Traefik providersThrottleDuration, 100ms]
#        [Traefik providers.kubernetesGateway.throttleDuration, 100ms] [rounds of signups at once per side, 3]
#        [routing.spareGate.mode: service (spares' Services closed until bound) or forwardAuth (gated at the edge), service]
#        Rates none: the signups at once and the bursts alone.
# BENCH_RECORD=1 writes the figures into docs/benchmarks.md (tools/run-benchmark.sh): block signup-rates-<pool>
# for the rates alone (0 burst clients; signup-rates-<rates, joined by ->-<pool> for rates other than 2,5,10),
# signup-at-once-<pool> for rates none. The issue's size is recorded in those two parts, each short enough to leave
# room for CI in a session; a whole run is not recorded.
# Needs root: the kwok pods' addresses (10.244.0.0/16) are made local to this machine for the run
# (`ip route add local ... dev lo`), so that Traefik reaches each pod at its own address.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
pods=10.244.0.0/16
if ! ip route replace local "$pods" dev lo 2>/dev/null; then
  echo "error: tools/bench-signup.sh needs to route $pods to this machine (ip route add local $pods dev lo): run it as root" >&2
  exit 1
fi
trap 'ip route del local "$pods" dev lo 2>/dev/null || true' EXIT
if [[ ${1:-} == none ]]; then
  export BENCH_BLOCK=signup-at-once-${3:-400}
elif [[ ${4:-32} == 0 ]]; then
  rates=${1:-2,5,10}
  # Other rates get their own block: a single rate from a full pool is not the default rates' last phase.
  export BENCH_BLOCK=signup-rates-$([[ $rates == 2,5,10 ]] || echo "${rates//,/-}-")${3:-400}
elif [[ ${BENCH_RECORD:-} == 1 ]]; then
  echo "error: BENCH_RECORD=1 records a run of the rates alone (burst clients 0) or of none (signups at once and bursts alone)," \
    "each into its block of docs/benchmarks.md; not a whole run" >&2
  exit 1
fi
# Not exec: the trap removes the route when the benchmark ends.
tools/run-benchmark.sh signup controller io.tenantry.controller.bench.SignupBenchmark "-Xmx3g" "$@"
