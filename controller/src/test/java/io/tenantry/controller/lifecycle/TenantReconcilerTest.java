package io.tenantry.controller.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.controller.queue.SyncResult;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Each test: the cache holds X → the sync writes Y, with outcome Z. No cluster; milliseconds. */
class TenantReconcilerTest {

  private final SyncFixture f = new SyncFixture();

  @Test
  void aNewTenantFirstGetsItsFinalizerThenItsObjectsInDependencyOrder() {
    f.tenant("acme");
    assertThat(f.sync("acme")).isEqualTo(SyncResult.done());
    assertThat(f.writes.take()).containsExactly("finalizers acme [tenantry.io/cleanup]");

    SyncResult next = f.sync("acme");
    assertThat(f.writes.take()).containsExactly(
        "create Namespace tenant-acme",
        "create RoleBinding tenant-acme/tenant-admin",
        "create RoleBinding tenant-acme/tenant-operator",
        "create RoleBinding tenant-acme/tenant-viewer",
        "create NetworkPolicy tenant-acme/tenant-isolation",
        "create NetworkPolicy tenant-acme/allow-from-edge",
        "create ResourceQuota tenant-acme/tenant-quota",
        "create LimitRange tenant-acme/tenant-limits",
        "create ConfigMap tenant-acme/tenant-identity",
        "create Secret tenant-acme/db-main-credentials",
        "create Secret tenant-acme/db-main-binding",
        "create Service tenant-acme/db-main",
        "create PodDisruptionBudget tenant-acme/db-main",
        "create StatefulSet tenant-acme/db-main",
        "create Service tenant-acme/app-web",
        "create PodDisruptionBudget tenant-acme/app-web",
        "create Deployment tenant-acme/app-web",
        "status acme Provisioning",
        "event acme Normal Provisioning");
    assertThat(next.requeueAfter()).as("holding a rollout slot: back at the deadline").isPositive();

    f.cluster.rollOut("acme");
    f.sync("acme");
    assertThat(f.writes.take()).containsExactly("status acme Ready", "event acme Normal Ready");
    assertThat(f.gate.inFlight()).as("the slot is given back once rolled out").isZero();
  }

  @Test
  void aConvergedTenantCostsNoWriteAndNoStoreCall() {
    f.provisioned("acme");
    int storeCalls = f.store.calls();
    for (int i = 0; i < 3; i++) {
      assertThat(f.sync("acme")).isEqualTo(SyncResult.done());
    }
    assertThat(f.writes.take()).isEmpty();
    assertThat(f.store.calls()).isEqualTo(storeCalls);
  }

  @Test
  void anObjectEditedByHandIsRepairedAndOnlyItIsWritten() {
    f.provisioned("acme");
    Deployment web = f.cluster.get(Deployment.class, "tenant-acme", "app-web");
    web.getSpec().getTemplate().getSpec().getContainers().get(0).setImage("evil.example.com/miner:latest");
    f.cluster.putOwned(web);

    f.sync("acme");
    // The edit started a rollout of the wrong image: the repair is the only object written, and the
    // tenant reports Progressing until the repaired Deployment is rolled out again.
    assertThat(f.writes.take()).containsExactly("apply Deployment tenant-acme/app-web", "status acme Progressing",
        "event acme Normal Progressing");
    assertThat(f.cluster.get(Deployment.class, "tenant-acme", "app-web").getSpec().getTemplate().getSpec().getContainers().get(0)
        .getImage()).isEqualTo("registry.example.com/acme/web:1.0.0");
  }

  @Test
  void anUnknownPlanIsDegradedNamingTheFieldAndWritesNothingElse() {
    f.tenant("acme");
    f.sync("acme");
    f.edit("acme", t -> t.getSpec().setPlan("platinum"));
    f.writes.take();

    assertThat(f.sync("acme")).as("nothing to retry until the spec or configuration changes").isEqualTo(SyncResult.done());
    assertThat(f.writes.take()).as("its first status: the phase's event names the state, no StateChanged")
        .containsExactly("status acme Degraded", "event acme Warning Degraded");
    Condition ready = f.cluster.tenant("acme").getStatus().getConditions().get(0);
    assertThat(ready.getReason()).isEqualTo("UnknownPlan");
    assertThat(ready.getMessage()).startsWith("spec.plan: the operator has no plan named 'platinum'; known plans: standard");
  }

