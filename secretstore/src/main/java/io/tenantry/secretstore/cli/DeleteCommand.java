package io.tenantry.secretstore.cli;

import io.tenantry.secretstore.Names;
import io.tenantry.secretstore.Scope;
import java.io.PrintStream;

/** {@code delete <scope> <name>}; deleting a secret that is not there is an error, as in kubectl. */
record DeleteCommand(Scope scope, String name) implements Command {

  static final String NAME = "delete";

  static DeleteCommand parse(ArgCursor args) {
    String[] positionals = Command.positionals(NAME, args, "<scope>", "<name>");
    return new DeleteCommand(ScopeArg.parse(positionals[0]), Names.requireSecretName(positionals[1]));
  }

  @Override
  public int run(StoreChoice.OpenedStore opened, PrintStream out, PrintStream err) {
    if (!opened.store().delete(scope, name)) {
      err.println("tenantry-secrets: no secret " + name + " in " + ScopeArg.format(scope));
      return 1;
    }
    out.println("deleted " + name + " from " + ScopeArg.format(scope));
    return 0;
  }
}
