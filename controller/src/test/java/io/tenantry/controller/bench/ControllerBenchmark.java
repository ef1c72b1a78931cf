package io.tenantry.controller.bench;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.tenantry.api.v1alpha1.SparePool;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.lifecycle.TenantCleanup;
import io.tenantry.controller.operator.Operator;
import io.tenantry.secretstore.LocalSecretStore;
import io.tenantry.secretstore.Scope;
import io.tenantry.secretstore.SecretStore;
import io.tenantry.testsupport.ClusterKind;
import io.tenantry.testsupport.Crds;
import io.tenantry.testsupport.SimulatedCluster;
import io.tenantry.testsupport.TestCluster;
import io.tenantry.testsupport.TestClusters;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Prints, at N converged tenants (default 1000; each one app and one database, all Ready) on the
 * simulated cluster (real kube-apiserver, controllers and scheduler, kwok nodes): the CPU time of one converged sync (median, p99), the requests the API server received
 * for the operator's resources during a full resync (its apiserver_request_total), and the
 * operator's heap per tenant after GC, and the heap at its highest (after a GC forced every
 * second) while every informer lists again (etcd compacted under a stopped API server: every
 * object is decoded again, as after any 410 Gone) and while every tenant rolls to a new app
 * version. Given a second size M, it then provisions M - N more tenants and prints how the heap
 * grew per tenant from N to M. Run with tools/bench-controller.sh [N] [M].
 */
public final class ControllerBenchmark {

  /** What the operator reads and writes; the API server's own housekeeping (leases, endpoints, ...) is left out. */
  private static final Set<String> OPERATOR_RESOURCES = Set.of("tenants", "namespaces", "roles", "rolebindings",
      "networkpolicies", "resourcequotas", "limitranges", "secrets", "services", "poddisruptionbudgets",
      "statefulsets", "deployments", "horizontalpodautoscalers", "events");

  private static final String CLUSTER = "tenantry-bench";
  /** docs/benchmarks.md's limit on the heap per tenant, guarded when measured on this many tenants or more. */
  private static final double HEAP_LIMIT_KIB = 50;
  private static final int HEAP_GUARDED_FROM = 500;

  private final BenchGuards guards;
  private final int tenants;
  private final int grownTo;
  private final KubernetesClient admin;
  private final SecretStore store;
  private final Operator.Parts parts;
  private final AtomicLong operatorRequests;
  private final AtomicLong tenantSecretWrites;
  private final List<String> names = new ArrayList<>();
  private final String clusterName;

  private ControllerBenchmark(String clusterName, int tenants, int grownTo, KubernetesClient admin, SecretStore store, Operator.Parts parts,
      AtomicLong operatorRequests, AtomicLong tenantSecretWrites, BenchGuards guards) {
    this.clusterName = clusterName;
    this.guards = guards;
    this.tenants = tenants;
    this.grownTo = grownTo;
    this.admin = admin;
    this.store = store;
    this.parts = parts;
    this.operatorRequests = operatorRequests;
    this.tenantSecretWrites = tenantSecretWrites;
  }

