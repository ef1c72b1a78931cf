package io.tenantry.controller.upgrade;

import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.tenantry.api.v1alpha1.BackupRecord;
import io.tenantry.api.v1alpha1.BackupStatus;
import io.tenantry.api.v1alpha1.DatabaseSpec;
import io.tenantry.api.v1alpha1.DatabaseStatus;
import io.tenantry.api.v1alpha1.RestoreRecord;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.UpgradeRecord;
import io.tenantry.controller.resources.DatabaseVolume;
import io.tenantry.controller.resources.Labels;
import io.tenantry.controller.resources.Names;
import io.tenantry.controller.status.Reason;
import io.tenantry.controller.status.Verdict;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Pure: a database's major upgrade ({@code spec.databases[].majorUpgrade}) as a sequence of
 * steps recorded in {@code status.databases[].backup.upgrade}, each decided from the record, the
 * database's backup status and its cached StatefulSet:
 * <ol>
 *   <li>asked (a new major above the data's, majorUpgrade true): a record names the old version and
 *       volume and a fresh volume; the apps go to zero ({@link #owed});
 *   <li>once the apps are stopped, a backup with the new version's pg_dump (it reads older servers);
 *       its id goes in the record ({@link #wantsBackup});
 *   <li>once that backup is proven, the database runs the new version on the fresh volume
 *       ({@link #runAt}: the StatefulSet is made again, the old claim stays) and the backup is
 *       restored into it, checked against its manifest ({@link #restoreFrom});
 *   <li>restored: the upgrade is done and the apps start. A failed backup or restore ends it failed:
 *       the database returns to the old version on the old volume, untouched, and the apps start.
 * </ol>
 * A failed upgrade is not tried again for the same version until majorUpgrade is set to false
 * (which drops its record once the database is back on its old volume) and to true again; another
 * version is tried at once.
 */
public final class MajorUpgrades {

  private static final Pattern MAJOR = Pattern.compile("^([0-9]+)");
  private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMddHHmmss").withZone(ZoneOffset.UTC);

  private MajorUpgrades() {
  }

  /** The newest upgrade the tenant's status records for {@code database}, or null. */
  public static UpgradeRecord recorded(Tenant tenant, String database) {
    if (tenant.getStatus() == null) {
      return null;
    }
    return tenant.getStatus().getDatabases().stream().filter(d -> database.equals(d.getName()))
        .map(DatabaseStatus::getBackup).filter(Objects::nonNull).map(BackupStatus::getUpgrade).filter(Objects::nonNull)
        .findFirst().orElse(null);
  }

  /**
   * The version and volume the database's data is at: the record's new ones once it succeeded, its
   * old ones while it runs or after it failed; without a record, the StatefulSet's (its claim
   * template, the version its pods are labelled with); without one, the spec's on the first claim.
   */
  public static DatabaseVolume dataAt(UpgradeRecord upgrade, DatabaseSpec db, StatefulSet cached) {
    if (upgrade != null) {
      return upgrade.succeeded() ? new DatabaseVolume(upgrade.getTo(), upgrade.getVolume())
          : new DatabaseVolume(upgrade.getFrom(), upgrade.getFromVolume());
    }
    if (cached != null && cached.getSpec() != null) {
      String version = cached.getSpec().getTemplate().getMetadata().getLabels().get(Labels.VERSION);
      return new DatabaseVolume(version == null ? db.getVersion() : version, claim(cached));
    }
    return new DatabaseVolume(db.getVersion(), DatabaseVolume.FIRST_CLAIM);
  }

  /**
   * What the database's StatefulSet runs: the new version on the fresh volume while the upgrade's
   * backup is restored into it; else the spec's version on the data's volume when it is the data's
   * major, and the data's own version when it is not (never a server on another major's directory).
   */
  public static DatabaseVolume runAt(UpgradeRecord upgrade, BackupStatus backups, DatabaseSpec db, StatefulSet cached) {
    if (carrying(upgrade, backups)) {
      return new DatabaseVolume(upgrade.getTo(), upgrade.getVolume());
    }
    DatabaseVolume data = dataAt(upgrade, db, cached);
    return sameMajor(db.getVersion(), data.version()) ? new DatabaseVolume(db.getVersion(), data.claim()) : data;
  }

  /** Whether any database of the tenant is being upgraded: its apps stay at zero meanwhile. */
  public static boolean owed(Tenant tenant) {
    return tenant.getSpec().getDatabases().stream().anyMatch(db -> inProgress(recorded(tenant, db.getName())));
  }

  public static boolean inProgress(UpgradeRecord upgrade) {
    return upgrade != null && upgrade.running();
  }

  /** Whether the upgrade waits for its backup to start. */
  public static boolean wantsBackup(UpgradeRecord upgrade) {
    return inProgress(upgrade) && upgrade.getBackup() == null;
  }

  /** Whether the upgrade's backup is proven and its data goes into the fresh volume. */
  public static boolean carrying(UpgradeRecord upgrade, BackupStatus backups) {
    BackupRecord last = backups == null ? null : backups.getLast();
    return inProgress(upgrade) && upgrade.getBackup() != null && last != null && upgrade.getBackup().equals(last.getId());
  }

  /** The backup to restore the database from: the upgrade's while it is carried, else the spec's restoreFrom. */
  public static String restoreFrom(UpgradeRecord upgrade, BackupStatus backups, DatabaseSpec db) {
    return carrying(upgrade, backups) ? upgrade.getBackup() : db.getRestoreFrom();
  }

  /**
   * The record after this sync: a new one when an upgrade is asked (at {@code now}), ended when its
   * backup or restore ended, dropped when a failed one is no longer asked for and the database is
   * back on its old volume, else as it was.
   */
  public static UpgradeRecord next(UpgradeRecord upgrade, BackupStatus backups, DatabaseSpec db, StatefulSet cached,
      Instant now) {
    if (inProgress(upgrade)) {
      return ended(upgrade, backups, now);
    }
    boolean asked = Boolean.TRUE.equals(db.getMajorUpgrade());
    if (upgrade != null && !upgrade.succeeded() && !asked) {
      return upgrade.getFromVolume().equals(claim(cached)) ? null : upgrade;
    } else if (upgrade != null && !upgrade.succeeded() && upgrade.getTo().equals(db.getVersion())) {
      return upgrade; // not tried again for the same version until asked again
    }
    DatabaseVolume data = dataAt(upgrade, db, cached);
    if (!asked || compareMajors(db.getVersion(), data.version()) <= 0) {
      return upgrade;
    }
    return new UpgradeRecord(data.version(), data.claim(), db.getVersion(), "data-" + major(db.getVersion()) + "-"
        + STAMP.format(now), null, now.toString(), null, null, null);
  }

  private static UpgradeRecord ended(UpgradeRecord upgrade, BackupStatus backups, Instant now) {
    BackupRecord attempt = backups == null ? null : backups.getLastAttempt();
    if (upgrade.getBackup() != null && attempt != null && upgrade.getBackup().equals(attempt.getId())
        && attempt.getReason() != null) {
      return upgrade.ended(now.toString(), Reason.UpgradeFailed.name(), "the backup before the upgrade failed ("
          + attempt.getReason() + "): " + attempt.getError());
    }
    RestoreRecord restore = backups == null ? null : backups.getRestore();
    if (carrying(upgrade, backups) && restore != null && upgrade.getBackup().equals(restore.getRequested())
        && restore.getFinished() != null) {
      return restore.getReason() == null ? upgrade.ended(now.toString(), null, null)
          : upgrade.ended(now.toString(), Reason.UpgradeFailed.name(), "the restore at " + upgrade.getTo() + " failed ("
              + restore.getReason() + "): " + restore.getError());
    }
    return upgrade;
  }

  /**
   * How long until the old volume of a succeeded upgrade may be deleted ({@code keep} after it
   * ended); empty when there is none to delete (no upgrade, not succeeded, or already released).
   */
  public static Optional<Duration> untilRelease(UpgradeRecord upgrade, Duration keep, Instant now) {
    if (upgrade == null || !upgrade.succeeded() || upgrade.getReleased() != null) {
      return Optional.empty();
    }
    Duration left = Duration.between(now, Instant.parse(upgrade.getFinished()).plus(keep));
    return Optional.of(left.isNegative() ? Duration.ZERO : left);
  }

  /** The old volume's claim of {@code upgrade}: the StatefulSet's claim template, its name, its one pod. */
  public static String oldClaim(UpgradeRecord upgrade, String database) {
    return upgrade.getFromVolume() + "-" + Names.database(database) + "-0";
  }

  /**
   * Of the record this process wrote last and the one the cache shows, the later: the one started
   * later, or of the same upgrade the one further along (a backup named, then ended).
   */
  public static UpgradeRecord newer(UpgradeRecord mine, UpgradeRecord cached) {
    if (mine == null || cached == null) {
      return cached == null ? mine : cached;
    }
    if (!mine.getStarted().equals(cached.getStarted())) {
      return Instant.parse(mine.getStarted()).isAfter(Instant.parse(cached.getStarted())) ? mine : cached;
    }
    return progress(mine) > progress(cached) ? mine : cached;
  }

  private static int progress(UpgradeRecord upgrade) {
    return upgrade.getReleased() != null ? 3 : upgrade.getFinished() != null ? 2 : upgrade.getBackup() != null ? 1 : 0;
  }

  /**
   * The MajorUpgraded condition, or null when no database was ever upgraded nor asks for another
   * major. False while one runs (the apps wait), after one failed, or when a major change is not
   * asked for as an upgrade or goes down; True once every upgrade asked for is done.
   *
   * @param upgrades each database's record after this sync; @param data each database's data version and volume
   */
  public static Verdict verdict(Tenant tenant, Map<String, UpgradeRecord> upgrades, Map<String, DatabaseVolume> data) {
    List<String> done = new ArrayList<>();
    for (DatabaseSpec db : tenant.getSpec().getDatabases()) {
      UpgradeRecord upgrade = upgrades.get(db.getName());
      DatabaseVolume at = data.get(db.getName());
      String name = db.getName();
      if (inProgress(upgrade)) {
        return new Verdict("False", Reason.Upgrading, name + ": upgrading " + upgrade.getFrom() + " to " + upgrade.getTo()
            + (upgrade.getBackup() == null ? ": the backup starts once the apps are stopped" : " through backup "
            + upgrade.getBackup()) + "; the apps wait");
      } else if (upgrade != null && !upgrade.succeeded() && upgrade.getTo().equals(db.getVersion())) {
        return new Verdict("False", Reason.UpgradeFailed, name + ": " + upgrade.getError() + "; running " + upgrade.getFrom()
            + " on its old volume; to try again set majorUpgrade to false, then to true");
      } else if (at != null && compareMajors(db.getVersion(), at.version()) < 0) {
        return new Verdict("False", Reason.DowngradeRefused, name + ": its data is at " + at.version() + "; a server of an"
            + " older major cannot read it, running " + at.version());
      } else if (at != null && compareMajors(db.getVersion(), at.version()) > 0) {
        return new Verdict("False", Reason.UpgradeNotAsked, name + ": its data is at " + at.version() + ", running it;"
            + " set majorUpgrade: true to upgrade to " + db.getVersion());
      } else if (upgrade != null && upgrade.succeeded()) {
        done.add(name + " " + upgrade.getFrom() + " to " + upgrade.getTo() + " (the old volume's claim " + oldClaim(upgrade, name)
            + (upgrade.getReleased() == null ? " is kept for backups.keepReplacedFor" : " was deleted at " + upgrade.getReleased())
            + ")");
      }
    }
    return done.isEmpty() ? null : new Verdict("True", Reason.UpgradeDone, "upgraded " + String.join(", ", done));
  }

  /** The claim template the StatefulSet mounts, or null. */
  public static String claim(StatefulSet cached) {
    return cached == null || cached.getSpec() == null || cached.getSpec().getVolumeClaimTemplates().isEmpty() ? null
        : cached.getSpec().getVolumeClaimTemplates().get(0).getMetadata().getName();
  }

  private static boolean sameMajor(String a, String b) {
    return compareMajors(a, b) == 0;
  }

  /** Compares the leading numbers of two versions; versions without one (a tag like "latest") compare equal. */
  static int compareMajors(String a, String b) {
    String x = major(a);
    String y = major(b);
    return x == null || y == null ? 0 : Long.compare(Long.parseLong(x), Long.parseLong(y));
  }

  private static String major(String version) {
    Matcher m = version == null ? null : MAJOR.matcher(version);
    return m != null && m.find() ? m.group(1) : null;
  }
}
