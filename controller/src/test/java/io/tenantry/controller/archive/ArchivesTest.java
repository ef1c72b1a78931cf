package io.tenantry.controller.archive;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.tenantry.api.v1alpha1.ArchiveStatus;
import io.tenantry.api.v1alpha1.ArchiveStep;
import io.tenantry.api.v1alpha1.ArchivedDatabase;
import io.tenantry.api.v1alpha1.BackupRecord;
import io.tenantry.api.v1alpha1.BackupStatus;
import io.tenantry.api.v1alpha1.DatabaseEngine;
import io.tenantry.api.v1alpha1.DatabaseSpec;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantSpec;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.controller.resources.Workloads;
import io.tenantry.controller.status.Reason;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Each step of an archive and of its restore, decided from the record, the backups and the spec alone. */
class ArchivesTest {

  private static final Instant NOW = Instant.parse("2026-11-26T16:00:00Z");
  private static final Instant LATER = NOW.plusSeconds(60);

  @Test
  void archivingExportsPostgresKeepsOtherEnginesVolumesAndReleasesCaches() {
    Tenant tenant = tenant(TenantState.Archived);
    ArchiveStatus archive = Archives.begin(tenant, null, NOW);
    assertThat(archive.getStarted()).isEqualTo(NOW.toString());
    assertThat(archive.getGeneration()).isEqualTo(7L);
    assertThat(archive.getDatabases()).extracting(ArchivedDatabase::getName).containsExactly("main");
    assertThat(archive.getKept()).containsExactly("reports");
    assertThat(Archives.releasesVolumeOf(tenant.getSpec().getDatabases().get(2))).as("a cache").isTrue();
    assertThat(Archives.releasesVolumeOf(tenant.getSpec().getDatabases().get(1))).as("mysql keeping data").isFalse();
    assertThat(Archives.begin(tenant, archive, LATER)).as("continued").isSameAs(archive);
    assertThat(Archives.workloads(tenant, archive, Workloads.REMOVED)).as("databases up for the backup").isEqualTo(Workloads.RESTORING);
    assertThat(Archives.wantsBackup(archive, "main")).isTrue();
    assertThat(Archives.verdict(tenant, archive).reason()).isEqualTo(Reason.Archiving);
  }

  @Test
  void eachBackupIsDrilledBeforeTheManifestAndAFailureTakesAnotherBackup() {
    Tenant tenant = tenant(TenantState.Archived);
    ArchiveStatus archive = Archives.backupStarted(Archives.begin(tenant, null, NOW), "main", "main-1", 7L, NOW);
    assertThat(archive.getSteps()).extracting(ArchiveStep::getName).containsExactly(Archives.APPS_STOPPED);
    assertThat(Archives.wantsBackup(archive, "main")).isFalse();

    BackupRecord proven = new BackupRecord("main-1", NOW.toString(), NOW.toString(), 10L, null, null);
    BackupStatus drillWaiting = new BackupStatus(proven, proven, new BackupRecord("main-1", null, null, null, null, null), 0);
    ArchiveStatus backedUp = Archives.afterBackups(archive, Map.of("main", drillWaiting), 7L, LATER);
    assertThat(backedUp.getSteps()).extracting(ArchiveStep::getName).containsExactly(Archives.APPS_STOPPED, Archives.BACKED_UP);
    assertThat(Archives.readyForManifest(backedUp)).isFalse();

    BackupStatus drillFailed = new BackupStatus(proven, proven,
        new BackupRecord("main-1", NOW.toString(), LATER.toString(), null, "DrillFailed", "counts differ"), 0);
    ArchiveStatus again = Archives.afterBackups(backedUp, Map.of("main", drillFailed), 7L, LATER);
    assertThat(Archives.wantsBackup(again, "main")).as("another backup").isTrue();
    assertThat(Archives.verdict(tenant, again)).satisfies(v -> {
      assertThat(v.reason()).isEqualTo(Reason.DrillFailed);
      assertThat(v.message()).contains("counts differ", "the volumes are kept");
    });

    BackupStatus drilled = new BackupStatus(proven, proven,
        new BackupRecord("main-1", NOW.toString(), LATER.toString(), null, null, null), 0);
    ArchiveStatus ready = Archives.afterBackups(backedUp, Map.of("main", drilled), 7L, LATER);
    assertThat(Archives.readyForManifest(ready)).isTrue();
    assertThat(ready.getSteps()).extracting(ArchiveStep::getName).endsWith(Archives.DRILLED);
    assertThat(archive.getSteps()).as("the record it came from, unchanged").hasSize(1);

    ArchiveStatus written = Archives.manifestWritten(ready, "backups/x/_archives/a.archive", 7L, LATER);
    assertThat(Archives.workloads(tenant, written, Workloads.REMOVED)).isEqualTo(Workloads.REMOVED);
    ArchiveStatus released = Archives.released(written, 7L, LATER);
    assertThat(Archives.verdict(tenant, released)).satisfies(v -> {
      assertThat(v.reason()).isEqualTo(Reason.EngineNotSupported);
      assertThat(v.message()).contains("volumes kept for reports");
    });
  }

