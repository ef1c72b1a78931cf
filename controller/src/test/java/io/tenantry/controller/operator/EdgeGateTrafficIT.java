package io.tenantry.controller.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.gatewayapi.v1.HTTPRoute;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.tenantry.api.v1alpha1.AppRoute;
import io.tenantry.api.v1alpha1.AppSpec;
import io.tenantry.api.v1alpha1.SparePool;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.routing.EdgeGate;
import io.tenantry.controller.routing.TraefikMiddleware;
import io.tenantry.spares.fleet.InMemoryFleetRecords;
import io.tenantry.testsupport.ClusterKind;
import io.tenantry.testsupport.Crds;
import io.tenantry.testsupport.TestCluster;
import io.tenantry.testsupport.TestClusters;
import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Spares gated at the edge ({@code routing.spareGate.mode: forwardAuth}), with real traffic through
 * Traefik and its kubernetesCRD provider: a waiting spare's Services are open, yet its host answers
 * 404 through the edge, which asks the operator; bound, it serves with no change at the edge; its
 * route then loses the gate.
 */
class EdgeGateTrafficIT {

  private static final String BASE_DOMAIN = "tenants.gate.test";
  private static final Duration CONVERGE = Duration.ofSeconds(90);
  private static final String TOKEN = "gate-token";

  private static TestCluster cluster;
  private static KubernetesClient client;
  private static OperatorHarness harness;
  private static TraefikEdge edge;
  private static AllocationCalls allocations;

  @BeforeAll
  static void start() throws Exception {
    cluster = TestClusters.start(ClusterKind.SIMULATED, "edge-gate", 0);
    client = cluster.newClient();
    Crds.installGatewayApi(client);
    Crds.installTraefik(client);
    edge = new TraefikEdge(cluster, client, List.of("spare"));
    int operatorPort = TraefikEdge.freePort();
    harness = new OperatorHarness(cluster, OperatorConfig.defaults().with(
        "{httpPort: " + operatorPort + ", routing: {mode: gateway, baseDomain: " + BASE_DOMAIN + ", scheme: http,"
            + " spareGate: {mode: forwardAuth, forwardAuthAddress: 'http://127.0.0.1:" + operatorPort + "'}},"
            + " allocation: {servingProbeAddress: '" + edge.address() + "'}}"));
    allocations = harness.serveAllocations(new InMemoryFleetRecords(), TOKEN);
    edge.start("--providers.kubernetesCRD=true");
  }

  @AfterAll
  static void stop() throws Exception {
    if (harness != null) {
      harness.close();
    }
    if (edge != null) {
      edge.close();
    }
    if (client != null) {
      client.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void aSparesHostIsRefusedAtTheEdgeUntilBoundThenServedAsToldAndItsGateOpensWithOrWithoutASubdomain() throws Exception {
    SparePool pool = OperatorHarness.sparePool("gated", 2, 2);
    AppSpec web = pool.getSpec().getTemplate().getApps().get(0);
    web.setPort(edge.appPort("spare"));
    web.getRoutes().add(new AppRoute("/"));
    client.resources(SparePool.class).resource(pool).create();
    await().atMost(CONVERGE).until(() -> OperatorHarness.readySpares(client, "gated").size() == 2
        && OperatorHarness.readySpares(client, "gated").stream().allMatch(t -> TraefikEdge.accepted(client, t.getMetadata().getName())));
    List<String> spares = OperatorHarness.readySpares(client, "gated").stream().map(t -> t.getMetadata().getName()).toList();
    for (String spare : spares) {
      assertThat(gate(spare)).as("the gate in the spare's namespace").isNotNull();
      assertThat(gate(spare).getSpec().forwardAuth().address()).endsWith(EdgeGate.PATH + spare);
      assertThat(TraefikEdge.readyEndpoints(client, spare)).as("its Service open: the edge has its endpoints already").isEqualTo(1);
      // Traefik writes its verdict before it reloads its routers: for a moment the host may still answer with no route.
      await().atMost(CONVERGE).ignoreExceptions().until(() -> edge.get(host(spare)).body().equals("not found"));
      for (int i = 0; i < 20; i++) {
        assertThat(edge.get(host(spare))).as("a waiting spare, through the edge")
            .isEqualTo(new TraefikEdge.Answer(404, "not found"));
      }
    }

    AllocationCalls.Answer bound = allocations.allocate("gate-1", "Gated Customer", "ops@gated.example", "gated");
    assertThat(bound.status()).as(bound.body().toString()).isEqualTo(200);
    String tenant = bound.tenant();
    String other = spares.stream().filter(s -> !s.equals(tenant)).findFirst().orElseThrow();
    assertThat(serving("gate-1")).as("the allocation's answer, waited for").isTrue();
    assertThat(edge.get(host(tenant))).as("told serving: its URL serves").isEqualTo(new TraefikEdge.Answer(200, "spare"));
    assertGateOpens(tenant, host(tenant));
    assertThat(edge.get(host(other))).as("the spare still waiting").isEqualTo(new TraefikEdge.Answer(404, "not found"));

    // Bound with a subdomain: the route keeps its open gate and gains the customer's hostname.
    AllocationCalls.Answer named = allocations.allocate("gate-2", "Named Customer", "ops@named.example", "gated", "welcome");
    assertThat(named.status()).as(named.body().toString()).isEqualTo(200);
    assertThat(serving("gate-2")).as("the allocation's answer, waited for").isTrue();
    assertThat(edge.get(host("welcome"))).as("told serving: its URL serves").isEqualTo(new TraefikEdge.Answer(200, "spare"));
    assertGateOpens(named.tenant(), host("welcome"));
  }

  /**
   * The bound tenant's gate opens: a Middleware that asks no one, which the edge loads without a
   * new route; {@code host} serves on through it all, its route still naming the gate.
   */
  private static void assertGateOpens(String tenant, String host) throws Exception {
    await().atMost(CONVERGE).untilAsserted(() -> {
      assertThat(edge.get(host)).as("served while its gate opens").isEqualTo(new TraefikEdge.Answer(200, "spare"));
      assertThat(gate(tenant).getSpec().forwardAuth()).as("its gate, open: asking no one").isNull();
    });
    assertThat(gate(tenant).getSpec().headers()).as("its gate, open").isNotNull();
    assertThat(route(tenant).getSpec().getRules()).as("its route's rules, bound").allSatisfy(r -> assertThat(r.getFilters())
        .anySatisfy(f -> assertThat(f.getExtensionRef().getName()).isEqualTo(EdgeGate.NAME)));
    for (int i = 0; i < 20; i++) {
      assertThat(edge.get(host)).as("served through its open gate").isEqualTo(new TraefikEdge.Answer(200, "spare"));
    }
  }

  /** {@code serving} in the allocation's answer, asked with {@code ?wait=30s}. */
  private static boolean serving(String requestId) {
    HttpRequest status = HttpRequest.newBuilder(URI.create(allocations.uri() + "/" + requestId + "?wait=30s"))
        .header("Authorization", "Bearer " + TOKEN).timeout(Duration.ofSeconds(40)).GET().build();
    return allocations.send(status).body().path("serving").asBoolean();
  }

  private static String host(String tenant) {
    return tenant + "." + BASE_DOMAIN;
  }

  private static HTTPRoute route(String tenant) {
    return client.resources(HTTPRoute.class).inNamespace("tenant-" + tenant).withName("tenant").get();
  }

  private static TraefikMiddleware gate(String tenant) {
    return client.resources(TraefikMiddleware.class).inNamespace("tenant-" + tenant).withName(EdgeGate.NAME).get();
  }
}
