#!/usr/bin/env bash
# Builds the base of the operator image with no Docker daemon and no image registry: a Java runtime
# jlinked from the machine's JDK 17, the shared libraries it loads and the CA bundle from pinned
# Debian packages, and a nonroot user (uid and gid 65532), written as a docker-save tarball that
# Jib takes as its base (tar://). The controller's `mvn package` runs it before Jib. Idempotent: a
# tarball whose stamp matches its inputs (this script, tools/versions.env's BASE_IMAGE_* lines, the
# JDK's release file) is kept, so a second run takes milliseconds.
#
#   tools/build-base-image.sh              build if needed, print the tarball's path
#   tools/build-base-image.sh --link FILE  build if needed, make FILE a symbolic link to the tarball
#
# Layout (TENANTRY_CACHE defaults to ~/.cache/tenantry):
#   $TENANTRY_CACHE/base-image/image.tar        manifest.json, config.json and three gzipped layers
#   $TENANTRY_CACHE/base-image/image.tar.stamp  what it was built from
#   $TENANTRY_CACHE/base-image/debs/            the downloaded packages (apt-get download)
#
# The layers: (1) debian: the libraries of libc6, libgcc-s1, libstdc++6 and zlib1g (no programs,
# gconv modules or docs but the copyright files), libc-bin's C.UTF-8 locale,
# /etc/ssl/certs/ca-certificates.crt (the ca-certificates package's certificates, in the order
# update-ca-certificates writes them), /etc/os-release, and /var/lib/dpkg/status.d/PACKAGE for
# image scanners; (2) java: the runtime in /opt/java/openjdk (trusting the JDK's own
# lib/security/cacerts); (3) users: /etc/passwd and /etc/group (root, nonroot 65532, nobody),
# /etc/nsswitch.conf, /home/nonroot, /root, /tmp (1777).
# Config: user 65532:65532; PATH starting with /opt/java/openjdk/bin; JAVA_HOME; LANG=C.UTF-8
# (without a UTF-8 locale Java 17 defaults to ASCII for file names and output). Each layer is a
# name-sorted tar with zeroed times and numeric owners, gzipped without name or time, so the same
# inputs make the same tarball, byte for byte.
set -euo pipefail
umask 022

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=versions.env
source "$here/versions.env"

cache="${TENANTRY_CACHE:-$HOME/.cache/tenantry}"
dir="$cache/base-image"
image="$dir/image.tar"
java_dir=/opt/java/openjdk
nonroot=65532

log() { printf '[build-base-image] %s\n' "$*" >&2; }
fail() { printf 'error: %s\n' "$*" >&2; exit 1; }

