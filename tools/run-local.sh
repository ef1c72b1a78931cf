#!/usr/bin/env bash
# The main job, locally: a simulated cluster (real control plane, kwok nodes) named
# "tenantry-local" with the CRDs installed, the Cloud Datastore emulator holding the fleet
# records, the operator running against both in the foreground (the allocation API on
# http://localhost:8080/v1/allocations), and the examples from deploy/examples applied (the
# Tenant "acme" becomes Ready, the SparePool "default" keeps Ready spares for signups).
# The operator registers the cluster in the fleet records as "local", reached through the
# kubeconfig's own context, so tenantctl works on it with the environment written to
# target/local.env (printed at the end).
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
log "building the operator and tenantctl (mvn package)"
# tenantctl too, so that its first use does not rebuild the jars the running operator reads.
mvn -q -B package -pl controller,deploy -am -DskipTests dependency:build-classpath \
  -Dmdep.outputFile=target/runtime.classpath -DincludeScope=runtime
# The dependency plugin leaves an unchanged class path file as it was; tools/tenantctl.sh rebuilds
# when its sources are newer than that file: mark this build.
touch deploy/target/runtime.classpath
kubeconfig="$(bash tools/kwok-cluster.sh up "$name")"
kubectl=("${TENANTRY_CACHE:-$HOME/.cache/tenantry}/k8s/${KUBERNETES_VERSION}-linux-amd64/kubectl" --kubeconfig "$kubeconfig")
# The fleet records name a cluster's kubeconfig context: the operator records this one, which
# tenantctl then finds in the same kubeconfig.
context="$("${kubectl[@]}" config current-context)"

"${kubectl[@]}" apply --server-side --field-manager=tenantry-install \
  -f api/target/classes/META-INF/fabric8/tenants.tenantry.io-v1.yml \
  -f api/target/classes/META-INF/fabric8/sparepools.tenantry.io-v1.yml \
  -f deploy/manifests/tenantry.yaml --selector app.kubernetes.io/component!=operator >&2
"${kubectl[@]}" wait --for condition=established --timeout=60s crd/tenants.tenantry.io crd/sparepools.tenantry.io >&2

mkdir -p target
rm -f target/local.env  # written again once acme is Ready
local_dir="${TENANTRY_CACHE:-$HOME/.cache/tenantry}/local"
mkdir -p "$local_dir"
datastore_port=8482  # not 8081: the operator's probe port
datastore_project=tenantry-local
# The operator's ports and the emulator's: what an earlier run left there (an emulator holding that
# run's fleet records, an operator) would be taken for this run's.
for port in 8080 8081 $datastore_port; do
  if curl -s -o /dev/null "http://localhost:$port/"; then
    log "error: something already listens on localhost:$port (left from an earlier run?); stop it first"
    exit 1
  fi
done
log "starting the Cloud Datastore emulator on localhost:$datastore_port (logs: target/datastore-emulator.log)"
emulator="$(gcloud info --format='value(installation.sdk_root)')/platform/cloud-datastore-emulator/cloud_datastore_emulator"
# In a process group of its own: the emulator's script runs Java as a child, and both must stop.
# Strongly consistent, as Datastore is now (Firestore in Datastore mode): with the emulator's default
# (0.9) a query now and then misses a recent write, and tenantctl clusters list shows no cluster.
(cd target && exec setsid "$emulator" start --host=localhost --port=$datastore_port --store_on_disk=false \
  --store_index_configuration_on_disk=false --consistency=1.0) >target/datastore-emulator.log 2>&1 &
datastore=$!
# Stops what this script started; every step may find its process gone already (Ctrl-C reaches the
# operator too), which must not end the clean-up early.
stop() {
  kill "${operator:-}" 2>/dev/null || true
  wait "${operator:-}" 2>/dev/null || true
  kill -- -"$datastore" 2>/dev/null || true
}
trap stop EXIT INT TERM
for _ in $(seq 60); do curl -fs "http://localhost:$datastore_port/" >/dev/null && break; sleep 1; done
curl -fs "http://localhost:$datastore_port/" >/dev/null \
  || { log "error: the Datastore emulator did not start (target/datastore-emulator.log)"; exit 1; }

# The allocation API's bearer token: made once, kept with the cache (never in the repository).
[[ -s "$local_dir/allocation-token" ]] || (umask 077; head -c 24 /dev/urandom | base64 | tr -d '/+=' >"$local_dir/allocation-token")
cat >target/local-operator.yaml <<YAML
fleet:
  datastoreProjectId: $datastore_project
  clusterName: local
  clusterContext: $context
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
# Ready once it leads (caches synced, workers running); it has registered this cluster in the fleet
# records before that. Waiting for it first also keeps a cluster kept from an earlier run, whose
# acme still says Ready, from being reported up before this operator runs.
log "waiting for the operator to be ready (http://localhost:8081/readyz)"
for _ in $(seq 180); do
  curl -fs http://localhost:8081/readyz >/dev/null && break
  kill -0 "$operator" 2>/dev/null || { tail -n 20 target/operator.log >&2; log "error: the operator exited (target/operator.log)"; exit 1; }
  sleep 1
done
curl -fs http://localhost:8081/readyz >/dev/null || { log "error: the operator is not ready after 3 minutes (target/operator.log)"; exit 1; }

# Forced: on a cluster kept from an earlier run, a tenantctl deploy owns the apps' versions since.
"${kubectl[@]}" apply --server-side --force-conflicts --field-manager=tenantry-examples -f deploy/examples/ >&2
log "waiting for the example tenant acme to become Ready"
"${kubectl[@]}" wait --for=jsonpath='{.status.phase}'=Ready --timeout=180s tenant/acme >&2
"${kubectl[@]}" get tenants >&2

# What kubectl and tenantctl need, for the user and for scripts (source target/local.env).
cat >target/local.env <<ENV
export KUBECONFIG=$kubeconfig
export DATASTORE_EMULATOR_HOST=localhost:$datastore_port
export TENANTRY_DATASTORE_PROJECT=$datastore_project
ENV

cat <<MSG

The local cluster "$name" is up (Kubernetes v$KUBERNETES_VERSION, simulated nodes) and the operator
is running (health and metrics on http://localhost:8081/healthz, /readyz, /metrics; the allocation API on 8080).
In another terminal, set the environment (the same exports are in $PWD/target/local.env):

$(sed 's/^/  /' target/local.env)

then look at the cluster:

  kubectl get tenants
  kubectl describe tenant acme
  kubectl get sparepools

and at the fleet (the operator registered this cluster as "local", kubeconfig context $context):

  $PWD/tools/tenantctl.sh clusters list
  $PWD/tools/tenantctl.sh get tenants
  $PWD/tools/tenantctl.sh deploy --app web --version 1.4.3 --tenants acme

Sign a customer up (binds a Ready spare of the pool "default"; the same requestId always gets the same tenant):

  curl -s -H "Authorization: Bearer \$(cat $local_dir/allocation-token)" -H 'Content-Type: application/json' \\
    -d '{"requestId":"signup-1","organization":"Initech","email":"ops@initech.example"}' \\
    http://localhost:8080/v1/allocations

Ctrl-C stops the operator; tools/run-local.sh down deletes the cluster.
MSG
wait $operator
