package io.tenantry.deploy.cli;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A command line split into positional arguments and options. Options take a value from the next
 * argument or after {@code =} ({@code --wave-size=10}), except the switches in {@link #SWITCHES};
 * they may come anywhere after the command. Each command then says which options it accepts, so
 * an unknown or repeated one is refused by name.
 */
final class Args {

  /** Options without a value. */
  static final Set<String> SWITCHES = Set.of("--all", "--help", "-h");

  private static final Pattern DURATION = Pattern.compile("(\\d{1,7})([smh]?)");
  private static final Pattern DECIMAL = Pattern.compile("-?(\\d{1,9}(\\.\\d{0,9})?|\\.\\d{1,9})");

  private final List<String> positionals;
  private final Map<String, List<String>> options;

  private Args(List<String> positionals, Map<String, List<String>> options) {
    this.positionals = positionals;
    this.options = options;
  }

  static Args parse(String[] argv) {
    List<String> positionals = new ArrayList<>();
    Map<String, List<String>> options = new LinkedHashMap<>();
    for (int i = 0; i < argv.length; i++) {
      String arg = argv[i];
      if (!arg.startsWith("-") || arg.length() == 1) {
        positionals.add(arg);
        continue;
      }
      int equals = arg.indexOf('=');
      String name = equals < 0 ? arg : arg.substring(0, equals);
      String value;
      if (SWITCHES.contains(name)) {
        if (equals >= 0) {
          throw new UsageException(name + " takes no value");
        }
        value = "true";
      } else if (equals >= 0) {
        value = arg.substring(equals + 1);
      } else if (i + 1 < argv.length) {
        value = argv[++i];
      } else {
        throw new UsageException(name + " needs a value");
      }
      options.computeIfAbsent(name, k -> new ArrayList<>()).add(value);
    }
    return new Args(positionals, options);
  }

  boolean help() {
    return options.containsKey("--help") || options.containsKey("-h");
  }

  List<String> positionals() {
    return positionals;
  }

  /** Refuses any option not in {@code allowed} (the global ones are always allowed). */
  void allowOnly(String command, String... allowed) {
    Set<String> ok = Set.of(allowed);
    for (String name : options.keySet()) {
      if (!ok.contains(name) && !Tenantctl.GLOBAL_OPTIONS.contains(name) && !SWITCHES.contains(name)) {
        throw new UsageException("unknown option " + name + " for " + command);
      }
    }
  }

  /** Exactly {@code names.length} positional arguments after the {@code skip} command words. */
  List<String> positionals(String command, int skip, String... names) {
    List<String> rest = positionals.subList(Math.min(skip, positionals.size()), positionals.size());
    if (rest.size() < names.length) {
      throw new UsageException(command + ": missing " + names[rest.size()]);
    }
    if (rest.size() > names.length) {
      throw new UsageException(command + ": unexpected argument \"" + rest.get(names.length) + "\"");
    }
    return rest;
  }

  /** The option's value, or null; given twice is refused, since one would silently win. */
  String one(String name) {
    List<String> values = options.get(name);
    if (values == null) {
      return null;
    }
    if (values.size() > 1) {
      throw new UsageException(name + " given twice");
    }
    return values.get(0);
  }

  List<String> many(String name) {
    return options.getOrDefault(name, List.of());
  }

  boolean has(String name) {
    return options.containsKey(name);
  }

  /** A comma-separated list option: {@code --tenants a,b}; empty when absent, refused when given but empty. */
  List<String> list(String name) {
    String value = one(name);
    if (value == null) {
      return List.of();
    }
    List<String> items = List.of(value.split(",", -1)).stream().map(String::strip).toList();
    if (items.stream().anyMatch(String::isEmpty)) {
      throw new UsageException(name + ": empty item in \"" + value + "\" (expected a,b,c)");
    }
    return items;
  }

  /** A whole number option, or {@code fallback} when absent. */
  int integer(String name, int fallback) {
    String value = one(name);
    if (value == null) {
      return fallback;
    }
    try {
      return Integer.parseInt(value.strip());
    } catch (NumberFormatException e) {
      throw new UsageException(name + ": not a whole number: \"" + value + "\"");
    }
  }

  /** An optional whole number option: null when absent. */
  Integer optionalInteger(String name) {
    return has(name) ? integer(name, 0) : null;
  }

  /**
   * An optional decimal number option ({@code 0.2}, {@code .5}, {@code 1}): null when absent. Plain
   * decimals only; Java's own double syntax would also take {@code NaN}, {@code 0x1p-3} or {@code 0.2d}.
   */
  Double optionalDecimal(String name) {
    String value = one(name);
    if (value == null) {
      return null;
    }
    if (!DECIMAL.matcher(value.strip()).matches()) {
      throw new UsageException(name + ": not a decimal number (such as 0.2): \"" + value + "\"");
    }
    return Double.valueOf(value.strip());
  }

  /** A duration: {@code 90}, {@code 90s}, {@code 10m} or {@code 1h}. */
  Duration duration(String name, Duration fallback) {
    String value = one(name);
    if (value == null) {
      return fallback;
    }
    Matcher m = DURATION.matcher(value.strip());
    if (!m.matches()) {
      throw new UsageException(name + ": not a duration (such as 90s, 10m, 1h): \"" + value + "\"");
    }
    long amount = Long.parseLong(m.group(1));
    return switch (m.group(2)) {
      case "m" -> Duration.ofMinutes(amount);
      case "h" -> Duration.ofHours(amount);
      default -> Duration.ofSeconds(amount);
    };
  }
}
