#!/usr/bin/env bash
# tenantctl, the fleet's ops CLI, for developers: builds the deploy module when its sources are
# newer than the last build, then runs the packaged CLI (deploy/target/tenantctl/bin/tenantctl,
# what `mvn package` makes) with every argument.
#
#   tools/tenantctl.sh --help
#   tools/tenantctl.sh deploy --app web --version 2.1.0 --all --wave-size 20
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dist="$root/deploy/target/tenantctl"
mark="$root/deploy/target/tenantctl.built"
# The last build: this script's mark, or the class path file tools/run-local.sh touches after it
# packaged deploy (which makes the CLI too), whichever is newer.
stamp="$(ls -t "$mark" "$root/deploy/target/runtime.classpath" 2>/dev/null | head -1 || true)"

# Anything the CLI is built from (its sources and launcher, api's, spares', the poms) newer than the last build.
if [[ -z "$stamp" || ! -x "$dist/bin/tenantctl" ]] \
  || [[ -n "$(find "$root/pom.xml" "$root/api/pom.xml" "$root/api/src/main" "$root/spares/pom.xml" \
    "$root/spares/src/main" "$root/deploy/pom.xml" "$root/deploy/src/main" "$root/deploy/src/assembly" \
    -newer "$stamp" -print -quit)" ]]; then
  echo "[tenantctl] building the deploy module (mvn package)" >&2
  # Build output goes to stderr, so that the command's own output stays clean for scripts. The
  # reactor includes the controller (deploy's tests run an operator); its image is not needed here.
  (cd "$root" && mvn -q -B package -pl deploy -am -DskipTests -Dtenantry.image.skip=true) >&2
  touch "$mark"
fi

exec "$dist/bin/tenantctl" "$@"
