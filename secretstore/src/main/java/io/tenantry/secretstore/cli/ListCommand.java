package io.tenantry.secretstore.cli;

import io.tenantry.secretstore.Scope;
import io.tenantry.secretstore.SecretMetadata;
import java.io.PrintStream;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/** {@code list <scope>}: one row per secret, from metadata only. */
record ListCommand(Scope scope) implements Command {

  static final String NAME = "list";
  /** Enough to tell secrets apart at a glance; the full hash is in {@code show}. */
  static final int HASH_DIGITS = 12;

  static ListCommand parse(ArgCursor args) {
    return new ListCommand(ScopeArg.parse(Command.positionals(NAME, args, "<scope>")[0]));
  }

  @Override
  public int run(StoreChoice.OpenedStore opened, PrintStream out, PrintStream err) {
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"NAME", "VERSION", "CONTENT-HASH", "UPDATED"});
    for (SecretMetadata secret : opened.store().list(scope)) {
      rows.add(new String[] {secret.name(), secret.version(), secret.contentHash().substring(0, HASH_DIGITS),
          secret.updated().truncatedTo(ChronoUnit.SECONDS).toString()});
    }
    printTable(rows, out);
    return 0;
  }

  /** Left-aligned columns separated by three spaces, as kubectl prints them. */
  static void printTable(List<String[]> rows, PrintStream out) {
    int[] widths = new int[rows.get(0).length];
    for (String[] row : rows) {
      for (int i = 0; i < row.length; i++) {
        widths[i] = Math.max(widths[i], row[i].length());
      }
    }
    for (String[] row : rows) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < row.length; i++) {
        line.append(row[i]);
        if (i < row.length - 1) {
          line.append(" ".repeat(widths[i] - row[i].length() + 3));
        }
      }
      out.println(line);
    }
  }
}