link=""
while (( $# )); do
  case "$1" in
    --link) [[ $# -ge 2 ]] || fail "--link needs a file"; link="$2"; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) fail "unknown argument $1 (usage: $0 [--link FILE])" ;;
  esac
done

# The JDK: JAVA_HOME (Maven passes the one it runs on), else the one jlink on PATH belongs to.
jdk="${JAVA_HOME:-}"
if [[ -z "$jdk" || ! -x "$jdk/bin/jlink" ]]; then
  jlink_path="$(command -v jlink || true)"
  [[ -n "$jlink_path" ]] || fail "no JDK found: set JAVA_HOME to a JDK 17 (with jlink and jmods/)"
  jdk="$(dirname "$(dirname "$(readlink -f "$jlink_path")")")"
fi
[[ -f "$jdk/jmods/java.base.jmod" && -f "$jdk/release" ]] \
  || fail "$jdk has no jmods/java.base.jmod: jlink needs a full JDK 17 (Debian: openjdk-17-jdk-headless)"
jdk_version="$(sed -n 's/^JAVA_RUNTIME_VERSION="\(.*\)"$/\1/p' "$jdk/release")"
[[ "$jdk_version" == 17.* || "$jdk_version" == 17+* ]] \
  || fail "$jdk is Java $jdk_version; the operator image is built on a Java 17 runtime (set JAVA_HOME to a JDK 17)"

want="script $(sha256sum "${BASH_SOURCE[0]}" | cut -c1-16); jdk $jdk_version ($(sha256sum "$jdk/release" | cut -c1-16));"
want+=" modules $BASE_IMAGE_JAVA_MODULES; debian $BASE_IMAGE_DEBIAN_PACKAGES"

finish() {
  if [[ -n "$link" ]]; then
    mkdir -p "$(dirname "$link")"
    ln -sfn "$image" "$link"
  else
    printf '%s\n' "$image"
  fi
}
up_to_date() { [[ -f "$image" && -f "$image.stamp" && "$(cat "$image.stamp")" == "$want" ]]; }

if up_to_date; then finish; exit 0; fi

mkdir -p "$dir/debs"
# Two builds may start at once (a developer's and CI's): one builds, the other waits and reuses it.
exec 9>"$dir/.lock"
flock 9
if up_to_date; then finish; exit 0; fi
log "building $image (Java $jdk_version; takes a minute the first time)"

work="$(mktemp -d "$dir/build.XXXXXX")"
trap 'rm -rf "$work"' EXIT
IFS=, read -r -a packages <<<"$BASE_IMAGE_DEBIAN_PACKAGES"

# deb <name>: the downloaded package file of a pinned package.
deb() {
  local f
  for f in "$dir/debs/${1}_"*.deb; do
    [[ -f "$f" && "$(dpkg-deb -f "$f" Package)=$(dpkg-deb -f "$f" Version)" == "$1=$2" ]] && { printf '%s\n' "$f"; return 0; }
  done
  return 1
}

download_packages() {
  local missing=() spec
  for spec in "${packages[@]}"; do
    deb "${spec%%=*}" "${spec#*=}" >/dev/null || missing+=("$spec")
  done
  (( ${#missing[@]} )) || return 0
  command -v apt-get >/dev/null || fail "apt-get is needed to download ${missing[*]} (Debian 12); see docs/install.md to build the image on another base"
  log "downloading ${missing[*]}"
  # The system's package lists first; if they lack a pinned version (stale or missing lists, or no
  # root to update them), lists of our own in the cache, which any user may update.
  local sandbox=(-o "APT::Sandbox::User=$(id -un)")
  if ! (cd "$dir/debs" && apt-get -q "${sandbox[@]}" download "${missing[@]}" >&2); then
    local own=(-o "Dir::State::Lists=$dir/apt/lists" -o "Dir::Cache=$dir/apt/cache" -o Debug::NoLocking=1 "${sandbox[@]}")
    mkdir -p "$dir/apt/lists/partial" "$dir/apt/cache/archives/partial"
    log "not in the system's package lists: updating lists of our own in $dir/apt"
    apt-get -q "${own[@]}" update >&2
    (cd "$dir/debs" && apt-get -q "${own[@]}" download "${missing[@]}" >&2) \
      || fail "cannot download ${missing[*]}: a pinned version may have left the Debian mirror; pick the current one (apt-cache madison NAME) in tools/versions.env BASE_IMAGE_DEBIAN_PACKAGES"
  fi
}

# layer_debian <stage>: the libraries, CA bundle, os-release and package records.
layer_debian() {
  local stage="$1" spec name file extracted="$work/extracted"
  mkdir -p "$stage/var/lib/dpkg/status.d" "$stage/etc/ssl/certs" "$stage/usr/lib"
  for spec in "${packages[@]}"; do
    name="${spec%%=*}"
    file="$(deb "$name" "${spec#*=}")"
    rm -rf "$extracted" && dpkg-deb -x "$file" "$extracted"
    case "$name" in
      ca-certificates)
        local crt bundle="$stage/etc/ssl/certs/ca-certificates.crt"
        : >"$bundle"
        while IFS= read -r crt; do
          cat "$crt" >>"$bundle"
          [[ -z "$(tail -c1 "$crt")" ]] || echo >>"$bundle"
        done < <(find "$extracted/usr/share/ca-certificates" -name '*.crt' | LC_ALL=C sort)
        mkdir -p "$stage/usr/share/doc/$name" && cp "$extracted/usr/share/doc/$name/copyright" "$stage/usr/share/doc/$name/"
        ;;
      base-files)
        cp "$extracted/usr/lib/os-release" "$stage/usr/lib/os-release"
        ln -s ../usr/lib/os-release "$stage/etc/os-release"
        mkdir -p "$stage/usr/share/doc/$name" && cp "$extracted/usr/share/doc/$name/copyright" "$stage/usr/share/doc/$name/"
        ;;
      libc-bin)
        # The C.UTF-8 locale only (LANG=C.UTF-8 is read from it, not built into libc).
        mkdir -p "$stage/usr/lib/locale" && cp -a "$extracted/usr/lib/locale/C.utf8" "$stage/usr/lib/locale/"
        mkdir -p "$stage/usr/share/doc/$name" && cp "$extracted/usr/share/doc/$name/copyright" "$stage/usr/share/doc/$name/"
        ;;
      *)
        # The shared libraries only: no programs, gconv modules (iconv) or debugger scripts.
        rm -rf "$extracted"/{bin,sbin,usr/bin,usr/sbin,usr/libexec,usr/lib/x86_64-linux-gnu/gconv}
        if [[ -d "$extracted/usr/share" ]]; then
          find "$extracted/usr/share" -mindepth 1 -maxdepth 1 ! -name doc -exec rm -rf {} +
        fi
        cp -a "$extracted/." "$stage/"
        ;;
    esac
    dpkg-deb -f "$file" >"$stage/var/lib/dpkg/status.d/$name"
  done
  # Of the docs, the copyright files only (libgcc-s1's and libstdc++6's are gcc-12-base's, by a link).
  find "$stage/usr/share/doc" -mindepth 2 ! -type d ! -name copyright -delete
  find "$stage/usr/share/doc" -mindepth 2 -type d -empty -delete
}

# layer_java <stage>: the jlinked runtime.
layer_java() {
  mkdir -p "$1$(dirname "$java_dir")"
  "$jdk/bin/jlink" --add-modules "$BASE_IMAGE_JAVA_MODULES" --strip-debug --no-man-pages --no-header-files \
    --compress=2 --output "$1$java_dir"
}

# layer_users <stage>: the accounts and the writable places.
layer_users() {
  local stage="$1"
  mkdir -p "$stage/etc" "$stage/home/nonroot" "$stage/root" "$stage/tmp"
  printf '%s\n' "root:x:0:0:root:/root:/sbin/nologin" "nonroot:x:$nonroot:$nonroot:nonroot:/home/nonroot:/sbin/nologin" \
    "nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin" >"$stage/etc/passwd"
  printf '%s\n' "root:x:0:" "nonroot:x:$nonroot:" "nobody:x:65534:" >"$stage/etc/group"
  printf '%s\n' "passwd: files" "group: files" "shadow: files" "hosts: files dns" "networks: files" \
    "protocols: files" "services: files" >"$stage/etc/nsswitch.conf"
  chmod 0700 "$stage/root" "$stage/home/nonroot"
  chmod 1777 "$stage/tmp"
}

# tar_layer <stage> <out.tar> [owner]: a reproducible tar of the stage's content, owned by root (or owner).
tar_layer() {
  local owner="${3:-0}" mode=-cf
  [[ -f "$2" ]] && mode=-rf
  (cd "$1" && find . -mindepth 1 -maxdepth 1 -printf '%P\n' | LC_ALL=C sort \
    | tar --format=gnu --sort=name --mtime=@0 --owner="$owner" --group="$owner" --numeric-owner "$mode" "$2" -T -)
}

download_packages
stages="$work/stages"
layer_debian "$stages/debian"
layer_java "$stages/java"
layer_users "$stages/users"
chmod -R u+rwX,go+rX,go-w "$stages/debian" "$stages/java"

# The runtime must start on the image's own libraries, not the machine's.
"$stages/debian/lib64/ld-linux-x86-64.so.2" \
  --library-path "$stages/debian/lib/x86_64-linux-gnu:$stages/debian/usr/lib/x86_64-linux-gnu" \
  "$stages/java$java_dir/bin/java" -Xshare:off -version >/dev/null 2>&1 \
  || fail "the jlinked runtime does not start on the image's libraries (missing from BASE_IMAGE_DEBIAN_PACKAGES?)"

out="$work/image"
mkdir -p "$out"
diff_ids=()
for layer in debian java users; do
  if [[ "$layer" == users ]]; then
    # /home/nonroot belongs to nonroot; everything else to root.
    mv "$stages/users/home/nonroot" "$work/nonroot-home"
    tar_layer "$stages/users" "$out/$layer.tar"
    mkdir -p "$work/nonroot/home" && mv "$work/nonroot-home" "$work/nonroot/home/nonroot"
    (cd "$work/nonroot" && tar --format=gnu --mtime=@0 --owner=$nonroot --group=$nonroot --numeric-owner -rf "$out/$layer.tar" home/nonroot)
  else
    tar_layer "$stages/$layer" "$out/$layer.tar"
  fi
  diff_ids+=("\"sha256:$(sha256sum "$out/$layer.tar" | cut -d' ' -f1)\"")
  gzip -n "$out/$layer.tar"
done

epoch=1970-01-01T00:00:00Z
history() { printf '{"created":"%s","created_by":"tools/build-base-image.sh: %s"}' "$epoch" "$1"; }
cat >"$out/config.json" <<JSON
{"architecture":"amd64","os":"linux","created":"$epoch",
"config":{"User":"$nonroot:$nonroot","WorkingDir":"/",
"Env":["PATH=$java_dir/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin","JAVA_HOME=$java_dir","LANG=C.UTF-8"],
"Labels":{"org.opencontainers.image.description":"Tenantry operator base: a jlinked Java runtime on Debian 12 libraries","io.tenantry.base.jdk":"$jdk_version","io.tenantry.base.debian-packages":"$BASE_IMAGE_DEBIAN_PACKAGES"}},
"rootfs":{"type":"layers","diff_ids":[$(IFS=,; echo "${diff_ids[*]}")]},
"history":[$(history "Debian 12 libraries, CA bundle, os-release"),$(history "Java $jdk_version runtime (jlink)"),$(history "users root, nonroot ($nonroot), nobody; /tmp")]}
JSON
cat >"$out/manifest.json" <<JSON
[{"Config":"config.json","RepoTags":["tenantry-base:local"],"Layers":["debian.tar.gz","java.tar.gz","users.tar.gz"]}]
JSON
(cd "$out" && tar --format=gnu --mtime=@0 --owner=0 --group=0 --numeric-owner \
  -cf "$image.tmp" manifest.json config.json debian.tar.gz java.tar.gz users.tar.gz)
mv "$image.tmp" "$image"
printf '%s' "$want" >"$image.stamp"
log "done: $image ($(du -h "$image" | cut -f1); layers: $(cd "$out" && du -h debian.tar.gz java.tar.gz users.tar.gz | awk '{printf "%s %s  ", $2, $1}'))"
finish
