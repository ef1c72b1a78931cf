package io.tenantry.controller.backup;

import io.tenantry.api.v1alpha1.BackupStatus;
import io.tenantry.api.v1alpha1.DatabaseSpec;
import io.tenantry.api.v1alpha1.DatabaseStatus;
import io.tenantry.api.v1alpha1.RestoreRecord;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.controller.archive.Archives;
import io.tenantry.controller.resources.Workloads;
import io.tenantry.controller.upgrade.MajorUpgrades;
import java.util.List;

/**
 * Pure: which of a tenant's databases still owe a restore to their {@code spec.databases[].restoreFrom}
 * (a restore that failed is owed until the value changes or goes: it runs once per value), and so
 * how the lifecycle states run the tenant's workloads meanwhile: databases up, apps at zero.
 */
public final class Restores {

  private Restores() {
  }

  /** The databases whose restoreFrom has not been restored yet, from the tenant's status. */
  public static List<DatabaseSpec> owed(Tenant tenant) {
    return tenant.getSpec().getDatabases().stream()
        .filter(db -> db.getRestoreFrom() != null && !restored(tenant, db)).toList();
  }

  /**
   * {@code usual} (RUNNING when Active, SCALED_TO_ZERO when Frozen, REMOVED when Archived), or
   * RESTORING while a restore, a major upgrade or a reactivation from an archive is owed, or while an
   * archive is made ({@link Archives#workloads}).
   */
  public static Workloads workloads(Tenant tenant, Workloads usual) {
    TenantState state = tenant.getSpec().getState();
    boolean restoring = (state == TenantState.Active || state == TenantState.Frozen)
        && (!owed(tenant).isEmpty() || MajorUpgrades.owed(tenant));
    return restoring ? Workloads.RESTORING : Archives.workloads(tenant, Archives.recorded(tenant), usual);
  }

  /** The newest restore the status records for {@code database}, or null. */
  static RestoreRecord recorded(Tenant tenant, String database) {
    if (tenant.getStatus() == null) {
      return null;
    }
    return tenant.getStatus().getDatabases().stream().filter(d -> database.equals(d.getName()))
        .map(DatabaseStatus::getBackup).filter(b -> b != null).map(BackupStatus::getRestore).filter(r -> r != null)
        .findFirst().orElse(null);
  }

  private static boolean restored(Tenant tenant, DatabaseSpec db) {
    RestoreRecord restore = recorded(tenant, db.getName());
    return restore != null && restore.restored(db.getRestoreFrom());
  }
}
