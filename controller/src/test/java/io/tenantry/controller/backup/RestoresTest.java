package io.tenantry.controller.backup;

import static org.assertj.core.api.Assertions.assertThat;

import io.tenantry.api.v1alpha1.ArchiveStatus;
import io.tenantry.api.v1alpha1.BackupStatus;
import io.tenantry.api.v1alpha1.DatabaseEngine;
import io.tenantry.api.v1alpha1.DatabaseSpec;
import io.tenantry.api.v1alpha1.DatabaseStatus;
import io.tenantry.api.v1alpha1.RestoreRecord;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantSpec;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.api.v1alpha1.TenantStatus;
import io.tenantry.controller.resources.Workloads;
import io.tenantry.controller.status.Verdict;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which restores a tenant owes, how its workloads run meanwhile, and what Restored says: pure. */
class RestoresTest {

  private static final RestoreRecord DONE = new RestoreRecord("latest", "main-20261126-020000-a1b2c3", "t0", "t1",
      "tenant_before_20261126120000", null, null);

  @Test
  void aRestoreIsOwedUntilItsValueIsRestoredAndTheAppsWaitMeanwhile() {
    Tenant tenant = tenant(TenantState.Frozen, "latest", null);
    assertThat(Restores.owed(tenant)).extracting(DatabaseSpec::getName).containsExactly("main");
    assertThat(Restores.workloads(tenant, Workloads.SCALED_TO_ZERO)).isEqualTo(Workloads.RESTORING);

    Tenant restored = tenant(TenantState.Frozen, "latest", DONE);
    assertThat(Restores.owed(restored)).isEmpty();
    assertThat(Restores.workloads(restored, Workloads.SCALED_TO_ZERO)).isEqualTo(Workloads.SCALED_TO_ZERO);

    // A new value is owed again; a failed restore stays owed (the apps wait) until the value changes.
    assertThat(Restores.owed(tenant(TenantState.Frozen, "main-20261120-020000-ffffff", DONE))).hasSize(1);
    RestoreRecord failed = new RestoreRecord("latest", null, "t0", "t1", null, "BackupNotFound", "none");
    assertThat(Restores.workloads(tenant(TenantState.Active, "latest", failed), Workloads.RUNNING))
        .isEqualTo(Workloads.RESTORING);
    // An Archived tenant restores nothing: its databases run for its archive until the manifest is read back.
    Tenant archived = tenant(TenantState.Archived, "latest", null);
    assertThat(Restores.owed(archived)).hasSize(1);
    assertThat(Restores.workloads(archived, Workloads.REMOVED)).isEqualTo(Workloads.RESTORING);
    ArchiveStatus written = new ArchiveStatus();
    written.setManifest("backups/local/acme-x/_archives/a.archive");
    archived.getStatus().setArchive(written);
    assertThat(Restores.workloads(archived, Workloads.REMOVED)).isEqualTo(Workloads.REMOVED);
    assertThat(Restores.workloads(tenant(TenantState.Active, null, null), Workloads.RUNNING)).isEqualTo(Workloads.RUNNING);
  }

  @Test
  void restoredSaysWhatWasRestoredWhatWaitsAndWhatFailed() {
    Verdict done = DatabaseRestores.verdict(tenant(TenantState.Frozen, "latest", DONE), Map.of("main", DONE), Map.of("main", "latest"));
    assertThat(done).isEqualTo(new Verdict("True", io.tenantry.controller.status.Reason.RestoreDone,
        "restored main from main-20261126-020000-a1b2c3 (the data it replaced is kept as tenant_before_20261126120000)"));

    RestoreRecord running = new RestoreRecord("latest", "main-20261126-020000-a1b2c3", "t0", null, "x", null, null);
    assertThat(DatabaseRestores.verdict(tenant(TenantState.Frozen, "latest", null), Map.of("main", running), Map.of("main", "latest")).status())
        .isEqualTo("Unknown");
    RestoreRecord refused = new RestoreRecord("acme/latest", null, "t0", "t1", null, "CrossTenantRestoreRefused", "off");
    assertThat(DatabaseRestores.verdict(tenant(TenantState.Active, "acme/latest", null), Map.of("main", refused), Map.of("main", "acme/latest")))
        .isEqualTo(new Verdict("False", io.tenantry.controller.status.Reason.CrossTenantRestoreRefused,
            "main: restore from acme/latest failed: off; its apps wait: change or remove restoreFrom"));
    assertThat(DatabaseRestores.verdict(tenant(TenantState.Active, null, null), Map.of(), Map.of())).isNull();
  }

  private static Tenant tenant(TenantState state, String restoreFrom, RestoreRecord restore) {
    Tenant tenant = new Tenant();
    tenant.getMetadata().setName("acme");
    TenantSpec spec = new TenantSpec();
    spec.setState(state);
    DatabaseSpec db = new DatabaseSpec("main", DatabaseEngine.POSTGRES, "16.4", "1Gi");
    db.setRestoreFrom(restoreFrom);
    spec.getDatabases().add(db);
    tenant.setSpec(spec);
    TenantStatus status = new TenantStatus();
    status.setDatabases(List.of(new DatabaseStatus("main", true).withBackup(new BackupStatus().withRestore(restore))));
    tenant.setStatus(status);
    return tenant;
  }
}
