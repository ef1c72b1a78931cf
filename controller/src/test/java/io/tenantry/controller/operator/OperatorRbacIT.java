package io.tenantry.controller.operator;

import static io.tenantry.controller.operator.OperatorHarness.awaitPhase;
import static io.tenantry.controller.operator.OperatorHarness.tenant;
import static io.tenantry.controller.operator.OperatorHarness.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
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
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.lifecycle.TenantCleanup;
import io.tenantry.testsupport.TestCluster;
import io.tenantry.testsupport.WithCluster;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The shipped RBAC, as the chart renders it into the plain manifests (deploy/manifests/tenantry.yaml),
 * is enough and no more: an operator holding only its ServiceAccount's token, under the shipped
 * admission policies, provisions a tenant with a database to Ready (binding the tenant roles in its
 * namespace) and purges it; the same account cannot bind any other role, nor a tenant role to
 * itself, nor escalate.
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
  void theShippedRoleIsEnoughToProvisionAndPurgeATenant() {
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
          .hasMessageContaining("the Tenantry operator binds only the tenant roles");
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
}
