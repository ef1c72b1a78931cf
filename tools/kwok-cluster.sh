#!/usr/bin/env bash
# A simulated Kubernetes cluster for tests and local runs: kwokctl with the binary runtime and the
# binaries tools/build-test-binaries.sh built (never a download). Real kube-apiserver, etcd,
# kube-controller-manager and kube-scheduler; kwok fakes the nodes and the pods' lifecycle.
# kube-controller-manager's hostPath provisioner binds PVCs of the default StorageClass, so a
# StatefulSet's volumeClaimTemplates are served by the real PV controller. A database pod created
# before its claim is bound is unschedulable until then; the scheduler retries such pods after 10 s
# at the latest (its default, 5 minutes, once held a test's database pod for 3 minutes). Both run
# without leader election: there is one of each, and under a benchmark's load a missed lease renewal
# made the controller-manager exit (kwokctl does not restart it), so no pod was made after it.
# The pods' lifecycle is
# tools/kwok-pod-stages.yaml (kwokctl's global --config, copied into the cluster's kwok.yaml for the
# kwok controller): kwok's fast stages, plus a Job pod whose first container runs `false` fails.
#
#   kwok-cluster.sh up <name> [nodes]   create (or reuse) the cluster; prints its kubeconfig path
#   kwok-cluster.sh down <name>         delete the cluster and its files
#   kwok-cluster.sh kubeconfig <name>   print the kubeconfig path
#   kwok-cluster.sh stop-apiserver <name>   kill its kube-apiserver only (etcd and the rest keep running)
#   kwok-cluster.sh start-apiserver <name>  start it again, as it was, and restart kube-controller-manager
#                                           and kube-scheduler; returns once it is ready
#   kwok-cluster.sh revive <name>       start again a kube-apiserver that exited on its own, as kubelet
#                                           restarts a crashed static pod: keeps the logs (printed path),
#                                           then as start-apiserver
#   kwok-cluster.sh compact <name>      compact etcd to a new revision past every object's; prints it
#
# Components that died are found by their pid files, checked against /proc: pids are reused (pid_max
# is 32768 on our machines) and kwokctl kills, or takes for the running component, whatever process has
# a stale pid file's number. The logs of a component found dead are kept in $cache/crashed (the newest
# 10), and a line starting "kwok-cluster:" on stderr says so.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/versions.env"
cache="${TENANTRY_CACHE:-$HOME/.cache/tenantry}"
k8s_dir="$cache/k8s/${KUBERNETES_VERSION}-linux-amd64"
kwokctl="$cache/bin/kwokctl"
export KWOK_WORKDIR="$cache/kwok"
export KWOK_KUBE_VERSION="v$KUBERNETES_VERSION"

