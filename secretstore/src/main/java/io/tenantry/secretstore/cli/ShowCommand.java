package io.tenantry.secretstore.cli;

import io.tenantry.secretstore.Names;
import io.tenantry.secretstore.Scope;
import io.tenantry.secretstore.StoredSecret;
import java.io.PrintStream;
import java.util.Map;

/** {@code show <scope> <name>}: a secret's metadata and data keys with their sizes, never values. */
record ShowCommand(Scope scope, String name) implements Command {

  static final String NAME = "show";

  static ShowCommand parse(ArgCursor args) {
    String[] positionals = Command.positionals(NAME, args, "<scope>", "<name>");
    return new ShowCommand(ScopeArg.parse(positionals[0]), Names.requireSecretName(positionals[1]));
  }

  @Override
  public int run(StoreChoice.OpenedStore opened, PrintStream out, PrintStream err) {
    StoredSecret secret = opened.store().get(scope, name).orElse(null);
    if (secret == null) {
      err.println("tenantry-secrets: no secret " + name + " in " + ScopeArg.format(scope));
      return 1;
    }
    out.println("Name:          " + secret.name());
    out.println("Scope:         " + ScopeArg.format(scope));
    out.println("Path:          " + secret.metadata().path());
    out.println("Version:       " + secret.version());
    out.println("Content-Hash:  " + secret.contentHash());
    out.println("Updated:       " + secret.updated());
    out.println("Data:");
    Map<String, byte[]> data = secret.data();
    int width = data.keySet().stream().mapToInt(String::length).max().orElse(0);
    data.forEach((key, value) -> out.println("  " + key + " ".repeat(width - key.length() + 2) + value.length
        + (value.length == 1 ? " byte" : " bytes")));
    return 0;
  }
}
