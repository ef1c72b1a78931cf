#!/usr/bin/env bash
# tenantry-secrets, the secret store's ops CLI (io.tenantry.secretstore.cli.SecretsCli): builds the
# secretstore module when its sources are newer than the last build, then runs the CLI with every
# argument. Relative paths in the arguments are relative to where it is run from.
#
#   tools/tenantry-secrets.sh --help
#   tools/tenantry-secrets.sh push template smtp --from-literal password=...
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
classpath_file="$root/secretstore/target/runtime.classpath"

# Anything the module is built from (its sources, api's, the poms) newer than the last build.
if [[ ! -f "$classpath_file" ]] \
  || [[ -n "$(find "$root/pom.xml" "$root/api/pom.xml" "$root/api/src/main" "$root/secretstore/pom.xml" \
    "$root/secretstore/src/main" -newer "$classpath_file" -print -quit)" ]]; then
  echo "[tenantry-secrets] building the secretstore module (mvn package)" >&2
  # Build output goes to stderr, so that the command's own output stays clean for scripts.
  (cd "$root" && mvn -q -B package -pl secretstore -am -DskipTests dependency:build-classpath \
    -Dmdep.outputFile=target/runtime.classpath -DincludeScope=runtime) >&2
  # The dependency plugin leaves an unchanged class path file as it was: mark this build.
  touch "$classpath_file"
fi

# No SLF4J binding is on the runtime class path (the library leaves that to the application), so
# SLF4J's own notice about it is silenced; the CLI reports everything a user needs itself.
exec java -Dslf4j.internal.verbosity=ERROR \
  -cp "$root/secretstore/target/classes:$(cat "$classpath_file")" \
  io.tenantry.secretstore.cli.SecretsCli "$@"
