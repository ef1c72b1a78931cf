package io.tenantry.controller.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.tenantry.api.Spares;
import io.tenantry.api.WellKnown;
import io.tenantry.api.v1alpha1.AppSpec;
import io.tenantry.api.v1alpha1.SparePool;
import io.tenantry.api.v1alpha1.SparePoolSpec;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantTemplate;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.operator.AllocationService;
import io.tenantry.controller.operator.Operator;
import io.tenantry.secretstore.LocalSecretStore;
import io.tenantry.spares.DatastoreEmulator;
import io.tenantry.spares.fleet.DatastoreFleetRecords;
import io.tenantry.spares.fleet.FleetRecords;
import io.tenantry.testsupport.ClusterKind;
import io.tenantry.testsupport.Crds;
import io.tenantry.testsupport.TestCluster;
import io.tenantry.testsupport.TestClusters;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Prints allocation latency (p50, p99, max, as the signup service sees it over HTTP) and throughput
 * with C concurrent clients (default 32) draining a warm pool of S Ready spares (default 300), then
 * the time the pool takes to refill. The operator runs in this JVM on the simulated cluster, the
 * fleet records on the Datastore emulator. The pool is built with maxProvisioning 100 and drained
 * with the default of 5, so the refill runs behind the signups as it would in production; pass
 * a third argument to drain with another. A warm-up drain of a third of the pool comes first. Besides
 * the figures it prints the writes the API server took during the drain (from its own metrics) and
 * the ceiling: plain Tenant updates by 1 and by C clients. Run with tools/bench-allocation.sh [S] [C]
 * [maxProvisioning].
 */
public final class AllocationBenchmark {

  private static final String POOL = "bench";
  private static final int BUILD_PROVISIONING = 100;

  public static void main(String[] args) {
    int spares = args.length > 0 ? Integer.parseInt(args[0]) : 300;
    int clients = args.length > 1 ? Integer.parseInt(args[1]) : 32;
    int drainProvisioning = args.length > 2 ? Integer.parseInt(args[2]) : 5;
    // The figures are the point: the operator's per-object INFO lines would bury them.
    ((ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME))
        .setLevel(ch.qos.logback.classic.Level.WARN);
    int exit = 1;
    try (TestCluster cluster = TestClusters.start(ClusterKind.SIMULATED, "tenantry-bench-alloc", 1 + spares / 40);
         KubernetesClient admin = cluster.newClient();
         DatastoreEmulator emulator = DatastoreEmulator.start()) {
      Crds.install(admin, Tenant.class.getResource("/META-INF/fabric8/tenants.tenantry.io-v1.yml"));
      Crds.install(admin, SparePool.class.getResource("/META-INF/fabric8/sparepools.tenantry.io-v1.yml"));
      OperatorConfig config = OperatorConfig.defaults();
      config = config.with("""
          {httpPort: 0, probePort: 0, leaderElection: {enabled: false}, rateLimits: {qps: 1000, burst: 1000}, maxConcurrentRollouts: 200}""");
      Path work = Files.createTempDirectory("tenantry-bench-alloc-");
      Files.writeString(work.resolve("token"), "bench-token");
      config = config.with("{fleet: {datastoreProjectId: %s}, allocation: {enabled: true, tokenFile: '%s'}}"
          .formatted(DatastoreEmulator.PROJECT_ID, work.resolve("token")));
      FleetRecords records = new DatastoreFleetRecords(emulator.datastore(), "bench");
      KubernetesClient operatorClient = cluster.newClient();
      Operator.Parts parts = Operator.wire(operatorClient, config, "bench", LocalSecretStore.init(work, work.resolve("keyset.json")),
          records::purgeTenant, records);
      try (Operator operator = new Operator(operatorClient, config, "bench", () -> { }, parts)) {
        operator.start();
        try (AllocationService allocation = AllocationService.start(operator, config, operatorClient, records, Clock.systemUTC())) {
          run(admin, operator.httpPort(), spares, clients, drainProvisioning);
          exit = 0;
        }
      }
    } catch (Exception e) {
      e.printStackTrace();
    } finally {
      // The HTTP clients' threads would keep the JVM (and its CPU use) alive after the figures,
      // or after a failure.
      System.exit(exit);
    }
  }