  public static void main(String[] args) throws Exception {
    int tenants = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
    int grownTo = args.length > 1 ? Integer.parseInt(args[1]) : tenants;
    BenchGuards guards = new BenchGuards();
    try (TestCluster cluster = TestClusters.start(ClusterKind.SIMULATED, CLUSTER, 1 + Math.max(tenants, grownTo) / 40);
        KubernetesClient admin = cluster.newClient()) {
      Crds.install(admin, Tenant.class.getResource("/META-INF/fabric8/tenants.tenantry.io-v1.yml"));
      Crds.install(admin, SparePool.class.getResource("/META-INF/fabric8/sparepools.tenantry.io-v1.yml"));
      AtomicLong operatorRequests = new AtomicLong();
      AtomicLong tenantSecretWrites = new AtomicLong();
      Interceptor counter = new Interceptor() {
        @Override
        public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
          operatorRequests.incrementAndGet();
          String uri = request.uri().toString();
          if (!"GET".equals(request.method()) && uri.contains("/namespaces/tenant-") && uri.contains("/secrets/")) {
            tenantSecretWrites.incrementAndGet();
          }
        }
      };
      KubernetesClient operatorClient = new KubernetesClientBuilder().withConfig(cluster.config())
          .withHttpClientBuilderConsumer(b -> b.addOrReplaceInterceptor("count", counter)).build();
      OperatorConfig config = OperatorConfig.defaults();
      // Converging from empty is not what is measured: a wide gate and retry budget.
      config = config.with("""
          {httpPort: 0, probePort: 0, leaderElection: {enabled: false}, rateLimits: {qps: 1000, burst: 1000}, maxConcurrentRollouts: 200}""");
      Path storeDirectory = Files.createTempDirectory("tenantry-bench-store-");
      SecretStore store = LocalSecretStore.init(storeDirectory, storeDirectory.resolve("keyset.json"));
      Operator.Parts parts = Operator.wire(operatorClient, config, "bench", store, TenantCleanup.NONE, null, null);
      try (Operator operator = new Operator(operatorClient, config, "bench", () -> { }, parts)) {
        operator.start();
        BenchSupport.waitUntil(operator::isReady, 60);
        new ControllerBenchmark(CLUSTER, tenants, grownTo, admin, store, parts, operatorRequests, tenantSecretWrites, guards).run();
      } finally {
        operatorClient.close();
      }
    }
    guards.exitIfBroken(); // once the cluster is stopped
  }

  private void run() throws Exception {
    store.put(Scope.template(), "smtp", Map.of("password", "first".getBytes(StandardCharsets.UTF_8)));
    parts.templates().refresh();
    long heapEmpty = heapAfterGc();
    double convergeSeconds = provision(0, tenants);
    long heapFull = heapAfterGc();

    // CPU time of converged syncs, called on this thread (the workers are idle): as a resync
    // finds them (nothing changed since the last sync), and with every object compared again.
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long requestsBeforeSyncs = operatorRequests.get();
    for (String name : names) {
      parts.reconciler().sync(name); // warm-up
    }
    long[] cpu = syncCpu(threads, false);
    long[] full = syncCpu(threads, true);
    long requestsDuringSyncs = operatorRequests.get() - requestsBeforeSyncs;

    System.out.println();
    System.out.printf("tenants                                   %d (1 app + 1 database each, all Ready), simulated cluster %s%n",
        tenants, admin.getKubernetesVersion().getGitVersion());
    System.out.printf("time to converge from empty                %.1f s%n", convergeSeconds);
    System.out.printf("converged sync CPU time, median            %.3f ms%n", cpu[cpu.length / 2] / 1e6);
    System.out.printf("converged sync CPU time, p99               %.3f ms%n", cpu[(int) (cpu.length * 0.99)] / 1e6);
    System.out.printf("  same, comparing every object, median     %.3f ms%n", full[full.length / 2] / 1e6);
    System.out.printf("  same, comparing every object, p99        %.3f ms%n", full[(int) (full.length * 0.99)] / 1e6);
    System.out.printf("requests sent during %d direct syncs     %d%n", cpu.length + full.length, requestsDuringSyncs);
    guards.atMost("requests sent during converged syncs", requestsDuringSyncs, 0);
    resync();
    fanOut();
    System.out.printf("operator heap per tenant after GC          %.1f KiB (%.1f MiB empty, %.1f MiB at %d tenants)%n",
        (heapFull - heapEmpty) / 1024.0 / tenants, heapEmpty / 1048576.0, heapFull / 1048576.0, tenants);
    if (tenants >= HEAP_GUARDED_FROM) {
      guards.atMost("heap per tenant (KiB)", (heapFull - heapEmpty) / 1024.0 / tenants, HEAP_LIMIT_KIB);
    }
    long relistPeak = peakHeap(this::relist);
    System.out.printf("heap peak while every informer lists again %.1f MiB (%.1f KiB per tenant)%n", relistPeak / 1048576.0,
        (relistPeak - heapEmpty) / 1024.0 / tenants);
    long rollPeak = peakHeap(this::rollEveryTenant);
    long heapRolled = heapAfterGc();
    System.out.printf("heap peak while every tenant rolls         %.1f MiB (%.1f KiB per tenant); converged after: %.1f MiB%n",
        rollPeak / 1048576.0, (rollPeak - heapEmpty) / 1024.0 / tenants, heapRolled / 1048576.0);
    if (grownTo > tenants) {
      provision(tenants, grownTo);
      long heapGrown = heapAfterGc();
      System.out.printf("heap growth per tenant from %d to %d       %.1f KiB (%.1f MiB at %d tenants)%n", tenants, grownTo,
          (heapGrown - heapFull) / 1024.0 / (grownTo - tenants), heapGrown / 1048576.0, grownTo);
      if (grownTo - tenants >= HEAP_GUARDED_FROM) {
        guards.atMost("heap growth per tenant (KiB)", (heapGrown - heapFull) / 1024.0 / (grownTo - tenants), HEAP_LIMIT_KIB);
      }
    }
  }

  /**
   * Creates tenants number {@code from} to {@code to} (exclusive) and waits until every tenant is
   * Ready and the operator is quiet; returns the seconds it took.
   */
  private double provision(int from, int to) throws InterruptedException {
    long started = System.nanoTime();
    ExecutorService creators = Executors.newFixedThreadPool(8);
    for (int i = from; i < to; i++) {
      String name = "bench-" + i;
      names.add(name);
      creators.submit(() -> admin.resources(Tenant.class).resource(BenchSupport.tenant(name)).create());
    }
    creators.shutdown();
    creators.awaitTermination(10, TimeUnit.MINUTES);
    BenchSupport.waitUntil(() -> names.stream().allMatch(n -> {
      Tenant t = parts.cache().tenant(n);
      return t != null && t.getStatus() != null && t.getStatus().getPhase() == TenantPhase.Ready;
    }), 3600);
    BenchSupport.awaitQuiet(operatorRequests::get, parts);
    return (System.nanoTime() - started) / 1e9;
  }

  /** A full resync through the queue and workers, counted by the API server itself. */
  private void resync() throws InterruptedException {
    double serverBefore = BenchSupport.serverRequests(admin, OPERATOR_RESOURCES);
    long clientBefore = operatorRequests.get();
    double syncsBefore = successfulSyncs();
    names.forEach(parts.queue()::add);
    long resyncStarted = System.nanoTime();
    BenchSupport.waitUntil(() -> successfulSyncs() >= syncsBefore + tenants && parts.queue().len() == 0
        && parts.workers().inProgress() == 0, 600);
    double resyncSeconds = (System.nanoTime() - resyncStarted) / 1e9;
    System.out.printf("full resync (%d tenants through the queue) %.2f s%n", tenants, resyncSeconds);
    double serverRequests = BenchSupport.serverRequests(admin, OPERATOR_RESOURCES) - serverBefore;
    System.out.printf("API server requests during the resync      %.0f (apiserver_request_total, operator's resources)%n",
        serverRequests);
    System.out.printf("operator client requests during the resync %d%n", operatorRequests.get() - clientBefore);
    guards.atMost("API server requests during a converged resync", serverRequests, 0);
    guards.atMost("operator client requests during a converged resync", operatorRequests.get() - clientBefore, 0);
  }

  /** One template secret changes: the fan-out to every tenant namespace. */
  private void fanOut() throws InterruptedException {
    String versionBefore = parts.cache().tenant(names.get(0)).getStatus().getSecretsVersion();
    long secretWritesBefore = tenantSecretWrites.get();
    long fanOutStarted = System.nanoTime();
    store.put(Scope.template(), "smtp", Map.of("password", "second".getBytes(StandardCharsets.UTF_8)));
    parts.templates().refresh();
    BenchSupport.waitUntil(() -> names.stream().allMatch(n -> !versionBefore.equals(parts.cache().tenant(n).getStatus().getSecretsVersion())), 600);
    double fanOutSeconds = (System.nanoTime() - fanOutStarted) / 1e9;
    BenchSupport.awaitQuiet(operatorRequests::get, parts);
    System.out.printf("one template secret changed: all tenants on the new version after %.2f s, %d secret writes%n",
        fanOutSeconds, tenantSecretWrites.get() - secretWritesBefore);
  }

  private double successfulSyncs() {
    return parts.registry().get("tenantry.sync").tag("queue", "tenants").tag("result", "success").timer().count();
  }

  /** Five rounds of syncs of every tenant, CPU time of each; {@code compareAll} forgets that they were converged first. */
  private long[] syncCpu(ThreadMXBean threads, boolean compareAll) {
    long[] cpu = new long[names.size() * 5];
    int k = 0;
    for (int round = 0; round < 5; round++) {
      if (compareAll) {
        parts.converged().clear();
      }
      for (String name : names) {
        long before = threads.getCurrentThreadCpuTime();
        parts.reconciler().sync(name);
        cpu[k++] = threads.getCurrentThreadCpuTime() - before;
      }
    }
    Arrays.sort(cpu);
    return cpu;
  }

  private interface Step {
    void run() throws Exception;
  }

  /** The highest heap after a GC, forced every second, while {@code step} runs (and once after it). */
  private static long peakHeap(Step step) throws Exception {
    AtomicLong peak = new AtomicLong();
    java.util.concurrent.atomic.AtomicBoolean running = new java.util.concurrent.atomic.AtomicBoolean(true);
    Thread sampler = new Thread(() -> {
      try {
        while (running.get()) {
          peak.accumulateAndGet(heapAfterGc(), Math::max);
          Thread.sleep(1000);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "heap-sampler");
    sampler.start();
    try {
      step.run();
    } finally {
      running.set(false);
      sampler.join();
    }
    return Math.max(peak.get(), heapAfterGc());
  }

  /**
   * Every informer lists again, as after a 410 Gone: etcd compacted past every resourceVersion
   * while the API server is stopped, so its watch cache is rebuilt and every re-watch is refused.
   * Returns once every tenant is converged again.
   */
  private void relist() throws InterruptedException {
    long started = System.nanoTime();
    SimulatedCluster.stopApiServer(clusterName);
    SimulatedCluster.compactEtcd(clusterName);
    SimulatedCluster.startApiServer(clusterName);
    Thread.sleep(5000); // the informers' re-watch is refused and they list again
    names.forEach(parts.queue()::add);
    BenchSupport.awaitQuiet(operatorRequests::get, parts);
    System.out.printf("relist (etcd compacted, API server restarted) and every tenant converged again: %.1f s%n",
        (System.nanoTime() - started) / 1e9);
  }

  /** Every tenant's app to a new version, through the rollout gate; returns once every one is Ready on it. */
  private void rollEveryTenant() throws InterruptedException {
    long started = System.nanoTime();
    for (String name : names) {
      admin.resources(Tenant.class).withName(name).patch(PatchContext.of(PatchType.JSON),
          "[{\"op\": \"replace\", \"path\": \"/spec/apps/0/version\", \"value\": \"1.1.0\"}]");
    }
    BenchSupport.waitUntil(() -> names.stream().allMatch(n -> {
      Tenant t = parts.cache().tenant(n);
      return t != null && t.getStatus() != null && t.getStatus().getPhase() == TenantPhase.Ready
          && t.getStatus().getApps().stream().allMatch(a -> "1.1.0".equals(a.getVersion()));
    }), 3600);
    BenchSupport.awaitQuiet(operatorRequests::get, parts);
    System.out.printf("version roll of every tenant: all Ready on 1.1.0 after %.1f s%n", (System.nanoTime() - started) / 1e9);
  }

  private static long heapAfterGc() throws InterruptedException {
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(200);
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }
}