usage() { sed -n '2,29p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
[[ $# -ge 2 ]] || usage
cmd="$1" name="$2" nodes="${3:-3}"
cluster_dir="$KWOK_WORKDIR/clusters/$name"
kubeconfig="$cluster_dir/kubeconfig.yaml"
kubectl=("$k8s_dir/kubectl" --kubeconfig "$kubeconfig")

need_binaries() {
  for b in "$k8s_dir"/{kube-apiserver,kube-controller-manager,kube-scheduler,kubectl,etcd} "$cache/bin/kwok" "$kwokctl"; do
    if [[ ! -x "$b" ]]; then
      echo "error: $b is missing; run tools/build-test-binaries.sh first" >&2
      exit 1
    fi
  done
}

up() {
  need_binaries
  if [[ -f "$kubeconfig" ]] && "${kubectl[@]}" get --raw /readyz >/dev/null 2>&1; then
    echo "$kubeconfig"
    return
  fi
  forget_dead_components # Left by a killed run: their numbers may be other processes' by now.
  "$kwokctl" delete cluster --name "$name" >/dev/null 2>&1 || true
  # kwokctl 0.7.0 indexes a repeated component's patch by the flag's position, so each component's
  # first --extra-args must come before any repeat (else it panics: index out of range).
  "$kwokctl" create cluster --name "$name" --runtime binary \
    --config "$here/kwok-pod-stages.yaml" \
    --kubeconfig "" \
    --kube-apiserver-binary "$k8s_dir/kube-apiserver" \
    --kube-controller-manager-binary "$k8s_dir/kube-controller-manager" \
    --kube-scheduler-binary "$k8s_dir/kube-scheduler" \
    --etcd-binary "$k8s_dir/etcd" \
    --kwok-controller-binary "$cache/bin/kwok" \
    --extra-args "kube-apiserver=service-cluster-ip-range=10.96.0.0/16" \
    --extra-args "kube-scheduler=leader-elect=false" \
    --extra-args "kube-controller-manager=leader-elect=false" \
    --extra-args "kube-scheduler=pod-max-in-unschedulable-pods-duration=10s" \
    --extra-args "kube-controller-manager=enable-hostpath-provisioner=true" \
    --extra-args "kube-controller-manager=horizontal-pod-autoscaler-sync-period=2s" \
    --disable-qps-limits \
    --wait 120s >&2
  # kwok's node template advertises cpu, memory and pods only; pods that request ephemeral storage
  # (every tenant pod: the plans' LimitRange defaults it) need nodes that have some.
  "$kwokctl" scale node --name "$name" --replicas "$nodes" \
    --param '.allocatable["ephemeral-storage"] = "1Ti"' >&2
  "${kubectl[@]}" apply -f - >&2 <<'YAML'
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: standard
  annotations:
    storageclass.kubernetes.io/is-default-class: "true"
provisioner: kubernetes.io/host-path
reclaimPolicy: Delete
volumeBindingMode: Immediate
YAML
  echo "$kubeconfig"
}

# Prints the pid in a component's pid file if that process is this cluster's component (kwokctl starts
# each from the cluster's bin/ directory), fails otherwise.
component_pid() {
  local pid
  pid="$(cat "$cluster_dir/pids/$1.pid" 2>/dev/null)" || return 1
  [[ "$(tr '\0' '\n' 2>/dev/null <"/proc/$pid/cmdline" | head -1)" == "$cluster_dir/bin/"* ]] && echo "$pid"
}

# Removes the pid files of components that are not running. With "keep" (a component died, rather than
# being left behind by a killed run), keeps the cluster's logs if any was found, and says where.
forget_dead_components() {
  local pid_file component dead=()
  for pid_file in "$cluster_dir"/pids/*.pid; do
    [[ -e "$pid_file" ]] || continue
    component="$(basename "$pid_file" .pid)"
    component_pid "$component" >/dev/null || { rm "$pid_file"; dead+=("$component"); }
  done
  if [[ "${1:-}" == keep && ${#dead[@]} -gt 0 ]]; then
    echo "kwok-cluster: ${dead[*]} of cluster $name not running; its logs are kept in $(keep_logs)" >&2
  fi
}

# Copies the cluster's logs to $cache/crashed/<name>-<time>, keeps the newest 10 such copies, prints the path.
keep_logs() {
  local kept
  kept="$cache/crashed/$name-$(date -u +%Y%m%dT%H%M%SZ)"
  mkdir -p "$kept"
  cp -a "$cluster_dir/logs/." "$kept/" 2>/dev/null || true
  ls -dt "$cache"/crashed/*/ | tail -n +11 | xargs -r rm -rf
  echo "$kept"
}

# Fault injection for reliability tests: the API server goes away while etcd keeps the data.
kill_component() {
  local pid
  if pid="$(component_pid "$1")"; then
    # Killed, as a crash or a lost machine would: a graceful stop waits up to a minute for open watches.
    kill -9 "$pid"
    # Until it is dead (a zombie, too, has closed its sockets; whoever adopted it reaps it).
    while grep -qs '^State:[[:space:]]*[^Z[:space:]]' "/proc/$pid/status"; do sleep 0.1; done
  fi
  rm -f "$cluster_dir/pids/$1.pid" # As kwokctl's own stop does: `start cluster` starts what has no pid file.
}

stop_apiserver() {
  kill_component kube-apiserver
}

start_apiserver() {
  # In a real cluster kube-controller-manager and kube-scheduler run with leader election: an outage
  # longer than their lease's renew deadline (10 s) makes them exit, and kubelet starts them again.
  # Here they run without it and kwokctl restarts nothing, so they are restarted by hand; left running,
  # kube-controller-manager once went on for minutes without making the pods of Deployments created
  # just before the outage (ApiServerFaultsIT).
  kill_component kube-controller-manager
  kill_component kube-scheduler
  forget_dead_components keep
  # Starts the components that are not running, with the cluster's own flags.
  "$kwokctl" start cluster --name "$name" >&2
  for _ in $(seq 600); do
    "${kubectl[@]}" get --raw /readyz >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "error: the kube-apiserver of $name is not ready after 60 s" >&2
  exit 1
}

# Through etcd's JSON gateway (its v3 API over HTTP): kwokctl's etcdctl would be downloaded. A key
# of its own (/tenantry-compaction), outside the API server's /registry, moves the revision past
# every resourceVersion a client of the API server can hold, so all of them are compacted away.
compact() {
  local etcd revision
  etcd="$(sed -n 's/.*--etcd-servers=//p' "$cluster_dir/kwok.yaml" | head -1)"
  revision="$(curl -sSf -X POST "$etcd/v3/kv/put" -d '{"key":"L3RlbmFudHJ5LWNvbXBhY3Rpb24=","value":"eA=="}' \
    | grep -o '"revision":"[0-9]*"' | grep -o '[0-9]\+')"
  curl -sSf -X POST "$etcd/v3/kv/compaction" -d "{\"revision\":\"$revision\",\"physical\":true}" >/dev/null
  echo "$revision"
}

case "$cmd" in
  up) up ;;
  stop-apiserver) stop_apiserver ;;
  start-apiserver) start_apiserver ;;
  revive) kept="$(keep_logs)"; kill_component kube-apiserver; start_apiserver; echo "$kept" ;;
  compact) compact ;;
  down) forget_dead_components keep; [[ -x "$kwokctl" ]] && "$kwokctl" delete cluster --name "$name" >&2 || true ;;
  kubeconfig) echo "$kubeconfig" ;;
  *) usage ;;
esac
