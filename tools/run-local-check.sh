#!/usr/bin/env bash
# Checks the main job end to end, as a user would use it: starts tools/run-local.sh in the
# background, waits until it reports the example tenant acme Ready (it then writes
# target/local.env), and with exactly that environment runs
#   tools/tenantctl.sh clusters list
#   tools/tenantctl.sh get tenants
#   tools/tenantctl.sh deploy --app web --version <next> --tenants acme
# checking that each sees the local cluster; then stops run-local and deletes its cluster.
# Takes a few minutes once the test binaries are built (run-local builds the operator first).
#
#   tools/run-local-check.sh          check, then tools/run-local.sh down
#   tools/run-local-check.sh --keep   check, and leave the cluster for the next run-local
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
log() { printf '[run-local-check] %s\n' "$*" >&2; }
fail() { log "FAILED: $*"; exit 1; }
keep=false
[[ "${1:-}" == "--keep" ]] && keep=true

mkdir -p target
rm -f target/local.env
log "starting tools/run-local.sh (output: target/run-local-check.log)"
# A process group of its own, so that stopping it stops the operator it runs too.
setsid bash tools/run-local.sh >target/run-local-check.log 2>&1 &
run_local=$!
stop() {
  if kill -0 "$run_local" 2>/dev/null; then
    log "stopping tools/run-local.sh"
    kill -- -"$run_local" 2>/dev/null || true
    wait "$run_local" 2>/dev/null || true
  fi
  if ! $keep; then
    bash tools/run-local.sh down >/dev/null 2>&1 || true
  fi
}
trap stop EXIT INT TERM

# The first run builds the test binaries from source: allow for it.
for _ in $(seq 1800); do
  [[ -s target/local.env ]] && break
  kill -0 "$run_local" 2>/dev/null || { tail -n 30 target/run-local-check.log >&2; fail "tools/run-local.sh exited"; }
  sleep 1
done
[[ -s target/local.env ]] || fail "acme not Ready within 30 minutes (target/run-local-check.log)"
sleep 1  # run-local prints its message right after writing the file
sed -n '/^The local cluster/,$p' target/run-local-check.log >&2

# Exactly the environment run-local tells the user to set.
# shellcheck disable=SC1091
source target/local.env
context="$(sed -n 's/^current-context: *//p' "$KUBECONFIG")"

tenantctl() {
  log "\$ tools/tenantctl.sh $*"
  local out status=0
  out="$(bash tools/tenantctl.sh "$@" 2>&1)" || status=$?
  printf '%s\n' "$out" >&2
  [[ $status -eq 0 ]] || fail "tools/tenantctl.sh $* exited with $status"
  printf '%s\n' "$out"
}

clusters="$(tenantctl clusters list)"
grep -Eq "^local +$context " <<<"$clusters" || fail "clusters list does not show cluster local with context $context"

tenants="$(tenantctl get tenants)"
grep -Eq '^local +acme +Active +Ready +web=' <<<"$tenants" || fail "get tenants does not show acme Ready on local"

current="$(grep -E '^local +acme ' <<<"$tenants" | grep -Eo 'web=[0-9]+\.[0-9]+\.[0-9]+' | cut -d= -f2)"
next="${current%.*}.$(( ${current##*.} + 1 ))"
deploy="$(tenantctl deploy --app web --version "$next" --tenants acme --tenant-timeout 5m)"
grep -q "SUCCEEDED" <<<"$deploy" || fail "the deploy of web $next to acme did not succeed"

tenants="$(tenantctl get tenants)"
grep -Eq "^local +acme +Active +Ready +web=$next," <<<"$tenants" || fail "acme does not run web $next after the deploy"

log "OK: clusters list, get tenants and deploy work on the local cluster with target/local.env"
