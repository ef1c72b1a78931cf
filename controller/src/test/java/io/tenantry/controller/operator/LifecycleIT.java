package io.tenantry.controller.operator;

import static io.tenantry.controller.operator.OperatorHarness.awaitPhase;
import static io.tenantry.controller.operator.OperatorHarness.setState;
import static io.tenantry.controller.operator.OperatorHarness.tenant;
import static io.tenantry.controller.operator.OperatorHarness.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.resources.DatabaseModel;
import io.tenantry.secretstore.Scope;
import io.tenantry.secretstore.SecretMetadata;
import io.tenantry.testsupport.TestCluster;
import io.tenantry.testsupport.WithCluster;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Every lifecycle transition on the simulated cluster, and deletion that never loses data by accident. */
@WithCluster(workloads = true)
class LifecycleIT {

  private static final Duration CONVERGE = Duration.ofSeconds(90);
  private static OperatorHarness harness;
  private static KubernetesClient client;

  @BeforeAll
  static void startOperator(TestCluster cluster, KubernetesClient kubernetesClient) throws Exception {
    client = kubernetesClient;
    harness = new OperatorHarness(cluster, OperatorConfig.defaults());
    OperatorHarness.installAdmissionPolicy(client);
  }

  @AfterAll
  static void stopOperator() {
    harness.close();
  }

  @Test
  void frozenScalesToZeroKeepingEverythingAndActiveScalesBack() {
    String name = uniqueName("freeze");
    String ns = "tenant-" + name;
    client.resources(Tenant.class).resource(tenant(name, 2, true)).create();
    Tenant active = awaitPhase(client, name, TenantPhase.Ready, CONVERGE);
    String activeAt = active.getStatus().getStateTimestamps().getActiveAt();
    String pvcUid = pvc(ns).getMetadata().getUid();
    String password = DatabaseModel.password(client.secrets().inNamespace(ns).withName("db-main-credentials").get());

    setState(client, name, TenantState.Frozen);
    Tenant frozen = awaitPhase(client, name, TenantPhase.Frozen, CONVERGE);
    assertThat(client.apps().deployments().inNamespace(ns).withName("app-web").get().getSpec().getReplicas()).isZero();
    assertThat(client.apps().statefulSets().inNamespace(ns).withName("db-main").get().getSpec().getReplicas()).isZero();
    assertThat(client.pods().inNamespace(ns).list().getItems()).isEmpty();
    assertThat(pvc(ns).getMetadata().getUid()).isEqualTo(pvcUid);
    // The tenant's people are viewers while it is Frozen, whatever their level.
    assertThat(client.rbac().roleBindings().inNamespace(ns).list().getItems()).singleElement()
        .satisfies(b -> assertThat(b.getRoleRef().getName()).isEqualTo("tenantry-tenant-viewer"));
    assertThat(client.resourceQuotas().inNamespace(ns).withName("tenant-quota").get()).isNotNull();
    assertThat(frozen.getStatus().getObservedState()).isEqualTo(TenantState.Frozen);
    assertThat(frozen.getStatus().getStateTimestamps().getFrozenAt()).isNotNull();
    assertThat(frozen.getStatus().getConditions().get(0).getReason()).isEqualTo("Frozen");
    assertThat(reasons(name)).contains("StateChanged", "Frozen");

    setState(client, name, TenantState.Active);
    Tenant thawed = awaitPhase(client, name, TenantPhase.Ready, CONVERGE);
    assertThat(client.apps().deployments().inNamespace(ns).withName("app-web").get().getStatus().getAvailableReplicas()).isEqualTo(2);
    assertThat(pvc(ns).getMetadata().getUid()).isEqualTo(pvcUid);
    assertThat(DatabaseModel.password(client.secrets().inNamespace(ns).withName("db-main-credentials").get())).isEqualTo(password);
    assertThat(thawed.getStatus().getStateTimestamps().getActiveAt()).isGreaterThanOrEqualTo(activeAt);
    assertThat(thawed.getStatus().getStateTimestamps().getFrozenAt()).isEqualTo(frozen.getStatus().getStateTimestamps().getFrozenAt());
    assertThat(client.rbac().roleBindings().inNamespace(ns).list().getItems()).extracting(b -> b.getRoleRef().getName())
        .containsExactlyInAnyOrder("tenantry-tenant-admin", "tenantry-tenant-operator", "tenantry-tenant-viewer");
  }

