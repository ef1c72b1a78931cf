package io.tenantry.controller.operator;

import static io.tenantry.controller.operator.OperatorHarness.awaitPhase;
import static io.tenantry.controller.operator.OperatorHarness.setState;
import static io.tenantry.controller.operator.OperatorHarness.tenant;
import static io.tenantry.controller.operator.OperatorHarness.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.testsupport.TestCluster;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * What a routing mode must do, on a real API server: a tenant's route through its lifecycle, and
 * one hostname for one tenant. {@link GatewayRoutingIT} and {@link IngressRoutingIT} run it with
 * their kind of route.
 */
abstract class RoutingScenarios {

  static final String BASE_DOMAIN = "tenants.routing.test";
  static final Duration CONVERGE = Duration.ofSeconds(90);

  static OperatorHarness harness;
  static KubernetesClient client;

  static void start(TestCluster cluster, KubernetesClient kubernetesClient, String routing) throws Exception {
    client = kubernetesClient;
    client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName("tenantry-edge").endMetadata().build())
        .serverSideApply();
    harness = new OperatorHarness(cluster, OperatorConfig.defaults().with("{routing: " + routing + "}"));
  }

  @AfterAll
  static void stopOperator() {
    harness.close();
  }

  /** The tenant's route in {@code namespace}, of this mode's kind, if any. */
  abstract Optional<? extends HasMetadata> route(String namespace, String name);

  /** The hostnames the route serves. */
  abstract List<String> hostnames(HasMetadata route);

  /** "service:port" of every backend the route sends to. */
  abstract List<String> backends(HasMetadata route);

  @Test
  void anActiveTenantIsRoutedThenPausedWhileFrozenAndPurgingFreesItsHostnames() {
    String name = uniqueName("route");
    String custom = name + ".shop.example";
    Tenant acme = tenant(name, 1, false);
    acme.getSpec().setHostnames(List.of(custom));
    client.resources(Tenant.class).resource(acme).create();
    String ns = "tenant-" + name;
    String primary = name + "." + BASE_DOMAIN;

    await().atMost(CONVERGE).until(() -> route(ns, "tenant").isPresent());
    HasMetadata active = route(ns, "tenant").orElseThrow();
    assertThat(hostnames(active)).containsExactly(primary, custom);
    assertThat(backends(active)).containsExactly("app-web:8080");
    Tenant routed = await().atMost(CONVERGE).until(() -> client.resources(Tenant.class).withName(name).get(),
        t -> t.getStatus() != null && t.getStatus().getUrls() != null);
    assertThat(routed.getStatus().getUrls()).containsExactly("https://" + primary + "/", "https://" + custom + "/");
    assertThat(routed(routed)).startsWith("True Routed");

    setState(client, name, TenantState.Frozen);
    await().atMost(CONVERGE).until(() -> route("tenantry-edge", "paused-" + name).isPresent() && route(ns, "tenant").isEmpty());
    HasMetadata paused = route("tenantry-edge", "paused-" + name).orElseThrow();
    assertThat(hostnames(paused)).containsExactly(primary, custom);
    assertThat(backends(paused)).containsExactly("tenantry-paused:80");
    await().atMost(CONVERGE).until(() -> routed(client.resources(Tenant.class).withName(name).get()).startsWith("True Paused"));

    setState(client, name, TenantState.Purged);
    awaitPhase(client, name, TenantPhase.Purged, CONVERGE);
    assertThat(route("tenantry-edge", "paused-" + name)).isEmpty();

    // The custom hostname is free again: another tenant is routed it.
    String next = uniqueName("next");
    Tenant other = tenant(next, 1, false);
    other.getSpec().setHostnames(List.of(custom));
    client.resources(Tenant.class).resource(other).create();
    await().atMost(CONVERGE).until(() -> route("tenant-" + next, "tenant").map(r -> hostnames(r).contains(custom)).orElse(false));
  }

  @Test
  void twoTenantsClaimingOneHostnameGetItRoutedToExactlyOneAndTheAnswerHolds() {
    String first = uniqueName("first");
    String second = uniqueName("second");
    String shared = first + ".shared.example";
    for (String name : List.of(first, second)) {
      Tenant tenant = tenant(name, 1, false);
      tenant.getSpec().setHostnames(List.of(shared));
      client.resources(Tenant.class).resource(tenant).create();
    }
    await().atMost(CONVERGE).until(() -> route("tenant-" + first, "tenant").isPresent() && route("tenant-" + second, "tenant").isPresent()
        && !routed(client.resources(Tenant.class).withName(second).get()).isEmpty());
    // Stable over a minute: one tenant serves the hostname, the other says who holds it, and neither changes.
    await().during(Duration.ofSeconds(60)).atMost(Duration.ofSeconds(75)).pollInterval(Duration.ofSeconds(2)).untilAsserted(() -> {
      assertThat(hostnames(route("tenant-" + first, "tenant").orElseThrow())).contains(shared);
      assertThat(hostnames(route("tenant-" + second, "tenant").orElseThrow())).doesNotContain(shared);
      assertThat(routed(client.resources(Tenant.class).withName(first).get())).startsWith("True Routed");
      assertThat(routed(client.resources(Tenant.class).withName(second).get()))
          .startsWith("False HostnameConflict " + shared + " is held by tenant " + first);
    });
  }

  static String routed(Tenant tenant) {
    if (tenant == null || tenant.getStatus() == null) {
      return "";
    }
    return tenant.getStatus().getConditions().stream().filter(c -> c.getType().equals("Routed")).findFirst()
        .map(c -> c.getStatus() + " " + c.getReason() + " " + c.getMessage()).orElse("");
  }
}
