package io.tenantry.controller.operator;

import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.gatewayapi.v1.HTTPRoute;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.tenantry.testsupport.TestBinaries;
import io.tenantry.testsupport.TestCluster;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;

/**
 * The edge of the real-traffic tests: Traefik (built from its Go module, tools/build-traefik.sh)
 * on the simulated cluster, the shared Gateway "tenantry" in {@link #NAMESPACE}, the paused page,
 * and the app servers. The cluster's one node is named "host-network", so its pods get this
 * machine's address (tools/kwok-pod-stages.yaml), and the servers listen on every address: each
 * app gets a port of its own, so the server that answers names the Service Traefik chose.
 */
final class TraefikEdge implements AutoCloseable {

  static final String NAMESPACE = "tenantry-edge";

  /** An answer through the edge. */
  record Answer(int status, String body) {
  }

  private final TestCluster cluster;
  private final Map<String, HttpServer> backends = new LinkedHashMap<>();
  private final int port;
  private Process traefik;

  /** The node, the edge namespace, Gateway and paused page, and a server for "paused" and each of {@code apps}. */
  TraefikEdge(TestCluster cluster, KubernetesClient client, List<String> apps) throws IOException {
    this.cluster = cluster;
    backends.put("paused", backend("paused"));
    for (String name : apps) {
      backends.put(name, backend(name));
    }
    port = freePort();
    String edge = hostNetworkNode(machineAddress()) + edge(port, backends.get("paused").getAddress().getPort());
    List<HasMetadata> objects = client.load(new ByteArrayInputStream(edge.getBytes(StandardCharsets.UTF_8))).items();
    // Namespaces first: a pod is refused until its namespace's default ServiceAccount is made.
    List<HasMetadata> namespaces = objects.stream().filter(o -> o instanceof Namespace).toList();
    client.resourceList(namespaces).forceConflicts().serverSideApply();
    namespaces.forEach(ns -> await().atMost(Duration.ofSeconds(30)).until(() ->
        client.serviceAccounts().inNamespace(ns.getMetadata().getName()).withName("default").get() != null));
    client.resourceList(objects.stream().filter(o -> !(o instanceof Namespace)).toList()).forceConflicts().serverSideApply();
  }

  /** Starts Traefik with its Gateway API provider, and {@code flags} besides (another provider). */
  void start(String... flags) throws IOException {
    Path binary = TestBinaries.locate().cacheDir().resolve("bin").resolve("traefik");
    if (!Files.isExecutable(binary)) {
      throw new IllegalStateException(binary + " is missing: run tools/build-test-binaries.sh");
    }
    Path kubeconfig = Files.createTempFile("traffic-kubeconfig-", ".yaml");
    Files.writeString(kubeconfig, cluster.kubeconfigYaml());
    Path log = Files.createTempFile("traefik-", ".log");
    List<String> command = new ArrayList<>(List.of(binary.toString(),
        "--entryPoints.web.address=127.0.0.1:" + port,
        "--providers.kubernetesGateway=true",
        "--global.checkNewVersion=false", "--global.sendAnonymousUsage=false",
        "--log.level=INFO"));
    command.addAll(List.of(flags));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
    builder.environment().put("KUBECONFIG", kubeconfig.toString());
    traefik = builder.start();
    System.out.println("[traffic] Traefik " + binary + " on 127.0.0.1:" + port + ", log " + log);
  }

  /** The Gateway's listener, host:port. */
  String address() {
    return "127.0.0.1:" + port;
  }

  /** The port the app server {@code name} answers on, at every address of this machine. */
  int appPort(String name) {
    return backends.get(name).getAddress().getPort();
  }

  /** GET / for {@code host} through the gateway (a raw request: Java's clients refuse to set Host). */
  Answer get(String host) throws IOException {
    return get(host, "/");
  }

  /** GET {@code path} for {@code host} through the gateway. */
  Answer get(String host, String path) throws IOException {
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      out.write(("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      out.flush();
      String response = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      int status = Integer.parseInt(response.substring(9, 12));
      String body = response.substring(response.indexOf("\r\n\r\n") + 4).strip();
      return new Answer(status, body);
    }
  }

  /** Whether the Gateway accepted the tenant's HTTPRoute. */
  static boolean accepted(KubernetesClient client, String tenant) {
    HTTPRoute route = client.resources(HTTPRoute.class).inNamespace("tenant-" + tenant).withName("tenant").get();
    return route != null && route.getStatus() != null && route.getStatus().getParents() != null
        && route.getStatus().getParents().stream().flatMap(p -> p.getConditions().stream())
            .anyMatch(c -> "Accepted".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  /** The ready endpoints of the tenant's web Service, in its EndpointSlices. */
  static long readyEndpoints(KubernetesClient client, String tenant) {
    return client.discovery().v1().endpointSlices().inNamespace("tenant-" + tenant)
        .withLabel("kubernetes.io/service-name", "app-web").list().getItems().stream()
        .flatMap(slice -> slice.getEndpoints() == null ? java.util.stream.Stream.empty() : slice.getEndpoints().stream())
        .filter(e -> e.getConditions() != null && Boolean.TRUE.equals(e.getConditions().getReady())).count();
  }

  /** Stops Traefik where it is (SIGSTOP): it watches, judges and serves nothing until {@link #resume}. */
  void pause() throws IOException, InterruptedException {
    signal("-STOP");
  }

  void resume() throws IOException, InterruptedException {
    signal("-CONT");
  }

  private void signal(String signal) throws IOException, InterruptedException {
    int exit = new ProcessBuilder("kill", signal, Long.toString(traefik.pid())).inheritIO().start().waitFor();
    if (exit != 0) {
      throw new IllegalStateException("kill " + signal + " " + traefik.pid() + " exited " + exit);
    }
  }

  @Override
  public void close() throws InterruptedException {
    if (traefik != null) {
      traefik.destroy();
      traefik.waitFor();
    }
    backends.values().forEach(server -> server.stop(0));
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

  /** A port free on the loopback address just now. */
  static int freePort() throws IOException {
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
        """.formatted(NAMESPACE, gatewayPort, pausedPort);
  }
}
