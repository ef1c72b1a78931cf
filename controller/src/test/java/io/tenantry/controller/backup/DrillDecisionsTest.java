package io.tenantry.controller.backup;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.api.model.ResourceQuotaBuilder;
import io.tenantry.api.v1alpha1.BackupRecord;
import io.tenantry.api.v1alpha1.BackupStatus;
import io.tenantry.controller.config.BackupPolicy;
import org.junit.jupiter.api.Test;

/** When a drill is due after a proven backup, and whether its scratch space fits the quota: pure decisions. */
class DrillDecisionsTest {

  private static final BackupPolicy EVERY_THIRD = new BackupPolicy("24h", "01:00", "4h", 7, 4, 3, "2h");

  @Test
  void theFirstProvenBackupIsDrilledThenEveryNthAndAFailedDrillAgainAtTheNext() {
    BackupStatus first = TenantBackups.drillAfter(proven("b1", null, null), EVERY_THIRD);
    assertThat(first.getLastDrill().getId()).isEqualTo("b1");
    assertThat(first.getLastDrill().getStarted()).as("waiting for a slot").isNull();

    BackupRecord passed = new BackupRecord("b1", "t1", "t2", 10L, null, null);
    BackupStatus second = TenantBackups.drillAfter(proven("b2", passed, 0), EVERY_THIRD);
    BackupStatus third = TenantBackups.drillAfter(proven("b3", passed, second.getProvenSinceDrill()), EVERY_THIRD);
    BackupStatus fourth = TenantBackups.drillAfter(proven("b4", passed, third.getProvenSinceDrill()), EVERY_THIRD);
    assertThat(second.getLastDrill()).isEqualTo(passed);
    assertThat(third.getLastDrill()).isEqualTo(passed);
    assertThat(fourth.getLastDrill().getId()).isEqualTo("b4");
    assertThat(fourth.getProvenSinceDrill()).isEqualTo(3);

    BackupRecord failed = new BackupRecord("b4", "t1", "t2", null, "DrillFailed", "countsDiffer: table x");
    assertThat(TenantBackups.drillAfter(proven("b5", failed, 0), EVERY_THIRD).getLastDrill().getId()).isEqualTo("b5");
    // One still waiting for a slot moves on to the newer backup.
    BackupRecord waiting = new BackupRecord("b5", null, null, null, null, null);
    assertThat(TenantBackups.drillAfter(proven("b6", waiting, 1), EVERY_THIRD).getLastDrill().getId()).isEqualTo("b6");
  }

  @Test
  void aPlanWithDrillEveryZeroNeverDrills() {
    BackupPolicy none = new BackupPolicy("24h", "01:00", "4h", 7, 4, 0, "2h");
    assertThat(TenantBackups.drillAfter(proven("b1", null, null), none).getLastDrill()).isNull();
  }

  @Test
  void scratchSpaceMustFitWhatTheQuotaHasLeftOfEphemeralStorage() {
    ResourceQuota quota = quota("1Gi", "700Mi");

    assertThat(ScratchQuota.shortfall(quota, 300L << 20)).isEmpty();
    assertThat(ScratchQuota.shortfall(quota, 400L << 20)).hasValue("the drill needs 400Mi of scratch space; the quota's"
        + " requests.ephemeral-storage has 324Mi left of 1Gi (raise it in the plan, or set drillEvery: 0)");
    // A quota that counts no ephemeral storage, or none at all, bounds nothing.
    assertThat(ScratchQuota.shortfall(new ResourceQuotaBuilder().withNewSpec().addToHard("pods", new Quantity("10"))
        .endSpec().build(), 1L << 40)).isEmpty();
    assertThat(ScratchQuota.shortfall(null, 1L << 40)).isEmpty();
    // Before the quota controller counted anything, the whole hard limit is left.
    assertThat(ScratchQuota.shortfall(quota("1Gi", null), 1L << 30)).isEmpty();
  }

  private static ResourceQuota quota(String hard, String used) {
    ResourceQuotaBuilder quota = new ResourceQuotaBuilder().withNewSpec()
        .addToHard("requests.ephemeral-storage", new Quantity(hard)).endSpec();
    if (used != null) {
      quota.withNewStatus().addToUsed("requests.ephemeral-storage", new Quantity(used)).endStatus();
    }
    return quota.build();
  }

  private static BackupStatus proven(String id, BackupRecord lastDrill, Integer since) {
    BackupRecord record = new BackupRecord(id, "t0", "t1", 100L, null, null);
    return new BackupStatus(record, record, lastDrill, since);
  }
}
