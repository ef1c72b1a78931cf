#!/usr/bin/env bash
# Fault suite: the operator SIGKILLed K times (default 20) while T tenants (default 200) are
# provisioned, signups allocate spares through its API, and an app version rolls across them
# (OperatorKillIT), the API server killed and its watches expired (ApiServerFaultsIT), the secret
# store and the fleet records unavailable (SecretStoreOutageIT, FleetRecordsOutageIT), on simulated
# clusters. Prints every figure the tests print ("[reliability] " lines) and rewrites
# docs/reliability.md with them, the machine and this command. Only OperatorKillIT is sized by the
# arguments; the others run at their own sizes.
#
#   tools/fault-suite.sh [tenants] [kills]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
tenants="${1:-200}"
kills="${2:-20}"
tests=OperatorKillIT,ApiServerFaultsIT,SecretStoreOutageIT,FleetRecordsOutageIT
bash tools/build-test-binaries.sh >&2

# A class that does not exist (yet) is simply not run: Failsafe is told not to fail for it.
command=(mvn -B -pl controller -am verify -Dtest=NONE -Dsurefire.failIfNoSpecifiedTests=false
  "-Dit.test=$tests" -Dfailsafe.failIfNoSpecifiedTests=false -Dtenantry.image.skip=true
  "-Dtenantry.faults.tenants=$tenants" "-Dtenantry.faults.kills=$kills")
mkdir -p target
log=target/fault-suite.log
load="$(cut -d' ' -f1-3 /proc/loadavg)"
# The commit measured, +changes when the tree differs from it (docs aside), as run-benchmark.sh says it.
commit="$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . ':!docs' || echo '+changes')"
started=$(date +%s)
# The whole build goes to the log; progress (classes, results, figures, errors) to stderr.
status=0
"${command[@]}" >"$log" 2>&1 || status=$?
seconds=$(( $(date +%s) - started ))
grep -E '^\[INFO\] Running io\.|Tests run:.*in io\.|^\[reliability\] |^\[ERROR\]' "$log" >&2 || true
if (( status != 0 )); then
  echo "[fault-suite] failed (mvn exit $status) after ${seconds} s; docs/reliability.md left as it was; full output in $log" >&2
  exit "$status"
fi
if ! grep -q '^\[reliability\] ' "$log"; then
  echo "[fault-suite] the tests printed no figures; full output in $log" >&2
  exit 1
fi

# The figures under the class that printed them (with its time), in the order they ran; the log
# is read twice, the first time for each class's time.
figures="$(awk '
  NR == FNR { if (/Time elapsed: .* -- in io\./) { n = split($NF, parts, "."); time[parts[n]] = $(NF - 4) } next }
  /^\[INFO\] Running io\./ { n = split($3, parts, "."); class = parts[n]; next }
  /^\[reliability\] / { if (class != shown) { printf "%s### %s (%s s)\n\n```\n", (shown == "" ? "" : "```\n\n"), class, time[class]; shown = class }
                        sub(/^\[reliability\] /, ""); print }
  END { if (shown != "") print "```" }' "$log" "$log")"
ran="$(grep -oE '^\[INFO\] Running io\.[A-Za-z0-9_.]+' "$log" | sed 's/.*\.//' | paste -sd, - | sed 's/,/, /g')"
missing="$(for t in ${tests//,/ }; do grep -qE "Running io\..*\.$t\$" "$log" || printf '%s ' "$t"; done)"
memory="$(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)"
java="$(java -version 2>&1 | head -1)"

cat >docs/reliability.md <<EOF
# Reliability

What the operator survives, measured: each fault below is an integration test on a simulated
cluster (a real kube-apiserver, etcd and controllers, kwok's fake nodes) that asserts every count
it prints. \`tools/fault-suite.sh [tenants] [kills]\` runs them and rewrites this page; CI runs the
same classes at small sizes.

- **OperatorKillIT** — the operator process (started by \`Main\`, as in production) SIGKILLed at
  random moments (a seeded random time after it became ready; the seed is printed) and restarted
  at once, while tenants are provisioned (created in waves, one before each kill; a fifth of them
  spares of a SparePool, some bound to customers meanwhile by a signup client calling the
  operator's allocation API, as a signup service would) and then while an app version rolls
  across all of them (in waves too, as a fleet rollout does, and on the pool's template). Shows
  that every tenant converges; that every signup, retried with its request id (after a 503's
  Retry-After, a refused connection while no process runs, or a call cut by a kill) until
  answered, got exactly one tenant, no tenant went to two request ids and each bound tenant holds
  its customer, with the retries counted; that the kills leave no duplicate (no owned object
  recreated, or lost, counted by watching every uid of every owned object from before the first
  kill; none added by the rollout; no ReplicaSet beyond one per app version; one namespace per
  tenant); that no database password is regenerated (every password each tenant's credentials
  ever held, watched from their first write, and against the secret store); that the pool never
  holds more spares than its buffer nor builds more than maxProvisioning at once; and that every
  tenant's status (Ready, versions, apps, databases) agrees with the cluster.
  (At 200 tenants it once caught the pool building 21 spares at once with maxProvisioning 20: its
  cache had not shown its own creates yet. The pool now counts those until the cache shows them.)
- **ApiServerFaultsIT** — the API server killed and restarted during syncs: the operator recovers
  without a restart, sends a bounded number of requests while it is down (no hot loop) and
  deletes nothing; it prints how long after the workloads reported ready each tenant turned Ready
  (the operator's part of the recovery, apart from the cluster's controllers': 24 s before the
  informers' wait between attempts was capped at 8 s, \`InformerRetries.clientConfig\`, 0 s after).
  kube-controller-manager and kube-scheduler are restarted with the API server, as a real cluster's
  kubelet restarts them once an outage outlasts their leader lease: left running (kwokctl restarts
  nothing, and here they run without leader election), the controller-manager took a minute and more
  to make the pods of Deployments created just before the outage, in CI over 3 minutes;
  and watches expired by an etcd compaction (410 Gone): the informers list
  again, no owned object is deleted or recreated, and converged tenants cost no write; and down
  while informers start (as when a pod takes the lead), for longer than the client's own request
  retries: they start once it is back, instead of failing the start and the lead with it.
- **SecretStoreOutageIT** — KMS, the bucket, or both unavailable: tenants keep running, a
  condition names the cause, nothing in the cluster is deleted, a purge waits (Purging, finalizer
  kept) and finishes, and tenants recover within a bounded time once the store returns (the
  retry backoff is capped).
- **FleetRecordsOutageIT** — Cloud Datastore (the fleet records) unavailable during signups and a
  purge: a signup that needs a hostname claim is refused with Retry-After and binds nothing, one
  that does not is bound and Ready at once (its hostname was claimed while it was a spare) and
  recorded once Datastore returns, a purge waits; afterwards every request id has one tenant and
  the records agree with the cluster.

## Last run

- Date: $(date -u +%Y-%m-%d) (UTC), on commit $commit
- Size: **$tenants tenants, $kills kills** (OperatorKillIT; the other classes at their own sizes)
- Machine: $(nproc) cores, $memory memory, $java; load average $load at the start (the machine
  is shared: timings are not targets and no test asserts one)
- Command: \`tools/fault-suite.sh $tenants $kills\`, which ran
  \`${command[*]}\`
- Wall time: $seconds s (build included)
- Classes run: ${ran:-none}${missing:+; not found (not run): $missing}

$figures
EOF
echo "[fault-suite] $tenants tenants, $kills kills: ${seconds} s; figures written to docs/reliability.md" >&2
grep '^\[reliability\] ' "$log"
