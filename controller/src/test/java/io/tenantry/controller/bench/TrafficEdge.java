package io.tenantry.controller.bench;

import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.tenantry.controller.resources.Names;
import io.tenantry.testsupport.TestBinaries;
import io.tenantry.testsupport.TestCluster;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.function.BiConsumer;

/**
 * The edge of a benchmark cluster with real traffic: Traefik (built from its Go module by
 * tools/build-test-binaries.sh) as the Gateway API implementation, and one server on this machine
 * that plays every app pod. kwok nodes made here give pods addresses from their own pod CIDRs
 * inside {@link #POD_ADDRESSES}, which tools/bench-signup.sh routes to this machine (a local
 * route on lo), so a request Traefik sends to a pod arrives at that pod's own address: the server
 * answers with the namespace of the pod the address belongs to and the organization in that
 * namespace's identity ConfigMap. A 200 naming a tenant's namespace therefore came through that
 * tenant's Service, and nobody else's.
 */
final class TrafficEdge implements AutoCloseable {

  /** The pod addresses of the nodes made here: tools/bench-signup.sh makes them local to this machine. */
  static final String POD_ADDRESSES = "10.244.0.0/16";
  static final String EDGE_NAMESPACE = "tenantry-edge";
  private static final int PODS_PER_NODE = 250;
  /**
   * The kubernetesCRD provider's throttleDuration (docs/routing.md, Tuning the edge). That provider
   * carries only the spares' gates here, none of which a customer waits for, yet it loads and hashes
   * its whole configuration again after any change to the Services, EndpointSlices and Secrets it
   * watches in every namespace: at 100ms, a quarter of Traefik's CPU in a profile at 5 signups/s
   * from a pool of 1,200.
   */
  static final String CRD_THROTTLE = "2s";
  /**
   * Traefik's Go garbage collector target (GOGC; Go's default is 100; docs/routing.md, Tuning the edge). Each build
   * of the configuration allocates it anew, every route, and at 10 signups/s from 1,500 spares the collector was a
   * fifth of Traefik's CPU on a machine with no idle CPU: at 400 it collects a quarter as often, for more memory
   * (its peak is printed at the end).
   */
  static final String GOGC = "400";

  private final KubernetesClient admin;
  private final HttpServer backend;
  private final int gatewayPort;
  private final Process traefik;
  private final SharedIndexInformer<Pod> pods;
  private final SharedIndexInformer<ConfigMap> identities;
  /** Pod address to namespace. */
  private final Map<String, String> namespaceByAddress = new ConcurrentHashMap<>();
  /** Namespace to the organization its identity ConfigMap names. */
  private final Map<String, String> organizationByNamespace = new ConcurrentHashMap<>();

