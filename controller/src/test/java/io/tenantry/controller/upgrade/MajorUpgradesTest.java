package io.tenantry.controller.upgrade;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.tenantry.api.v1alpha1.BackupRecord;
import io.tenantry.api.v1alpha1.BackupStatus;
import io.tenantry.api.v1alpha1.DatabaseEngine;
import io.tenantry.api.v1alpha1.DatabaseSpec;
import io.tenantry.api.v1alpha1.RestoreRecord;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantSpec;
import io.tenantry.api.v1alpha1.UpgradeRecord;
import io.tenantry.controller.resources.DatabaseVolume;
import io.tenantry.controller.resources.Labels;
import io.tenantry.controller.status.Reason;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Each step of a major upgrade, decided from the record, the backup status and the StatefulSet alone. */
class MajorUpgradesTest {

  private static final Instant NOW = Instant.parse("2026-11-26T16:00:00Z");
  private static final Instant LATER = NOW.plusSeconds(60);

  @Test
  void anUpgradeIsRecordedOnlyWhenAskedForANewerMajor() {
    StatefulSet running = statefulSet("15.8", "data");
    assertThat(MajorUpgrades.next(null, null, db("16.4", false), running, NOW)).as("not asked").isNull();
    assertThat(MajorUpgrades.next(null, null, db("15.9", true), running, NOW)).as("same major").isNull();
    assertThat(MajorUpgrades.next(null, null, db("14.2", true), running, NOW)).as("a downgrade").isNull();

    UpgradeRecord started = MajorUpgrades.next(null, null, db("16.4", true), running, NOW);
    assertThat(started).isEqualTo(new UpgradeRecord("15.8", "data", "16.4", "data-16-20261126160000", null,
        NOW.toString(), null, null, null));
    assertThat(MajorUpgrades.wantsBackup(started)).isTrue();
  }

  @Test
  void theDatabaseRunsItsDataVersionUntilTheBackupIsProvenThenTheNewOneOnTheFreshVolume() {
    DatabaseSpec db = db("16.4", true);
    StatefulSet running = statefulSet("15.8", "data");
    UpgradeRecord started = MajorUpgrades.next(null, null, db, running, NOW);
    assertThat(MajorUpgrades.runAt(null, null, db, running)).as("asked, not recorded yet")
        .isEqualTo(new DatabaseVolume("15.8", "data"));
    assertThat(MajorUpgrades.runAt(started, null, db, running)).isEqualTo(new DatabaseVolume("15.8", "data"));

    UpgradeRecord backingUp = started.withBackup("main-1");
    BackupStatus attempted = new BackupStatus(null, new BackupRecord("main-1", NOW.toString(), null, null, null, null));
    assertThat(MajorUpgrades.runAt(backingUp, attempted, db, running)).isEqualTo(new DatabaseVolume("15.8", "data"));
    assertThat(MajorUpgrades.next(backingUp, attempted, db, running, LATER)).as("the backup runs").isEqualTo(backingUp);

    BackupRecord proven = new BackupRecord("main-1", NOW.toString(), LATER.toString(), 10L, null, null);
    BackupStatus carried = new BackupStatus(proven, proven);
    assertThat(MajorUpgrades.carrying(backingUp, carried)).isTrue();
    assertThat(MajorUpgrades.runAt(backingUp, carried, db, running))
        .isEqualTo(new DatabaseVolume("16.4", "data-16-20261126160000"));
    assertThat(MajorUpgrades.restoreFrom(backingUp, carried, db)).isEqualTo("main-1");
    assertThat(MajorUpgrades.restoreFrom(backingUp, attempted, db)).as("not proven yet").isNull();
  }

