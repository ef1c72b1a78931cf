#!/usr/bin/env bash
# Builds the binaries the tests run (kube-apiserver, kube-controller-manager, kube-scheduler,
# kubectl, etcd, kwok, kwokctl, fake-gcs-server, kube-score, promtool, traefik) from pinned upstream Go modules into a cache
# outside the repository. Idempotent: a binary whose stamp matches its pinned version is kept,
# so a second run takes seconds.
#
# Layout (TENANTRY_CACHE defaults to ~/.cache/tenantry):
#   $TENANTRY_CACHE/k8s/<k8s>-linux-amd64/{kube-apiserver,kube-controller-manager,kube-scheduler,kubectl,etcd}
#       (the layout io.fabric8:kube-api-test expects under KUBE_API_TEST_DIR=$TENANTRY_CACHE)
#   $TENANTRY_CACHE/bin/{kwok,kwokctl,fake-gcs-server,kube-score,promtool,traefik}
#   $TENANTRY_CACHE/gateway-api/v<version>/*.yaml   the Gateway API's standard CRDs
#   $TENANTRY_CACHE/traefik-crds/v<version>/traefik-crds.yaml   Traefik's CRDs (its Middleware)
# and installs two Debian packages by name: PostgreSQL's client tools and PgBouncer.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=versions.env
source "$here/versions.env"

cache="${TENANTRY_CACHE:-$HOME/.cache/tenantry}"
os=linux arch=amd64
k8s_dir="$cache/k8s/${KUBERNETES_VERSION}-${os}-${arch}"
bin_dir="$cache/bin"
work="$cache/build"

log() { printf '[build-test-binaries] %s\n' "$*" >&2; }

if ! command -v go >/dev/null 2>&1; then
  echo "error: the Go toolchain ('go') is not on PATH. It is needed to build the test binaries" >&2
  echo "       (kube-apiserver, etcd, kwok, fake-gcs-server) from pinned sources. Install Go 1.24+" >&2
  echo "       and run $0 again." >&2
  exit 1
fi

mkdir -p "$k8s_dir" "$bin_dir" "$work"
export GOFLAGS="${GOFLAGS:-} -mod=mod -trimpath"
export CGO_ENABLED=0

# up_to_date <binary> <stamp-text>: true when the binary exists and was built from exactly <stamp-text>.
up_to_date() { [[ -x "$1" && -f "$1.stamp" && "$(cat "$1.stamp")" == "$2" ]]; }
stamp() { printf '%s' "$2" >"$1.stamp"; }

