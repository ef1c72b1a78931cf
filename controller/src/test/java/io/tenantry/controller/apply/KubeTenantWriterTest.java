package io.tenantry.controller.apply;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.tenantry.api.v1alpha1.Tenant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the TenantWriter sends for a Tenant's finalizers. */
@EnableKubernetesMockClient
class KubeTenantWriterTest {

  static KubernetesMockServer server;
  static KubernetesClient client;

  @Test
  void finalizersAreOneMergePatchGuardedByTheCachedResourceVersionWithoutReadingTheTenantFirst() throws InterruptedException {
    Tenant cached = new Tenant();
    cached.getMetadata().setName("acme");
    cached.getMetadata().setResourceVersion("42");
    server.expect().patch().withPath("/apis/tenantry.io/v1alpha1/tenants/acme").andReturn(200, cached).once();
    int before = server.getRequestCount();

    new KubeTenantWriter(client).writeFinalizers(cached, List.of("tenantry.io/cleanup"));

    assertThat(server.getRequestCount() - before).isEqualTo(1);
    RecordedRequest request = server.getLastRequest();
    assertThat(request.getMethod()).isEqualTo("PATCH");
    assertThat(request.getHeader("Content-Type")).startsWith("application/merge-patch+json");
    assertThat(request.getUtf8Body()).isEqualTo("{\"metadata\":{\"resourceVersion\":\"42\",\"finalizers\":[\"tenantry.io/cleanup\"]}}");
  }
}