  @Test
  void aRestoreThatSucceedsEndsTheUpgradeOnTheNewVolumeAndOneThatFailsReturnsToTheOld() {
    DatabaseSpec db = db("16.4", true);
    UpgradeRecord carrying = new UpgradeRecord("15.8", "data", "16.4", "data-16-x", "main-1", NOW.toString(), null, null, null);
    BackupRecord proven = new BackupRecord("main-1", NOW.toString(), NOW.toString(), 10L, null, null);
    StatefulSet fresh = statefulSet("16.4", "data-16-x");

    BackupStatus restored = new BackupStatus(proven, proven).withRestore(
        new RestoreRecord("main-1", "main-1", NOW.toString(), LATER.toString(), "tenant_before_1", null, null));
    UpgradeRecord done = MajorUpgrades.next(carrying, restored, db, fresh, LATER);
    assertThat(done.succeeded()).isTrue();
    assertThat(done.getFinished()).isEqualTo(LATER.toString());
    assertThat(MajorUpgrades.runAt(done, restored, db, fresh)).isEqualTo(new DatabaseVolume("16.4", "data-16-x"));
    assertThat(MajorUpgrades.runAt(done, restored, db("16.6", false), fresh)).as("a later minor, same volume")
        .isEqualTo(new DatabaseVolume("16.6", "data-16-x"));
    assertThat(MajorUpgrades.next(done, restored, db, fresh, LATER)).as("nothing more to do").isEqualTo(done);

    BackupStatus failedRestore = new BackupStatus(proven, proven).withRestore(
        new RestoreRecord("main-1", "main-1", NOW.toString(), LATER.toString(), null, "RestoreFailed", "counts differ"));
    UpgradeRecord failed = MajorUpgrades.next(carrying, failedRestore, db, fresh, LATER);
    assertThat(failed.getReason()).isEqualTo(Reason.UpgradeFailed.name());
    assertThat(failed.getError()).contains("the restore at 16.4 failed (RestoreFailed): counts differ");
    assertThat(MajorUpgrades.runAt(failed, failedRestore, db, fresh)).isEqualTo(new DatabaseVolume("15.8", "data"));
    assertThat(MajorUpgrades.next(failed, failedRestore, db, fresh, LATER.plusSeconds(60))).as("not retried").isEqualTo(failed);
  }

  @Test
  void aFailedBackupFailsTheUpgradeAndAFailedUpgradeIsDroppedOnlyOnceBackOnItsOldVolume() {
    DatabaseSpec db = db("16.4", true);
    UpgradeRecord backingUp = new UpgradeRecord("15.8", "data", "16.4", "data-16-x", "main-1", NOW.toString(), null, null, null);
    BackupStatus dumpFailed = new BackupStatus(null,
        new BackupRecord("main-1", NOW.toString(), LATER.toString(), null, "DumpFailed", "pg_dump: error: connection lost"));
    UpgradeRecord failed = MajorUpgrades.next(backingUp, dumpFailed, db, statefulSet("15.8", "data"), LATER);
    assertThat(failed.getError()).isEqualTo("the backup before the upgrade failed (DumpFailed): pg_dump: error: connection lost");

    DatabaseSpec notAsked = db("16.4", false);
    assertThat(MajorUpgrades.next(failed, dumpFailed, notAsked, statefulSet("16.4", "data-16-x"), LATER))
        .as("still on the fresh volume").isEqualTo(failed);
    assertThat(MajorUpgrades.next(failed, dumpFailed, notAsked, statefulSet("15.8", "data"), LATER)).isNull();
    assertThat(MajorUpgrades.next(failed, dumpFailed, db("17.0", true), statefulSet("15.8", "data"), LATER))
        .as("another version is tried at once").extracting(UpgradeRecord::getTo, UpgradeRecord::getFromVolume)
        .containsExactly("17.0", "data");
  }

  @Test
  void theOldVolumeOfASucceededUpgradeGoesAfterTheKeepPeriodOnce() {
    UpgradeRecord carrying = new UpgradeRecord("15.8", "data", "16.4", "v", "main-1", NOW.toString(), null, null, null);
    Duration keep = Duration.ofDays(7);
    assertThat(MajorUpgrades.untilRelease(carrying, keep, LATER)).as("not done").isEmpty();
    assertThat(MajorUpgrades.untilRelease(carrying.ended(NOW.toString(), "UpgradeFailed", "x"), keep, LATER))
        .as("failed: the old volume holds the data").isEmpty();
    UpgradeRecord done = carrying.ended(NOW.toString(), null, null);
    assertThat(MajorUpgrades.untilRelease(done, keep, LATER)).contains(keep.minusSeconds(60));
    assertThat(MajorUpgrades.untilRelease(done, keep, NOW.plus(keep).plusSeconds(1))).contains(Duration.ZERO);
    assertThat(MajorUpgrades.untilRelease(done.withReleased(NOW.plus(keep).toString()), keep, NOW.plus(keep))).isEmpty();
    assertThat(MajorUpgrades.oldClaim(done, "main")).isEqualTo("data-db-main-0");
  }

