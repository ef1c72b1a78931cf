package io.tenantry.backup;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.temporal.IsoFields;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Which of one database's backups to keep and which to delete: a pure function of a listing, so
 * every rule is tested without a store. A backup's time is {@link BackupId#started()}.
 *
 * <p>A backup is kept when any rule keeps it:
 * <ul>
 *   <li>the newest committed backup, always: whatever the policy, a database that has a backup keeps one;
 *   <li>committed backups, as restic counts {@code keep-daily}/{@code keep-weekly}: the newest of each of the
 *       {@code keepDaily} most recent UTC days that have a committed backup, and the newest of each of the
 *       {@code keepWeekly} most recent ISO weeks (week-based year and week, UTC) that have one. Days without a
 *       backup do not use up the count, so a database whose backups stopped still keeps its last ones;
 *   <li>kind {@code archive}, while the tenant is archived: it is what a restore of the tenant needs. Once the
 *       tenant is not archived it is a committed backup like any other;
 *   <li>kind {@code pre-restore}, until {@code started + keepPreRestore}: the state a restore overwrote, kept
 *       for undoing that restore. It also counts toward days and weeks like any committed backup, so past
 *       expiry it stays if it is still a day's or a week's newest;
 *   <li>an uncommitted backup (an object without a manifest) that started no earlier than
 *       {@code now - uncommittedGrace}: it may still be uploading or awaiting its manifest. Older ones are
 *       failed or interrupted backups (or interrupted deletions) and are deleted. Uncommitted backups never
 *       count toward days or weeks and are never the newest committed backup.
 * </ul>
 * Every other backup is deleted.
 *
 * <p>Run it only on a complete listing. A listing that missed a manifest shows its committed backup as
 * uncommitted, and past the grace this deletes it, however recent or needed it is.
 * {@link io.tenantry.backup.store.BackupStore#list} throws rather than return part of a listing, so a
 * caller that decides only on what it returned never prunes on a failed one; for the same reason a
 * manifest that cannot be read or opened must stop the pruning, not make its backup uncommitted.
 */
public final class Retention {

  private static final String ARCHIVE = "archive";
  private static final String PRE_RESTORE = "pre-restore";
  private static final Comparator<BackupId> NEWEST_FIRST =
      Comparator.comparing(BackupId::started).thenComparing(Comparator.naturalOrder()).reversed();

  private Retention() {
  }

  /**
   * How many backups to keep. keepDaily/keepWeekly as restic counts them: the newest committed backup of
   * each of the N most recent UTC days (ISO weeks) that have one.
   *
   * @param keepPreRestore how long a {@code pre-restore} backup is kept after it started
   * @param uncommittedGrace how long after it started a backup without a manifest may still be in flight
   */
  public record Policy(int keepDaily, int keepWeekly, Duration keepPreRestore, Duration uncommittedGrace) {

    /** @throws IllegalArgumentException naming the field, when a count or duration is negative */
    public Policy {
      if (keepDaily < 0) {
        throw new IllegalArgumentException("keepDaily must be 0 or more, got " + keepDaily);
      }
      if (keepWeekly < 0) {
        throw new IllegalArgumentException("keepWeekly must be 0 or more, got " + keepWeekly);
      }
      requireNonNegative("keepPreRestore", keepPreRestore);
      requireNonNegative("uncommittedGrace", uncommittedGrace);
    }

    private static void requireNonNegative(String field, Duration value) {
      Objects.requireNonNull(value, field);
      if (value.isNegative()) {
        throw new IllegalArgumentException(field + " must not be negative, got " + value);
      }
    }
  }

  /**
   * One backup in a complete listing.
   *
   * @param kind the manifest's kind ({@code scheduled}, {@code on-demand}, {@code archive}, {@code pre-restore}),
   *     null when uncommitted (object without manifest)
   */
  public record Backup(BackupId id, boolean committed, String kind) {

    public Backup {
      Objects.requireNonNull(id, "id");
      if (committed != (kind != null)) {
        throw new IllegalArgumentException("backup " + id + ": a committed backup has a kind and an uncommitted one "
            + "has none, got committed=" + committed + " kind=" + kind);
      }
    }

    /** A committed backup of the manifest's {@code kind}. */
    public static Backup committed(BackupId id, String kind) {
      return new Backup(id, true, Objects.requireNonNull(kind, "kind"));
    }

    /** A backup without a manifest. */
    public static Backup uncommitted(BackupId id) {
      return new Backup(id, false, null);
    }
  }

  /** Every listed backup, in exactly one of the two sets. */
  public record Decision(SortedSet<BackupId> keep, SortedSet<BackupId> delete) {

    public Decision {
      keep = Collections.unmodifiableSortedSet(new TreeSet<>(keep));
      delete = Collections.unmodifiableSortedSet(new TreeSet<>(delete));
    }
  }

  /**
   * Decides over one database's complete listing (see the class comment for the rules).
   *
   * @param now the time the grace and pre-restore periods are measured to
   * @param tenantArchived whether the tenant's archive is in force (or a reactivation restored it less than
   *     keepArchiveFor ago), which keeps its {@code archive} backups
   * @throws IllegalArgumentException if an id is listed twice, or the backups are of more than one database
   *     (the rules are per database: another database's newest would displace this one's)
   */
  public static Decision decide(List<Backup> backups, Policy policy, Instant now, boolean tenantArchived) {
    Objects.requireNonNull(policy, "policy");
    Objects.requireNonNull(now, "now");
    Set<BackupId> seen = new HashSet<>();
    for (Backup backup : backups) {
      if (!seen.add(backup.id())) {
        throw new IllegalArgumentException("backup " + backup.id() + " is listed twice");
      }
      if (!backup.id().database().equals(backups.get(0).id().database())) {
        throw new IllegalArgumentException("the listing holds backups of databases " + backups.get(0).id().database()
            + " and " + backup.id().database() + "; retention decides over one database's backups");
      }
    }

    List<Backup> committed = backups.stream().filter(Backup::committed)
        .sorted(Comparator.comparing(Backup::id, NEWEST_FIRST)).toList();
    Set<BackupId> keep = new HashSet<>();
    if (!committed.isEmpty()) {
      keep.add(committed.get(0).id());
    }
    keep.addAll(newestPerBucket(committed, policy.keepDaily(), Retention::utcDay));
    keep.addAll(newestPerBucket(committed, policy.keepWeekly(), Retention::isoWeek));
    for (Backup backup : backups) {
      BackupId id = backup.id();
      if (!backup.committed()) {
        if (!id.started().isBefore(now.minus(policy.uncommittedGrace()))) {
          keep.add(id);
        }
      } else if (backup.kind().equals(ARCHIVE) && tenantArchived) {
        keep.add(id);
      } else if (backup.kind().equals(PRE_RESTORE) && now.isBefore(id.started().plus(policy.keepPreRestore()))) {
        keep.add(id);
      }
    }

    SortedSet<BackupId> kept = new TreeSet<>();
    SortedSet<BackupId> deleted = new TreeSet<>();
    for (Backup backup : backups) {
      (keep.contains(backup.id()) ? kept : deleted).add(backup.id());
    }
    return new Decision(kept, deleted);
  }

  /**
   * The newest backup of each of the {@code count} most recent buckets that hold one; {@code newestFirst}
   * is sorted newest first, so a bucket's first backup is its newest and buckets come newest first.
   */
  private static Set<BackupId> newestPerBucket(List<Backup> newestFirst, int count, Function<BackupId, ?> bucket) {
    Set<BackupId> chosen = new HashSet<>();
    Set<Object> buckets = new HashSet<>();
    for (Backup backup : newestFirst) {
      if (buckets.size() == count) {
        break;
      }
      if (buckets.add(bucket.apply(backup.id()))) {
        chosen.add(backup.id());
      }
    }
    return chosen;
  }

  private static LocalDate utcDay(BackupId id) {
    return id.started().atOffset(ZoneOffset.UTC).toLocalDate();
  }

  /** The ISO week, by week-based year: 2027-01-01 is in 2026's week 53, not in a week of 2027. */
  private static List<Integer> isoWeek(BackupId id) {
    LocalDate day = utcDay(id);
    return List.of(day.get(IsoFields.WEEK_BASED_YEAR), day.get(IsoFields.WEEK_OF_WEEK_BASED_YEAR));
  }
}
