package io.tenantry.controller.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.controller.queue.SyncResult;
import io.tenantry.controller.status.Conditions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The provisioning pipeline's branches: the rollout gate, the deadline, the secret store, a terminating namespace. */
class ProvisioningTest {

  private static boolean workload(String write) {
    return write.contains("Deployment ") || write.contains("StatefulSet ");
  }

  /** One rollout slot, and {@code tenant}'s rollout just passed its deadline (60 s) and made it Degraded. */
  private static SyncFixture pastItsDeadline(String tenant) {
    SyncFixture f = new SyncFixture(1);
    f.tenant(tenant);
    f.sync(tenant);
    f.sync(tenant); // Takes the slot; its workloads never roll out.
    f.nanos.addAndGet(TimeUnit.SECONDS.toNanos(61));
    f.sync(tenant);
    f.writes.take();
    return f;
  }

  private static Condition condition(Tenant tenant, String type) {
    return Conditions.find(tenant.getStatus().getConditions(), type).orElseThrow();
  }

  @Test
  void withoutAFreeRolloutSlotEverythingButTheWorkloadsIsWrittenUntilTheGateWakesTheTenant() {
    SyncFixture f = new SyncFixture(1);
    f.tenant("first");
    f.sync("first");
    f.sync("first"); // Takes the one slot, not rolled out yet.
    f.tenant("second");
    f.sync("second");
    f.writes.take();

    assertThat(f.sync("second")).isEqualTo(SyncResult.done());
    List<String> held = f.writes.take();
    assertThat(held).contains("create Namespace tenant-second", "create Secret tenant-second/db-main-credentials");
    assertThat(held).noneMatch(ProvisioningTest::workload);
    assertThat(f.woken).isEmpty();

    f.cluster.rollOut("first");
    f.sync("first");
    assertThat(f.woken).as("the freed slot wakes the one waiting").containsExactly("second");
    f.sync("second");
    assertThat(f.writes.take()).contains("create StatefulSet tenant-second/db-main", "create Deployment tenant-second/app-web");
  }

  @Test
  void pastItsDeadlineATenantIsDegradedWithBackoffAndGivesItsSlotUp() {
    SyncFixture f = new SyncFixture(1);
    f.tenant("acme");
    f.sync("acme");
    f.sync("acme");
    f.writes.take();
    f.nanos.addAndGet(TimeUnit.SECONDS.toNanos(61));

    assertThat(f.sync("acme")).isEqualTo(SyncResult.withBackoff());
    assertThat(f.writes.take()).containsExactly("status acme Degraded", "event acme Warning Degraded");
    Tenant tenant = f.cluster.tenant("acme");
    assertThat(condition(tenant, Conditions.READY).getReason()).isEqualTo("RolloutTimedOut");
    assertThat(condition(tenant, Conditions.READY).getMessage()).startsWith("not rolled out within 60s: ");
    assertThat(f.gate.inFlight()).isZero();

    assertThat(f.sync("acme")).as("the same generation stays Degraded, looked at with backoff").isEqualTo(SyncResult.withBackoff());
    assertThat(f.writes.take()).isEmpty();
    assertThat(f.gate.inFlight()).as("a Degraded tenant does not hold a slot").isZero();

    f.cluster.rollOut("acme");
    f.sync("acme");
    assertThat(f.cluster.tenant("acme").getStatus().getPhase()).as("recovers once rolled out").isEqualTo(TenantPhase.Ready);
  }

  @Test
  void aTenantPastItsDeadlineStaysDegradedAfterARestartAndLeavesTheSlotToOthers() {
    SyncFixture f = pastItsDeadline("acme").restarted();
    assertThat(f.sync("acme")).as("its status says this generation passed its deadline").isEqualTo(SyncResult.withBackoff());
    assertThat(f.writes.take()).isEmpty();
    assertThat(condition(f.cluster.tenant("acme"), Conditions.READY).getReason()).isEqualTo("RolloutTimedOut");
    assertThat(f.gate.inFlight()).as("no second deadline to wait out").isZero();
    f.tenant("next");
    f.sync("next");
    f.sync("next");
    assertThat(f.writes.take()).as("the one slot is free for the next tenant").anyMatch(ProvisioningTest::workload);

    f.cluster.rollOut("next");
    f.sync("next");
    f.edit("acme", t -> t.getSpec().getApps().get(0).setVersion("1.0.1"));
    f.sync("acme");
    assertThat(f.gate.inFlight()).as("a new generation rolls out again").isEqualTo(1);
    assertThat(f.writes.take()).anyMatch(ProvisioningTest::workload);
  }

