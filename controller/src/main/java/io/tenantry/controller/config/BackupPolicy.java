package io.tenantry.controller.config;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.time.Duration;
import java.time.LocalTime;
import java.time.format.DateTimeParseException;
import java.util.List;

/**
 * How a plan backs up its tenants' databases. A backup starts every {@code every}, inside a window
 * of {@code window} that opens at {@code windowStart} (UTC), each tenant at its own offset in the
 * window; the newest backup is at most {@link #rpo()} old while backups succeed. Immutable.
 */
public record BackupPolicy(
    @JsonPropertyDescription("Time between backups of a database, e.g. 24h or 6h (from 1h to 7d).")
    String every,
    @JsonPropertyDescription("When the first window of a day opens, HH:MM in UTC.")
    String windowStart,
    @JsonPropertyDescription("How long a window stays open; each tenant starts at its own offset in it (at most 'every').")
    String window,
    @JsonPropertyDescription("Days for which the newest backup of the day is kept.")
    Integer keepDaily,
    @JsonPropertyDescription("ISO weeks for which the newest backup of the week is kept.")
    Integer keepWeekly,
    @JsonPropertyDescription("Every Nth backup of a database is restored into a throwaway database and its rows counted (a drill); 0: none.")
    Integer drillEvery,
    @JsonPropertyDescription("Longest a backup or drill Job may run (its activeDeadlineSeconds), e.g. 2h.")
    String deadline) {

  public static final BackupPolicy DEFAULT = new BackupPolicy("24h", "01:00", "4h", 7, 4, 7, "2h");
  // DEFAULT is built before the compact constructor can read it: its fields are all given.

  public BackupPolicy {
    every = every == null ? DEFAULT.every : every;
    windowStart = windowStart == null ? DEFAULT.windowStart : windowStart;
    window = window == null ? DEFAULT.window : window;
    deadline = deadline == null ? DEFAULT.deadline : deadline;
    keepDaily = keepDaily == null ? DEFAULT.keepDaily : keepDaily;
    keepWeekly = keepWeekly == null ? DEFAULT.keepWeekly : keepWeekly;
    drillEvery = drillEvery == null ? DEFAULT.drillEvery : drillEvery;
  }

  public Duration everyDuration() {
    return parse(every);
  }

  public Duration windowDuration() {
    return parse(window);
  }

  public Duration deadlineDuration() {
    return parse(deadline);
  }

  public LocalTime windowStartTime() {
    return LocalTime.parse(windowStart);
  }

  /**
   * The recovery point objective: the oldest the newest proven backup gets while every backup
   * succeeds. A tenant's offset in the window never moves, so its snapshots are {@code every}
   * apart, each proven at most {@code deadline} after it was taken.
   */
  public Duration rpo() {
    return everyDuration().plus(deadlineDuration());
  }

  void validate(String path, List<String> errors) {
    Duration every = check(path + ".every", this.every, errors);
    Duration window = check(path + ".window", this.window, errors);
    check(path + ".deadline", deadline, errors);
    if (every != null && (every.compareTo(Duration.ofHours(1)) < 0 || every.compareTo(Duration.ofDays(7)) > 0)) {
      errors.add(path + ".every: '" + this.every + "' must be from 1h to 7d");
    }
    if (every != null && window != null && (window.isZero() || window.compareTo(every) > 0)) {
      errors.add(path + ".window: '" + this.window + "' must be positive and at most every (" + this.every + ")");
    }
    try {
      LocalTime.parse(windowStart);
    } catch (DateTimeParseException e) {
      errors.add(path + ".windowStart: '" + windowStart + "' is not a time of day HH:MM");
    }
    if (keepDaily < 0) {
      errors.add(path + ".keepDaily: must not be negative");
    }
    if (keepWeekly < 0) {
      errors.add(path + ".keepWeekly: must not be negative");
    }
    if (drillEvery < 0) {
      errors.add(path + ".drillEvery: must not be negative");
    }
  }

  private static Duration check(String path, String value, List<String> errors) {
    try {
      Duration duration = parse(value);
      if (duration.isNegative() || duration.isZero()) {
        errors.add(path + ": '" + value + "' must be positive");
        return null;
      }
      return duration;
    } catch (IllegalArgumentException e) {
      errors.add(path + ": '" + value + "' is not a duration such as 30m, 4h or 7d");
      return null;
    }
  }

  /** {@code 30m}, {@code 4h}, {@code 7d}, or a combination such as {@code 1h30m}. */
  static Duration parse(String value) {
    if (value == null || !value.matches("(\\d+d)?(\\d+h)?(\\d+m)?") || value.isEmpty()) {
      throw new IllegalArgumentException("not a duration: " + value);
    }
    Duration total = Duration.ZERO;
    for (String part : value.split("(?<=[dhm])")) {
      long amount = Long.parseLong(part.substring(0, part.length() - 1));
      total = total.plus(switch (part.charAt(part.length() - 1)) {
        case 'd' -> Duration.ofDays(amount);
        case 'h' -> Duration.ofHours(amount);
        default -> Duration.ofMinutes(amount);
      });
    }
    return total;
  }
}