  @Test
  void archivedRemovesWorkloadsAndActiveRestoresThemOnTheSameVolumes() {
    String name = uniqueName("archive");
    String ns = "tenant-" + name;
    client.resources(Tenant.class).resource(tenant(name, 1, true)).create();
    awaitPhase(client, name, TenantPhase.Ready, CONVERGE);
    String pvcUid = pvc(ns).getMetadata().getUid();
    String volume = pvc(ns).getSpec().getVolumeName();
    String password = DatabaseModel.password(client.secrets().inNamespace(ns).withName("db-main-credentials").get());

    setState(client, name, TenantState.Archived);
    Tenant archived = awaitPhase(client, name, TenantPhase.Archived, CONVERGE);
    assertThat(client.apps().deployments().inNamespace(ns).list().getItems()).isEmpty();
    assertThat(client.apps().statefulSets().inNamespace(ns).list().getItems()).isEmpty();
    assertThat(client.services().inNamespace(ns).list().getItems()).isEmpty();
    assertThat(pvc(ns).getMetadata().getUid()).isEqualTo(pvcUid);
    assertThat(client.secrets().inNamespace(ns).withName("db-main-credentials").get()).isNotNull();
    assertThat(archived.getStatus().getStateTimestamps().getArchivedAt()).isNotNull();

    setState(client, name, TenantState.Active);
    awaitPhase(client, name, TenantPhase.Ready, CONVERGE);
    assertThat(pvc(ns).getMetadata().getUid()).isEqualTo(pvcUid);
    assertThat(pvc(ns).getSpec().getVolumeName()).isEqualTo(volume);
    assertThat(DatabaseModel.password(client.secrets().inNamespace(ns).withName("db-main-credentials").get())).isEqualTo(password);
    assertThat(reasons(name)).contains("StateChanged", "Archived", "Ready");
  }

  @Test
  void purgingFromArchivedDeletesTheNamespaceAndThenTheTenantCanBeDeleted() {
    String name = uniqueName("purge");
    String ns = "tenant-" + name;
    client.resources(Tenant.class).resource(tenant(name, 1, true)).create();
    awaitPhase(client, name, TenantPhase.Ready, CONVERGE);
    setState(client, name, TenantState.Archived);
    awaitPhase(client, name, TenantPhase.Archived, CONVERGE);

    assertThat(harness.store.list(Scope.tenant(name))).extracting(SecretMetadata::name).containsExactly("db-main-credentials");

    setState(client, name, TenantState.Purged);
    Tenant purged = awaitPhase(client, name, TenantPhase.Purged, Duration.ofMinutes(3));
    assertThat(harness.store.list(Scope.tenant(name))).as("the tenant's secrets in the store").isEmpty();
    assertThat(client.namespaces().withName(ns).get()).isNull();
    assertThat(client.persistentVolumeClaims().inNamespace(ns).list().getItems()).isEmpty();
    assertThat(purged.getStatus().getStateTimestamps().getPurgedAt()).isNotNull();
    assertThat(purged.getMetadata().getFinalizers()).contains("tenantry.io/cleanup");

    client.resources(Tenant.class).withName(name).delete();
    await().atMost(CONVERGE).until(() -> client.resources(Tenant.class).withName(name).get() == null);
  }

  @Test
  void aNewOrFrozenTenantCanBePurged() {
    String spare = uniqueName("spare");
    Tenant newTenant = tenant(spare, 1, false);
    newTenant.getSpec().setState(TenantState.New);
    newTenant.getSpec().setOrganization(null);
    newTenant.getSpec().setEmail(null);
    client.resources(Tenant.class).resource(newTenant).create();
    String frozen = uniqueName("frozen");
    client.resources(Tenant.class).resource(tenant(frozen, 1, false)).create();
    awaitPhase(client, spare, TenantPhase.Ready, CONVERGE);
    awaitPhase(client, frozen, TenantPhase.Ready, CONVERGE);
    setState(client, frozen, TenantState.Frozen);
    awaitPhase(client, frozen, TenantPhase.Frozen, CONVERGE);

    setState(client, spare, TenantState.Purged);
    setState(client, frozen, TenantState.Purged);
    awaitPhase(client, spare, TenantPhase.Purged, Duration.ofMinutes(3));
    awaitPhase(client, frozen, TenantPhase.Purged, Duration.ofMinutes(3));
    assertThat(client.namespaces().withName("tenant-" + spare).get()).isNull();
    assertThat(client.namespaces().withName("tenant-" + frozen).get()).isNull();
  }

