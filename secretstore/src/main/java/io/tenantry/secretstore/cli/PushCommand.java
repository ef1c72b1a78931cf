package io.tenantry.secretstore.cli;

import io.tenantry.secretstore.Names;
import io.tenantry.secretstore.Scope;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code push <scope> <name> (--from-literal KEY=VALUE | --from-file KEY=PATH)...}: stores the
 * secret, replacing any previous one. Files are read while parsing, so a missing file fails before
 * the store is touched.
 */
record PushCommand(Scope scope, String name, Map<String, byte[]> data) implements Command {

  static final String NAME = "push";
  private static final String[] POSITIONALS = {"<scope>", "<name>"};

  static PushCommand parse(ArgCursor args) {
    String[] positionals = new String[POSITIONALS.length];
    int count = 0;
    Map<String, byte[]> data = new TreeMap<>();
    while (args.hasNext()) {
      if (!args.nextIsOption()) {
        String value = args.nextPositional();
        if (count < positionals.length) {
          positionals[count] = value;
        }
        count++;
        continue;
      }
      String option = args.nextOption();
      switch (option) {
        case "--from-literal" -> {
          String[] entry = keyAndRest(option, args.optionValue(), "VALUE");
          put(data, entry[0], entry[1].getBytes(StandardCharsets.UTF_8));
        }
        case "--from-file" -> {
          String[] entry = keyAndRest(option, args.optionValue(), "PATH");
          put(data, entry[0], readFile(entry[0], entry[1]));
        }
        default -> throw args.unknownOption(NAME);
      }
    }
    Command.requireCount(NAME, POSITIONALS, count);
    Scope scope = ScopeArg.parse(positionals[0]);
    String name = Names.requireSecretName(positionals[1]);
    if (data.isEmpty()) {
      throw new UsageException(NAME + ": give the data with --from-literal KEY=VALUE or --from-file KEY=PATH");
    }
    return new PushCommand(scope, name, data);
  }

  @Override
  public int run(StoreChoice.OpenedStore opened, PrintStream out, PrintStream err) {
    String version = opened.store().put(scope, name, data);
    out.println("pushed " + name + " to " + ScopeArg.format(scope) + ", version " + version);
    return 0;
  }

  /** Splits KEY=REST at the first '='. The message never shows the argument: it may hold the value. */
  private static String[] keyAndRest(String option, String arg, String rest) {
    int equals = arg.indexOf('=');
    if (equals <= 0) {
      throw new UsageException("option " + option + " must be KEY=" + rest + " (the argument "
          + (equals == 0 ? "has no key before '='" : "has no '='") + "; it is not shown, as it may hold a secret)");
    }
    return new String[] {Names.requireDataKey(arg.substring(0, equals)), arg.substring(equals + 1)};
  }

  private static void put(Map<String, byte[]> data, String key, byte[] value) {
    if (data.put(key, value) != null) {
      throw new UsageException(NAME + ": data key \"" + key + "\" given twice");
    }
  }

  private static byte[] readFile(String key, String file) {
    try {
      return Files.readAllBytes(Path.of(file));
    } catch (IOException | InvalidPathException e) {
      throw new UsageException("option --from-file " + key + "=" + file + ": cannot read the file: " + e);
    }
  }
}
