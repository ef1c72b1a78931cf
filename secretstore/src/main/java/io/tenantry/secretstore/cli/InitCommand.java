package io.tenantry.secretstore.cli;

import java.io.PrintStream;

/**
 * {@code init}: makes a new, empty local store, its directory (owner-only) and, when {@code --keyset}
 * names no existing file, a new keyset; an existing store is left as it is. The one command that
 * creates a store or a keyset.
 */
record InitCommand() implements Command {

  static final String NAME = "init";

  static InitCommand parse(ArgCursor args) {
    while (args.hasNext()) {
      if (args.nextIsOption()) {
        args.nextOption();
        throw args.unknownOption(NAME);
      }
      args.nextPositional();
      throw new UsageException(NAME + " takes no arguments: the store is named by the store options, before the"
          + " command (--store file:DIR, --keyset FILE)");
    }
    return new InitCommand();
  }

  @Override
  public StoreChoice.OpenedStore open(StoreChoice store, PrintStream out, PrintStream err) {
    return store.init(out, err);
  }

  @Override
  public int run(StoreChoice.OpenedStore opened, PrintStream out, PrintStream err) {
    // What init did is printed by StoreChoice.init, which knows.
    return 0;
  }
}
