package io.tenantry.controller.backup;

import io.tenantry.controller.config.BackupPolicy;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * When a database's backups are due: pure arithmetic on the plan's policy, the tenant's UID and the
 * clock, so the reconciler can turn it into a work-queue delay and a converged sync makes no call.
 *
 * <p>A tenant's slots are {@code windowStart + offset + k * every} (UTC, counted from the epoch),
 * where its offset, in {@code [0, window)}, comes from a hash of its UID: stable across restarts and
 * operators, and spread evenly over the window so a fleet does not start at once. A backup is due
 * when the newest one attempted started before the latest slot, so a slot missed (operator down)
 * is caught up at once instead of waiting for the next window.
 */
public final class BackupSchedule {

  private BackupSchedule() {
  }

  /** The tenant's offset inside the window. */
  static Duration offset(BackupPolicy policy, String tenantUid) {
    long windowMillis = policy.windowDuration().toMillis();
    return Duration.ofMillis(Math.floorMod(hash(tenantUid), windowMillis));
  }

  /** The tenant's latest slot at or before {@code now}. */
  public static Instant lastSlot(BackupPolicy policy, String tenantUid, Instant now) {
    long every = policy.everyDuration().toMillis();
    long anchor = policy.windowStartTime().toSecondOfDay() * 1000L + offset(policy, tenantUid).toMillis();
    long sinceAnchor = now.toEpochMilli() - anchor;
    return Instant.ofEpochMilli(anchor + Math.floorDiv(sinceAnchor, every) * every);
  }

  /**
   * How long until the next backup is due: zero when it is due now.
   *
   * @param lastAttempt when the newest backup attempt started (committed or not); null if none
   */
  public static Duration untilDue(BackupPolicy policy, String tenantUid, Instant lastAttempt, Instant now) {
    Instant last = lastSlot(policy, tenantUid, now);
    if (lastAttempt == null || lastAttempt.isBefore(last)) {
      return Duration.ZERO;
    }
    return Duration.between(now, last.plus(policy.everyDuration()));
  }

  private static long hash(String tenantUid) {
    Objects.requireNonNull(tenantUid, "tenantUid");
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(tenantUid.getBytes(StandardCharsets.UTF_8));
      long value = 0;
      for (int i = 0; i < 8; i++) {
        value = (value << 8) | (digest[i] & 0xff);
      }
      return value;
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
