package io.tenantry.secretstore.cli;

import java.io.PrintStream;

/** One CLI command, parsed and validated before the store is opened. */
sealed interface Command permits InitCommand, PushCommand, ListCommand, ShowCommand, DeleteCommand,
    SyncTemplatesCommand {

  /**
   * The store the command runs on: an existing one. Only {@code init} makes a new store; no other
   * command creates a store or a keyset.
   */
  default StoreChoice.OpenedStore open(StoreChoice store, PrintStream out, PrintStream err) {
    return store.open();
  }

  /** Runs against the opened store; returns the exit status. */
  int run(StoreChoice.OpenedStore opened, PrintStream out, PrintStream err);

  /**
   * Reads a command's positional arguments, refusing options (none of these commands has any but
   * {@code --help}) and any count other than {@code names.length}. Extra arguments are counted, not
   * quoted: a value typed without its {@code --from-literal} must not end up in an error message.
   */
  static String[] positionals(String command, ArgCursor args, String... names) {
    String[] values = new String[names.length];
    int count = 0;
    while (args.hasNext()) {
      if (args.nextIsOption()) {
        args.nextOption();
        throw args.unknownOption(command);
      }
      String value = args.nextPositional();
      if (count < names.length) {
        values[count] = value;
      }
      count++;
    }
    requireCount(command, names, count);
    return values;
  }

  static void requireCount(String command, String[] names, int count) {
    if (count < names.length) {
      throw new UsageException(command + ": missing " + names[count]);
    }
    if (count > names.length) {
      throw new UsageException(command + " takes " + names.length + " argument" + (names.length == 1 ? "" : "s")
          + " (" + String.join(" ", names) + "), got " + count);
    }
  }
}