  @Test
  void deletingATenantThatIsNotPurgedIsRefusedAndTouchesNothing() {
    String name = uniqueName("keep");
    String ns = "tenant-" + name;
    client.resources(Tenant.class).resource(tenant(name, 1, true)).create();
    awaitPhase(client, name, TenantPhase.Ready, CONVERGE);
    String namespaceUid = client.namespaces().withName(ns).get().getMetadata().getUid();
    String pvcUid = pvc(ns).getMetadata().getUid();

    // The policy takes a moment to be enforced after it is installed.
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
        assertThatThrownBy(() -> client.resources(Tenant.class).withName(name).delete())
            .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
              assertThat(e.getCode()).isEqualTo(403);
              assertThat(e.getStatus().getMessage()).contains("Tenant " + name + " is Active and cannot be deleted",
                  "set spec.state to Frozen or Archived", "set spec.state to Purged");
            }));
    assertThat(client.resources(Tenant.class).withName(name).get().getMetadata().getDeletionTimestamp()).isNull();
    assertThat(client.namespaces().withName(ns).get().getMetadata().getUid()).isEqualTo(namespaceUid);
    assertThat(pvc(ns).getMetadata().getUid()).isEqualTo(pvcUid);
    assertThat(client.namespaces().withName(ns).get().getMetadata().getOwnerReferences()).isEmpty();
  }

  @Test
  void aTenantDeletedAroundThePolicyLeavesItsDataAndIsAdoptedWhenRecreated() throws Exception {
    // What removing the CRD does to every Tenant: a deletion that no admission policy sees.
    String name = uniqueName("orphan");
    String ns = "tenant-" + name;
    client.resources(Tenant.class).resource(tenant(name, 1, true)).create();
    awaitPhase(client, name, TenantPhase.Ready, CONVERGE);
    String namespaceUid = client.namespaces().withName(ns).get().getMetadata().getUid();
    String pvcUid = pvc(ns).getMetadata().getUid();
    String password = DatabaseModel.password(client.secrets().inNamespace(ns).withName("db-main-credentials").get());

    client.resources(ValidatingAdmissionPolicyBinding.class).withName("tenantry-tenant-deletion").delete();
    try {
      await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
          .until(() -> !client.resources(Tenant.class).withName(name).delete().isEmpty());
      await().atMost(CONVERGE).until(() -> client.resources(Tenant.class).withName(name).get() == null);
    } finally {
      OperatorHarness.installAdmissionPolicy(client);
    }
    assertThat(client.namespaces().withName(ns).get().getMetadata().getUid()).isEqualTo(namespaceUid);
    assertThat(client.namespaces().withName(ns).get().getMetadata().getDeletionTimestamp()).isNull();
    assertThat(pvc(ns).getMetadata().getUid()).isEqualTo(pvcUid);
    assertThat(client.apps().statefulSets().inNamespace(ns).withName("db-main").get()).isNotNull();
    assertThat(reasons(name)).contains("DeletedWithoutPurge");

    client.resources(Tenant.class).resource(tenant(name, 1, true)).create();
    awaitPhase(client, name, TenantPhase.Ready, CONVERGE);
    assertThat(pvc(ns).getMetadata().getUid()).isEqualTo(pvcUid);
    assertThat(DatabaseModel.password(client.secrets().inNamespace(ns).withName("db-main-credentials").get())).isEqualTo(password);
  }

  private static PersistentVolumeClaim pvc(String ns) {
    return client.persistentVolumeClaims().inNamespace(ns).withName("data-db-main-0").get();
  }

  private static List<String> reasons(String tenant) {
    return client.v1().events().inNamespace("default").list().getItems().stream()
        .filter(e -> tenant.equals(e.getInvolvedObject().getName())).map(Event::getReason).toList();
  }
}
