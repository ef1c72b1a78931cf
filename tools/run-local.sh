#!/usr/bin/env bash
# The main job, locally: a simulated cluster (real control plane, kwok nodes) named
# "tenantry-local" with the CRDs installed, the operator running against it in the foreground,
# and the examples from deploy/examples applied (the Tenant "acme" becomes Ready).
#
#   tools/run-local.sh        build, start (or reuse) the cluster, run the operator until Ctrl-C
#   tools/run-local.sh down   delete the cluster
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source tools/versions.env
name=tenantry-local
log() { printf '[run-local] %s\n' "$*" >&2; }

if [[ "${1:-}" == "down" ]]; then
  bash tools/kwok-cluster.sh down "$name"
  exit 0
fi

bash tools/build-test-binaries.sh
log "building the operator (mvn package)"
mvn -q -B package -pl controller -am -DskipTests dependency:build-classpath \
  -Dmdep.outputFile=target/runtime.classpath -DincludeScope=runtime
kubeconfig="$(bash tools/kwok-cluster.sh up "$name")"
kubectl=("${TENANTRY_CACHE:-$HOME/.cache/tenantry}/k8s/${KUBERNETES_VERSION}-linux-amd64/kubectl" --kubeconfig "$kubeconfig")

"${kubectl[@]}" apply --server-side --field-manager=tenantry-install \
  -f api/target/classes/META-INF/fabric8/tenants.tenantry.io-v1.yml \
  -f api/target/classes/META-INF/fabric8/sparepools.tenantry.io-v1.yml \
  -f deploy/manifests/ >&2
"${kubectl[@]}" wait --for condition=established --timeout=60s crd/tenants.tenantry.io crd/sparepools.tenantry.io >&2

log "starting the operator (logs: target/operator.log)"
mkdir -p target
java -cp "controller/target/classes:$(cat controller/target/runtime.classpath)" io.tenantry.controller.operator.Main \
  --kubeconfig "$kubeconfig" --identity "local-$(hostname)" >target/operator.log 2>&1 &
operator=$!
trap 'kill $operator 2>/dev/null; wait $operator 2>/dev/null' EXIT INT TERM

"${kubectl[@]}" apply --server-side --field-manager=tenantry-examples -f deploy/examples/ >&2
log "waiting for the example tenant acme to become Ready"
"${kubectl[@]}" wait --for=jsonpath='{.status.phase}'=Ready --timeout=180s tenant/acme >&2
"${kubectl[@]}" get tenants >&2

cat <<MSG

The local cluster "$name" is up (Kubernetes v$KUBERNETES_VERSION, simulated nodes) and the operator
is running (health and metrics on http://localhost:8080/healthz, /readyz, /metrics).
In another terminal:

  export KUBECONFIG=$kubeconfig
  kubectl get tenants
  kubectl describe tenant acme

Ctrl-C stops the operator; tools/run-local.sh down deletes the cluster.
MSG
wait $operator