build_kubernetes() {
  local v="v$KUBERNETES_VERSION" staging="v0.${KUBERNETES_VERSION#1.}"
  local want="kubernetes $v staging $staging"
  local all_ok=1
  for b in kube-apiserver kube-controller-manager kube-scheduler kubectl; do
    up_to_date "$k8s_dir/$b" "$want" || all_ok=0
  done
  if (( all_ok )); then log "kubernetes $v: up to date"; return; fi

  log "kubernetes $v: building kube-apiserver, kube-controller-manager, kube-scheduler, kubectl (takes several minutes the first time)"
  local mod="$work/kubernetes-$v"
  rm -rf "$mod" && mkdir -p "$mod"
  (
    cd "$mod"
    go mod init tenantry.io/build/kubernetes >/dev/null 2>&1
    # k8s.io/kubernetes requires its staging modules at v0.0.0 with replaces that only apply
    # inside its own repository; replace each with the published v0.X.Y of the same release.
    local gomod
    gomod="$(go mod download -json "k8s.io/kubernetes@$v" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p')"
    go mod edit -require="k8s.io/kubernetes@$v"
    grep -E '^\s*k8s\.io/[a-z0-9-]+ => \./staging/' "$gomod" | awk '{print $1}' | while read -r m; do
      go mod edit -replace="$m=$m@$staging"
    done
    cat >tools.go <<'GO'
//go:build tools

package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
GO
    go mod tidy >/dev/null 2>&1 || go mod tidy
    local date ld=""
    date="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    local minor="${KUBERNETES_VERSION#1.}"; minor="${minor%%.*}"
    for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
      ld+=" -X $pkg.gitVersion=$v -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
      ld+=" -X $pkg.gitCommit=0000000000000000000000000000000000000000 -X $pkg.gitTreeState=clean -X $pkg.buildDate=$date"
    done
    go build -ldflags="-s -w$ld" -o "$k8s_dir/" \
      k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
      k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kubectl
  )
  for b in kube-apiserver kube-controller-manager kube-scheduler kubectl; do stamp "$k8s_dir/$b" "$want"; done
  log "kubernetes $v: $("$k8s_dir/kube-apiserver" --version)"
}

build_etcd() {
  local v="v$ETCD_VERSION" want="etcd v$ETCD_VERSION"
  if up_to_date "$k8s_dir/etcd" "$want"; then log "etcd $v: up to date"; return; fi
  log "etcd $v: building"
  local mod="$work/etcd-$v"
  rm -rf "$mod" && mkdir -p "$mod"
  (
    cd "$mod"
    go mod init tenantry.io/build/etcd >/dev/null 2>&1
    go mod edit -require="go.etcd.io/etcd/server/v3@$v"
    cat >main.go <<'GO'
// Command etcd is upstream etcd's server entry point, built from the pinned module.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
GO
    go mod tidy >/dev/null 2>&1 || go mod tidy
    go build -ldflags="-s -w" -o "$k8s_dir/etcd" .
  )
  stamp "$k8s_dir/etcd" "$want"
  log "etcd $v: $("$k8s_dir/etcd" --version | head -1)"
}

go_install() { # go_install <name> <package@version> [go build flags...]
  local name="$1" pkg="$2"; shift 2
  local want="$pkg${*:+ $*}"
  if up_to_date "$bin_dir/$name" "$want"; then log "$name: up to date"; return; fi
  log "$name: building $want"
  GOBIN="$bin_dir" go install -ldflags="-s -w" "$@" "$pkg"
  stamp "$bin_dir/$name" "$want"
}

# The Gateway API's standard-channel CRDs, copied from the pinned sigs.k8s.io/gateway-api module.
gateway_api_crds() {
  local v="v$GATEWAY_API_VERSION" dest="$cache/gateway-api/v$GATEWAY_API_VERSION"
  local want="sigs.k8s.io/gateway-api@$v config/crd/standard CRDs"
  if [[ -f "$dest/.stamp" && "$(cat "$dest/.stamp")" == "$want" ]]; then log "gateway-api CRDs $v: up to date"; return; fi
  log "gateway-api CRDs $v: copying from the Go module"
  local dir
  dir="$(cd "$work" && GOWORK=off GOFLAGS=-mod=mod go mod download -json "sigs.k8s.io/gateway-api@$v" \
    | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')"
  [[ -n "$dir" && -d "$dir/config/crd/standard" ]] || { echo "error: sigs.k8s.io/gateway-api@$v has no config/crd/standard" >&2; exit 1; }
  rm -rf "$dest" && mkdir -p "$dest"
  # Only the CRDs: the directory also holds a ValidatingAdmissionPolicy guarding CRD upgrades.
  install -m 0644 $(grep -l '^kind: CustomResourceDefinition' "$dir"/config/crd/standard/*.yaml) "$dest/"
  printf '%s' "$want" >"$dest/.stamp"
}

# Traefik's own CRDs (its Middleware: the edge gate in front of spares' routes, routing.spareGate
# forwardAuth), copied from the pinned Traefik module as its docs publish them.
traefik_crds() {
  local v="v$TRAEFIK_VERSION" dest="$cache/traefik-crds/v$TRAEFIK_VERSION"
  local want="github.com/traefik/traefik/v3@$v kubernetes-crd-definition-v1.yml"
  if [[ -f "$dest/.stamp" && "$(cat "$dest/.stamp")" == "$want" ]]; then log "traefik CRDs $v: up to date"; return; fi
  log "traefik CRDs $v: copying from the Go module"
  local dir file
  dir="$(cd "$work" && GOWORK=off GOFLAGS=-mod=mod go mod download -json "github.com/traefik/traefik/v3@$v" \
    | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')"
  file="$dir/docs/content/reference/dynamic-configuration/kubernetes-crd-definition-v1.yml"
  [[ -n "$dir" && -f "$file" ]] || { echo "error: github.com/traefik/traefik/v3@$v has no $file" >&2; exit 1; }
  rm -rf "$dest" && mkdir -p "$dest"
  install -m 0644 "$file" "$dest/traefik-crds.yaml"
  printf '%s' "$want" >"$dest/.stamp"
}

# Traefik, the Gateway API implementation real traffic goes through in the routing tests.
build_traefik() {
  local want="github.com/traefik/traefik/v3@v$TRAEFIK_VERSION $(sha256sum "$here/build-traefik.sh" | cut -c1-12)"
  if up_to_date "$bin_dir/traefik" "$want"; then log "traefik: up to date"; return; fi
  log "traefik v$TRAEFIK_VERSION: building (about 15 minutes the first time; tools/build-traefik.sh says why it is not a go install)"
  bash "$here/build-traefik.sh" "v$TRAEFIK_VERSION" "$work/traefik-v$TRAEFIK_VERSION" "$bin_dir/traefik"
  stamp "$bin_dir/traefik" "$want"
  rm -rf "$work/traefik-v$TRAEFIK_VERSION"
}

# The backup tests run pg_dump and pg_restore as a backup Job's pod would. Debian 12's client is
# PostgreSQL 15 (the tests' server is 15 too: pg_dump refuses a newer server). A Debian package,
# installed by name.
postgresql_client() {
  if command -v pg_dump >/dev/null && command -v pg_restore >/dev/null; then
    log "postgresql-client: $(pg_dump --version)"
    return
  fi
  command -v apt-get >/dev/null || { log "pg_dump is missing and there is no apt-get: install PostgreSQL 15's client tools"; exit 1; }
  log "installing postgresql-client-$POSTGRESQL_CLIENT_MAJOR"
  local sudo=()
  [[ $(id -u) -ne 0 ]] && sudo=(sudo)
  "${sudo[@]}" apt-get install -y -q "postgresql-client-$POSTGRESQL_CLIENT_MAJOR" >&2 \
    || { "${sudo[@]}" apt-get update -q >&2 && "${sudo[@]}" apt-get install -y -q "postgresql-client-$POSTGRESQL_CLIENT_MAJOR" >&2; }
}

# The pooling test runs PgBouncer as the pooler's pod would. Debian's package, installed by name
# and checked to be the pinned minor (the test says which of the rendered settings it lacks).
pgbouncer_package() {
  local binary=/usr/sbin/pgbouncer
  if [[ ! -x "$binary" ]]; then
    command -v apt-get >/dev/null || { log "$binary is missing and there is no apt-get: install PgBouncer $PGBOUNCER_MINOR"; exit 1; }
    log "installing pgbouncer"
    local sudo=()
    [[ $(id -u) -ne 0 ]] && sudo=(sudo)
    "${sudo[@]}" apt-get install -y -q pgbouncer >&2 \
      || { "${sudo[@]}" apt-get update -q >&2 && "${sudo[@]}" apt-get install -y -q pgbouncer >&2; }
  fi
  local version
  version="$("$binary" --version | head -n 1)"
  [[ "$version" == "PgBouncer $PGBOUNCER_MINOR."* ]] \
    || { echo "error: $binary is '$version', not PgBouncer $PGBOUNCER_MINOR (tools/versions.env)" >&2; exit 1; }
  log "pgbouncer: $version"
}

build_kubernetes
build_etcd
go_install kwok "sigs.k8s.io/kwok/cmd/kwok@v$KWOK_VERSION"
go_install kwokctl "sigs.k8s.io/kwok/cmd/kwokctl@v$KWOK_VERSION"
go_install fake-gcs-server "github.com/fsouza/fake-gcs-server@v$FAKE_GCS_SERVER_VERSION"
go_install kube-score "github.com/zegl/kube-score/cmd/kube-score@v$KUBE_SCORE_VERSION"
# One of Prometheus' service-discovery dependencies is refused by the module proxy here.
go_install promtool "github.com/prometheus/prometheus/cmd/promtool@v$PROMETHEUS_MODULE_VERSION" -tags remove_all_sd
# helm with the ldflags of its release build: its version, and the Kubernetes version `helm template`
# and `helm lint` assume without a cluster (here the pinned one, not the 1.20 its source defaults to).
helm_k8s_minor="${KUBERNETES_VERSION#1.}" && helm_k8s_minor="${helm_k8s_minor%%.*}"
go_install helm "helm.sh/helm/v3/cmd/helm@v$HELM_VERSION" -ldflags="-s -w -X helm.sh/helm/v3/internal/version.version=v$HELM_VERSION \
-X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=$helm_k8s_minor \
-X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMinor=$helm_k8s_minor"
gateway_api_crds
traefik_crds
build_traefik
postgresql_client
pgbouncer_package

log "done: KUBE_API_TEST_DIR=$cache, binaries in $k8s_dir and $bin_dir"
