#!/usr/bin/env bash
# tenantry-secrets, the secret store's ops CLI, for developers: builds the secretstore module when
# its sources are newer than the last build, then runs the packaged CLI
# (secretstore/target/tenantry-secrets/bin/tenantry-secrets, what `mvn package` makes) with every
# argument. Relative paths in the arguments are relative to where it is run from.
#
#   tools/tenantry-secrets.sh --help
#   tools/tenantry-secrets.sh push template smtp --from-literal password=...
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dist="$root/secretstore/target/tenantry-secrets"
stamp="$root/secretstore/target/tenantry-secrets.built"

# Anything the CLI is built from (its sources and launcher, api's, the poms) newer than the last build.
if [[ ! -f "$stamp" || ! -x "$dist/bin/tenantry-secrets" ]] \
  || [[ -n "$(find "$root/pom.xml" "$root/api/pom.xml" "$root/api/src/main" "$root/secretstore/pom.xml" \
    "$root/secretstore/src/main" "$root/secretstore/src/assembly" -newer "$stamp" -print -quit)" ]]; then
  echo "[tenantry-secrets] building the secretstore module (mvn package)" >&2
  # Build output goes to stderr, so that the command's own output stays clean for scripts.
  (cd "$root" && mvn -q -B package -pl secretstore -am -DskipTests) >&2
  touch "$stamp"
fi

exec "$dist/bin/tenantry-secrets" "$@"
