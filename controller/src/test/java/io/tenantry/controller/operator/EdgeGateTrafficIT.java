package io.tenantry.controller.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.gatewayapi.v1.HTTPRoute;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.tenantry.api.WellKnown;
import io.tenantry.api.v1alpha1.AppRoute;
import io.tenantry.api.v1alpha1.AppSpec;
import io.tenantry.api.v1alpha1.SparePool;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.routing.BoundRoutes;
import io.tenantry.controller.routing.EdgeGate;
import io.tenantry.controller.routing.TraefikMiddleware;
import io.tenantry.spares.allocation.BindListener;
import io.tenantry.spares.allocation.SpareCluster;
import io.tenantry.spares.fleet.Allocation;
import io.tenantry.spares.fleet.InMemoryFleetRecords;
import io.tenantry.testsupport.ClusterKind;
import io.tenantry.testsupport.Crds;
import io.tenantry.testsupport.TestCluster;
import io.tenantry.testsupport.TestClusters;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
  private static int operatorPort;

  @BeforeAll
  static void start() throws Exception {
    cluster = TestClusters.start(ClusterKind.SIMULATED, "edge-gate", 0);
    client = cluster.newClient();
    Crds.installGatewayApi(client);
    Crds.installTraefik(client);
    edge = new TraefikEdge(cluster, client, List.of("spare"));
    operatorPort = TraefikEdge.freePort();
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
    List<String> spares = readyRoutedSpares("gated", 2);
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
    assertTheGateLetsThroughOnlyTheTenantsOwnHostnames(tenant);

    // Bound with a subdomain: the route keeps its open gate and gains the customer's hostname.
    AllocationCalls.Answer named = allocations.allocate("gate-2", "Named Customer", "ops@named.example", "gated", "welcome");
    assertThat(named.status()).as(named.body().toString()).isEqualTo(200);
    assertThat(serving("gate-2")).as("the allocation's answer, waited for").isTrue();
    assertThat(edge.get(host("welcome"))).as("told serving: its URL serves").isEqualTo(new TraefikEdge.Answer(200, "spare"));
    assertGateOpens(named.tenant(), host("welcome"));
  }

  @Test
  void aBindThatFailsAfterItsSubdomainsRouteWasWrittenAheadLeavesThatHostnameToNoOneAndTheSpareItsOwnRoute() throws Exception {
    String spare = readyRoutedSpares("lost", 1).get(0);
    BoundRoutes routes = harness.operator.boundRoutes();
    // Another replica's bind lands between this one's route written ahead and its own: this one's is refused (409).
    BindListener takenMeanwhile = new BindListener() {
      @Override
      public Runnable binding(Tenant cached, Tenant binding) {
        Runnable notBound = routes.binding(cached, binding);
        await().atMost(CONVERGE).until(() -> route(spare).getSpec().getHostnames().equals(List.of(host("lost-name"))));
        client.resources(Tenant.class).withName(spare).edit(t -> {
          t.getMetadata().setAnnotations(new HashMap<>(t.getMetadata().getAnnotations() == null ? Map.of()
              : t.getMetadata().getAnnotations()));
          t.getMetadata().getAnnotations().put("example.com/touched", "by another replica");
          return t;
        });
        return notBound;
      }

      @Override
      public void bound(Tenant bound) {
        routes.bound(bound);
      }
    };
    Tenant cached = OperatorHarness.readySpares(client, "lost").get(0);
    Allocation allocation = new Allocation("lost-1", "Lost Customer", "ops@lost.example", spare, cached.getMetadata().getUid(),
        "local", "tenant-" + spare, Instant.now(), "lost-name");
    try (SpareCluster cluster = new SpareCluster("local", client, false, takenMeanwhile)) {
      assertThat(cluster.bind(spare, allocation)).as("taken meanwhile: not bound").isFalse();
    }

    await().atMost(CONVERGE).until(() -> route(spare).getSpec().getHostnames().equals(List.of(host(spare))));
    assertThat(client.resources(Tenant.class).withName(spare).get().getSpec().getState()).isEqualTo(TenantState.New);
    for (int i = 0; i < 10; i++) {
      assertThat(edge.get(host("lost-name")).status()).as("the name written ahead, then given back: no one's").isEqualTo(404);
    }
    await().atMost(CONVERGE).ignoreExceptions().until(() -> edge.get(host(spare)).body().equals("not found"));
    assertThat(edge.get(host(spare))).as("the spare, still waiting").isEqualTo(new TraefikEdge.Answer(404, "not found"));
  }

  @Test
  void whileTheBufferCoversABurstsReplacementWaitsUntilTheEdgeJudgedItsCustomersNewRoute() throws Exception {
    readyRoutedSpares("patient", 2);
    Instant bound;
    edge.pause();
    try {
      AllocationCalls.Answer named = allocations.allocate("patient-1", "Patient Customer", "ops@patient.example", "patient",
          "patient-name");
      assertThat(named.status()).as(named.body().toString()).isEqualTo(200);
      bound = Instant.now();
      await().atMost(CONVERGE).until(() -> route(named.tenant()).getSpec().getHostnames().contains(host("patient-name")));
      // Without the edge's verdict on the subdomain's route, the replacement waits (else built a second after the bind).
      await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(4)).until(() -> spares("patient") == 2);
    } finally {
      edge.resume();
    }
    await().atMost(CONVERGE).until(() -> spares("patient") == 3);
    assertThat(Duration.between(bound, Instant.now())).as("built once the edge judged the route, before the 10 s bound")
        .isLessThan(Duration.ofSeconds(9));
    await().atMost(CONVERGE).ignoreExceptions().until(() -> edge.get(host("patient-name")).status() == 200);
  }

  /** How many tenants the pool has built, bound or not. */
  private static int spares(String pool) {
    return client.resources(Tenant.class).withLabel(WellKnown.SPARE_POOL, pool).list().getItems().size();
  }

  /** A pool of {@code size} spares of one app routed at "/", once all are Ready with their routes accepted: their names. */
  private static List<String> readyRoutedSpares(String name, int size) {
    SparePool pool = OperatorHarness.sparePool(name, size, size);
    AppSpec web = pool.getSpec().getTemplate().getApps().get(0);
    web.setPort(edge.appPort("spare"));
    web.getRoutes().add(new AppRoute("/"));
    client.resources(SparePool.class).resource(pool).create();
    await().atMost(CONVERGE).until(() -> OperatorHarness.readySpares(client, name).size() == size
        && OperatorHarness.readySpares(client, name).stream().allMatch(t -> TraefikEdge.accepted(client, t.getMetadata().getName())));
    return OperatorHarness.readySpares(client, name).stream().map(t -> t.getMetadata().getName()).toList();
  }

  /**
   * A route the bound tenant does not hold the hostname of, through a gate asking about it (as a
   * subdomain's route written ahead of a bind that then failed would be): refused, while its own
   * hostname goes through, as Traefik tells the operator the request's host. Routes of their own
   * (path /probe, to a Service with no pod: 503 once through), so the tenant's gate may open meanwhile.
   */
  private static void assertTheGateLetsThroughOnlyTheTenantsOwnHostnames(String tenant) throws Exception {
    String probe = """
        apiVersion: v1
        kind: Namespace
        metadata: {name: gate-probe}
        ---
        apiVersion: v1
        kind: Service
        metadata: {name: no-pod, namespace: gate-probe}
        spec:
          selector: {app: no-pod}
          ports: [{name: http, port: 80}]
        ---
        apiVersion: traefik.io/v1alpha1
        kind: Middleware
        metadata: {name: ask, namespace: gate-probe}
        spec:
          forwardAuth: {address: 'http://127.0.0.1:%1$d%2$s%3$s'}
        ---
        apiVersion: gateway.networking.k8s.io/v1
        kind: HTTPRoute
        metadata: {name: probe, namespace: gate-probe}
        spec:
          parentRefs: [{name: tenantry, namespace: %4$s}]
          hostnames: [%5$s, stranger.%6$s]
          rules:
          - matches: [{path: {type: PathPrefix, value: /probe}}]
            filters: [{type: ExtensionRef, extensionRef: {group: traefik.io, kind: Middleware, name: ask}}]
            backendRefs: [{name: no-pod, port: 80}]
        """.formatted(operatorPort, EdgeGate.PATH, tenant, TraefikEdge.NAMESPACE, host(tenant), BASE_DOMAIN);
    client.resourceList(client.load(new ByteArrayInputStream(probe.getBytes(StandardCharsets.UTF_8))).items())
        .forceConflicts().serverSideApply();
    await().atMost(CONVERGE).ignoreExceptions().until(() -> edge.get(host(tenant), "/probe").status() == 503);
    for (int i = 0; i < 10; i++) {
      assertThat(edge.get(host(tenant), "/probe").status()).as("its own hostname: through the gate, to no pod").isEqualTo(503);
      assertThat(edge.get("stranger." + BASE_DOMAIN, "/probe")).as("a hostname it does not hold: refused by the gate")
          .isEqualTo(new TraefikEdge.Answer(404, "not found"));
    }
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
