package io.tenantry.controller.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.gatewayapi.v1.HTTPRoute;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.testsupport.Crds;
import io.tenantry.testsupport.TestBinaries;
import io.tenantry.testsupport.TestCluster;
import io.tenantry.testsupport.WithCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Routing with the Gateway API's standard CRDs installed (from the pinned module): mode auto picks
 * gateway, and each tenant gets an HTTPRoute on the shared Gateway.
 */
@WithCluster(workloads = true)
class GatewayRoutingIT extends RoutingScenarios {

  private static TestCluster cluster;

  @BeforeAll
  static void startOperator(TestCluster testCluster, KubernetesClient kubernetesClient) throws Exception {
    cluster = testCluster;
    Crds.installGatewayApi(kubernetesClient);
    start(testCluster, kubernetesClient, "{mode: auto, baseDomain: " + BASE_DOMAIN + "}");
  }

  @Override
  Optional<? extends HasMetadata> route(String namespace, String name) {
    return Optional.ofNullable(client.resources(HTTPRoute.class).inNamespace(namespace).withName(name).get());
  }

  @Override
  List<String> hostnames(HasMetadata route) {
    return ((HTTPRoute) route).getSpec().getHostnames();
  }

  @Override
  List<String> backends(HasMetadata route) {
    return ((HTTPRoute) route).getSpec().getRules().stream().flatMap(r -> r.getBackendRefs().stream())
        .map(b -> b.getName() + ":" + b.getPort()).toList();
  }

  @Test
  void theRouteHangsOnTheSharedGatewayAndKubectlShowsTheUrl() throws Exception {
    String name = OperatorHarness.uniqueName("wide");
    client.resources(Tenant.class).resource(OperatorHarness.tenant(name, 1, false)).create();
    HTTPRoute route = (HTTPRoute) org.awaitility.Awaitility.await().atMost(CONVERGE)
        .until(() -> route("tenant-" + name, "tenant"), Optional::isPresent).orElseThrow();
    assertThat(route.getSpec().getParentRefs()).singleElement().satisfies(parent -> {
      assertThat(parent.getGroup()).isEqualTo("gateway.networking.k8s.io");
      assertThat(parent.getKind()).isEqualTo("Gateway");
      assertThat(parent.getNamespace()).isEqualTo("tenantry-edge");
      assertThat(parent.getName()).isEqualTo("tenantry");
    });
    org.awaitility.Awaitility.await().atMost(CONVERGE)
        .until(() -> client.resources(Tenant.class).withName(name).get().getStatus().getUrls() != null);

    Path kubeconfig = Files.createTempFile("kubeconfig-", ".yaml");
    try {
      Files.writeString(kubeconfig, cluster.kubeconfigYaml());
      Process kubectl = new ProcessBuilder(TestBinaries.locate().kubectl().toString(), "--kubeconfig", kubeconfig.toString(),
          "get", "tenant", name, "-o", "wide").redirectErrorStream(true).start();
      String out = new String(kubectl.getInputStream().readAllBytes());
      assertThat(kubectl.waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(out.lines().findFirst().orElse("")).contains("URL");
      assertThat(out).contains("https://" + name + "." + BASE_DOMAIN + "/");
    } finally {
      Files.delete(kubeconfig);
    }
  }
}
