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
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Prints allocation latency (p50, p99, max, as the signup service sees it over HTTP) and throughput
 * with C concurrent clients (default 32) draining a warm pool of S Ready spares (default 300), then
 * the time the pool takes to refill. The operator runs in this JVM on the simulated cluster, the
 * fleet records on the Datastore emulator. The pool is built with maxProvisioning 100 and drained
 * with the default of 5, so the refill runs behind the signups as it would in production; pass
 * a third argument to drain with another. Run with tools/bench-allocation.sh [S] [C] [maxProvisioning].
 */
public final class AllocationBenchmark {

  private static final String POOL = "bench";
  private static final int BUILD_PROVISIONING = 100;

  public static void main(String[] args) throws Exception {
    int spares = args.length > 0 ? Integer.parseInt(args[0]) : 300;
    int clients = args.length > 1 ? Integer.parseInt(args[1]) : 32;
    int drainProvisioning = args.length > 2 ? Integer.parseInt(args[2]) : 5;
    // The figures are the point: the operator's per-object INFO lines would bury them.
    ((ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME))
        .setLevel(ch.qos.logback.classic.Level.WARN);
    try (TestCluster cluster = TestClusters.start(ClusterKind.SIMULATED, "tenantry-bench-alloc", 1 + spares / 40);
         KubernetesClient admin = cluster.newClient();
         DatastoreEmulator emulator = DatastoreEmulator.start()) {
      Crds.install(admin, Tenant.class.getResource("/META-INF/fabric8/tenants.tenantry.io-v1.yml"));
      Crds.install(admin, SparePool.class.getResource("/META-INF/fabric8/sparepools.tenantry.io-v1.yml"));
      OperatorConfig config = OperatorConfig.defaults();
      config.httpPort = 0;
      config.leaderElection.enabled = false;
      config.rateLimits.qps = 1000;
      config.rateLimits.burst = 1000;
      config.maxConcurrentRollouts = 200;
      Path work = Files.createTempDirectory("tenantry-bench-alloc-");
      Files.writeString(work.resolve("token"), "bench-token");
      config.fleet.datastoreProjectId = DatastoreEmulator.PROJECT_ID;
      config.allocation.enabled = true;
      config.allocation.tokenFile = work.resolve("token").toString();
      FleetRecords records = new DatastoreFleetRecords(emulator.datastore(), "bench");
      KubernetesClient operatorClient = cluster.newClient();
      try (Operator operator = new Operator(operatorClient, config, "bench", () -> { },
          LocalSecretStore.open(work, work.resolve("keyset.json")), records::purgeTenant)) {
        operator.start();
        try (AllocationService allocation = AllocationService.start(operator, config, operatorClient, records, Clock.systemUTC())) {
          run(admin, operator.httpPort(), spares, clients, drainProvisioning);
        }
      }
    }
    // The HTTP clients' threads would keep the JVM (and its CPU use) alive after the figures.
    System.exit(0);
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
    admin.resources(SparePool.class).withName(POOL).edit(p -> {
      p.getSpec().setMaxProvisioning(drainProvisioning);
      return p;
    });

    HttpClient http = HttpClient.newBuilder().executor(Executors.newFixedThreadPool(clients)).build();
    URI uri = URI.create("http://localhost:" + port + "/v1/allocations");
    // Warm-up: a few allocations so that connections, JIT and Datastore sessions are warm.
    AtomicInteger sequence = new AtomicInteger();
    for (int i = 0; i < 5; i++) {
      allocate(http, uri, "warmup-" + i);
    }
    int toAllocate = spares - 5 - clients; // Leave some slack: the measured phase never meets an empty pool.
    ConcurrentLinkedQueue<Long> latencies = new ConcurrentLinkedQueue<>();
    AtomicInteger failures = new AtomicInteger();
    ExecutorService threads = Executors.newFixedThreadPool(clients);
    long started = System.nanoTime();
    for (int c = 0; c < clients; c++) {
      threads.submit(() -> {
        int n;
        while ((n = sequence.incrementAndGet()) <= toAllocate) {
          long t0 = System.nanoTime();
          int status = allocate(http, uri, "bench-" + n);
          latencies.add(System.nanoTime() - t0);
          if (status != 200) {
            failures.incrementAndGet();
          }
        }
        return null;
      });
    }
    threads.shutdown();
    threads.awaitTermination(10, TimeUnit.MINUTES);
    double seconds = (System.nanoTime() - started) / 1e9;
    List<Long> sorted = new ArrayList<>(latencies);
    Collections.sort(sorted);
    System.out.printf("allocations: %d by %d clients in %.2f s = %.0f allocations/s; non-200 answers: %d%n",
        sorted.size(), clients, seconds, sorted.size() / seconds, failures.get());
    System.out.printf("latency: p50 %.1f ms, p99 %.1f ms, max %.1f ms%n",
        ms(sorted, 0.50), ms(sorted, 0.99), sorted.get(sorted.size() - 1) / 1e6);

    long refill = System.nanoTime();
    waitForReady(admin, spares);
    System.out.printf("refill: %d spares Ready again %.1f s after the drain ended (maxProvisioning %d)%n", spares,
        (System.nanoTime() - refill) / 1e9, drainProvisioning);

    // The ceiling, for comparison: the same number of Tenant updates (one PUT each, as a bind is)
    // sent straight to the API server by the same number of clients.
    List<Tenant> ready = admin.resources(Tenant.class).withLabel(WellKnown.SPARE_POOL, POOL).list().getItems().stream()
        .filter(Spares::isReady).limit(toAllocate).toList();
    ConcurrentLinkedQueue<Long> putLatencies = new ConcurrentLinkedQueue<>();
    AtomicInteger next = new AtomicInteger();
    ExecutorService putters = Executors.newFixedThreadPool(clients);
    long putStarted = System.nanoTime();
    for (int c = 0; c < clients; c++) {
      putters.submit(() -> {
        int i;
        while ((i = next.getAndIncrement()) < ready.size()) {
          Tenant tenant = ready.get(i);
          tenant.getMetadata().setAnnotations(new java.util.HashMap<>(java.util.Map.of("bench.tenantry.io/touched", "true")));
          long t0 = System.nanoTime();
          admin.resources(Tenant.class).resource(tenant).update();
          putLatencies.add(System.nanoTime() - t0);
        }
        return null;
      });
    }
    putters.shutdown();
    putters.awaitTermination(10, TimeUnit.MINUTES);
    double putSeconds = (System.nanoTime() - putStarted) / 1e9;
    List<Long> puts = new ArrayList<>(putLatencies);
    Collections.sort(puts);
    System.out.printf("ceiling: %d plain Tenant updates by %d clients in %.2f s = %.0f updates/s; p50 %.1f ms, p99 %.1f ms%n",
        puts.size(), clients, putSeconds, puts.size() / putSeconds, ms(puts, 0.50), ms(puts, 0.99));
  }

  private static int allocate(HttpClient http, URI uri, String requestId) throws Exception {
    String body = new ObjectMapper().createObjectNode().put("requestId", requestId).put("organization", "Bench " + requestId)
        .put("email", requestId + "@bench.example").put("pool", POOL).toString();
    HttpRequest request = HttpRequest.newBuilder(uri).header("Authorization", "Bearer bench-token")
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build();
    return http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
  }

  private static double ms(List<Long> sorted, double quantile) {
    int index = (int) Math.ceil(quantile * sorted.size()) - 1;
    return sorted.get(Math.max(0, index)) / 1e6;
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
