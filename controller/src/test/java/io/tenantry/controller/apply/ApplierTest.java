package io.tenantry.controller.apply;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.gatewayapi.v1.HTTPRoute;
import io.fabric8.kubernetes.api.model.gatewayapi.v1.HTTPRouteBuilder;
import io.fabric8.kubernetes.api.model.gatewayapi.v1.HTTPRouteFilter;
import io.fabric8.kubernetes.api.model.gatewayapi.v1.HTTPRouteFilterBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

/** What the Applier sends: server-side apply under the operator's field manager, and background deletes. */
@EnableKubernetesMockClient
class ApplierTest {

  static KubernetesMockServer server;
  static KubernetesClient client;

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  private static ConfigMap configMap(String value) {
    return new ConfigMapBuilder().withNewMetadata().withName("settings").withNamespace("t").endMetadata()
        .addToData("key", value).build();
  }

  @Test
  void aWriteIsAForcedServerSideApplyAsTheOperatorsFieldManager() throws InterruptedException {
    server.expect().patch().withPath("/api/v1/namespaces/t/configmaps/settings?fieldManager=tenantry&force=true")
        .andReturn(200, configMap("v2")).once();
    new Applier(client, registry).write(configMap("v2"), false);

    RecordedRequest request = server.getLastRequest();
    assertThat(request.getMethod()).isEqualTo("PATCH");
    assertThat(request.getHeader("Content-Type")).startsWith("application/apply-patch+yaml");
    assertThat(request.getPath()).contains("fieldManager=tenantry").contains("force=true");
    assertThat(request.getUtf8Body()).contains("\"key\":\"v2\"");
    assertThat(registry.get("tenantry.apply.writes").counter().count()).isEqualTo(1);
  }

  @Test
  void aDeleteLetsDependentsGoInTheBackground() throws InterruptedException {
    server.expect().delete().withPath("/api/v1/namespaces/t/configmaps/settings").andReturn(200, configMap("v1")).once();
    new Applier(client, registry).delete(configMap("v1"));

    RecordedRequest request = server.getLastRequest();
    assertThat(request.getMethod()).isEqualTo("DELETE");
    assertThat(request.getUtf8Body()).contains("\"propagationPolicy\":\"Background\"");
    assertThat(registry.get("tenantry.apply.deletes").counter().count()).isEqualTo(1);
  }

  @Test
  void anObjectIsUpToDateWhenItHoldsEveryDesiredFieldWhateverElseItHas() {
    ConfigMap cached = configMap("v1");
    cached.getMetadata().setResourceVersion("42");
    cached.getMetadata().getAnnotations().put("someone-else", "was here");
    assertThat(Applier.upToDate(configMap("v1"), cached)).isTrue();
    assertThat(Applier.upToDate(configMap("v2"), cached)).isFalse();
    assertThat(Applier.upToDate(configMap("v1"), null)).isFalse();
  }

  @Test
  void aRouteWithAFilterTheDesiredOneLacksIsNotUpToDate() {
    HTTPRoute gated = route(new HTTPRouteFilterBuilder().withType("ExtensionRef")
        .withNewExtensionRef().withGroup("traefik.io").withKind("Middleware").withName("tenantry-gate").endExtensionRef().build());
    HTTPRoute open = route();
    assertThat(Applier.upToDate(open, gated)).as("the gate still in place").isFalse();
    assertThat(Applier.upToDate(gated, open)).isFalse();
    assertThat(Applier.upToDate(gated, route(gated.getSpec().getRules().get(0).getFilters().get(0)))).isTrue();
    assertThat(Applier.upToDate(open, route())).isTrue();
  }

  private static HTTPRoute route(HTTPRouteFilter... filters) {
    return new HTTPRouteBuilder().withNewMetadata().withName("tenant").withNamespace("t").endMetadata()
        .withNewSpec().withHostnames("acme.example.com")
        .addNewRule().withFilters(filters).addNewBackendRef().withName("app-web").withPort(8080).endBackendRef().endRule()
        .endSpec().build();
  }
}
