package io.tenantry.controller.operator;

import static io.tenantry.controller.operator.OperatorHarness.awaitPhase;
import static io.tenantry.controller.operator.OperatorHarness.tenant;
import static io.tenantry.controller.operator.OperatorHarness.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.lifecycle.TenantCleanup;
import io.tenantry.testsupport.TestBinaries;
import io.tenantry.testsupport.TestCluster;
import io.tenantry.testsupport.WithCluster;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The shipped RBAC (deploy/manifests/operator-rbac.yaml) is enough: an operator holding only its
 * ServiceAccount's token provisions a tenant with a database to Ready, and purges it.
 */
@WithCluster(workloads = true)
class OperatorRbacIT {

  private static OperatorHarness harness;
  private static KubernetesClient client;

  @BeforeAll
  static void startOperatorAsItsServiceAccount(TestCluster cluster, KubernetesClient kubernetesClient) throws Exception {
    client = kubernetesClient;
    Path manifest = TestBinaries.locate().toolsDir().getParent().resolve("deploy/manifests/operator-rbac.yaml");
    try (InputStream in = Files.newInputStream(manifest)) {
      client.load(in).forceConflicts().serverSideApply();
    }
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
    try (KubernetesClient asOperator = new io.fabric8.kubernetes.client.KubernetesClientBuilder().withConfig(serviceAccount).build()) {
      assertThat(asOperator.apps().deployments().inAnyNamespace().list()).isNotNull();
    }
    harness = new OperatorHarness(cluster, OperatorConfig.defaults(), null, TenantCleanup.NONE, serviceAccount);
  }

  @AfterAll
  static void stopOperator() {
    harness.close();
  }

  @Test
  void theShippedRoleIsEnoughToProvisionAndPurgeATenant() {
    String name = uniqueName("rbac");
    client.resources(Tenant.class).resource(tenant(name, 2, true)).create();
    Tenant ready = awaitPhase(client, name, TenantPhase.Ready, Duration.ofMinutes(2));
    assertThat(ready.getStatus().getConditions()).allSatisfy(c -> assertThat(c.getStatus()).isEqualTo("True"));
    assertThat(client.rbac().roles().inNamespace("tenant-" + name).list().getItems()).hasSize(3);
    assertThat(client.v1().events().inNamespace("default").list().getItems())
        .anySatisfy(e -> assertThat(e.getInvolvedObject().getName()).isEqualTo(name));
  }
}
