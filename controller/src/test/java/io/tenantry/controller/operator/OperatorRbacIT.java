package io.tenantry.controller.operator;

import static io.tenantry.controller.operator.OperatorHarness.awaitPhase;
import static io.tenantry.controller.operator.OperatorHarness.tenant;
import static io.tenantry.controller.operator.OperatorHarness.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReviewBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.tenantry.api.v1alpha1.SparePool;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.lifecycle.TenantCleanup;
import io.tenantry.spares.fleet.InMemoryFleetRecords;
import io.tenantry.testsupport.TestCluster;
import io.tenantry.testsupport.WithCluster;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The shipped RBAC, as the chart renders it into the plain manifests (deploy/manifests/tenantry.yaml),
 * is enough and no more: an operator holding only its ServiceAccount's token, under the shipped
 * admission policies, provisions a tenant with a database to Ready (binding the tenant roles in its
 * namespace), freezes and purges it, and serves a signup; the same account cannot bind any other
 * role, nor a tenant role to itself or to another tenant's people, nor escalate, and writes nothing
 * outside the namespaces it manages (the policies confining it, shown by server dry-runs).
 */
@WithCluster(workloads = true)
class OperatorRbacIT {

  private static OperatorHarness harness;
  private static KubernetesClient client;
  private static KubernetesClient asOperator;

  @BeforeAll
  static void startOperatorAsItsServiceAccount(TestCluster cluster, KubernetesClient kubernetesClient) throws Exception {
    client = kubernetesClient;
    OperatorHarness.installOperatorAccount(client);
    OperatorHarness.installAdmissionPolicy(client);
    String token = client.serviceAccounts().inNamespace("tenantry-system").withName("tenantry-operator")
        .tokenRequest(new TokenRequestBuilder().withNewSpec().withExpirationSeconds(3600L).endSpec().build())
        .getStatus().getToken();
    Config admin = cluster.config();
    Config serviceAccount = new ConfigBuilder(Config.empty())
        .withMasterUrl(admin.getMasterUrl())
        .withCaCertData(admin.getCaCertData()).withCaCertFile(admin.getCaCertFile())
        .withTrustCerts(admin.isTrustCerts())
        .withOauthToken(token)
        .build();
    asOperator = new KubernetesClientBuilder().withConfig(serviceAccount).build();
    assertThat(asOperator.apps().deployments().inAnyNamespace().list()).isNotNull();
    harness = new OperatorHarness(cluster, OperatorConfig.defaults(), null, TenantCleanup.NONE, serviceAccount);
  }

  @AfterAll
  static void stopOperator() {
    asOperator.close();
    harness.close();
  }