  @Test
  void frozenScalesAppsAndDatabasesToZeroAndKeepsEverythingElse() {
    f.provisioned("acme");
    f.edit("acme", t -> t.getSpec().setState(TenantState.Frozen));

    f.sync("acme");
    // Its people are viewers from the first write on: the viewer binding takes every level, the others go.
    assertThat(f.writes.take()).containsExactly("apply Namespace tenant-acme", "apply RoleBinding tenant-acme/tenant-viewer",
        "delete RoleBinding tenant-acme/tenant-admin", "delete RoleBinding tenant-acme/tenant-operator",
        "apply ConfigMap tenant-acme/tenant-identity",
        "apply StatefulSet tenant-acme/db-main", "apply Deployment tenant-acme/app-web",
        "delete PodDisruptionBudget tenant-acme/app-web", "status acme Progressing",
        "event acme Normal StateChanged", "event acme Normal Progressing");
    assertThat(f.cluster.get(StatefulSet.class, "tenant-acme", "db-main").getSpec().getReplicas()).isZero();
    assertThat(f.cluster.get(Deployment.class, "tenant-acme", "app-web").getSpec().getReplicas()).isZero();

    f.cluster.rollOut("acme");
    f.sync("acme");
    assertThat(f.writes.take()).containsExactly("status acme Frozen", "event acme Normal Frozen");
    assertThat(f.cluster.tenant("acme").getStatus().getStateTimestamps().getFrozenAt()).isEqualTo("2026-03-01T10:00:00Z");
  }

  @Test
  void archivedDeletesTheWorkloadsAndKeepsTheNamespaceAndSecrets() {
    f.provisioned("acme");
    f.edit("acme", t -> t.getSpec().setState(TenantState.Archived));

    f.sync("acme");
    List<String> writes = f.writes.take();
    assertThat(writes).filteredOn(w -> w.startsWith("delete")).containsExactlyInAnyOrder(
        "delete Service tenant-acme/db-main", "delete PodDisruptionBudget tenant-acme/db-main",
        "delete StatefulSet tenant-acme/db-main", "delete Service tenant-acme/app-web",
        "delete PodDisruptionBudget tenant-acme/app-web", "delete Deployment tenant-acme/app-web",
        "delete RoleBinding tenant-acme/tenant-admin", "delete RoleBinding tenant-acme/tenant-operator");
    assertThat(writes).as("only the state changes: the namespace's label, its people as viewers, and the identity the apps read")
        .filteredOn(w -> w.startsWith("apply") || w.startsWith("create"))
        .containsExactly("apply Namespace tenant-acme", "apply RoleBinding tenant-acme/tenant-viewer",
            "apply ConfigMap tenant-acme/tenant-identity");
    assertThat(f.cluster.get(Namespace.class, null, "tenant-acme").getMetadata().getLabels()).containsEntry("tenantry.io/state", "Archived");
    assertThat(f.cluster.tenant("acme").getStatus().getPhase()).isEqualTo(TenantPhase.Archived);
    assertThat(f.cluster.ownedBy("acme")).extracting(o -> o.getKind()).contains("Namespace", "Secret")
        .doesNotContain("Deployment", "StatefulSet");
  }

  @Test
  void aTenantDeletedWhileNotPurgedReleasesItsFinalizerAndKeepsItsData() {
    f.provisioned("acme");
    f.edit("acme", t -> t.getMetadata().setDeletionTimestamp("2026-03-01T10:00:00Z"));

    assertThat(f.sync("acme")).isEqualTo(SyncResult.done());
    assertThat(f.writes.take()).containsExactly("event acme Warning DeletedWithoutPurge", "finalizers acme []");
    assertThat(f.writes.eventMessages().get(f.writes.eventMessages().size() - 1))
        .contains("namespace tenant-acme and its data are kept");
    assertThat(f.purgedRecords).isEmpty();
    assertThat(f.cluster.ownedBy("acme")).extracting(o -> o.getKind()).contains("Namespace", "Secret", "StatefulSet");
  }

  @Test
  void aFailedSyncIsReportedAsDegradedAndAConflictIsNot() {
    f.provisioned("acme");
    f.reconciler.failed("acme", new KubernetesClientException("the object has been modified", 409, null));
    assertThat(f.writes.take()).isEmpty();

    f.reconciler.failed("acme", new IllegalStateException("boom"));
    assertThat(f.writes.take()).containsExactly("status acme Degraded", "event acme Warning Degraded");
    Tenant tenant = f.cluster.tenant("acme");
    assertThat(tenant.getStatus().getConditions().get(0).getReason()).isEqualTo("SyncFailed");
    assertThat(tenant.getStatus().getConditions().get(0).getMessage()).isEqualTo("IllegalStateException: boom");
  }

  @Test
  void aTenantGoneFromTheCacheIsForgottenAndItsSlotFreed() {
    f.tenant("acme");
    f.sync("acme");
    f.sync("acme");
    assertThat(f.gate.inFlight()).isEqualTo(1);
    f.cluster.removeTenant("acme");

    assertThat(f.sync("acme")).isEqualTo(SyncResult.done());
    assertThat(f.gate.inFlight()).isZero();
  }
}