  /**
   * Makes {@code nodes} kwok nodes, Traefik's GatewayClass and the shared
   * Gateway "tenantry", starts the backend and Traefik ({@code throttle}: its
   * providersThrottleDuration, how long it waits after a change before it reloads;
   * {@code watchThrottle}: its Gateway provider's throttleDuration, how long that provider waits
   * after building the configuration before it builds it again for the next watched change).
   *
   * The cluster must serve the Gateway API already ({@code Crds.installGatewayApi}).
   *
   * @param crdProvider Traefik's kubernetesCRD provider on too (its Middlewares: spares gated at the
   *     edge), with {@link #CRD_THROTTLE}; its CRDs must be installed ({@code Crds.installTraefik})
   * @param identitySeen called with (namespace, organization) whenever an identity ConfigMap is seen
   */
  TrafficEdge(TestCluster cluster, KubernetesClient admin, int nodes, String throttle, String watchThrottle, boolean crdProvider,
      BiConsumer<String, String> identitySeen)
      throws IOException {
    this.admin = admin;
    backend = HttpServer.create(new InetSocketAddress(0), 256);
    backend.createContext("/", exchange -> {
      String namespace = namespaceByAddress.getOrDefault(exchange.getLocalAddress().getAddress().getHostAddress(), "");
      byte[] body = (namespace + "\n" + organizationByNamespace.getOrDefault(namespace, "")).getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(namespace.isEmpty() ? 502 : 200, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    });
    backend.setExecutor(Executors.newFixedThreadPool(8));
    backend.start();
    gatewayPort = freePort();
    apply(nodes(nodes) + edge(gatewayPort));
    pods = admin.pods().inAnyNamespace().inform(new OnChange<>(pod -> {
      if (pod.getStatus() != null && pod.getStatus().getPodIP() != null) {
        namespaceByAddress.put(pod.getStatus().getPodIP(), pod.getMetadata().getNamespace());
      }
    }), 0);
    identities = admin.configMaps().inAnyNamespace().withField("metadata.name", Names.IDENTITY).inform(new OnChange<>(cm -> {
      String organization = cm.getData() == null ? "" : cm.getData().getOrDefault("organization", "");
      organizationByNamespace.put(cm.getMetadata().getNamespace(), organization);
      identitySeen.accept(cm.getMetadata().getNamespace(), organization);
    }), 0);
    traefik = startTraefik(cluster, throttle, watchThrottle, crdProvider);
  }

  /** The Gateway's listener, host:port: where the operator's serving probe asks. */
  String gatewayAddress() {
    return "127.0.0.1:" + gatewayPort;
  }

  int appPort() {
    return backend.getAddress().getPort();
  }

  /** How many pods the nodes made for {@code tenants} one-pod tenants hold. */
  static int nodesFor(int tenants) {
    return 1 + tenants / PODS_PER_NODE;
  }

  /** An answer through the gateway. */
  record Answer(int status, String namespace, String organization) {
  }

  /** GET / for {@code host} through Traefik (a raw request: Java's clients refuse to set Host). */
  Answer get(String host) throws IOException {
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), gatewayPort)) {
      socket.setSoTimeout(10_000);
      socket.setTcpNoDelay(true);
      OutputStream out = socket.getOutputStream();
      out.write(("GET / HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      out.flush();
      String response = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      int status = Integer.parseInt(response.substring(9, 12));
      String[] body = response.substring(response.indexOf("\r\n\r\n") + 4).split("\n", 2);
      return new Answer(status, body[0].strip(), body.length > 1 ? body[1].strip() : "");
    }
  }

  /** Traefik's CPU time so far, in seconds (0 where the system does not tell). */
  double cpuSeconds() {
    return traefik.info().totalCpuDuration().map(d -> d.toNanos() / 1e9).orElse(0.0);
  }

  @Override
  public void close() throws InterruptedException {
    // What the edge cost, beside what it served: its configuration is built again on every change it watches.
    ProcessHandle.Info info = traefik.info();
    if (info.totalCpuDuration().isPresent() && info.startInstant().isPresent()) {
      System.out.printf("Traefik's CPU time over the run: %.1f s in %.1f s%n", info.totalCpuDuration().get().toMillis() / 1000.0,
          java.time.Duration.between(info.startInstant().get(), java.time.Instant.now()).toMillis() / 1000.0);
    }
    peakMemory().ifPresent(peak -> System.out.println("Traefik's peak resident memory: " + peak));
    traefik.destroy();
    traefik.waitFor();
    pods.close();
    identities.close();
    backend.stop(0);
  }

  /** Traefik's peak resident set (VmHWM), where the system tells it. */
  private Optional<String> peakMemory() {
    try {
      return Files.readAllLines(Path.of("/proc", Long.toString(traefik.pid()), "status")).stream()
          .filter(line -> line.startsWith("VmHWM:")).map(line -> line.substring("VmHWM:".length()).strip()).findFirst();
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  private void apply(String yaml) {
    List<HasMetadata> objects = admin.load(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8))).items();
    admin.resourceList(objects).forceConflicts().serverSideApply();
  }

  /** kwok nodes, each with its own /24 of {@link #POD_ADDRESSES} for its pods' addresses. */
  private static String nodes(int count) {
    StringBuilder yaml = new StringBuilder();
    for (int i = 0; i < count; i++) {
      yaml.append("""
          apiVersion: v1
          kind: Node
          metadata:
            name: edge-%1$d
            annotations: {kwok.x-k8s.io/node: fake}
            labels: {kubernetes.io/hostname: edge-%1$d, type: kwok}
          spec: {podCIDR: 10.244.%1$d.0/24}
          status:
            allocatable: {cpu: "64", memory: 512Gi, pods: "%2$d", ephemeral-storage: 1Ti}
            capacity: {cpu: "64", memory: 512Gi, pods: "%2$d", ephemeral-storage: 1Ti}
          ---
          """.formatted(i, PODS_PER_NODE));
    }
    return yaml.toString();
  }

  /** The edge as a platform team sets it up: Traefik's GatewayClass and the shared Gateway admitting routes from any namespace. */
  private static String edge(int gatewayPort) {
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
        """.formatted(EDGE_NAMESPACE, gatewayPort);
  }

  private Process startTraefik(TestCluster cluster, String throttle, String watchThrottle, boolean crdProvider) throws IOException {
    Path binary = TestBinaries.locate().cacheDir().resolve("bin").resolve("traefik");
    if (!Files.isExecutable(binary)) {
      throw new IllegalStateException(binary + " is missing: run tools/build-test-binaries.sh");
    }
    Path kubeconfig = Files.createTempFile("edge-kubeconfig-", ".yaml");
    Files.writeString(kubeconfig, cluster.kubeconfigYaml());
    Path log = Files.createTempFile("traefik-", ".log");
    List<String> command = new java.util.ArrayList<>(List.of(binary.toString(),
        "--entryPoints.web.address=127.0.0.1:" + gatewayPort,
        "--providers.kubernetesGateway=true",
        "--providers.providersThrottleDuration=" + throttle,
        "--providers.kubernetesGateway.throttleDuration=" + watchThrottle,
        "--providers.file.filename=" + defaultCertificate(),
        "--global.checkNewVersion=false", "--global.sendAnonymousUsage=false",
        "--log.level=WARN"));
    if (crdProvider) {
      command.addAll(List.of("--providers.kubernetesCRD=true", "--providers.kubernetesCRD.throttleDuration=" + CRD_THROTTLE));
    }
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
    builder.environment().put("KUBECONFIG", kubeconfig.toString());
    builder.environment().put("GOGC", GOGC);
    System.out.println("Traefik on 127.0.0.1:" + gatewayPort + " (providersThrottleDuration " + throttle
        + ", kubernetesGateway.throttleDuration " + watchThrottle
        + (crdProvider ? ", kubernetesCRD provider on, its throttleDuration " + CRD_THROTTLE : "") + ", GOGC " + GOGC
        + "), log " + log);
    return builder.start();
  }

  /**
   * A file provider's configuration giving the default TLS store a certificate (self-signed, made here
   * by openssl): without one Traefik generates a 2048-bit RSA key on every configuration reload, in
   * the path that publishes the new routes (50–500 ms of CPU on this machine), although no route here
   * serves TLS.
   */
  private static Path defaultCertificate() throws IOException {
    Path dir = Files.createTempDirectory("edge-tls-");
    Path cert = dir.resolve("tls.crt");
    Path key = dir.resolve("tls.key");
    Process openssl = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
        "-nodes", "-days", "2", "-subj", "/CN=" + EDGE_NAMESPACE, "-keyout", key.toString(), "-out", cert.toString())
        .redirectErrorStream(true).start();
    String output = new String(openssl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    try {
      if (openssl.waitFor() != 0) {
        throw new IOException("openssl could not make the edge's default certificate: " + output);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted making the edge's default certificate", e);
    }
    Path config = dir.resolve("tls.yaml");
    Files.writeString(config, """
        tls:
          stores:
            default:
              defaultCertificate: {certFile: %s, keyFile: %s}
        """.formatted(cert, key));
    return config;
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  /** An informer handler that sees adds and updates alike. */
  record OnChange<T>(java.util.function.Consumer<T> seen) implements ResourceEventHandler<T> {
    @Override
    public void onAdd(T obj) {
      seen.accept(obj);
    }

    @Override
    public void onUpdate(T oldObj, T newObj) {
      seen.accept(newObj);
    }

    @Override
    public void onDelete(T obj, boolean deletedFinalStateUnknown) {
    }
  }
}