  @Test
  void theShippedRoleIsEnoughToProvisionFreezeAndPurgeATenant() {
    String name = uniqueName("rbac");
    client.resources(Tenant.class).resource(tenant(name, 2, true)).create();
    Tenant ready = awaitPhase(client, name, TenantPhase.Ready, Duration.ofMinutes(2));
    assertThat(ready.getStatus().getConditions()).allSatisfy(c -> assertThat(c.getStatus()).isEqualTo("True"));
    assertThat(client.rbac().roles().inNamespace("tenant-" + name).list().getItems()).isEmpty();
    assertThat(client.rbac().roleBindings().inNamespace("tenant-" + name).list().getItems())
        .extracting(b -> b.getRoleRef().getKind() + "/" + b.getRoleRef().getName())
        .containsExactlyInAnyOrder("ClusterRole/tenantry-tenant-admin", "ClusterRole/tenantry-tenant-operator",
            "ClusterRole/tenantry-tenant-viewer");
    assertThat(client.v1().events().inNamespace("default").list().getItems())
        .anySatisfy(e -> assertThat(e.getInvolvedObject().getName()).isEqualTo(name));

    OperatorHarness.setState(client, name, TenantState.Frozen);
    awaitPhase(client, name, TenantPhase.Frozen, Duration.ofMinutes(2));
    // While Frozen, the tenant's people are viewers, whatever their level.
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
        assertThat(client.rbac().roleBindings().inNamespace("tenant-" + name).list().getItems())
            .singleElement().satisfies(b -> assertThat(b.getRoleRef().getName()).isEqualTo("tenantry-tenant-viewer")));
    OperatorHarness.setState(client, name, TenantState.Purged);
    awaitPhase(client, name, TenantPhase.Purged, Duration.ofMinutes(2));
    await().atMost(Duration.ofMinutes(1)).until(() -> client.namespaces().withName("tenant-" + name).get() == null);
  }

  @Test
  void theShippedRoleIsEnoughToServeASignup() throws Exception {
    AllocationCalls api = harness.serveAllocations(new InMemoryFleetRecords(), "rbac-token");
    String pool = uniqueName("rbacpool");
    client.resources(SparePool.class).resource(OperatorHarness.sparePool(pool, 1, 1)).create();
    await().atMost(Duration.ofMinutes(2)).until(() -> OperatorHarness.readySpares(client, pool).size() == 1);
    AllocationCalls.Answer answer = api.allocate("rbac-signup-1", "Rbac Corp", "ops@rbac.example", pool);
    assertThat(answer.status()).as(answer.body().toString()).isEqualTo(200);
    Tenant bound = client.resources(Tenant.class).withName(answer.tenant()).get();
    assertThat(bound.getSpec().getState()).isEqualTo(TenantState.Active);
    assertThat(bound.getSpec().getOrganization()).isEqualTo("Rbac Corp");
  }

  @Test
  void theAccountWritesNothingOutsideTheNamespacesItManages() {
    String tenant = uniqueName("confined");
    client.resources(Tenant.class).resource(tenant(tenant, 1, false)).create();
    awaitPhase(client, tenant, TenantPhase.Ready, Duration.ofMinutes(2));
    String plain = uniqueName("plain");
    client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(plain).endMetadata().build()).create();
    try {
      Deployment deployment = new DeploymentBuilder().withNewMetadata().withName("miner").endMetadata().withNewSpec()
          .withNewSelector().addToMatchLabels("app", "miner").endSelector()
          .withNewTemplate().withNewMetadata().addToLabels("app", "miner").endMetadata().withNewSpec()
          .addNewContainer().withName("c").withImage("registry.example.com/miner:1").endContainer().endSpec().endTemplate()
          .endSpec().build();
      assertThatThrownBy(() -> asOperator.apps().deployments().inNamespace("kube-system").resource(deployment).dryRun().create())
          .hasMessageContaining("the Tenantry operator writes Deployment objects only in tenant namespaces")
          .hasMessageContaining("namespace kube-system is none of these");
      assertThatThrownBy(() -> asOperator.secrets().inNamespace(plain).resource(new SecretBuilder().withNewMetadata()
          .withName("loot").endMetadata().build()).dryRun().create())
          .hasMessageContaining("the Tenantry operator writes Secret objects only in tenant namespaces");
      // The same account may write there in a tenant's namespace: the refusals above are the policy's, not RBAC's.
      assertThat(asOperator.apps().deployments().inNamespace("tenant-" + tenant).resource(deployment).dryRun().create())
          .isNotNull();

      assertThatThrownBy(() -> asOperator.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName("h1-priv")
          .endMetadata().build()).dryRun().create())
          .hasMessageContaining("the Tenantry operator makes only tenant namespaces").hasMessageContaining("h1-priv is not one");
      assertThatThrownBy(() -> asOperator.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName("tenant-lax")
          .addToLabels("tenantry.io/tenant", "lax").addToLabels("pod-security.kubernetes.io/enforce", "privileged")
          .endMetadata().build()).dryRun().create())
          .hasMessageContaining("each enforcing Pod Security restricted");
      // Not even a namespace named like a tenant's: someone else made it, and it stays theirs.
      String squatted = uniqueName("squatted");
      client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName("tenant-" + squatted).endMetadata().build())
          .create();
      try {
        assertThatThrownBy(() -> asOperator.namespaces().withName("tenant-" + squatted).edit(n -> new NamespaceBuilder(n)
            .editMetadata().addToLabels("tenantry.io/tenant", squatted).addToLabels("pod-security.kubernetes.io/enforce", "restricted")
            .endMetadata().build()))
            .hasMessageContaining("may not add, change or remove the label tenantry.io/tenant of an existing namespace: tenant-"
                + squatted + " is not a tenant namespace");
      } finally {
        client.namespaces().withName("tenant-" + squatted).delete();
      }
      assertThatThrownBy(() -> asOperator.namespaces().withName(plain).dryRun().delete())
          .hasMessageContaining("the Tenantry operator deletes only tenant namespaces");
      assertThat(client.namespaces().withName(plain).get().getMetadata().getLabels()).doesNotContainKey("tenantry.io/tenant");

      // Its RoleBindings bind the tenant roles to that tenant's own people only.
      assertThatThrownBy(() -> asOperator.rbac().roleBindings().inNamespace("tenant-" + tenant)
          .resource(binding("tenant-" + tenant, "tenantry-tenant-admin", "Group", "tenantry:someone-else:admin")).dryRun().create())
          .hasMessageContaining("to the groups of the tenant whose namespace it is")
          .hasMessageContaining("Group tenantry:someone-else:admin");
    } finally {
      client.namespaces().withName(plain).delete();
    }
  }

  @Test
  void theAccountDeletesVolumeClaimsOnlyInTenantNamespacesAndMakesNone() {
    String tenant = uniqueName("claims");
    client.resources(Tenant.class).resource(tenant(tenant, 1, false)).create();
    awaitPhase(client, tenant, TenantPhase.Ready, Duration.ofMinutes(2));
    String plain = uniqueName("plain");
    client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(plain).endMetadata().build()).create();
    try {
      // Not even in its own namespace, where the secret store's and the backups' claims are.
      for (String namespace : List.of(plain, "tenantry-system", "tenant-" + tenant)) {
        client.persistentVolumeClaims().inNamespace(namespace).resource(claim("kept")).create();
      }
      assertThatThrownBy(() -> asOperator.persistentVolumeClaims().inNamespace(plain).withName("kept").dryRun().delete())
          .hasMessageContaining("the Tenantry operator writes PersistentVolumeClaim objects only in tenant namespaces");
      assertThatThrownBy(() -> asOperator.persistentVolumeClaims().inNamespace("tenantry-system").withName("kept").dryRun()
          .delete()).hasMessageContaining("the Tenantry operator deletes volume claims only in tenant namespaces");
      assertThat(asOperator.persistentVolumeClaims().inNamespace("tenant-" + tenant).withName("kept").dryRun().delete())
          .isNotEmpty();
      assertThatThrownBy(() -> asOperator.persistentVolumeClaims().inNamespace("tenant-" + tenant).resource(claim("made"))
          .dryRun().create()).isInstanceOf(KubernetesClientException.class).hasMessageContaining("forbidden");
    } finally {
      client.persistentVolumeClaims().inNamespace("tenantry-system").withName("kept").delete();
      client.namespaces().withName(plain).delete();
    }
  }

  @Test
  void theAccountBindsNoOtherRoleAndCannotEscalate() {
    String ns = uniqueName("escalate");
    client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build()).create();
    try {
      // RBAC: bind is granted on the tenant roles only.
      assertThatThrownBy(() -> asOperator.rbac().roleBindings().inNamespace(ns)
          .resource(binding(ns, "cluster-admin", "Group", "tenantry:x:admin")).create())
          .isInstanceOf(KubernetesClientException.class)
          .hasMessageContaining("is attempting to grant RBAC permissions not currently held");
      // The policy: a tenant role goes to tenant groups only, never to the operator's own account.
      assertThatThrownBy(() -> asOperator.rbac().roleBindings().inNamespace(ns)
          .resource(binding(ns, "tenantry-tenant-admin", "ServiceAccount", "tenantry-operator")).create())
          .isInstanceOf(KubernetesClientException.class)
          .hasMessageContaining("ValidatingAdmissionPolicy").hasMessageContaining("denied request");
      assertThat(allowed("escalate", "roles")).isFalse();
      assertThat(allowed("escalate", "clusterroles")).isFalse();
      assertThat(allowed("create", "roles")).isFalse();
      assertThat(allowed("create", "clusterroles")).isFalse();
      assertThat(allowed("create", "clusterrolebindings")).isFalse();
    } finally {
      client.namespaces().withName(ns).delete();
    }
  }

  private static RoleBinding binding(String namespace, String clusterRole, String subjectKind, String subject) {
    return new RoleBindingBuilder().withNewMetadata().withName("mine").withNamespace(namespace).endMetadata()
        .withNewRoleRef().withApiGroup("rbac.authorization.k8s.io").withKind("ClusterRole").withName(clusterRole).endRoleRef()
        .addNewSubject().withKind(subjectKind).withName(subject)
        .withNamespace("ServiceAccount".equals(subjectKind) ? "tenantry-system" : null)
        .withApiGroup("ServiceAccount".equals(subjectKind) ? null : "rbac.authorization.k8s.io").endSubject()
        .build();
  }

  private static boolean allowed(String verb, String resource) {
    SelfSubjectAccessReview review = asOperator.authorization().v1().selfSubjectAccessReview().create(
        new SelfSubjectAccessReviewBuilder().withNewSpec().withNewResourceAttributes()
            .withGroup("rbac.authorization.k8s.io").withResource(resource).withVerb(verb).withNamespace("default")
            .endResourceAttributes().endSpec().build());
    return review.getStatus().getAllowed();
  }

  private static PersistentVolumeClaim claim(String name) {
    return new PersistentVolumeClaimBuilder().withNewMetadata().withName(name).endMetadata().withNewSpec()
        .withAccessModes("ReadWriteOnce").withNewResources().addToRequests("storage", new Quantity("1Gi")).endResources()
        .endSpec().build();
  }
}
