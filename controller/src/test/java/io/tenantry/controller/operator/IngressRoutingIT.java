package io.tenantry.controller.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.fabric8.kubernetes.api.model.networking.v1.IngressRule;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.testsupport.TestCluster;
import io.tenantry.testsupport.WithCluster;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Routing in ingress mode: each tenant gets an Ingress of the configured class, TLS and annotations. */
@WithCluster(workloads = true)
class IngressRoutingIT extends RoutingScenarios {

  @BeforeAll
  static void startOperator(TestCluster testCluster, KubernetesClient kubernetesClient) throws Exception {
    start(testCluster, kubernetesClient, "{mode: ingress, baseDomain: " + BASE_DOMAIN + ", ingress: {className: edge, tls: true,"
        + " annotations: {cert-manager.io/cluster-issuer: letsencrypt, external-dns.alpha.kubernetes.io/ttl: '60'}}}");
  }

  @Override
  Optional<? extends HasMetadata> route(String namespace, String name) {
    return Optional.ofNullable(client.network().v1().ingresses().inNamespace(namespace).withName(name).get());
  }

  @Override
  List<String> hostnames(HasMetadata route) {
    return ((Ingress) route).getSpec().getRules().stream().map(IngressRule::getHost).toList();
  }

  @Override
  List<String> backends(HasMetadata route) {
    return ((Ingress) route).getSpec().getRules().get(0).getHttp().getPaths().stream()
        .map(p -> p.getBackend().getService().getName() + ":" + p.getBackend().getService().getPort().getNumber()).toList();
  }

  @Test
  void theIngressCarriesTheClassTlsAndAnnotationsCertManagerAndExternalDnsRead() {
    String name = OperatorHarness.uniqueName("tls");
    client.resources(Tenant.class).resource(OperatorHarness.tenant(name, 1, false)).create();
    Ingress ingress = (Ingress) org.awaitility.Awaitility.await().atMost(CONVERGE)
        .until(() -> route("tenant-" + name, "tenant"), Optional::isPresent).orElseThrow();
    assertThat(ingress.getSpec().getIngressClassName()).isEqualTo("edge");
    assertThat(ingress.getMetadata().getAnnotations()).containsEntry("cert-manager.io/cluster-issuer", "letsencrypt")
        .containsEntry("external-dns.alpha.kubernetes.io/ttl", "60");
    assertThat(ingress.getSpec().getTls()).singleElement().satisfies(tls -> {
      assertThat(tls.getHosts()).containsExactly(name + "." + BASE_DOMAIN);
      assertThat(tls.getSecretName()).isEqualTo("tenant-tls");
    });
  }
}
