#!/usr/bin/env bash
# The main job, locally: a simulated cluster (real control plane, kwok nodes) named
# "tenantry-local", with the Tenant and SparePool CRDs and the examples in deploy/examples.
#
#   tools/run-local.sh        build what is needed, start (or reuse) the cluster, install, print the kubeconfig
#   tools/run-local.sh down   delete the cluster
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source tools/versions.env
name=tenantry-local

if [[ "${1:-}" == "down" ]]; then
  bash tools/kwok-cluster.sh down "$name"
  exit 0
fi

bash tools/build-test-binaries.sh
echo "[run-local] building the CRDs (mvn package)" >&2
mvn -q -B package -pl api -am -DskipTests
kubeconfig="$(bash tools/kwok-cluster.sh up "$name")"
kubectl="${TENANTRY_CACHE:-$HOME/.cache/tenantry}/k8s/${KUBERNETES_VERSION}-linux-amd64/kubectl"

"$kubectl" --kubeconfig "$kubeconfig" apply --server-side --field-manager=tenantry-install \
  -f api/target/classes/META-INF/fabric8/tenants.tenantry.io-v1.yml \
  -f api/target/classes/META-INF/fabric8/sparepools.tenantry.io-v1.yml >&2
"$kubectl" --kubeconfig "$kubeconfig" wait --for condition=established --timeout=60s \
  crd/tenants.tenantry.io crd/sparepools.tenantry.io >&2
"$kubectl" --kubeconfig "$kubeconfig" apply --server-side --field-manager=tenantry-examples -f deploy/examples/ >&2

cat <<MSG

The local cluster "$name" is up (Kubernetes v$KUBERNETES_VERSION, simulated nodes).
Use it with:

  export KUBECONFIG=$kubeconfig
  $kubectl get tenants

Stop it with: tools/run-local.sh down
MSG