  private static void run(KubernetesClient admin, int port, int spares, int clients, int drainProvisioning) throws Exception {
    TenantTemplate template = new TenantTemplate();
    template.getApps().add(new AppSpec("web", "registry.example.com/acme/web", "1.0.0", 1, 8080));
    SparePool pool = new SparePool();
    pool.getMetadata().setName(POOL);
    pool.setSpec(new SparePoolSpec(spares, BUILD_PROVISIONING, template));
    long building = System.nanoTime();
    admin.resources(SparePool.class).resource(pool).create();
    waitForReady(admin, spares);
    System.out.printf("pool of %d spares built in %.1f s (maxProvisioning %d)%n", spares,
        (System.nanoTime() - building) / 1e9, BUILD_PROVISIONING);

    HttpClient http = HttpClient.newBuilder().executor(Executors.newFixedThreadPool(clients)).build();
    URI uri = URI.create("http://localhost:" + port + "/v1/allocations");
    // Warm-up: a third of the pool at full concurrency, so that connections, the JIT (whose compiler
    // otherwise takes most of a core during a short drain) and Datastore sessions are warm; then
    // the pool is refilled before the measured drain.
    Calls warmUp = drain(http, uri, "warmup-", spares / 3, clients);
    waitForReady(admin, spares);
    System.out.printf("warm-up: %d allocations at %.0f/s, pool refilled%n", warmUp.latencies().size(), warmUp.perSecond());
    admin.resources(SparePool.class).withName(POOL).edit(p -> {
      p.getSpec().setMaxProvisioning(drainProvisioning);
      return p;
    });

    int toAllocate = spares - clients; // Leave some slack: the measured phase never meets an empty pool.
    Map<String, Double> writesBefore = writes(admin);
    Calls measured = drain(http, uri, "bench-", toAllocate, clients);
    Map<String, Double> writesAfter = writes(admin);
    System.out.printf("allocations: %d by %d clients in %.2f s = %.0f allocations/s; non-200 answers: %d%n",
        measured.latencies().size(), clients, measured.seconds(), measured.perSecond(), measured.failures());
    System.out.printf("latency: p50 %.1f ms, p99 %.1f ms, max %.1f ms%n", measured.ms(0.50), measured.ms(0.99), measured.ms(1.0));
    System.out.println("writes the API server took during the drain (10 or more):");
    writesAfter.forEach((write, count) -> {
      double during = count - writesBefore.getOrDefault(write, 0.0);
      if (during >= 10) {
        System.out.printf("  %6.0f %s%n", during, write);
      }
    });

    long refill = System.nanoTime();
    waitForReady(admin, spares);
    System.out.printf("refill: %d spares Ready again %.1f s after the drain ended (maxProvisioning %d)%n", spares,
        (System.nanoTime() - refill) / 1e9, drainProvisioning);

    // The ceiling, for comparison: Tenant updates (one PUT each, as a bind is) sent straight to the
    // API server, by one client (the floor of an allocation's latency) and by as many as allocated.
    List<Tenant> ready = admin.resources(Tenant.class).withLabel(WellKnown.SPARE_POOL, POOL).list().getItems().stream()
        .filter(Spares::isReady).limit(toAllocate).toList();
    int count = ready.size() / 2;
    for (int putters : clients == 1 ? new int[] {1} : new int[] {1, clients}) {
      int first = putters == 1 ? 0 : count; // Each spare is updated once.
      Calls puts = measure(count, putters, i -> {
        Tenant tenant = ready.get(first + i);
        tenant.getMetadata().setAnnotations(new HashMap<>(Map.of("bench.tenantry.io/touched", "true")));
        admin.resources(Tenant.class).resource(tenant).update();
        return true;
      });
      System.out.printf("ceiling: %d plain Tenant updates by %d clients in %.2f s = %.0f updates/s; p50 %.1f ms, p99 %.1f ms;"
          + " failed: %d%n", count, putters, puts.seconds(), puts.perSecond(), puts.ms(0.50), puts.ms(0.99), puts.failures());
    }
  }

  private record Calls(List<Long> latencies, double seconds, int failures) {
    double perSecond() {
      return latencies.size() / seconds;
    }

    double ms(double quantile) {
      int index = (int) Math.ceil(quantile * latencies.size()) - 1;
      return latencies.get(Math.max(0, index)) / 1e6;
    }
  }

  private interface Call {
    boolean call(int i) throws Exception;
  }

  private static Calls drain(HttpClient http, URI uri, String prefix, int count, int clients) throws InterruptedException {
    return measure(count, clients, i -> allocate(http, uri, prefix + i) == 200);
  }

  /** Makes count calls from the given number of threads, each as soon as its previous one answered. */
  private static Calls measure(int count, int threads, Call call) throws InterruptedException {
    ConcurrentLinkedQueue<Long> latencies = new ConcurrentLinkedQueue<>();
    AtomicInteger failures = new AtomicInteger();
    AtomicInteger sequence = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    long started = System.nanoTime();
    for (int t = 0; t < threads; t++) {
      pool.submit(() -> {
        int n;
        while ((n = sequence.getAndIncrement()) < count) {
          long t0 = System.nanoTime();
          boolean ok;
          try {
            ok = call.call(n);
          } catch (Exception e) {
            ok = false;
          }
          latencies.add(System.nanoTime() - t0);
          if (!ok) {
            failures.incrementAndGet();
          }
        }
        return null;
      });
    }
    pool.shutdown();
    pool.awaitTermination(10, TimeUnit.MINUTES);
    double seconds = (System.nanoTime() - started) / 1e9;
    List<Long> sorted = new ArrayList<>(latencies);
    Collections.sort(sorted);
    return new Calls(sorted, seconds, failures.get());
  }

  /** The API server's count of writes so far, by verb and resource (its request metrics). */
  private static Map<String, Double> writes(KubernetesClient admin) {
    Map<String, Double> writes = new TreeMap<>();
    Pattern request = Pattern.compile("^apiserver_request_total\\{.*resource=\"([^\"]*)\".*subresource=\"([^\"]*)\".*"
        + "verb=\"(POST|PUT|PATCH|DELETE)\".*} (\\S+)$");
    for (String line : admin.raw("/metrics").split("\n")) {
      Matcher m = request.matcher(line);
      if (m.matches()) {
        String key = m.group(3) + " " + m.group(1) + (m.group(2).isEmpty() ? "" : "/" + m.group(2));
        writes.merge(key, Double.parseDouble(m.group(4)), Double::sum);
      }
    }
    return writes;
  }

  private static int allocate(HttpClient http, URI uri, String requestId) throws Exception {
    String body = new ObjectMapper().createObjectNode().put("requestId", requestId).put("organization", "Bench " + requestId)
        .put("email", requestId + "@bench.example").put("pool", POOL).toString();
    HttpRequest request = HttpRequest.newBuilder(uri).header("Authorization", "Bearer bench-token")
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build();
    return http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
  }

  private static void waitForReady(KubernetesClient admin, int count) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(30);
    while (admin.resources(Tenant.class).withLabel(WellKnown.SPARE_POOL, POOL).list().getItems().stream()
        .filter(Spares::isReady).count() < count) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the pool did not reach " + count + " Ready spares in 30 minutes");
      }
      Thread.sleep(500);
    }
  }
}
