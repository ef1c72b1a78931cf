package io.tenantry.controller.operator;

import static io.tenantry.controller.operator.OperatorHarness.awaitPhase;
import static io.tenantry.controller.operator.OperatorHarness.setState;
import static io.tenantry.controller.operator.OperatorHarness.tenant;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.gatewayapi.v1.Gateway;
import io.fabric8.kubernetes.api.model.gatewayapi.v1.HTTPRoute;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.tenantry.api.Spares;
import io.tenantry.api.v1alpha1.AppRoute;
import io.tenantry.api.v1alpha1.AppSpec;
import io.tenantry.api.v1alpha1.SparePool;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.spares.fleet.InMemoryFleetRecords;
import io.tenantry.testsupport.ClusterKind;
import io.tenantry.testsupport.Crds;
import io.tenantry.testsupport.TestCluster;
import io.tenantry.testsupport.TestClusters;
import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Real traffic, end to end: HTTP requests through Traefik, a Gateway API implementation built from
 * its Go module (tools/build-traefik.sh), on the routes the operator writes. The simulated
 * cluster's one node is named "host-network", so its pods get this machine's address
 * (tools/kwok-pod-stages.yaml), and the test serves their ports itself ({@link TraefikEdge}): each
 * tenant's app gets a port of its own, so the server that answers names the tenant whose Service
 * Traefik chose.
 */
class GatewayTrafficIT {

  private static final String BASE_DOMAIN = "tenants.traffic.test";
  private static final String EDGE = TraefikEdge.NAMESPACE;
  private static final Duration CONVERGE = Duration.ofSeconds(90);
  /** routing.spareRoutesAhead: a pool's two longest-standing Ready spares have their route ahead. */
  private static final int ROUTES_AHEAD = 2;

  private static TestCluster cluster;
  private static KubernetesClient client;
  private static OperatorHarness harness;
  private static TraefikEdge edge;
  private static AllocationCalls allocations;
  private static final String TOKEN = "traffic-token";

