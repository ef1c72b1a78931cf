#!/usr/bin/env bash
# The main job, locally: a simulated cluster (real control plane, kwok nodes) named
# "tenantry-local" with the CRDs installed, the Cloud Datastore emulator holding the fleet
# records, the operator running against both in the foreground (the allocation API on
# http://localhost:8080/v1/allocations), and the examples from deploy/examples applied (the
# Tenant "acme" becomes Ready, the SparePool "default" keeps Ready spares for signups).
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

mkdir -p target
local_dir="${TENANTRY_CACHE:-$HOME/.cache/tenantry}/local"
mkdir -p "$local_dir"
datastore_port=8482  # not 8081: the operator's probe port
log "starting the Cloud Datastore emulator on localhost:$datastore_port (logs: target/datastore-emulator.log)"
emulator="$(gcloud info --format='value(installation.sdk_root)')/platform/cloud-datastore-emulator/cloud_datastore_emulator"
(cd target && exec "$emulator" start --host=localhost --port=$datastore_port --store_on_disk=false \
  --store_index_configuration_on_disk=false) >target/datastore-emulator.log 2>&1 &
datastore=$!
trap 'kill $datastore 2>/dev/null' EXIT INT TERM
for _ in $(seq 60); do curl -fs "http://localhost:$datastore_port/" >/dev/null && break; sleep 1; done

# The allocation API's bearer token: made once, kept with the cache (never in the repository).
[[ -s "$local_dir/allocation-token" ]] || (umask 077; head -c 24 /dev/urandom | base64 | tr -d '/+=' >"$local_dir/allocation-token")
cat >target/local-operator.yaml <<YAML
fleet:
  datastoreProjectId: tenantry-local
  clusterName: local
allocation:
  enabled: true
  tokenFile: $local_dir/allocation-token
YAML

# The secret store the operator reads: the default one, ~/.local/share/tenantry/secret-store, which
# the secrets CLI also uses by default. The operator never creates a store or a keyset (a missing one
# fails its start), so it is made here the first time; init leaves an existing store as it is.
log "making the secret store if there is none (tools/tenantry-secrets.sh init)"
bash tools/tenantry-secrets.sh init >&2

log "starting the operator (logs: target/operator.log)"
DATASTORE_EMULATOR_HOST=localhost:$datastore_port \
  java -cp "controller/target/classes:$(cat controller/target/runtime.classpath)" io.tenantry.controller.operator.Main \
  --kubeconfig "$kubeconfig" --config target/local-operator.yaml --identity "local-$(hostname)" >target/operator.log 2>&1 &
operator=$!
trap 'kill $operator 2>/dev/null; wait $operator 2>/dev/null; kill $datastore 2>/dev/null' EXIT INT TERM

"${kubectl[@]}" apply --server-side --field-manager=tenantry-examples -f deploy/examples/ >&2
log "waiting for the example tenant acme to become Ready"
"${kubectl[@]}" wait --for=jsonpath='{.status.phase}'=Ready --timeout=180s tenant/acme >&2
"${kubectl[@]}" get tenants >&2

cat <<MSG

The local cluster "$name" is up (Kubernetes v$KUBERNETES_VERSION, simulated nodes) and the operator
is running (health and metrics on http://localhost:8081/healthz, /readyz, /metrics; the allocation API on 8080).
In another terminal:

  export KUBECONFIG=$kubeconfig
  kubectl get tenants
  kubectl describe tenant acme
  kubectl get sparepools

Sign a customer up (binds a Ready spare of the pool "default"; the same requestId always gets the same tenant):

  curl -s -H "Authorization: Bearer \$(cat $local_dir/allocation-token)" -H 'Content-Type: application/json' \\
    -d '{"requestId":"signup-1","organization":"Initech","email":"ops@initech.example"}' \\
    http://localhost:8080/v1/allocations

Ctrl-C stops the operator; tools/run-local.sh down deletes the cluster.
MSG
wait $operator
