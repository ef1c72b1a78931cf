package io.tenantry.controller.bench;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.tenantry.api.v1alpha1.AppSpec;
import io.tenantry.api.v1alpha1.DatabaseSpec;
import io.tenantry.api.v1alpha1.SparePool;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.lifecycle.TenantCleanup;
import io.tenantry.controller.operator.Operator;
import io.tenantry.controller.resources.DatabaseCredentials;
import io.tenantry.controller.resources.DatabaseModel;
import io.tenantry.controller.resources.DesiredState;
import io.tenantry.controller.resources.TenantContext;
import io.tenantry.controller.resources.Workloads;
import io.tenantry.controller.rollout.Readiness;
import io.tenantry.secretstore.LocalSecretStore;
import io.tenantry.secretstore.Scope;
import io.tenantry.secretstore.SecretStore;
import io.tenantry.testsupport.ClusterKind;
import io.tenantry.testsupport.Crds;
import io.tenantry.testsupport.TestBinaries;
import io.tenantry.testsupport.TestCluster;
import io.tenantry.testsupport.TestClusters;
import java.io.IOException;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Provisioning against a bare apply, on one simulated cluster in one run. Side A (Tenantry): new
 * Tenants are created and the operator in this JVM provisions them; timed until every one is
 * Ready. Side B (bare apply): the same objects for as many other tenants, rendered by the
 * operator's own builders ({@link DesiredState}, as its sync renders them), are written to a YAML
 * file and applied by the real {@code kubectl apply --server-side}; timed until the same readiness
 * holds (the namespace exists, every StatefulSet and Deployment rolled out: {@link Readiness}, what
 * a Tenant's Ready condition checks). After a warm-up round of each side, the sides alternate,
 * A B A B ..., a round each of N / rounds tenants; printed: each round, the sums of all rounds, the
 * median of the pairwise ratios A/B, each side's requests per tenant by kind, the operator's own
 * metrics of each Tenantry round, and the API requests of one full resync of the converged tenants
 * of each side (Tenantry: every tenant through its queue; bare apply: the same files applied again).
 *
 * <p>Run with {@code tools/bench-provisioning.sh [N] [rounds]} (defaults 1000 and 3). The
 * operator runs with its defaults but one rollout slot per tenant of a round; the environment
 * variable {@code BENCH_OPERATOR_CONFIG} (the operator's configuration syntax, e.g.
 * {@code {maxConcurrentRollouts: 10}} for the default gate) is laid over that.
 */
public final class ProvisioningBenchmark {

  /** What the operator and kubectl write here (ControllerBenchmark's set, with ConfigMaps and Jobs). */
  private static final Set<String> OWNED_RESOURCES = Set.of("tenants", "namespaces", "rolebindings", "networkpolicies",
      "resourcequotas", "limitranges", "secrets", "configmaps", "services", "poddisruptionbudgets", "statefulsets",
      "deployments", "horizontalpodautoscalers", "jobs", "events");
  /** A response line of kubectl's -v=6 log. */
  private static final Pattern KUBECTL_RESPONSE = Pattern.compile("\"Response\" verb=\"(\\w+)\" url=\"([^\"]+)\"");
  private static final SecureRandom RANDOM = new SecureRandom();
  /** Runs of one round's kubectl apply that stopped at a conflict before the round fails. */
  private static final int KUBECTL_RUNS = 3;

  /** The status write, whose count depends on timing (below); every other request is one per object or event. */
  private static final String STATUS_WRITE = "PUT tenants/status";
  /**
   * docs/benchmarks.md: 19.00 requests per new tenant besides its status writes (its 16 objects, its finalizer, its
   * events); the half allows the informers' watch renewals, one more per tenant is a regression.
   */
  private static final double REQUESTS_PER_TENANT_LIMIT = 19.5;
  /**
   * The status is written once per distinct state a new tenant is seen in, which depends on timing: 2.00 per tenant
   * at 1000 tenants (a long queue sees few states), 3.17–4.06 at 20 (each pod's readiness seen on its own). A write
   * on every sync (7–10 syncs a tenant at 20) fails it.
   */
  private static final double STATUS_WRITES_PER_TENANT_LIMIT = 5;

  private final BenchGuards guards;
  private final TestCluster cluster;
  private final KubernetesClient admin;
  private final Operator.Parts parts;
  private final Requests operatorRequests;
  private final Path work;
  private final List<String> tenantryTenants = new ArrayList<>();
  private final List<Path> applied = new ArrayList<>();
  private int appliedObjects;
  private final List<Metrics> tenantryMetrics = new ArrayList<>();

  /** One side's round: wall time to all Ready, the requests its client sent by kind, and this JVM's CPU time meanwhile. */
  private record Round(double seconds, Map<String, Long> requests, double jvmCpuSeconds) {

    long requestCount() {
      return requests.values().stream().mapToLong(Long::longValue).sum();
    }
  }

  /** Requests sent, by {@link #kind}. */
  private static final class Requests {
    private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();

    void count(String method, URI uri) {
      counts.computeIfAbsent(kind(method, uri), k -> new LongAdder()).increment();
    }

    long total() {
      return counts.values().stream().mapToLong(LongAdder::sum).sum();
    }

    Map<String, Long> snapshot() {
      return counts.entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().sum()));
    }
  }

  /** The operator's own metrics, to see where a Tenantry round's time goes. */
  private record Metrics(double syncs, double syncSeconds, double queued, double queuedSeconds, double slotWaits,
      double rollouts, double rolloutSeconds, double jitSeconds) {

    Metrics minus(Metrics o) {
      return new Metrics(syncs - o.syncs, syncSeconds - o.syncSeconds, queued - o.queued, queuedSeconds - o.queuedSeconds,
          slotWaits - o.slotWaits, rollouts - o.rollouts, rolloutSeconds - o.rolloutSeconds, jitSeconds - o.jitSeconds);
    }
  }

  private ProvisioningBenchmark(TestCluster cluster, KubernetesClient admin, Operator.Parts parts, Requests operatorRequests,
      Path work, BenchGuards guards) {
    this.guards = guards;
    this.cluster = cluster;
    this.admin = admin;
    this.parts = parts;
    this.operatorRequests = operatorRequests;
    this.work = work;
  }

  public static void main(String[] args) throws Exception {
    int tenants = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    int perRound = Math.max(1, tenants / rounds);
    int warmUp = Math.min(perRound, 100);
    BenchGuards guards = new BenchGuards();
    // Per-object INFO lines of the operator would bury the table.
    ((ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME))
        .setLevel(ch.qos.logback.classic.Level.WARN);
    // A node per 40 tenants of both sides, as ControllerBenchmark packs its tenants.
    int nodes = 1 + 2 * (perRound * rounds + warmUp) / 40;
    try (TestCluster cluster = TestClusters.start(ClusterKind.SIMULATED, "tenantry-bench-apply", nodes);
        KubernetesClient admin = cluster.newClient()) {
      Crds.install(admin, Tenant.class.getResource("/META-INF/fabric8/tenants.tenantry.io-v1.yml"));
      Crds.install(admin, SparePool.class.getResource("/META-INF/fabric8/sparepools.tenantry.io-v1.yml"));
      Requests operatorRequests = new Requests();
      Interceptor counter = new Interceptor() {
        @Override
        public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
          operatorRequests.count(request.method(), request.uri());
        }
      };
      KubernetesClient operatorClient = new KubernetesClientBuilder().withConfig(cluster.config())
          .withHttpClientBuilderConsumer(b -> b.addOrReplaceInterceptor("count", counter)).build();
      // The operator's defaults (4 workers, rate limits, ...), but for the rollout gate: a bare apply has no
      // bound on rollouts in flight, so one slot per tenant of a round (the default 10 is a deliberate bound;
      // BENCH_OPERATOR_CONFIG='{maxConcurrentRollouts: 10}' measures with it).
      OperatorConfig config = OperatorConfig.defaults().with("{httpPort: 0, probePort: 0, leaderElection: {enabled: false},"
          + " maxConcurrentRollouts: %d}".formatted(perRound));
      String override = System.getenv("BENCH_OPERATOR_CONFIG");
      if (override != null && !override.isBlank()) {
        config = config.with(override);
      }
      Path work = Files.createTempDirectory("tenantry-bench-apply-");
      Path storeDirectory = Files.createDirectory(work.resolve("store"));
      SecretStore store = LocalSecretStore.init(storeDirectory, storeDirectory.resolve("keyset.json"));
      // One template secret, so that both sides also copy one into each namespace (as ControllerBenchmark's tenants have).
      store.put(Scope.template(), "smtp", Map.of("password", "bench".getBytes(StandardCharsets.UTF_8)));
      Operator.Parts parts = Operator.wire(operatorClient, config, "bench", store, TenantCleanup.NONE, null, null);
      try (Operator operator = new Operator(operatorClient, config, "bench", () -> { }, parts)) {
        operator.start();
        BenchSupport.waitUntil(operator::isReady, 60);
        parts.templates().refresh();
        BenchSupport.waitUntil(() -> !parts.cache().templateSecrets().isEmpty(), 60);
        new ProvisioningBenchmark(cluster, admin, parts, operatorRequests, work, guards).run(config, warmUp, rounds, perRound,
            nodes);
      } finally {
        operatorClient.close();
        deleteTree(work);
      }
    }
    guards.exitIfBroken(); // once the cluster is stopped
  }

  private void run(OperatorConfig config, int warmUp, int rounds, int perRound, int nodes) throws Exception {
    Path kubeconfig = Files.createFile(work.resolve("kubeconfig.yaml"),
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(kubeconfig, cluster.kubeconfigYaml());
    // A warm-up round of each side, not counted: a cold operator JVM spends its first minutes compiling
    // its hot code (JFR, cold run of 2 x 60 tenants: C2 compiler threads used half the JVM's CPU, on
    // the 2 cores the API server needs), which a long-running operator does once.
    tenantryRound("w", warmUp);
    BenchSupport.awaitQuiet(operatorRequests::total, parts);
    applyRound(config, kubeconfig, "w", warmUp);
    BenchSupport.awaitQuiet(operatorRequests::total, parts);
    tenantryMetrics.clear();
    List<Round> tenantry = new ArrayList<>();
    List<Round> apply = new ArrayList<>();
    for (int r = 1; r <= rounds; r++) {
      tenantry.add(tenantryRound(Integer.toString(r), perRound));
      BenchSupport.awaitQuiet(operatorRequests::total, parts);
      apply.add(applyRound(config, kubeconfig, Integer.toString(r), perRound));
      BenchSupport.awaitQuiet(operatorRequests::total, parts);
    }

    System.out.println();
    System.out.printf("Provisioning: %d rounds of %d new tenants per side, after a warm-up round of %d (1 app + 1 PostgreSQL database"
        + " each), simulated cluster %s with %d kwok nodes; operator: %d workers, maxConcurrentRollouts %d%n%n", rounds, perRound, warmUp,
        admin.getKubernetesVersion().getGitVersion(), nodes, config.workers(), config.maxConcurrentRollouts());
    // This JVM's CPU: on side A the operator's work; on side B its informers taking B's objects' events (it has no Tenant for them).
    System.out.println("| round | Tenantry: all Ready | requests (operator) | JVM CPU | kubectl apply --server-side: all Ready"
        + " | requests (kubectl) | JVM CPU | ratio A/B |");
    System.out.println("|---|---|---|---|---|---|---|---|");
    double[] ratios = new double[rounds];
    for (int r = 0; r < rounds; r++) {
      ratios[r] = tenantry.get(r).seconds() / apply.get(r).seconds();
      Round a = tenantry.get(r);
      Round b = apply.get(r);
      System.out.printf("| %d | %.1f s | %d | %.1f s | %.1f s | %d | %.1f s | %.2f |%n", r + 1, a.seconds(), a.requestCount(),
          a.jvmCpuSeconds(), b.seconds(), b.requestCount(), b.jvmCpuSeconds(), ratios[r]);
    }
    double tenantrySeconds = tenantry.stream().mapToDouble(Round::seconds).sum();
    double applySeconds = apply.stream().mapToDouble(Round::seconds).sum();
    System.out.printf("| all %d | %.1f s | | | %.1f s | | | %.2f |%n", rounds * perRound, tenantrySeconds, applySeconds,
        tenantrySeconds / applySeconds);
    System.out.printf("| **median of the ratios** | | | | | | | **%.2f** (target ≤ 1.3) |%n%n", median(ratios));
    requestKinds(tenantry, apply, rounds * perRound);
    System.out.println("Where Tenantry's rounds went (the operator's metrics over each round):");
    System.out.println();
    System.out.println("| round | syncs | workers busy | mean wait in the queue | rollout slot waits | rollouts | mean rollout (slot held)"
        + " | JIT compiling |");
    System.out.println("|---|---|---|---|---|---|---|---|");
    for (int r = 0; r < rounds; r++) {
      Metrics m = tenantryMetrics.get(r);
      System.out.printf("| %d | %.0f | %.0f %% | %.0f ms | %.0f | %.0f | %.1f s | %.1f s |%n", r + 1, m.syncs(),
          100 * m.syncSeconds() / (tenantry.get(r).seconds() * config.workers()), 1000 * m.queuedSeconds() / m.queued(),
          m.slotWaits(), m.rollouts(), m.rolloutSeconds() / m.rollouts(), m.jitSeconds());
    }
    System.out.println();
    resyncs(kubeconfig);
  }

  /** The requests of the measured rounds per tenant, by kind, side by side: what Tenantry sends that a bare apply does not. */
  private void requestKinds(List<Round> tenantry, List<Round> apply, int tenants) {
    Map<String, Long> a = new TreeMap<>();
    Map<String, Long> b = new TreeMap<>();
    tenantry.forEach(r -> r.requests().forEach((kind, n) -> a.merge(kind, n, Long::sum)));
    apply.forEach(r -> r.requests().forEach((kind, n) -> b.merge(kind, n, Long::sum)));
    Map<String, Long> kinds = new TreeMap<>(a);
    b.keySet().forEach(kind -> kinds.putIfAbsent(kind, 0L));
    System.out.println("Requests per tenant, by kind (measured rounds):");
    System.out.println();
    System.out.println("| request | Tenantry | kubectl apply --server-side |");
    System.out.println("|---|---|---|");
    // Kinds below 0.01 a tenant on both sides (the informers' watches, renewed every few minutes) only count in "all".
    kinds.keySet().stream().filter(kind -> Math.max(a.getOrDefault(kind, 0L), b.getOrDefault(kind, 0L)) >= tenants / 100.0)
        .forEach(kind -> System.out.printf("| %s | %.2f | %.2f |%n", kind, a.getOrDefault(kind, 0L) / (double) tenants,
            b.getOrDefault(kind, 0L) / (double) tenants));
    double perTenant = a.values().stream().mapToLong(Long::longValue).sum() / (double) tenants;
    System.out.printf("| all | %.2f | %.2f |%n%n", perTenant, b.values().stream().mapToLong(Long::longValue).sum() / (double) tenants);
    double statusWrites = a.getOrDefault(STATUS_WRITE, 0L) / (double) tenants;
    guards.atMost("Tenantry's requests per new tenant besides its status writes", perTenant - statusWrites,
        REQUESTS_PER_TENANT_LIMIT);
    guards.atMost("Tenantry's status writes per new tenant", statusWrites, STATUS_WRITES_PER_TENANT_LIMIT);
  }

  /** Creates {@code count} Tenants and waits until the operator reports every one Ready. */
  private Round tenantryRound(String round, int count) throws InterruptedException, ExecutionException {
    List<String> names = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      names.add("pa" + round + "-" + i);
    }
    Map<String, Long> requestsBefore = operatorRequests.snapshot();
    Metrics before = metrics();
    double cpuBefore = jvmCpuSeconds();
    long started = System.nanoTime();
    ExecutorService creators = Executors.newFixedThreadPool(8);
    try {
      for (var created : creators.invokeAll(names.stream()
          .map(n -> (Callable<Tenant>) () -> admin.resources(Tenant.class).resource(BenchSupport.tenant(n)).create()).toList())) {
        created.get(); // A failed create fails the run now, not after the wait below.
      }
    } finally {
      creators.shutdown();
    }
    BenchSupport.waitUntil(() -> names.stream().allMatch(n -> {
      Tenant t = parts.cache().tenant(n);
      return t != null && t.getStatus() != null && t.getStatus().getPhase() == TenantPhase.Ready;
    }), 3600);
    Round result = new Round((System.nanoTime() - started) / 1e9, minus(operatorRequests.snapshot(), requestsBefore),
        jvmCpuSeconds() - cpuBefore);
    tenantryMetrics.add(metrics().minus(before));
    tenantryTenants.addAll(names);
    System.out.printf("round %s, Tenantry: %d tenants Ready after %.1f s%n", round, count, result.seconds());
    return result;
  }

  /**
   * Renders {@code count} tenants' objects as the operator's sync would, applies them with kubectl,
   * and waits until their namespaces exist and their workloads are rolled out. Rendering is not timed
   * (the file is the bare apply's input, as the Tenants are Tenantry's).
   */
  private Round applyRound(OperatorConfig config, Path kubeconfig, String round, int count) throws Exception {
    List<HasMetadata> watched = new ArrayList<>();
    Path file = work.resolve("round-" + round + ".yaml");
    try (Writer out = Files.newBufferedWriter(file)) {
      for (int i = 0; i < count; i++) {
        for (HasMetadata object : render(config, BenchSupport.tenant("pb" + round + "-" + i))) {
          String yaml = Serialization.asYaml(object);
          appliedObjects++;
          out.write(yaml.startsWith("---") ? yaml : "---\n" + yaml);
          if (object instanceof Namespace || object instanceof Deployment || object instanceof StatefulSet) {
            watched.add(object);
          }
        }
      }
    }
    double cpuBefore = jvmCpuSeconds();
    long started = System.nanoTime();
    Map<String, Long> requests = kubectlApply(kubeconfig, List.of(file), "round-" + round);
    BenchSupport.waitUntil(() -> watched.stream().allMatch(this::ready), 3600);
    Round result = new Round((System.nanoTime() - started) / 1e9, requests, jvmCpuSeconds() - cpuBefore);
    applied.add(file);
    System.out.printf("round %s, kubectl apply: %d tenants' objects (%d requests) Ready after %.1f s%n", round, count,
        result.requestCount(), result.seconds());
    return result;
  }

  /**
   * What the operator's sync renders for a new Active tenant (Provisioning: DesiredState.of with the
   * spec's app versions; no routes without a baseDomain), with generated credentials in place of
   * the secret store's.
   */
  private List<HasMetadata> render(OperatorConfig config, Tenant tenant) {
    TenantContext ctx = new TenantContext(tenant, config, config.plans().get(tenant.getSpec().getPlan()));
    Map<String, DatabaseCredentials> credentials = tenant.getSpec().getDatabases().stream().collect(Collectors.toMap(
        DatabaseSpec::getName, db -> new DatabaseCredentials(DatabaseModel.defaultUsername(db.getEngine()), password(), "1", "bench")));
    Map<String, String> versions = tenant.getSpec().getApps().stream().collect(Collectors.toMap(AppSpec::getName, AppSpec::getVersion));
    return DesiredState.of(ctx, credentials, parts.cache().templateSecrets(), Workloads.RUNNING, versions, Map.of());
  }

  /** The readiness a Tenant's Ready condition checks, for one of the bare apply's objects. */
  private boolean ready(HasMetadata object) {
    String namespace = object.getMetadata().getNamespace();
    String name = object.getMetadata().getName();
    if (object instanceof Namespace) {
      Namespace observed = parts.cache().get(Namespace.class, null, name);
      return observed != null && observed.getMetadata().getDeletionTimestamp() == null;
    }
    return object instanceof Deployment
        ? Readiness.rolledOut(parts.cache().get(Deployment.class, namespace, name))
        : Readiness.rolledOut(parts.cache().get(StatefulSet.class, namespace, name));
  }

  /**
   * Runs {@code kubectl apply --server-side} on the files; returns the requests it sent by kind (its
   * -v=6 log has a line per response). {@code --validate=false}: with its default validation kubectl
   * decodes the OpenAPI v3 document again for every object (kubernetes/kubernetes#127095), about
   * 60 ms of CPU per object here (200 ConfigMaps: 22 s, against 1.6 s without), which would make
   * the baseline many times slower; the API server still decodes every object into its type
   * (unknown fields are then dropped instead of refused). Run again, as its user would, when it
   * stopped at a conflict: the ResourceQuota admission refuses an object whose namespace's quota it
   * could not update while the quota controller writes it too; the requests of every run count.
   */
  private Map<String, Long> kubectlApply(Path kubeconfig, List<Path> files, String label) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(TestBinaries.locate().kubectl().toString(), "--kubeconfig", kubeconfig.toString(),
        "apply", "--server-side", "--validate=false", "-v=6"));
    files.forEach(f -> command.addAll(List.of("-f", f.toString())));
    Map<String, Long> requests = new TreeMap<>();
    for (int run = 1; ; run++) {
      Path log = work.resolve("kubectl-" + label + "-" + run + ".log");
      Process kubectl = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(log.toFile()).start();
      int exit = kubectl.waitFor();
      try (var lines = Files.lines(log)) {
        lines.map(KUBECTL_RESPONSE::matcher).filter(Matcher::find)
            .forEach(m -> requests.merge(kind(m.group(1), URI.create(m.group(2))), 1L, Long::sum));
      }
      if (exit == 0) {
        return requests;
      }
      // Its error lines only, cut short: the rest of the log is requests, and no object's data belongs in the output.
      List<String> errors = Files.readAllLines(log).stream().filter(l -> l.contains("rror") && !l.contains("round_trippers")).limit(5)
          .map(l -> l.length() > 300 ? l.substring(0, 300) + "..." : l).toList();
      if (run == KUBECTL_RUNS || errors.stream().noneMatch(l -> l.contains("the object has been modified"))) {
        throw new IllegalStateException("kubectl apply failed: " + String.join("\n", errors));
      }
      System.out.printf("round %s, kubectl apply stopped at a conflict (run %d of at most %d), run again: %s%n", label, run,
          KUBECTL_RUNS, errors.get(0));
    }
  }

  /** One full resync of the converged tenants of each side, and the requests it took. */
  private void resyncs(Path kubeconfig) throws Exception {
    double serverBefore = BenchSupport.serverRequests(admin, OWNED_RESOURCES);
    long clientBefore = operatorRequests.total();
    double syncsBefore = successfulSyncs();
    long started = System.nanoTime();
    tenantryTenants.forEach(parts.queue()::add);
    BenchSupport.waitUntil(() -> successfulSyncs() >= syncsBefore + tenantryTenants.size() && parts.queue().len() == 0
        && parts.workers().inProgress() == 0, 600);
    double tenantrySeconds = (System.nanoTime() - started) / 1e9;
    long tenantryClient = operatorRequests.total() - clientBefore;
    guards.atMost("Tenantry's requests during a converged resync", tenantryClient, 0);
    double tenantryServer = BenchSupport.serverRequests(admin, OWNED_RESOURCES) - serverBefore;

    serverBefore = BenchSupport.serverRequests(admin, OWNED_RESOURCES);
    started = System.nanoTime();
    long kubectlClient = kubectlApply(kubeconfig, applied, "resync").values().stream().mapToLong(Long::longValue).sum();
    double applySeconds = (System.nanoTime() - started) / 1e9;
    double applyServer = BenchSupport.serverRequests(admin, OWNED_RESOURCES) - serverBefore;

    System.out.printf("One full resync of the converged tenants (%d per side):%n%n", tenantryTenants.size());
    System.out.println("| | Tenantry (every tenant through the queue) | kubectl apply --server-side of the same files again |");
    System.out.println("|---|---|---|");
    System.out.printf("| requests sent by the client | %d | %d (%.2f per object) |%n", tenantryClient, kubectlClient,
        kubectlClient / (double) appliedObjects);
    System.out.printf("| requests the API server received for tenant resources (apiserver_request_total) | %.0f | %.0f |%n",
        tenantryServer, applyServer);
    System.out.printf("| time | %.2f s | %.1f s |%n", tenantrySeconds, applySeconds);
  }

  private Metrics metrics() {
    var registry = parts.registry();
    var syncs = registry.get("tenantry.sync").tag("queue", "tenants").timers();
    var queued = registry.get("workqueue.queue.duration").tag("name", "tenants").timer();
    var rollouts = registry.get("tenantry.rollout.duration").timer();
    return new Metrics(syncs.stream().mapToDouble(t -> t.count()).sum(), syncs.stream().mapToDouble(t -> t.totalTime(TimeUnit.SECONDS)).sum(),
        queued.count(), queued.totalTime(TimeUnit.SECONDS), registry.get("tenantry.rollout.slot.waits").counter().count(),
        rollouts.count(), rollouts.totalTime(TimeUnit.SECONDS), ManagementFactory.getCompilationMXBean().getTotalCompilationTime() / 1e3);
  }

  private static double jvmCpuSeconds() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime() / 1e9;
  }

  private double successfulSyncs() {
    return parts.registry().get("tenantry.sync").tag("queue", "tenants").tag("result", "success").timer().count();
  }

  private static String password() {
    byte[] bytes = new byte[24];
    RANDOM.nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  /**
   * A request's method and resource ("PATCH secrets", "PUT tenants/status", "WATCH secrets"), from
   * its path: /api/v1/[namespaces/NS/]RESOURCE[/NAME[/SUBRESOURCE]] or /apis/GROUP/VERSION/...;
   * anything else (discovery, OpenAPI) is "METHOD discovery".
   */
  private static String kind(String method, URI uri) {
    if (uri.getQuery() != null && uri.getQuery().contains("watch=true")) {
      method = "WATCH";
    }
    String[] segments = uri.getPath().replaceFirst("^/+", "").split("/");
    int first = "api".equals(segments[0]) ? 2 : "apis".equals(segments[0]) ? 3 : segments.length;
    String[] rest = Arrays.copyOfRange(segments, Math.min(first, segments.length), segments.length);
    if (rest.length >= 3 && "namespaces".equals(rest[0])) {
      rest = Arrays.copyOfRange(rest, 2, rest.length);
    }
    return method + " " + (rest.length == 0 ? "discovery" : rest.length >= 3 ? rest[0] + "/" + rest[2] : rest[0]);
  }

  private static Map<String, Long> minus(Map<String, Long> after, Map<String, Long> before) {
    Map<String, Long> difference = new TreeMap<>();
    after.forEach((kind, count) -> {
      long d = count - before.getOrDefault(kind, 0L);
      if (d != 0) {
        difference.put(kind, d);
      }
    });
    return difference;
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  /** The work directory holds the rendered Secrets and the kubeconfig: removed, not left in /tmp. */
  private static void deleteTree(Path dir) throws IOException {
    try (var paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