  @BeforeAll
  static void start() throws Exception {
    cluster = TestClusters.start(ClusterKind.SIMULATED, "traffic", 0);
    client = cluster.newClient();
    Crds.installGatewayApi(client);
    edge = new TraefikEdge(cluster, client, List.of("acme", "globex", "spare"));
    harness = new OperatorHarness(cluster, OperatorConfig.defaults().with(
        "{routing: {mode: gateway, baseDomain: " + BASE_DOMAIN + ", scheme: http, spareRoutesAhead: " + ROUTES_AHEAD + "},"
            + " allocation: {servingProbeAddress: '" + edge.address() + "'}}"));
    allocations = harness.serveAllocations(new InMemoryFleetRecords(), TOKEN);
    edge.start();
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
  void eachHostnameReachesItsOwnTenantThenThePausedPageThenNothing() throws Exception {
    String acme = OperatorHarness.uniqueName("acme");
    String globex = OperatorHarness.uniqueName("globex");
    String acmeHost = acme + "." + BASE_DOMAIN;
    String acmeShop = "shop." + acme + ".example";
    String globexHost = globex + "." + BASE_DOMAIN;
    Tenant acmeTenant = servedBy("acme", tenant(acme, 2, false));
    acmeTenant.getSpec().setHostnames(List.of(acmeShop));
    client.resources(Tenant.class).resource(acmeTenant).create();
    client.resources(Tenant.class).resource(servedBy("globex", tenant(globex, 2, false))).create();

    await().atMost(CONVERGE).ignoreExceptions().until(() -> edge.get(acmeHost).status() == 200 && edge.get(globexHost).status() == 200);
    Map<String, String> expected = Map.of(acmeHost, "acme", acmeShop, "acme", globexHost, "globex");
    int requests = 0;
    for (int i = 0; i < 20; i++) {
      for (Map.Entry<String, String> host : expected.entrySet()) {
        assertThat(edge.get(host.getKey())).as("the answer to %s", host.getKey()).isEqualTo(new TraefikEdge.Answer(200, host.getValue()));
        requests++;
      }
    }
    System.out.printf("[traffic] %d requests through Traefik, each answered by its own tenant's app%n", requests);
    assertThat(edge.get("nobody." + BASE_DOMAIN).status()).isEqualTo(404);

    setState(client, acme, TenantState.Frozen);
    await().atMost(CONVERGE).ignoreExceptions().until(() -> edge.get(acmeHost).body().equals("paused"));
    assertThat(edge.get(acmeShop)).isEqualTo(new TraefikEdge.Answer(200, "paused"));
    assertThat(edge.get(globexHost)).isEqualTo(new TraefikEdge.Answer(200, "globex"));

    setState(client, acme, TenantState.Purged);
    awaitPhase(client, acme, TenantPhase.Purged, CONVERGE);
    await().atMost(CONVERGE).ignoreExceptions().until(() -> edge.get(acmeHost).status() == 404);
    assertThat(edge.get(acmeShop).status()).isEqualTo(404);
    assertThat(edge.get(globexHost)).isEqualTo(new TraefikEdge.Answer(200, "globex"));
  }

  @Test
  void aGatewayThatRefusesTheTenantsRouteTurnsRoutedFalseUntilItAdmitsItAgain() throws Exception {
    String initech = OperatorHarness.uniqueName("initech");
    client.resources(Tenant.class).resource(servedBy("acme", tenant(initech, 1, false))).create();
    await().atMost(CONVERGE).until(() -> RoutingScenarios.routed(client.resources(Tenant.class).withName(initech).get())
        .startsWith("True Routed"));
    try {
      allowRoutesFrom("Same");
      await().atMost(CONVERGE).until(() -> RoutingScenarios.routed(client.resources(Tenant.class).withName(initech).get())
          .startsWith("False RouteRefused Gateway " + EDGE + "/tenantry refused HTTPRoute tenant-" + initech
              + "/tenant: Accepted=False NotAllowedByListeners"));
      // Traefik writes its verdict before it reloads its routers: for a moment the host may still answer 503.
      await().atMost(CONVERGE).ignoreExceptions().until(() -> edge.get(initech + "." + BASE_DOMAIN).status() == 404);
    } finally {
      allowRoutesFrom("All");
    }
    await().atMost(CONVERGE).until(() -> RoutingScenarios.routed(client.resources(Tenant.class).withName(initech).get())
        .startsWith("True Routed"));
    await().atMost(CONVERGE).ignoreExceptions().until(() -> edge.get(initech + "." + BASE_DOMAIN).equals(new TraefikEdge.Answer(200, "acme")));
  }

  @Test
  void aSpareAnswersNothingOfItsOwnUntilBoundThenItsCustomerIsServedOnTheRouteItHadAllAlong() throws Exception {
    SparePool pool = OperatorHarness.sparePool("traffic", 2, 2);
    AppSpec web = pool.getSpec().getTemplate().getApps().get(0);
    web.setPort(edge.appPort("spare"));
    web.getRoutes().add(new AppRoute("/"));
    client.resources(SparePool.class).resource(pool).create();
    await().atMost(CONVERGE).until(() -> OperatorHarness.readySpares(client, "traffic").size() == 2
        && OperatorHarness.readySpares(client, "traffic").stream().allMatch(t -> TraefikEdge.accepted(client, t.getMetadata().getName())));
    List<String> spares = OperatorHarness.readySpares(client, "traffic").stream().map(t -> t.getMetadata().getName()).toList();
    for (String spare : spares) {
      // Traefik writes its verdict before it reloads its routers: for a moment the host may still answer 404.
      await().atMost(CONVERGE).ignoreExceptions().until(() -> edge.get(spare + "." + BASE_DOMAIN).status() != 404);
      for (int i = 0; i < 20; i++) {
        assertThat(edge.get(spare + "." + BASE_DOMAIN).status()).as("a waiting spare, through the edge").isEqualTo(503);
      }
      assertThat(TraefikEdge.readyEndpoints(client, spare)).as("nor reachable by its Service in the cluster").isZero();
    }

    AllocationCalls.Answer bound = allocations.allocate("traffic-1", "Spare Customer", "ops@spare.example", "traffic");
    assertThat(bound.status()).as(bound.body().toString()).isEqualTo(200);
    String tenant = bound.tenant();
    String other = spares.stream().filter(s -> !s.equals(tenant)).findFirst().orElseThrow();
    await().atMost(CONVERGE).ignoreExceptions().until(() -> edge.get(tenant + "." + BASE_DOMAIN).equals(new TraefikEdge.Answer(200, "spare")));
    HttpRequest status = HttpRequest.newBuilder(URI.create(allocations.uri() + "/traffic-1?wait=30s"))
        .header("Authorization", "Bearer " + TOKEN).timeout(Duration.ofSeconds(40)).GET().build();
    assertThat(allocations.send(status).body().path("serving").asBoolean()).as("the allocation answer").isTrue();
    assertThat(client.resources(HTTPRoute.class).inNamespace("tenant-" + tenant).withName("tenant").get().getMetadata().getGeneration())
        .as("its route, as written with the spare").isEqualTo(1L);
    assertThat(TraefikEdge.readyEndpoints(client, tenant)).isEqualTo(1);
    assertThat(edge.get(other + "." + BASE_DOMAIN).status()).as("the spare still waiting").isEqualTo(503);
  }

  @Test
  void onlyTheSparesNextInLineHaveARouteABindMovesTheLineAndSparesBoundBeyondItServeToo() throws Exception {
    SparePool pool = OperatorHarness.sparePool("line", ROUTES_AHEAD, 3);
    AppSpec web = pool.getSpec().getTemplate().getApps().get(0);
    web.setPort(edge.appPort("spare"));
    web.getRoutes().add(new AppRoute("/"));
    client.resources(SparePool.class).resource(pool).create();
    await().atMost(CONVERGE).until(() -> OperatorHarness.readySpares(client, "line").size() == ROUTES_AHEAD);
    // One more, newer than the others: beyond the line. Created a second later at least, since creation times have
    // whole seconds and a tie goes by name. (A JSON patch: the operator writes the pool's status meanwhile.)
    Instant newest = OperatorHarness.readySpares(client, "line").stream()
        .map(t -> Instant.parse(t.getMetadata().getCreationTimestamp())).max(Comparator.naturalOrder()).orElseThrow();
    await().atMost(Duration.ofSeconds(2)).until(() -> Instant.now().isAfter(newest.plusSeconds(1)));
    client.resources(SparePool.class).withName("line").patch(PatchContext.of(PatchType.JSON),
        "[{\"op\": \"replace\", \"path\": \"/spec/buffer\", \"value\": " + (ROUTES_AHEAD + 1) + "}]");
    await().atMost(CONVERGE).until(() -> OperatorHarness.readySpares(client, "line").size() == ROUTES_AHEAD + 1);
    harness.awaitIdle();
    List<String> byAge = OperatorHarness.readySpares(client, "line").stream().sorted(Spares.LONGEST_STANDING)
        .map(t -> t.getMetadata().getName()).toList();
    String beyond = byAge.get(ROUTES_AHEAD);
    for (String spare : byAge.subList(0, ROUTES_AHEAD)) {
      await().atMost(CONVERGE).until(() -> TraefikEdge.accepted(client, spare));
      await().atMost(CONVERGE).ignoreExceptions().until(() -> edge.get(spare + "." + BASE_DOMAIN).status() == 503);
    }
    assertThat(client.resources(HTTPRoute.class).inNamespace("tenant-" + beyond).withName("tenant").get())
        .as("the route of a spare beyond the line").isNull();
    assertThat(edge.get(beyond + "." + BASE_DOMAIN).status()).as("its hostname, unknown to the edge").isEqualTo(404);

    AllocationCalls.Answer first = allocations.allocate("line-1", "Line Customer", "ops@line.example", "line");
    assertThat(first.tenant()).as("the longest standing").isEqualTo(byAge.get(0));
    await().atMost(CONVERGE).until(() -> TraefikEdge.accepted(client, beyond));
    await().atMost(CONVERGE).ignoreExceptions().until(() -> edge.get(beyond + "." + BASE_DOMAIN).status() == 503);

    // The refill's replacement, Ready: third in line again, so no route.
    await().atMost(CONVERGE).until(() -> OperatorHarness.readySpares(client, "line").size() == ROUTES_AHEAD + 1);
    harness.awaitIdle();
    String replacement = OperatorHarness.readySpares(client, "line").stream().map(t -> t.getMetadata().getName())
        .filter(name -> !byAge.contains(name)).findFirst().orElseThrow();
    assertThat(client.resources(HTTPRoute.class).inNamespace("tenant-" + replacement).withName("tenant").get()).isNull();

    // Three signups at once take all three: the last is bound beyond the line (unless the line reached it first)
    // and gets its route from its bind. Every customer is served.
    List<AllocationCalls.Answer> answers = IntStream.rangeClosed(2, 4).parallel()
        .mapToObj(i -> allocations.allocate("line-" + i, "Line Customer " + i, "ops@line.example", "line")).toList();
    assertThat(answers).allSatisfy(a -> assertThat(a.status()).as(a.body().toString()).isEqualTo(200));
    assertThat(answers.stream().map(AllocationCalls.Answer::tenant)).containsExactlyInAnyOrder(byAge.get(1), beyond, replacement);
    for (String tenant : List.of(first.tenant(), byAge.get(1), beyond, replacement)) {
      await().atMost(CONVERGE).ignoreExceptions().until(() -> edge.get(tenant + "." + BASE_DOMAIN).equals(new TraefikEdge.Answer(200, "spare")));
    }
  }

  /**
   * Sets the shared Gateway's listener to admit routes from {@code from} (All, Same) namespaces. A
   * JSON patch without a resourceVersion: Traefik writes the Gateway's status meanwhile, and an
   * edit guarded by the version it read would meet a conflict.
   */
  private static void allowRoutesFrom(String from) {
    client.resources(Gateway.class).inNamespace(EDGE).withName("tenantry").patch(PatchContext.of(PatchType.JSON),
        "[{\"op\": \"replace\", \"path\": \"/spec/listeners/0/allowedRoutes/namespaces/from\", \"value\": \"" + from + "\"}]");
  }

  /** {@code tenant} with its app on the port of the backend {@code name}: only its pods are served there. */
  private static Tenant servedBy(String name, Tenant tenant) {
    tenant.getSpec().getApps().get(0).setPort(edge.appPort(name));
    return tenant;
  }
}