  @Test
  void aReactivationRestoresFromTheArchiveAndOnlyARestoredArchiveIsSuperseded() {
    ArchiveStatus released = Archives.released(Archives.manifestWritten(Archives.backupStarted(
        Archives.begin(tenant(TenantState.Archived), null, NOW), "main", "main-1", 7L, NOW), "m", 7L, NOW), 7L, NOW);
    Tenant active = tenant(TenantState.Active);
    DatabaseSpec main = active.getSpec().getDatabases().get(0);
    assertThat(Archives.reactivating(active, released)).isTrue();
    assertThat(Archives.workloads(active, released, Workloads.RUNNING)).isEqualTo(Workloads.RESTORING);
    assertThat(Archives.restoreFrom(active, released, main)).isEqualTo("main-1");

    Tenant archivedAgain = tenant(TenantState.Archived);
    assertThat(Archives.begin(archivedAgain, released, LATER)).as("a failed reactivation: the last good archive stays")
        .isSameAs(released);
    ArchiveStatus restored = Archives.restored(released, 8L, LATER);
    assertThat(Archives.workloads(active, restored, Workloads.RUNNING)).isEqualTo(Workloads.RUNNING);
    assertThat(Archives.restoreFrom(active, restored, main)).as("what Restored answers for, until another archive")
        .isEqualTo("main-1");
    DatabaseSpec asked = new DatabaseSpec("main", DatabaseEngine.POSTGRES, "16.4", "1Gi");
    asked.setRestoreFrom("latest");
    assertThat(Archives.restoreFrom(active, restored, asked)).as("a restoreFrom of the spec's, once reactivated").isEqualTo("latest");
    assertThat(Archives.restoreFrom(active, released, asked)).as("while reactivated: the archive").isEqualTo("main-1");
    assertThat(Archives.begin(archivedAgain, restored, LATER).getStarted()).as("a new archive").isEqualTo(LATER.toString());
  }

  @Test
  void goingBackBeforeTheVolumesWentAbandonsTheArchive() {
    ArchiveStatus archiving = Archives.begin(tenant(TenantState.Archived), null, NOW);
    assertThat(Archives.begin(tenant(TenantState.Active), archiving, LATER)).isNull();
    assertThat(Archives.begin(tenant(TenantState.Frozen), archiving, LATER)).isNull();
  }

  private static Tenant tenant(TenantState state) {
    Tenant tenant = new Tenant();
    tenant.setMetadata(new ObjectMetaBuilder().withName("acme").withGeneration(7L).build());
    tenant.setSpec(new TenantSpec());
    tenant.getSpec().setState(state);
    DatabaseSpec cache = new DatabaseSpec("cache", DatabaseEngine.REDIS, "7.2", "1Gi");
    cache.setEphemeral(true);
    tenant.getSpec().setDatabases(List.of(new DatabaseSpec("main", DatabaseEngine.POSTGRES, "16.4", "1Gi"),
        new DatabaseSpec("reports", DatabaseEngine.MYSQL, "8.0", "1Gi"), cache));
    return tenant;
  }
}
