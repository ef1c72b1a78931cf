package io.tenantry.controller.operator;

import static io.tenantry.controller.operator.OperatorHarness.tenant;
import static io.tenantry.controller.operator.OperatorHarness.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.testsupport.TestCluster;
import io.tenantry.testsupport.WithCluster;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The chart's reserved-subdomains policy (the list rendered into it, as the plain manifests hold it):
 * a Tenant written directly is refused a reserved subdomain (or, without one, a reserved name). On
 * the simulated cluster with a running operator: the harness purges what a class created, and a
 * purge waits for the namespace controller.
 */
@WithCluster(workloads = true)
class ReservedSubdomainsIT {

  private static OperatorHarness harness;
  private static KubernetesClient client;

  @BeforeAll
  static void startOperator(TestCluster cluster, KubernetesClient kubernetesClient) throws Exception {
    client = kubernetesClient;
    harness = new OperatorHarness(cluster, OperatorConfig.defaults().with("routing: {baseDomain: tenants.example}"));
    OperatorHarness.installAdmissionPolicy(client);
    // The API server takes a moment to load a new policy and its binding: probed by dry runs, which store nothing.
    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250)).until(() -> {
      try {
        client.resources(Tenant.class).resource(withSubdomain(uniqueName("probe"), "www")).dryRun().create();
        return false;
      } catch (KubernetesClientException e) {
        return e.getMessage().contains("is reserved");
      }
    });
  }

  @AfterAll
  static void stopOperator() {
    harness.close();
  }

  private static Tenant setSubdomain(String name, String subdomain) {
    return client.resources(Tenant.class).withName(name).patch(PatchContext.of(PatchType.JSON_MERGE),
        "{\"spec\":{\"subdomain\":\"" + subdomain + "\"}}");
  }

  private static Tenant withSubdomain(String name, String subdomain) {
    Tenant tenant = tenant(name, 1, false);
    tenant.getSpec().setSubdomain(subdomain);
    return tenant;
  }

  @Test
  void aReservedSubdomainIsRefusedWithThePolicysMessageAndAnotherIsAccepted() {
    String refused = uniqueName("www");
    assertThatThrownBy(() -> client.resources(Tenant.class).resource(withSubdomain(refused, "www")).create())
        .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
          assertThat(e.getCode()).isEqualTo(403);
          assertThat(e.getMessage()).contains("ValidatingAdmissionPolicy 'tenantry-reserved-subdomains'")
              .contains("spec.subdomain: www is reserved (routing.reservedSubdomains of the operator): choose another subdomain");
        });
    assertThat(client.resources(Tenant.class).withName(refused).get()).as("stored").isNull();

    String acme = uniqueName("acme");
    client.resources(Tenant.class).resource(withSubdomain(acme, "acme")).create();
    Tenant stored = client.resources(Tenant.class).withName(acme).get();
    assertThat(stored.getSpec().getSubdomain()).isEqualTo("acme");

    // Changing to a reserved subdomain is refused; any other change of the tenant is not. Patches, as
    // kubectl sends them: the running operator writes the Tenant too (its finalizer, its status).
    assertThatThrownBy(() -> setSubdomain(acme, "admin")).hasMessageContaining("spec.subdomain: admin is reserved");
    assertThat(setSubdomain(acme, "acme-shop").getSpec().getSubdomain()).isEqualTo("acme-shop");
  }

  @Test
  void aTenantNamedAsAReservedSubdomainNeedsAnotherSubdomain() {
    assertThatThrownBy(() -> client.resources(Tenant.class).resource(tenant("mail", 1, false)).create())
        .hasMessageContaining("spec.subdomain: Tenant mail would be reached at its name, which is reserved");
    assertThat(client.resources(Tenant.class).withName("mail").get()).as("stored").isNull();

    client.resources(Tenant.class).resource(withSubdomain("mail", "mail-team")).create();
    assertThat(client.resources(Tenant.class).withName("mail").get().getSpec().getSubdomain()).isEqualTo("mail-team");
  }
}
