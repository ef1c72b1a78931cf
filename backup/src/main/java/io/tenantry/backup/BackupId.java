package io.tenantry.backup;

import java.security.SecureRandom;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.HexFormat;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A backup's name, {@code <database>-<yyyymmdd>-<hhmmss>-<6 hex>} (UTC): readable, sorted by time within a
 * database, and unique without coordination (the random suffix).
 */
public record BackupId(String database, Instant started, String suffix) implements Comparable<BackupId> {

  private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")
      .withZone(ZoneOffset.UTC);
  private static final Pattern FORM = Pattern.compile("([a-z0-9]([-a-z0-9]*[a-z0-9])?)-(\\d{8}-\\d{6})-([0-9a-f]{6})");
  private static final SecureRandom RANDOM = new SecureRandom();

  public BackupId {
    Objects.requireNonNull(database, "database");
    started = started.truncatedTo(ChronoUnit.SECONDS);
    if (!suffix.matches("[0-9a-f]{6}")) {
      throw new IllegalArgumentException("suffix must be 6 lower-case hex digits, got '" + suffix + "'");
    }
  }

  /** A new id for a backup of {@code database} starting at {@code now}. */
  public static BackupId next(String database, Instant now) {
    byte[] bytes = new byte[3];
    RANDOM.nextBytes(bytes);
    return new BackupId(database, now, HexFormat.of().formatHex(bytes));
  }

  /**
   * Reads an id.
   *
   * @throws IllegalArgumentException naming what is wrong, when {@code text} is not an id
   */
  public static BackupId parse(String text) {
    Matcher matcher = FORM.matcher(text == null ? "" : text);
    if (!matcher.matches()) {
      throw new IllegalArgumentException("'" + text + "' is not a backup id (<database>-<yyyymmdd>-<hhmmss>-<6 hex>)");
    }
    try {
      return new BackupId(matcher.group(1), Instant.from(TIME.parse(matcher.group(3))), matcher.group(4));
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException("'" + text + "' is not a backup id: bad time " + matcher.group(3), e);
    }
  }

  @Override
  public int compareTo(BackupId other) {
    return toString().compareTo(other.toString());
  }

  @Override
  public String toString() {
    return database + "-" + TIME.format(started) + "-" + suffix;
  }
}
