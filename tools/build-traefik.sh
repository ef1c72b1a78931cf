#!/usr/bin/env bash
# Builds Traefik (the Gateway API implementation the end-to-end routing test sends traffic
# through) from its Go module, as tools/build-test-binaries.sh does for the other binaries.
#
#   build-traefik.sh <vX.Y.Z> <work dir> <output binary>
#
# `go install github.com/traefik/traefik/v3/cmd/traefik@v3.x` does not work: Traefik's go.mod has
# replace and exclude directives that only apply inside its own module. So a throwaway module
# requires Traefik and copies them, and works around what the module proxy reachable here refuses:
#   - Traefik's local replace of github.com/traefik/traefik/dynamic/ext (a nested module that is
#     neither in Traefik's zip nor on the proxy) gets a stub with the three types Traefik uses;
#   - a replace whose target version the proxy refuses (a fork pin) takes the target the newest
#     earlier Traefik release pinned, with a warning;
#   - lego's DNS providers whose SDKs the proxy refuses are dropped from a local copy of lego
#     (Traefik's ACME DNS challenge; the tests use neither).
# Needs go (the version Traefik's go.mod asks for), jq and awk.
set -euo pipefail

ver=${1:?usage: build-traefik.sh vX.Y.Z WORKDIR OUTPUT} work=${2:?work dir} out=${3:?output binary}
M=github.com/traefik/traefik/v3
export GOFLAGS=-mod=mod GOWORK=off CGO_ENABLED=0 GOTOOLCHAIN=local
rm -rf "$work" && mkdir -p "$work" "$(dirname "$out")"
cd "$work"

go mod init tenantry.io/build/traefik >/dev/null 2>&1
go mod edit -json "$(go mod download -json "$M@$ver" | jq -r .GoMod)" >upstream.json
go mod edit -go="$(jq -r .Go upstream.json)" -require="$M@$ver"
jq -r '(.Replace[]? | select(.New.Version) | "-replace=\(.Old.Path)=\(.New.Path)@\(.New.Version)"),
       (.Exclude[]? | "-exclude=\(.Path)@\(.Version)")' upstream.json | xargs -r go mod edit

for p in $(jq -r '.Replace[]? | select(.New.Version|not) | .Old.Path' upstream.json); do
  [[ $p == github.com/traefik/traefik/dynamic/ext ]] || { echo "build-traefik: unhandled local replace $p" >&2; exit 1; }
  # Upstream's pkg/config/dynamic/ext: extension points empty in Traefik's own build.
  mkdir -p ext
  printf 'module %s\n\ngo 1.24.0\n' "$p" >ext/go.mod
  printf '%s\n' 'package ext' 'type HTTP struct{}' 'type Router struct{}' 'type RouterIng struct{}' \
    'func (r RouterIng) ToRouter() Router { return Router{} }' >ext/ext.go
  go mod edit -replace="$p=./ext"
done
printf '//go:build tools\n\npackage tools\n\nimport _ "%s/cmd/traefik"\n' "$M" >tools.go

# Which modules the proxy refuses (403).
go mod download -json all >download.json 2>/dev/null || true
jq -r 'select(.Error) | .Path' download.json | sort -u >refused.txt

for p in $(jq -r --rawfile b refused.txt '.Replace[]? | select(.New.Version) | select(.New.Path as $n
           | $b | split("\n") | index($n)) | .Old.Path' upstream.json); do
  t=""
  for v in $(go list -m -versions "$M" | tr ' ' '\n' | tail -n +2 | sort -rV); do
    t=$(go mod edit -json "$(go list -m -json "$M@$v" | jq -r .GoMod)" | jq -r --arg p "$p" \
        '.Replace[]? | select(.Old.Path==$p and .New.Version) | "\(.New.Path)@\(.New.Version)"')
    [[ -n $t ]] && go mod download "$t" 2>/dev/null && break
    t=""
  done
  [[ -n $t ]] || { echo "build-traefik: no downloadable replacement for $p" >&2; exit 1; }
  echo "build-traefik: WARNING: $p -> $t (the target Traefik $ver pins is refused by the module proxy)" >&2
  go mod edit -replace="$p=$t"
done

lego=$(jq -r '.Require[].Path | select(test("^github.com/go-acme/lego/v[0-9]+$"))' upstream.json | sort -V | tail -1)
lego_version=$(jq -r --arg l "$lego" '.Require[] | select(.Path==$l).Version' upstream.json)
cp -r "$(go mod download -json "$lego@$lego_version" | jq -r .Dir)" lego
chmod -R u+w lego
drop=""
while read -r p; do
  [[ -n $p ]] || continue
  drop+=" $(grep -rlF -e "\"$p\"" -e "\"$p/" lego/providers/dns --include='*.go' | cut -d/ -f4 || true)"
  (cd lego && go mod edit -droprequire="$p")
done <refused.txt
for p in $(tr ' ' '\n' <<<"$drop" | sort -u); do
  rm -rf "lego/providers/dns/$p"
  # Drop the provider's import and its `case` (the line before its return) from lego's registry.
  awk -v imp="$(printf '\t"%s/providers/dns/%s"' "$lego" "$p")" -v ret="$(printf '\t\treturn %s.NewDNSProvider()' "$p")" \
    '$0==imp{next} $0==ret{h=0;next} {if(h)print l; l=$0; h=1} END{if(h)print l}' \
    lego/providers/dns/zz_gen_dns_providers.go >zz && mv zz lego/providers/dns/zz_gen_dns_providers.go
done
echo "build-traefik: lego DNS providers dropped (SDK refused by the module proxy): $(tr ' ' '\n' <<<"$drop" | sort -u | xargs)" >&2
go mod edit -replace="$lego=./lego"

go mod tidy 2>tidy.log || { cat tidy.log >&2; exit 1; }
go build -trimpath -o "$out.tmp" -ldflags "-s -w -X $M/pkg/version.Version=$ver" "$M/cmd/traefik"
mv -f "$out.tmp" "$out"
