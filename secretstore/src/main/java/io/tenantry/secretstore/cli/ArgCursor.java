package io.tenantry.secretstore.cli;

import java.util.List;

/**
 * Walks the command line one argument at a time. Options take their value from the next argument
 * or after {@code =} ({@code --from-literal=user=app}, as kubectl users type it); an option name is
 * everything before the first {@code =}, so error messages can name it without its value.
 */
final class ArgCursor {

  private final List<String> args;
  private int position;
  private String option;
  private String inlineValue;

  ArgCursor(String[] args) {
    this.args = List.of(args);
  }

  boolean hasNext() {
    return position < args.size();
  }

  /** Whether the next argument is an option ({@code -x} or {@code --xyz}); a lone {@code -} is not. */
  boolean nextIsOption() {
    String arg = args.get(position);
    return arg.startsWith("-") && arg.length() > 1;
  }

  /** The next argument as an option name. */
  String nextOption() {
    String arg = args.get(position++);
    int equals = arg.indexOf('=');
    option = equals < 0 ? arg : arg.substring(0, equals);
    inlineValue = equals < 0 ? null : arg.substring(equals + 1);
    if (option.equals("--help") || option.equals("-h")) {
      throw new HelpRequested();
    }
    return option;
  }

  /** The value of the option just read by {@link #nextOption()}. */
  String optionValue() {
    if (inlineValue != null) {
      String value = inlineValue;
      inlineValue = null;
      return value;
    }
    if (!hasNext()) {
      throw new UsageException("option " + option + " needs a value");
    }
    return args.get(position++);
  }

  /** The next argument, which is not an option. */
  String nextPositional() {
    return args.get(position++);
  }

  /** Refuses an option the command does not know; names only the option, never a value given with it. */
  UsageException unknownOption(String command) {
    return new UsageException("unknown option " + option + (command == null ? "" : " for " + command));
  }

  /** Refuses an option given a second time; the last one would otherwise silently win. */
  static <T> T once(String option, T previous, T value) {
    if (previous != null) {
      throw new UsageException("option " + option + " given twice");
    }
    return value;
  }
}