  @Test
  void aTenantRollingOutAgainIsNotStoppedByTheDeadlineVerdictALaggingCacheStillShows() {
    SyncFixture f = pastItsDeadline("acme");
    Tenant timedOut = Serialization.clone(f.cluster.tenant("acme"));
    assertThat(condition(timedOut, Conditions.READY).getReason()).isEqualTo("RolloutTimedOut");
    // Its Deployment deleted by hand: the same generation rolls out again, holding a slot.
    f.cluster.removeOwned(f.cluster.get(Deployment.class, "tenant-acme", "app-web"));
    assertThat(f.sync("acme").requeueAfter()).isNotNull();
    f.writes.take();
    f.cluster.putTenant(timedOut); // The cache has not caught up with that sync's status yet.

    assertThat(f.sync("acme").requeueAfter()).as("looked at again at its new deadline, not with backoff").isNotNull();
    assertThat(f.gate.inFlight()).isEqualTo(1);
    assertThat(f.writes.take()).noneMatch(w -> w.contains("Degraded"));
  }

  @Test
  void withTheStoreDownNothingIsWrittenAndNoCredentialIsRegenerated() {
    SyncFixture f = new SyncFixture();
    f.provisioned("acme");
    Secret credentials = f.cluster.get(Secret.class, "tenant-acme", "db-main-credentials");
    String password = credentials.getData().get("password");
    // A Secret deleted by hand makes the sync read the store.
    f.cluster.removeOwned(credentials);
    f.store.setUnavailable(true);

    assertThat(f.sync("acme")).isEqualTo(SyncResult.withBackoff());
    assertThat(f.writes.take()).containsExactly("status acme Ready");
    Condition secrets = condition(f.cluster.tenant("acme"), Conditions.SECRETS_SYNCED);
    assertThat(secrets.getStatus()).isEqualTo("False");
    assertThat(secrets.getReason()).isEqualTo("StoreUnavailable");
    assertThat(f.cluster.tenant("acme").getStatus().getPhase()).as("keeps running on what it has").isEqualTo(TenantPhase.Ready);

    f.store.setUnavailable(false);
    f.sync("acme");
    assertThat(f.writes.take()).containsExactly("create Secret tenant-acme/db-main-credentials", "status acme Ready");
    assertThat(f.cluster.get(Secret.class, "tenant-acme", "db-main-credentials").getData().get("password"))
        .as("the stored password, not a new one").isEqualTo(password);
  }

  @Test
  void aCredentialsSecretForgedInTheNamespaceIsPutBackFromTheStore() {
    SyncFixture f = new SyncFixture();
    f.provisioned("acme");
    Secret credentials = f.cluster.get(Secret.class, "tenant-acme", "db-main-credentials");
    String password = credentials.getData().get("password");
    // The tenant's admin writes another password, keeping every annotation (the hash one included).
    f.cluster.putOwned(new SecretBuilder(credentials).addToData("password", "Zm9yZ2Vk").build());
    int storeCalls = f.store.calls();

    f.sync("acme");
    assertThat(f.writes.take()).containsExactly("apply Secret tenant-acme/db-main-credentials");
    assertThat(f.cluster.get(Secret.class, "tenant-acme", "db-main-credentials").getData().get("password")).isEqualTo(password);
    assertThat(f.store.calls()).as("the forged copy sent the sync to the store").isEqualTo(storeCalls + 1);
  }

  @Test
  void aFailedTemplateRefreshIsReportedAndTheTenantStaysReady() {
    SyncFixture f = new SyncFixture();
    f.provisioned("acme");
    f.templates.error = "refreshing the template secrets failed: bucket unreachable";
    f.templates.version++;

    f.sync("acme");
    assertThat(f.writes.take()).containsExactly("status acme Ready");
    Condition secrets = condition(f.cluster.tenant("acme"), Conditions.SECRETS_SYNCED);
    assertThat(secrets.getReason()).isEqualTo("TemplateSyncFailed");
    assertThat(secrets.getMessage()).contains("bucket unreachable");
    assertThat(f.cluster.tenant("acme").getStatus().getPhase()).isEqualTo(TenantPhase.Ready);
  }

  @Test
  void aTerminatingNamespaceIsWaitedOutWithoutWrites() {
    SyncFixture f = new SyncFixture();
    f.provisioned("acme");
    f.cluster.terminate("tenant-acme");

    assertThat(f.sync("acme")).isEqualTo(SyncResult.done());
    assertThat(f.writes.matching(ProvisioningTest::workload)).isEmpty();
    assertThat(condition(f.cluster.tenant("acme"), Conditions.SECRETS_SYNCED).getReason()).isEqualTo("NamespaceTerminating");
  }
}
