package io.tenantry.backup.postgres;

/**
 * The shell scripts a backup or restore Job runs in the database's own image (so {@code pg_dump}
 * and {@code pg_restore} always match the server), beside the agent. They talk to the agent
 * through files in the shared work directory {@code $WORK} (an emptyDir): the agent writes
 * {@code snapshot} (or {@code abort}); the script makes the FIFO {@code dump}, never a file, so no
 * dump touches a disk, and writes its tool's exit code ({@code *.exit}, atomically) and stderr
 * ({@code *.err}). The server is found by libpq's variables ({@code PGHOST}, {@code PGPORT},
 * {@code PGDATABASE}, {@code PGUSER}, {@code PGPASSWORD}).
 */
public final class PostgresCommands {

  /** Writes the exit code where the agent waits for it, atomically, and exits with it. */
  private static final String FINISH_RESTORE = """
      finish() { echo "$1" > "$WORK/restore.exit.tmp" && mv "$WORK/restore.exit.tmp" "$WORK/restore.exit"; exit "$1"; }
      """;

  /** Waits for the agent, restores from the FIFO; leaves pg_restore's exit code in {@code code}. */
  private static final String RESTORE = """
      mkfifo "$WORK/dump" || finish 1
      waited=0
      while [ ! -e "$WORK/go" ]; do
        if [ -e "$WORK/abort" ] || [ "$waited" -ge 3000 ]; then
          echo "pg_restore did not start: the agent did not open the backup" > "$WORK/restore.err"
          finish 1
        fi
        sleep 0.1
        waited=$((waited + 1))
      done
      pg_restore --format=custom --exit-on-error --single-transaction --no-owner --no-privileges \\
        --dbname="$PGDATABASE" < "$WORK/dump" 2> "$WORK/restore.err"
      code=$?
      cat "$WORK/restore.err" >&2
      """;

  private PostgresCommands() {
  }

  /** Dumps, in the agent's snapshot, into the FIFO {@code $WORK/dump}. */
  public static String dumpScript() {
    return """
        set -u
        finish() { echo "$1" > "$WORK/dump.exit.tmp" && mv "$WORK/dump.exit.tmp" "$WORK/dump.exit"; exit "$1"; }
        mkfifo "$WORK/dump" || finish 1
        waited=0
        while [ ! -s "$WORK/snapshot" ]; do
          if [ -e "$WORK/abort" ] || [ "$waited" -ge 3000 ]; then
            echo "pg_dump did not start: the agent took no snapshot" > "$WORK/dump.err"
            finish 1
          fi
          sleep 0.1
          waited=$((waited + 1))
        done
        pg_dump --format=custom --no-sync --snapshot="$(cat "$WORK/snapshot")" --file="$WORK/dump" 2> "$WORK/dump.err"
        code=$?
        cat "$WORK/dump.err" >&2
        finish "$code"
        """;
  }

  /**
   * Restores what the agent writes into the FIFO {@code $WORK/dump}, in one transaction, once the
   * agent has opened the backup ({@code go}; {@code abort} ends the wait, as does 5 minutes).
   * The FIFO is stdin and the format is named: given a file name and no format, pg_restore opens the
   * file twice (once to sniff the format), and the bytes of the first open are lost from a FIFO.
   */
  public static String restoreScript() {
    return "set -u\n" + FINISH_RESTORE + RESTORE + "finish \"$code\"\n";
  }

  /**
   * A restore into a new side database {@code $PGDATABASE} on the tenant's server (created here; the
   * agent swaps it in for the live one once its rows are counted): never into the live database.
   */
  public static String sideRestoreScript() {
    return "set -u\n" + FINISH_RESTORE + """
        createdb "$PGDATABASE" 2> "$WORK/restore.err" || finish 1
        """ + RESTORE + "finish \"$code\"\n";
  }

  /**
   * A restore drill: a throwaway server in {@code $SCRATCH} (an emptyDir sized from the dump),
   * listening on the pod's loopback only ({@code $PGPORT}, trust: nothing outside the pod reaches
   * it), its superuser {@code $PGUSER} so ownership restores as it was; the restore into its
   * {@code postgres} database; then the server stays up until the agent has counted the restored
   * rows ({@code done} or {@code abort}), and is stopped. It needs the server binaries
   * ({@code initdb}, {@code pg_ctl}): the database's own image has them.
   */
  public static String drillScript() {
    return "set -u\n" + FINISH_RESTORE + """
        data="$SCRATCH/data"
        if ! initdb --pgdata="$data" --username="$PGUSER" --auth=trust --encoding=UTF8 --locale=C --no-sync \\
            > /dev/null 2> "$WORK/restore.err"; then
          finish 1
        fi
        if ! pg_ctl --pgdata="$data" --wait --timeout=120 --log="$SCRATCH/server.log" \\
            --options="-c listen_addresses=127.0.0.1 -p $PGPORT -k $SCRATCH -c fsync=off -c full_page_writes=off" \\
            start > /dev/null 2>&1; then
          tail -n 5 "$SCRATCH/server.log" > "$WORK/restore.err"
          finish 1
        fi
        stop() { pg_ctl --pgdata="$data" --mode=fast --wait stop > /dev/null 2>&1; }
        trap stop EXIT
        """ + RESTORE + """
        echo "$code" > "$WORK/restore.exit.tmp" && mv "$WORK/restore.exit.tmp" "$WORK/restore.exit"
        waited=0
        while [ ! -e "$WORK/done" ] && [ ! -e "$WORK/abort" ] && [ "$waited" -lt 6000 ]; do
          sleep 0.1
          waited=$((waited + 1))
        done
        exit "$code"
        """;
  }
}
