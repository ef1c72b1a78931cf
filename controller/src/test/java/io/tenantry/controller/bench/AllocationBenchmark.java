package io.tenantry.controller.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.management.OperatingSystemMXBean;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.tenantry.api.Spares;
import io.tenantry.api.WellKnown;
import io.tenantry.api.v1alpha1.AppSpec;
import io.tenantry.api.v1alpha1.SparePool;
import io.tenantry.api.v1alpha1.SparePoolSpec;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantTemplate;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.lifecycle.TenantCleanup;
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
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * Compares the allocation API with the ceiling of the API server it writes to, side by side in one
 * run, because the machine is shared and its speed drifts by a third between runs. Side A: C HTTP
 * clients allocate from a warm pool of Ready spares as fast as they can (each signup is one
 * resourceVersion-guarded Tenant update, and causes the operator's writes behind it). The clients
 * are blocking {@link HttpURLConnection}s with a kept-alive connection each: the JDK's
 * {@code java.net.http.HttpClient} cost this 2-core machine about 3 ms of CPU per call, more than
 * the allocator and its bind. Side B: C clients of the same kind (closed loop, one thread each, the
 * fabric8 client the operator binds with) send plain Tenant updates to the same API server, shaped
 * as a bind is (one PUT at the resourceVersion, no managedFields, no status; an annotation
 * changed). The sides alternate, A B A B ..., for P pairs of W seconds each, after an unmeasured
 * warm-up pair as long as the others (connections, the JIT: a profile of the first pair after a
 * third-size warm-up found half of this JVM's CPU in the JIT compilers). Each side starts on a
 * settled cluster: after A the pool refills with maxProvisioning 100 (that time is printed; at the
 * pool's own maxProvisioning the refill of a window took minutes on a busy machine) and both sides
 * wait for the operator's queues to empty. An A window also stops once it has allocated S − C spares, so it never meets an empty
 * pool. A B window makes as many calls as the A window before it made.
 *
 * <p>Prints a table per pair and the medians of the pairwise ratios: allocations/s ÷ updates/s,
 * and p50(allocation) ÷ p50(update); the CPU each call took in this JVM (the operator and both
 * sides' clients) and in the rest of the machine (API server, etcd, kwok); with the writes the API
 * server took per allocation and per update (its own {@code apiserver_request_total}).
 *
 * <p>Arguments, all optional: S spares in the pool (default 1000: enough for W seconds of
 * allocations; with 300, an A window at 32 clients ended after about 1.3 s, and single pairs swung
 * from 0.6 to 1.3), C clients (32), P pairs (3), W seconds per window (4), the pool's
 * maxProvisioning during the A windows (5, the default). Run with tools/bench-allocation.sh [S] [C]
 * [P] [W] [maxProvisioning]; the figures in docs/benchmarks.md come from {@code 1000 32} and
 * {@code 1000 1}; CI runs {@code 20 4}.
 */
public final class AllocationBenchmark {

  private static final String POOL = "bench";
  private static final int BUILD_PROVISIONING = 100;
  private static final String TOUCHED = "bench.tenantry.io/touched";
  private record Settings(int spares, int clients, int pairs, double windowSeconds, int drainProvisioning) {
  }

  public static void main(String[] args) {
    Settings settings = new Settings(
        args.length > 0 ? Integer.parseInt(args[0]) : 1000,
        args.length > 1 ? Integer.parseInt(args[1]) : 32,
        args.length > 2 ? Integer.parseInt(args[2]) : 3,
        args.length > 3 ? Double.parseDouble(args[3]) : 4,
        args.length > 4 ? Integer.parseInt(args[4]) : 5);
    // The figures are the point: the operator's per-object INFO lines would bury them.
    ((ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME))
        .setLevel(ch.qos.logback.classic.Level.WARN);
    // One kept-alive connection per signup client (the JDK keeps 5 per host by default).
    System.setProperty("http.maxConnections", Integer.toString(settings.clients()));
    int exit = 1;
    BenchGuards guards = new BenchGuards();
    // Named by process, so that runs side by side do not share (and delete) one cluster.
    String name = "tenantry-bench-alloc-" + ProcessHandle.current().pid();
    // Allocated tenants keep their pods: room for the pool and every window's allocations, at
    // kwok's 110 pods a node (a run that outgrew 8 nodes left spares Pending and never refilled).
    int pods = settings.spares() * (settings.pairs() + 2);
    try (TestCluster cluster = TestClusters.start(ClusterKind.SIMULATED, name, 1 + pods / 100);
         KubernetesClient admin = cluster.newClient();
         KubernetesClient updater = cluster.newClient();
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
          TenantCleanup.fleet(records, config.fleet().clusterName()), records, null);
      try (Operator operator = new Operator(operatorClient, config, "bench", () -> { }, parts)) {
        operator.start();
        try (AllocationService allocation = AllocationService.start(operator, config, operatorClient, records, Clock.systemUTC())) {
          new AllocationBenchmark(admin, updater, parts, operator.httpPort(), settings, guards).run();
          exit = 0;
        }
      }
    } catch (Exception e) {
      e.printStackTrace();
    } finally {
      // The HTTP clients' threads would keep the JVM (and its CPU use) alive after the figures,
      // or after a failure.
      if (exit == 0) {
        guards.exitIfBroken();
      }
      System.exit(exit);
    }
  }

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final OperatingSystemMXBean OS = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

  private final BenchGuards guards;
  private final KubernetesClient admin;
  private final KubernetesClient updater;
  private final Operator.Parts parts;
  private final Settings settings;
  private final URL url;
  private int allocated;
  private int updateSequence;

  private AllocationBenchmark(KubernetesClient admin, KubernetesClient updater, Operator.Parts parts, int port, Settings settings,
      BenchGuards guards) {
    this.guards = guards;
    this.admin = admin;
    this.updater = updater;
    this.parts = parts;
    this.settings = settings;
    try {
      this.url = new URL("http://localhost:" + port + "/v1/allocations");
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** One A window and the B window after it, with the writes the API server took during each. */
  private record Pair(Calls allocations, Calls updates, double refillSeconds, Map<String, Double> allocationWrites,
      Map<String, Double> updateWrites) {
    double throughputRatio() {
      return allocations.perSecond() / updates.perSecond();
    }

    double p50Ratio() {
      return allocations.ms(0.50) / updates.ms(0.50);
    }
  }

  private void run() throws Exception {
    int spares = settings.spares();
    int clients = settings.clients();
    TenantTemplate template = new TenantTemplate();
    template.getApps().add(new AppSpec("web", "registry.example.com/acme/web", "1.0.0", 1, 8080));
    SparePool pool = new SparePool();
    pool.getMetadata().setName(POOL);
    pool.setSpec(new SparePoolSpec(spares, BUILD_PROVISIONING, template));
    long building = System.nanoTime();
    admin.resources(SparePool.class).resource(pool).create();
    waitForReady();
    System.out.printf("pool of %d spares built in %.1f s (maxProvisioning %d)%n", spares, (System.nanoTime() - building) / 1e9,
        BUILD_PROVISIONING);
    // Warm-up as long as a pair: without it the JIT compilers took most of a core during the first windows.
    Pair warmUp = pair(spares - clients);
    System.out.printf("warm-up: %.0f allocations/s, %.0f updates/s (not counted)%n", warmUp.allocations().perSecond(),
        warmUp.updates().perSecond());
    System.out.printf("%n%d clients, %d spares, %d pairs of %.0f s windows (A: allocations over HTTP, B: plain Tenant updates),"
        + " maxProvisioning %d during A, refill with %d%n%n", clients, spares, settings.pairs(), settings.windowSeconds(),
        settings.drainProvisioning(), BUILD_PROVISIONING);
    System.out.println("| pair | allocations/s | updates/s | ratio | p50 alloc / update | p50 ratio | p99 alloc / update"
        + " | CPU per alloc / update: JVM | rest | allocations (non-200) | updates (failed) | refill |");
    System.out.println("|---|---|---|---|---|---|---|---|---|---|---|---|");
    List<Pair> pairs = new ArrayList<>();
    for (int i = 0; i < settings.pairs(); i++) {
      // Printed as it is measured: a run cut short still shows its pairs.
      Pair p = pair(spares - clients);
      pairs.add(p);
      System.out.printf(Locale.ROOT, "| %d | %.0f | %.0f | %.2f | %.1f / %.1f ms | %.2f | %.0f / %.0f ms | %.1f / %.1f ms"
          + " | %.1f / %.1f ms | %d (%d) | %d (%d) | %.0f s |%n",
          i + 1, p.allocations().perSecond(), p.updates().perSecond(), p.throughputRatio(),
          p.allocations().ms(0.50), p.updates().ms(0.50), p.p50Ratio(), p.allocations().ms(0.99), p.updates().ms(0.99),
          p.allocations().jvmCpuMs(), p.updates().jvmCpuMs(), p.allocations().restCpuMs(), p.updates().restCpuMs(),
          p.allocations().count(), p.allocations().failures(), p.updates().count(), p.updates().failures(), p.refillSeconds());
      guards.atMost("failed allocations in pair " + (i + 1), p.allocations().failures(), 0);
      guards.atMost("failed updates in pair " + (i + 1), p.updates().failures(), 0);
    }
    System.out.printf(Locale.ROOT, "%nmedian of %d pairwise ratios at %d clients: allocations/s ÷ updates/s = %.2f;"
        + " p50(allocation) ÷ p50(update) = %.2f%n", pairs.size(), clients, median(pairs, Pair::throughputRatio),
        median(pairs, Pair::p50Ratio));

    System.out.println("\nwrites the API server took per allocation (A windows) and per update (B windows), 0.05 or more:");
    Map<String, Double> perAllocation = perCall(pairs, Pair::allocationWrites, p -> p.allocations().count());
    Map<String, Double> perUpdate = perCall(pairs, Pair::updateWrites, p -> p.updates().count());
    Map<String, Double> kinds = new TreeMap<>(perAllocation);
    perUpdate.forEach(kinds::putIfAbsent);
    kinds.keySet().forEach(kind -> {
      double a = perAllocation.getOrDefault(kind, 0.0);
      double b = perUpdate.getOrDefault(kind, 0.0);
      if (a >= 0.05 || b >= 0.05) {
        System.out.printf(Locale.ROOT, "  %5.2f  %5.2f  %s%n", a, b, kind);
      }
    });
  }

  /**
   * A window of at most {@code limit} allocations, the refill after it, then a window of plain
   * updates; each on a settled cluster.
   */
  private Pair pair(int limit) throws Exception {
    maxProvisioning(settings.drainProvisioning());
    settle();
    Map<String, Double> before = BenchSupport.writes(admin);
    String prefix = "bench-" + allocated + "-";
    Calls allocations = measure(limit, i -> allocate(prefix + i) == 200);
    Map<String, Double> allocationWrites = since(before);
    allocated += allocations.count();
    maxProvisioning(BUILD_PROVISIONING);
    long refill = System.nanoTime();
    waitForReady();
    double refillSeconds = (System.nanoTime() - refill) / 1e9;
    settle();
    // Each client updates its own share of the Ready spares in turn, at the resourceVersion the API
    // server answered, so that no update conflicts with another client's.
    List<Tenant> ready = new ArrayList<>(admin.resources(Tenant.class).withLabel(WellKnown.SPARE_POOL, POOL).list().getItems()
        .stream().filter(Spares::isReady).toList());
    int clients = settings.clients();
    before = BenchSupport.writes(admin);
    // As many calls as A made: both windows then ramp up and drain their clients alike (an A window
    // that stopped at its limit was a third as long as a full B window, and lost more to both ends).
    Calls updates = measure(allocations.count(), i -> {
      int client = i % clients;
      int own = (ready.size() - client + clients - 1) / clients;
      int index = client + clients * ((i / clients) % own);
      Tenant tenant = ready.get(index);
      Map<String, String> annotations = new HashMap<>(tenant.getMetadata().getAnnotations() == null ? Map.of()
          : tenant.getMetadata().getAnnotations());
      annotations.put(TOUCHED, Integer.toString(updateSequence + i)); // A change: an unchanged object is no write.
      tenant.getMetadata().setAnnotations(annotations);
      // What a bind sends: the operator's cache keeps no managedFields, and a bind writes no status.
      tenant.getMetadata().setManagedFields(null);
      tenant.setStatus(null);
      ready.set(index, updater.resources(Tenant.class).resource(tenant).update());
      return true;
    });
    updateSequence += updates.count();
    return new Pair(allocations, updates, refillSeconds, allocationWrites, since(before));
  }

  /** A merge patch: no resourceVersion to conflict with the operator's status writes. */
  private void maxProvisioning(int max) {
    admin.resources(SparePool.class).withName(POOL).patch(PatchContext.of(PatchType.JSON_MERGE),
        "{\"spec\":{\"maxProvisioning\":" + max + "}}");
  }

  /**
   * One window's calls: their latencies, sorted; its length; the calls that failed; and the CPU
   * seconds this JVM and the rest of the machine used meanwhile.
   */
  private record Calls(List<Long> latencies, double seconds, int failures, double jvmCpu, double restCpu) {
    int count() {
      return latencies.size();
    }

    double jvmCpuMs() {
      return jvmCpu * 1000 / count();
    }

    double restCpuMs() {
      return restCpu * 1000 / count();
    }

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

  /**
   * Makes up to {@code limit} calls from the benchmark's number of client threads for one window,
   * each as soon as its previous one answered. Call i is always made by thread i mod clients.
   */
  private Calls measure(int limit, Call call) throws InterruptedException {
    int threads = settings.clients();
    ConcurrentLinkedQueue<Long> latencies = new ConcurrentLinkedQueue<>();
    AtomicInteger failures = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    long started = System.nanoTime();
    long deadline = started + (long) (settings.windowSeconds() * 1e9);
    AtomicInteger made = new AtomicInteger();
    long jvmBefore = OS.getProcessCpuTime();
    long machineBefore = machineCpuNanos();
    for (int t = 0; t < threads; t++) {
      int thread = t;
      pool.submit(() -> {
        for (int n = thread; n < limit && System.nanoTime() < deadline && made.getAndIncrement() < limit; n += threads) {
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
    double jvm = (OS.getProcessCpuTime() - jvmBefore) / 1e9;
    double machine = (machineCpuNanos() - machineBefore) / 1e9;
    List<Long> sorted = new ArrayList<>(latencies);
    Collections.sort(sorted);
    return new Calls(sorted, seconds, failures.get(), jvm, Math.max(0, machine - jvm));
  }

  /** The CPU time all processes have used since boot (the first line of /proc/stat, in USER_HZ ticks). */
  private static long machineCpuNanos() {
    try {
      String[] ticks = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
      long busy = 0;
      for (int i = 1; i < ticks.length; i++) {
        if (i != 4 && i != 5) { // idle and iowait
          busy += Long.parseLong(ticks[i]);
        }
      }
      return busy * 10_000_000L; // USER_HZ is 100 on Linux
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static double median(List<Pair> pairs, Function<Pair, Double> ratio) {
    List<Double> sorted = pairs.stream().map(ratio).sorted().toList();
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  private static Map<String, Double> perCall(List<Pair> pairs, Function<Pair, Map<String, Double>> writes,
      Function<Pair, Integer> calls) {
    Map<String, Double> total = new TreeMap<>();
    pairs.forEach(p -> writes.apply(p).forEach((kind, n) -> total.merge(kind, n, Double::sum)));
    int count = pairs.stream().mapToInt(calls::apply).sum();
    total.replaceAll((kind, n) -> n / count);
    return total;
  }

  /** Waits until the operator's queues stay empty for a second: the previous window's reaction is over. */
  private void settle() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    int quiet = 0;
    while (quiet < 5 && System.nanoTime() < deadline) {
      quiet = parts.queue().len() == 0 && parts.poolQueue().len() == 0 ? quiet + 1 : 0;
      Thread.sleep(200);
    }
  }

  private Map<String, Double> since(Map<String, Double> before) {
    Map<String, Double> during = BenchSupport.writes(admin);
    during.replaceAll((kind, n) -> n - before.getOrDefault(kind, 0.0));
    return during;
  }

  /** One signup: its answer is read to the end, so the connection is kept for the client's next call. */
  private int allocate(String requestId) throws IOException {
    byte[] body = JSON.createObjectNode().put("requestId", requestId).put("organization", "Bench " + requestId)
        .put("email", requestId + "@bench.example").put("pool", POOL).toString().getBytes(StandardCharsets.UTF_8);
    HttpURLConnection connection = BenchSupport.postAllocation(url, body);
    int code = connection.getResponseCode();
    try (InputStream in = code < 400 ? connection.getInputStream() : connection.getErrorStream()) {
      if (in != null) {
        in.readAllBytes();
      }
    }
    return code;
  }

  private void waitForReady() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(30);
    while (admin.resources(Tenant.class).withLabel(WellKnown.SPARE_POOL, POOL).list().getItems().stream()
        .filter(Spares::isReady).count() < settings.spares()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the pool did not reach " + settings.spares() + " Ready spares in 30 minutes");
      }
      Thread.sleep(500);
    }
  }
}
