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
   * Restores what the agent writes into the FIFO {@code $WORK/dump}, in one transaction. The FIFO is
   * stdin and the format is named: given a file name and no format, pg_restore opens the file twice
   * (once to sniff the format), and the bytes of the first open are lost from a FIFO.
   */
  public static String restoreScript() {
    return """
        set -u
        finish() { echo "$1" > "$WORK/restore.exit.tmp" && mv "$WORK/restore.exit.tmp" "$WORK/restore.exit"; exit "$1"; }
        mkfifo "$WORK/dump" || finish 1
        pg_restore --format=custom --exit-on-error --single-transaction --no-owner --no-privileges \\
          --dbname="$PGDATABASE" < "$WORK/dump" 2> "$WORK/restore.err"
        code=$?
        cat "$WORK/restore.err" >&2
        finish "$code"
        """;
  }
}
