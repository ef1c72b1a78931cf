package io.tenantry.controller.operator;

import static io.tenantry.controller.operator.OperatorHarness.awaitPhase;
import static io.tenantry.controller.operator.OperatorHarness.setState;
import static io.tenantry.controller.operator.OperatorHarness.tenant;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
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
import io.tenantry.testsupport.TestBinaries;
import io.tenantry.testsupport.TestCluster;
import io.tenantry.testsupport.TestClusters;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Real traffic, end to end: HTTP requests through Traefik, a Gateway API implementation built from
 * its Go module (tools/build-traefik.sh), on the routes the operator writes. The simulated
 * cluster's one node is named "host-network", so its pods get this machine's address
 * (tools/kwok-pod-stages.yaml), and this test serves their ports itself: each tenant's app gets a
 * port of its own, so the server that answers names the tenant whose Service Traefik chose.
 */
class GatewayTrafficIT {

  private static final String BASE_DOMAIN = "tenants.traffic.test";
  private static final String EDGE = "tenantry-edge";
  private static final Duration CONVERGE = Duration.ofSeconds(90);
  /** routing.spareRoutesAhead: a pool's two longest-standing Ready spares have their route ahead. */
  private static final int ROUTES_AHEAD = 2;

  private static TestCluster cluster;
  private static KubernetesClient client;
  private static OperatorHarness harness;
  private static final Map<String, HttpServer> BACKENDS = new LinkedHashMap<>();
  private static Process traefik;
  private static int gatewayPort;
  private static AllocationCalls allocations;
  private static final String TOKEN = "traffic-token";

  @BeforeAll
  static void start() throws Exception {
    cluster = TestClusters.start(ClusterKind.SIMULATED, "traffic", 0);
    client = cluster.newClient();
    Crds.installGatewayApi(client);
    for (String name : List.of("acme", "globex", "paused", "spare")) {
      BACKENDS.put(name, backend(name));
    }
    gatewayPort = freePort();
    String edge = hostNetworkNode(machineAddress()) + edge(gatewayPort, BACKENDS.get("paused").getAddress().getPort());
    List<HasMetadata> objects = client.load(new ByteArrayInputStream(edge.getBytes(StandardCharsets.UTF_8))).items();
    // Namespaces first: a pod is refused until its namespace's default ServiceAccount is made.
    List<HasMetadata> namespaces = objects.stream().filter(o -> o instanceof Namespace).toList();
    client.resourceList(namespaces).forceConflicts().serverSideApply();
    namespaces.forEach(ns -> await().atMost(Duration.ofSeconds(30)).until(() ->
        client.serviceAccounts().inNamespace(ns.getMetadata().getName()).withName("default").get() != null));
    client.resourceList(objects.stream().filter(o -> !(o instanceof Namespace)).toList()).forceConflicts().serverSideApply();
    harness = new OperatorHarness(cluster, OperatorConfig.defaults().with(
        "{routing: {mode: gateway, baseDomain: " + BASE_DOMAIN + ", scheme: http, spareRoutesAhead: " + ROUTES_AHEAD + "},"
            + " allocation: {servingProbeAddress: '127.0.0.1:" + gatewayPort + "'}}"));
    allocations = harness.serveAllocations(new InMemoryFleetRecords(), TOKEN);
    traefik = startTraefik();
  }

