#!/usr/bin/env bash
# tenantctl, the fleet's ops CLI (io.tenantry.deploy.cli.Tenantctl): builds the deploy module when
# its sources are newer than the last build, then runs the CLI with every argument.
#
#   tools/tenantctl.sh --help
#   tools/tenantctl.sh deploy --app web --version 2.1.0 --all --wave-size 20
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
classpath_file="$root/deploy/target/runtime.classpath"

# Anything the module is built from (its sources, api's, spares', the poms) newer than the last build.
if [[ ! -f "$classpath_file" ]] \
  || [[ -n "$(find "$root/pom.xml" "$root/api/pom.xml" "$root/api/src/main" "$root/spares/pom.xml" \
    "$root/spares/src/main" "$root/deploy/pom.xml" "$root/deploy/src/main" -newer "$classpath_file" -print -quit)" ]]; then
  echo "[tenantctl] building the deploy module (mvn package)" >&2
  # Build output goes to stderr, so that the command's own output stays clean for scripts.
  (cd "$root" && mvn -q -B package -pl deploy -am -DskipTests dependency:build-classpath \
    -Dmdep.outputFile=target/runtime.classpath -DincludeScope=runtime) >&2
  # The dependency plugin leaves an unchanged class path file as it was: mark this build.
  touch "$classpath_file"
fi

# No SLF4J binding is on the runtime class path, so SLF4J's own notice about it is silenced; the
# CLI reports everything a user needs itself.
exec java -Dslf4j.internal.verbosity=ERROR \
  -cp "$root/deploy/target/classes:$(cat "$classpath_file")" \
  io.tenantry.deploy.cli.Tenantctl "$@"
