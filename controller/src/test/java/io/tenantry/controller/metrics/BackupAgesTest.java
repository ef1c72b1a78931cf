package io.tenantry.controller.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.tenantry.api.v1alpha1.BackupRecord;
import io.tenantry.api.v1alpha1.BackupStatus;
import io.tenantry.api.v1alpha1.DatabaseEngine;
import io.tenantry.api.v1alpha1.DatabaseSpec;
import io.tenantry.api.v1alpha1.DatabaseStatus;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantSpec;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.api.v1alpha1.TenantStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class BackupAgesTest {

  private static final Instant NOW = Instant.parse("2026-11-26T12:00:00Z");

  @Test
  void aDatabaseIsStaleWhenItsNewestProvenBackupIsOlderThan26Hours() {
    Tenant fresh = tenant("fresh", TenantState.Active, "2026-01-01T00:00:00Z", NOW.minus(Duration.ofHours(25)));
    Tenant stale = tenant("stale", TenantState.Active, "2026-01-01T00:00:00Z", NOW.minus(Duration.ofHours(27)));

    assertThat(BackupAges.stale(List.of(fresh, stale), NOW)).isEqualTo(1);
    assertThat(BackupAges.oldest(List.of(fresh, stale), NOW)).isEqualTo(Duration.ofHours(27));
  }

  @Test
  void aDatabaseNeverBackedUpIsStaleOnceItsTenantIsOlderThan26Hours() {
    Tenant young = tenant("young", TenantState.Active, NOW.minus(Duration.ofHours(2)).toString(), null);
    Tenant old = tenant("old", TenantState.Active, NOW.minus(Duration.ofDays(3)).toString(), null);

    assertThat(BackupAges.stale(List.of(young), NOW)).isZero();
    assertThat(BackupAges.stale(List.of(young, old), NOW)).isEqualTo(1);
    assertThat(BackupAges.oldest(List.of(young, old), NOW)).isEqualTo(Duration.ofDays(3));
  }

  @Test
  void onlyActiveTenantsDatabasesThatKeepDataCount() {
    Tenant frozen = tenant("frozen", TenantState.Frozen, "2026-01-01T00:00:00Z", null);
    Tenant cache = tenant("cache", TenantState.Active, "2026-01-01T00:00:00Z", null);
    cache.getSpec().getDatabases().get(0).setEphemeral(true);

    assertThat(BackupAges.stale(List.of(frozen, cache), NOW)).isZero();
    assertThat(BackupAges.oldest(List.of(frozen, cache), NOW)).isZero();
    assertThat(BackupAges.stale(List.of(), NOW)).isZero();
  }

  private static Tenant tenant(String name, TenantState state, String created, Instant lastBackup) {
    Tenant tenant = new Tenant();
    tenant.getMetadata().setName(name);
    tenant.getMetadata().setCreationTimestamp(created);
    TenantSpec spec = new TenantSpec();
    spec.setState(state);
    spec.getDatabases().add(new DatabaseSpec("main", DatabaseEngine.POSTGRES, "16.4", "1Gi"));
    tenant.setSpec(spec);
    if (lastBackup != null) {
      TenantStatus status = new TenantStatus();
      BackupRecord last = new BackupRecord("main-20261125-020000-a1b2c3", lastBackup.minusSeconds(60).toString(),
          lastBackup.toString(), 100L, null, null);
      status.setDatabases(List.of(new DatabaseStatus("main", true).withBackup(new BackupStatus(last, last))));
      tenant.setStatus(status);
    }
    return tenant;
  }
}