  @AfterAll
  static void stop() throws Exception {
    if (traefik != null) {
      traefik.destroy();
      traefik.waitFor();
    }
    if (harness != null) {
      harness.close();
    }
    BACKENDS.values().forEach(server -> server.stop(0));
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

    await().atMost(CONVERGE).ignoreExceptions().until(() -> get(acmeHost).status() == 200 && get(globexHost).status() == 200);
    Map<String, String> expected = Map.of(acmeHost, "acme", acmeShop, "acme", globexHost, "globex");
    int requests = 0;
    for (int i = 0; i < 20; i++) {
      for (Map.Entry<String, String> host : expected.entrySet()) {
        assertThat(get(host.getKey())).as("the answer to %s", host.getKey()).isEqualTo(new Answer(200, host.getValue()));
        requests++;
      }
    }
    System.out.printf("[traffic] %d requests through Traefik, each answered by its own tenant's app%n", requests);
    assertThat(get("nobody." + BASE_DOMAIN).status()).isEqualTo(404);

    setState(client, acme, TenantState.Frozen);
    await().atMost(CONVERGE).ignoreExceptions().until(() -> get(acmeHost).body().equals("paused"));
    assertThat(get(acmeShop)).isEqualTo(new Answer(200, "paused"));
    assertThat(get(globexHost)).isEqualTo(new Answer(200, "globex"));

    setState(client, acme, TenantState.Purged);
    awaitPhase(client, acme, TenantPhase.Purged, CONVERGE);
    await().atMost(CONVERGE).ignoreExceptions().until(() -> get(acmeHost).status() == 404);
    assertThat(get(acmeShop).status()).isEqualTo(404);
    assertThat(get(globexHost)).isEqualTo(new Answer(200, "globex"));
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
      await().atMost(CONVERGE).ignoreExceptions().until(() -> get(initech + "." + BASE_DOMAIN).status() == 404);
    } finally {
      allowRoutesFrom("All");
    }
    await().atMost(CONVERGE).until(() -> RoutingScenarios.routed(client.resources(Tenant.class).withName(initech).get())
        .startsWith("True Routed"));
    await().atMost(CONVERGE).ignoreExceptions().until(() -> get(initech + "." + BASE_DOMAIN).equals(new Answer(200, "acme")));
  }

  @Test
  void aSpareAnswersNothingOfItsOwnUntilBoundThenItsCustomerIsServedOnTheRouteItHadAllAlong() throws Exception {
    SparePool pool = OperatorHarness.sparePool("traffic", 2, 2);
    AppSpec web = pool.getSpec().getTemplate().getApps().get(0);
    web.setPort(BACKENDS.get("spare").getAddress().getPort());
    web.getRoutes().add(new AppRoute("/"));
    client.resources(SparePool.class).resource(pool).create();
    await().atMost(CONVERGE).until(() -> OperatorHarness.readySpares(client, "traffic").size() == 2
        && OperatorHarness.readySpares(client, "traffic").stream().allMatch(t -> accepted(t.getMetadata().getName())));
    List<String> spares = OperatorHarness.readySpares(client, "traffic").stream().map(t -> t.getMetadata().getName()).toList();
    for (String spare : spares) {
      // Traefik writes its verdict before it reloads its routers: for a moment the host may still answer 404.
      await().atMost(CONVERGE).ignoreExceptions().until(() -> get(spare + "." + BASE_DOMAIN).status() != 404);
      for (int i = 0; i < 20; i++) {
        assertThat(get(spare + "." + BASE_DOMAIN).status()).as("a waiting spare, through the edge").isEqualTo(503);
      }
      assertThat(readyEndpoints(spare)).as("nor reachable by its Service in the cluster").isZero();
    }

    AllocationCalls.Answer bound = allocations.allocate("traffic-1", "Spare Customer", "ops@spare.example", "traffic");
    assertThat(bound.status()).as(bound.body().toString()).isEqualTo(200);
    String tenant = bound.tenant();
    String other = spares.stream().filter(s -> !s.equals(tenant)).findFirst().orElseThrow();
    await().atMost(CONVERGE).ignoreExceptions().until(() -> get(tenant + "." + BASE_DOMAIN).equals(new Answer(200, "spare")));
    HttpRequest status = HttpRequest.newBuilder(URI.create(allocations.uri() + "/traffic-1?wait=30s"))
        .header("Authorization", "Bearer " + TOKEN).timeout(Duration.ofSeconds(40)).GET().build();
    assertThat(allocations.send(status).body().path("serving").asBoolean()).as("the allocation answer").isTrue();
    assertThat(client.resources(HTTPRoute.class).inNamespace("tenant-" + tenant).withName("tenant").get().getMetadata().getGeneration())
        .as("its route, as written with the spare").isEqualTo(1L);
    assertThat(readyEndpoints(tenant)).isEqualTo(1);
    assertThat(get(other + "." + BASE_DOMAIN).status()).as("the spare still waiting").isEqualTo(503);
  }

  @Test
  void onlyTheSparesNextInLineHaveARouteABindMovesTheLineAndSparesBoundBeyondItServeToo() throws Exception {
    SparePool pool = OperatorHarness.sparePool("line", ROUTES_AHEAD, 3);
    AppSpec web = pool.getSpec().getTemplate().getApps().get(0);
    web.setPort(BACKENDS.get("spare").getAddress().getPort());
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
      await().atMost(CONVERGE).until(() -> accepted(spare));
      await().atMost(CONVERGE).ignoreExceptions().until(() -> get(spare + "." + BASE_DOMAIN).status() == 503);
    }
    assertThat(client.resources(HTTPRoute.class).inNamespace("tenant-" + beyond).withName("tenant").get())
        .as("the route of a spare beyond the line").isNull();
    assertThat(get(beyond + "." + BASE_DOMAIN).status()).as("its hostname, unknown to the edge").isEqualTo(404);

    AllocationCalls.Answer first = allocations.allocate("line-1", "Line Customer", "ops@line.example", "line");
    assertThat(first.tenant()).as("the longest standing").isEqualTo(byAge.get(0));
    await().atMost(CONVERGE).until(() -> accepted(beyond));
    await().atMost(CONVERGE).ignoreExceptions().until(() -> get(beyond + "." + BASE_DOMAIN).status() == 503);

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
      await().atMost(CONVERGE).ignoreExceptions().until(() -> get(tenant + "." + BASE_DOMAIN).equals(new Answer(200, "spare")));
    }
  }

  private static boolean accepted(String tenant) {
    HTTPRoute route = client.resources(HTTPRoute.class).inNamespace("tenant-" + tenant).withName("tenant").get();
    return route != null && route.getStatus() != null && route.getStatus().getParents() != null
        && route.getStatus().getParents().stream().flatMap(p -> p.getConditions().stream())
            .anyMatch(c -> "Accepted".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  /** The ready endpoints of the tenant's web Service, in its EndpointSlices. */
  private static long readyEndpoints(String tenant) {
    return client.discovery().v1().endpointSlices().inNamespace("tenant-" + tenant)
        .withLabel("kubernetes.io/service-name", "app-web").list().getItems().stream()
        .flatMap(slice -> slice.getEndpoints() == null ? java.util.stream.Stream.empty() : slice.getEndpoints().stream())
        .filter(e -> e.getConditions() != null && Boolean.TRUE.equals(e.getConditions().getReady())).count();
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
    tenant.getSpec().getApps().get(0).setPort(BACKENDS.get(name).getAddress().getPort());
    return tenant;
  }

  private record Answer(int status, String body) {
  }

  /** GET / for {@code host} through the gateway (a raw request: Java's clients refuse to set Host). */
  private static Answer get(String host) throws IOException {
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), gatewayPort)) {
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      out.write(("GET / HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      out.flush();
      String response = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      int status = Integer.parseInt(response.substring(9, 12));
      String body = response.substring(response.indexOf("\r\n\r\n") + 4).strip();
      return new Answer(status, body);
    }
  }

  /** A server on every address of this machine, at a free port, that answers {@code name}. */
  private static HttpServer backend(String name) throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress(0), 64);
    byte[] body = name.getBytes(StandardCharsets.UTF_8);
    server.createContext("/", exchange -> {
      exchange.sendResponseHeaders(200, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    });
    server.setExecutor(Executors.newFixedThreadPool(2));
    server.start();
    return server;
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  /** This machine's first IPv4 address that is neither loopback nor link-local (the API server refuses those for pods). */
  private static String machineAddress() throws IOException {
    return NetworkInterface.networkInterfaces().filter(n -> {
      try {
        return n.isUp() && !n.isLoopback();
      } catch (IOException e) {
        return false;
      }
    }).flatMap(NetworkInterface::inetAddresses)
        .filter(a -> a instanceof Inet4Address && !a.isLoopbackAddress() && !a.isLinkLocalAddress())
        .map(InetAddress::getHostAddress).findFirst()
        .orElseThrow(() -> new IllegalStateException("this machine has no IPv4 address but loopback and link-local"));
  }

  /** The one node: kwok gives its pods its address (tools/kwok-pod-stages.yaml). */
  private static String hostNetworkNode(String address) {
    return """
        apiVersion: v1
        kind: Node
        metadata:
          name: host-network
          annotations: {kwok.x-k8s.io/node: fake}
          labels: {kubernetes.io/hostname: host-network, type: kwok}
        status:
          addresses: [{type: InternalIP, address: %s}]
          allocatable: {cpu: "32", memory: 256Gi, pods: "110", ephemeral-storage: 1Ti}
          capacity: {cpu: "32", memory: 256Gi, pods: "110", ephemeral-storage: 1Ti}
        ---
        """.formatted(address);
  }

  /**
   * The edge, as a platform team would set it up: Traefik's GatewayClass, the shared Gateway
   * "tenantry" admitting routes from any namespace, and the paused page (a pod and its Service).
   */
  private static String edge(int gatewayPort, int pausedPort) {
    return """
        apiVersion: v1
        kind: Namespace
        metadata: {name: %1$s}
        ---
        apiVersion: gateway.networking.k8s.io/v1
        kind: GatewayClass
        metadata: {name: traefik}
        spec: {controllerName: traefik.io/gateway-controller}
        ---
        apiVersion: gateway.networking.k8s.io/v1
        kind: Gateway
        metadata: {name: tenantry, namespace: %1$s}
        spec:
          gatewayClassName: traefik
          listeners:
          - {name: web, protocol: HTTP, port: %2$d, allowedRoutes: {namespaces: {from: All}}}
        ---
        apiVersion: v1
        kind: Pod
        metadata: {name: paused, namespace: %1$s, labels: {app: paused}}
        spec:
          containers:
          - {name: page, image: registry.example.com/tenantry/paused:1, ports: [{name: http, containerPort: %3$d}]}
        ---
        apiVersion: v1
        kind: Service
        metadata: {name: tenantry-paused, namespace: %1$s}
        spec:
          selector: {app: paused}
          ports: [{name: http, port: 80, targetPort: http}]
        """.formatted(EDGE, gatewayPort, pausedPort);
  }

  /** Traefik with its Gateway API provider, reading the cluster through a kubeconfig; entrypoint = the listener's port. */
  private static Process startTraefik() throws IOException {
    Path binary = TestBinaries.locate().cacheDir().resolve("bin").resolve("traefik");
    if (!Files.isExecutable(binary)) {
      throw new IllegalStateException(binary + " is missing: run tools/build-test-binaries.sh");
    }
    Path kubeconfig = Files.createTempFile("traffic-kubeconfig-", ".yaml");
    Files.writeString(kubeconfig, cluster.kubeconfigYaml());
    Path log = Files.createTempFile("traefik-", ".log");
    ProcessBuilder builder = new ProcessBuilder(binary.toString(),
        "--entryPoints.web.address=127.0.0.1:" + gatewayPort,
        "--providers.kubernetesGateway=true",
        "--global.checkNewVersion=false", "--global.sendAnonymousUsage=false",
        "--log.level=INFO")
        .redirectErrorStream(true).redirectOutput(log.toFile());
    builder.environment().put("KUBECONFIG", kubeconfig.toString());
    Process process = builder.start();
    System.out.println("[traffic] Traefik " + binary + " on 127.0.0.1:" + gatewayPort + ", log " + log);
    return process;
  }
}
