package io.tenantry.controller.metrics;

import io.tenantry.api.v1alpha1.BackupRecord;
import io.tenantry.api.v1alpha1.BackupStatus;
import io.tenantry.api.v1alpha1.DatabaseSpec;
import io.tenantry.api.v1alpha1.DatabaseStatus;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantState;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Optional;

/**
 * Pure: how old the Active tenants' backups are, and how many databases' drills fail, from their status. A database counts if it keeps
 * data ({@code ephemeral} databases never do); its age is that of its newest proven backup, or,
 * when it has none, of the tenant itself: a database never backed up is stale once its tenant is
 * older than the limit, so a backup that never ran is noticed like one that stopped.
 */
public final class BackupAges {

  /** What the alert holds backups to: a daily backup, its window and some slack. */
  public static final Duration STALE_AFTER = Duration.ofHours(26);

  private BackupAges() {
  }

  /** Active tenants' databases without a proven backup finished within {@link #STALE_AFTER}. */
  public static long stale(List<Tenant> tenants, Instant now) {
    return ages(tenants, now).filter(age -> age.compareTo(STALE_AFTER) > 0).count();
  }

  /** The greatest age over those databases: of the newest proven backup, or of the tenant without one; zero if none. */
  public static Duration oldest(List<Tenant> tenants, Instant now) {
    return ages(tenants, now).max(Duration::compareTo).orElse(Duration.ZERO);
  }

  /**
   * Databases of tenants that keep their data in the cluster (Active, Frozen) whose newest finished
   * restore drill failed: their backups may not restore.
   */
  public static long drillsFailing(List<Tenant> tenants) {
    return tenants.stream().filter(t -> t.getSpec() != null && t.getStatus() != null
            && (t.getSpec().getState() == TenantState.Active || t.getSpec().getState() == TenantState.Frozen))
        .flatMap(t -> t.getStatus().getDatabases().stream())
        .map(DatabaseStatus::getBackup).filter(b -> b != null && b.getLastDrill() != null)
        .filter(b -> b.getLastDrill().getFinished() != null && b.getLastDrill().getReason() != null).count();
  }

  private static java.util.stream.Stream<Duration> ages(List<Tenant> tenants, Instant now) {
    return tenants.stream().filter(t -> t.getSpec() != null && t.getSpec().getState() == TenantState.Active)
        .flatMap(t -> t.getSpec().getDatabases().stream().filter(DatabaseSpec::keepsData).map(db -> age(t, db, now)));
  }

  private static Duration age(Tenant tenant, DatabaseSpec db, Instant now) {
    Instant since = newestProven(tenant, db.getName())
        .or(() -> parse(tenant.getMetadata().getCreationTimestamp()))
        .orElse(now);
    return since.isAfter(now) ? Duration.ZERO : Duration.between(since, now);
  }

  private static Optional<Instant> newestProven(Tenant tenant, String database) {
    if (tenant.getStatus() == null) {
      return Optional.empty();
    }
    return tenant.getStatus().getDatabases().stream().filter(d -> database.equals(d.getName()))
        .map(DatabaseStatus::getBackup).filter(b -> b != null).map(BackupStatus::getLast).filter(b -> b != null)
        .map(BackupRecord::getFinished).findFirst().flatMap(BackupAges::parse);
  }

  private static Optional<Instant> parse(String time) {
    try {
      return Optional.ofNullable(time).map(Instant::parse);
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }
}