  @Test
  void theRecordFurtherAlongWinsOverALaggingCache() {
    UpgradeRecord started = new UpgradeRecord("15.8", "data", "16.4", "v", null, NOW.toString(), null, null, null);
    UpgradeRecord named = started.withBackup("main-1");
    UpgradeRecord next = new UpgradeRecord("16.4", "v", "17.0", "w", null, LATER.toString(), null, null, null);
    assertThat(MajorUpgrades.newer(named, started)).isEqualTo(named);
    assertThat(MajorUpgrades.newer(started, named)).isEqualTo(named);
    assertThat(MajorUpgrades.newer(next, named)).isEqualTo(next);
    assertThat(MajorUpgrades.newer(null, named)).isEqualTo(named);
  }

  @Test
  void theConditionSaysWhatRunsAndWhy() {
    Tenant tenant = tenant(db("16.4", true));
    UpgradeRecord running = new UpgradeRecord("15.8", "data", "16.4", "v", null, NOW.toString(), null, null, null);
    assertThat(MajorUpgrades.verdict(tenant, Map.of("main", running), Map.of("main", new DatabaseVolume("15.8", "data"))))
        .satisfies(v -> assertThat(v.reason()).isEqualTo(Reason.Upgrading))
        .satisfies(v -> assertThat(v.message()).contains("the backup starts once the apps are stopped"));
    UpgradeRecord done = running.withBackup("main-1").ended(LATER.toString(), null, null);
    assertThat(MajorUpgrades.verdict(tenant, Map.of("main", done), Map.of("main", new DatabaseVolume("16.4", "v"))))
        .satisfies(v -> assertThat(v.status()).isEqualTo("True"))
        .satisfies(v -> assertThat(v.message()).contains("the old volume's claim data-db-main-0 is kept"));
    assertThat(MajorUpgrades.verdict(tenant(db("16.4", false)), Map.of(), Map.of("main", new DatabaseVolume("15.8", "data"))))
        .satisfies(v -> assertThat(v.reason()).isEqualTo(Reason.UpgradeNotAsked));
    assertThat(MajorUpgrades.verdict(tenant(db("14.1", true)), Map.of(), Map.of("main", new DatabaseVolume("15.8", "data"))))
        .satisfies(v -> assertThat(v.reason()).isEqualTo(Reason.DowngradeRefused))
        .satisfies(v -> assertThat(v.message()).contains("running 15.8"));
    assertThat(MajorUpgrades.verdict(tenant(db("15.9", false)), Map.of(), Map.of("main", new DatabaseVolume("15.8", "data"))))
        .as("never upgraded, nothing asked").isNull();
  }

  private static DatabaseSpec db(String version, boolean upgrade) {
    DatabaseSpec db = new DatabaseSpec("main", DatabaseEngine.POSTGRES, version, "1Gi");
    db.setMajorUpgrade(upgrade ? Boolean.TRUE : null);
    return db;
  }

  private static Tenant tenant(DatabaseSpec db) {
    Tenant tenant = new Tenant();
    tenant.setSpec(new TenantSpec());
    tenant.getSpec().setDatabases(List.of(db));
    return tenant;
  }

  private static StatefulSet statefulSet(String version, String claim) {
    return new StatefulSetBuilder().withNewMetadata().withName("db-main").endMetadata().withNewSpec()
        .withNewTemplate().withNewMetadata().addToLabels(Labels.VERSION, version).endMetadata().endTemplate()
        .addNewVolumeClaimTemplate().withNewMetadata().withName(claim).endMetadata().endVolumeClaimTemplate()
        .endSpec().build();
  }
}
