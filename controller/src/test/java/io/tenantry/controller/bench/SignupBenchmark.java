package io.tenantry.controller.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.gatewayapi.v1.HTTPRoute;
import io.fabric8.kubernetes.api.model.gatewayapi.v1.HTTPRouteBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.micrometer.core.instrument.Gauge;
import io.tenantry.api.SignupPause;
import io.tenantry.api.WellKnown;
import io.tenantry.api.v1alpha1.AppRoute;
import io.tenantry.api.v1alpha1.AppSpec;
import io.tenantry.api.v1alpha1.SparePool;
import io.tenantry.api.v1alpha1.SparePoolSpec;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.api.v1alpha1.TenantTemplate;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.lifecycle.TenantCleanup;
import io.tenantry.controller.operator.AllocationService;
import io.tenantry.controller.operator.Operator;
import io.tenantry.controller.resources.Labels;
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
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * From a signup to its customer's first page, end to end: the allocation API over HTTP, the
 * operator's sync of the bound tenant, its HTTPRoute, and Traefik serving the returned URL from
 * that tenant's own pod ({@link TrafficEdge}). For each rate, open-loop signups (each sent at its
 * planned time, whatever the answers before it; every fourth names a subdomain) for the run's
 * length, twice: the operator as configured (allocation.holdDuringSignupBursts on) and with the
 * hold off, a fresh operator process each (its first sync of every tenant over before the first
 * signup), on the same pool refilled in between. Per signup it records when it was answered, its
 * Tenant Active and Ready at its current generation, its route naming the URL's host written (seen
 * by a watch) and accepted by the Gateway (0 for a spare's route, in place before the signup), its
 * web Service's endpoints naming its Ready pod (a spare's Service selects none until bound), its
 * identity ConfigMap naming the customer, its fleet record written (the Tenant's recorded mark),
 * the first 200 through Traefik for the URL's host answered from its namespace, and when the
 * status URL asked with {@code ?wait=10s} (what a signup service does before it sends its customer
 * on) said serving, with whether the URL served right then; the writes the API server took and the
 * Datastore calls, per signup, counted from the first signup until the cluster is quiet (queues
 * empty, work due within 15 s included unless nothing was written for 30 s, every allocation
 * recorded, the pool full again; a surge an earlier phase started is ended, and its retirement
 * waited out, before the count begins); and whether the pool ran dry (a 503). Side by side, with every fourth signup, the peer: a plain
 * HTTPRoute the benchmark writes for a Service it made ahead for one of the newest Ready spares'
 * pods, timed from its create to its first 200 through the same Traefik. As many signups as the burst has clients sent at
 * once, with their peers, on each side (the "32 concurrent signups"), in rounds (3 unless told), before the rates and
 * again after them, with the routes they left (Traefik's time grows with its routes), each time after
 * the edge alone takes as many plain routes at once (their floor). Last, a burst
 * larger than the pool from closed-loop concurrent clients, on each side.
 *
 * <p>Guarded counts (the run exits 1 over any): signups never served, failed (not 200, nor a 503
 * from an empty pool: a busy listener's 503 is a failure; printed by answer), told serving before their URL served, and writes per signup over
 * {@link #MAX_WRITES_PER_SIGNUP} ({@link #MAX_WRITES_PER_SIGNUP_EDGE_GATE} with spares gated at the edge) at each rate and at once. Timings are printed, never checked.
 *
 * <p>Arguments, all optional: rates per second (comma-separated, default 2,5,10; none: signups at once and the
 * bursts alone), seconds per rate
 * (120), the pool's buffer (400), concurrent clients of the burst (32; 0: the rates alone, no signups at once nor
 * burst), Traefik's
 * providersThrottleDuration (100ms; Traefik's default is 2s), its Gateway provider's throttleDuration
 * (0s, Traefik's default: the provider builds its configuration again as soon as anything it watches
 * changes), rounds of signups at once per side (3: summed up by the median of their p50s, since one
 * round's p50 and its peer's moved by up to 2× between runs of the same code on this machine; the
 * counts are guarded in every round), and routing.spareGate.mode (service, the default: a spare's
 * Services select no pod until bound; forwardAuth: its Services are open and Traefik, with its
 * kubernetesCRD provider on, throttled to {@link TrafficEdge#CRD_THROTTLE}, asks the operator before each request to a spare's route). Run with tools/bench-signup.sh, which
 * makes the pods' addresses local to this machine; CI runs {@code 2 10 20 8 100ms 100ms 1}.
 */
public final class SignupBenchmark {

  private static final String POOL = "signup";
  private static final String BASE_DOMAIN = "signup.bench";
  /**
   * Spares built at once. The API server bounds the refill's pace here (2–3 spares/s with 100 at once, each then 35–45 s
   * from created to Ready against 3 s on a quiet cluster, 2026-11-30): more builds at once than it takes only make each
   * one slower and the queue the signups' own syncs wait in longer (docs/allocation-api.md, Sizing a pool).
   */
  private static final int MAX_PROVISIONING = 20;
  private static final long SERVE_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(60);
  /**
   * A URL not served yet is probed again after a tenth of what it has waited, within these bounds: its first 200 is
   * read at most 10 % (and 500 ms) late, and the URLs still waiting do not flood the edge that shares the machine
   * with what it measures (at 10/s several hundred wait at once; probed every 25 ms until 2026-12-01, their new
   * connections took the cores the edge and the API server share).
   */
  private static final long PROBE_MIN_NANOS = TimeUnit.MILLISECONDS.toNanos(25);
  private static final long PROBE_MAX_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
  /** No write for three times the longest a signup holds its tenant's work: what is still due writes nothing. */
  private static final Duration SETTLED_FOR = SignupPause.MAX_HOLD.multipliedBy(3);
  /** A rate at which signups leave together: a microsecond apart. */
  private static final double AT_ONCE = 1e6;
  /** The name of the peer's Service and HTTPRoute in a spare's namespace. */
  private static final String PEER = "peer";
  /**
   * Writes per signup, counted until quiet, documented in docs/benchmarks.md (the operator's
   * server-side applies included): the bind, the bound tenant's first sync (namespace state,
   * identity, route, status, event), its record mark, and the replacement spare with everything
   * Kubernetes writes for it (its pod, ReplicaSet, quota and Deployment statuses, events), most of
   * them. 62–65 measured until 2026-11-30; 5 fewer since (spares created with their finalizer, one
   * NetworkPolicy for what applied to every pod instead of four, no StateChanged Event on a first status).
   */
  static final double MAX_WRITES_PER_SIGNUP = 65;
  /**
   * The same with spares gated at the edge (59.0–61.7 measured at CI's size on 2026-11-30): their
   * Services open from the start save the bind's Service writes and the EndpointSlice's, and each
   * signup adds its replacement's Middleware and its own gate's opening (its Middleware rewritten).
   */
  static final double MAX_WRITES_PER_SIGNUP_EDGE_GATE = 67;
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final java.util.regex.Pattern BACKGROUND = java.util.regex.Pattern.compile(" (leases|nodes)(/|$)");

  private record Settings(List<Double> rates, int seconds, int pool, int burstClients, String throttle, String watchThrottle,
      int atOnceRounds, boolean edgeGate) {
  }

  /** The 8th argument, routing.spareGate.mode: whether spares are gated at the edge (forwardAuth) or by their Services. */
  private static boolean spareGate(String mode) {
    return switch (mode) {
      case "service" -> false;
      case "forwardAuth" -> true;
      default -> throw new IllegalArgumentException("spare gate (8th argument): service or forwardAuth, not " + mode);
    };
  }

  /** The 1st argument: rates a second, comma-separated, or none (signups at once and the bursts alone). */
  private static List<Double> rates(String rates) {
    return "none".equals(rates) ? List.of() : Arrays.stream(rates.split(",")).map(Double::parseDouble).toList();
  }

  public static void main(String[] args) {
    Settings settings = new Settings(
        rates(args.length > 0 ? args[0] : "2,5,10"),
        args.length > 1 ? Integer.parseInt(args[1]) : 120,
        args.length > 2 ? Integer.parseInt(args[2]) : 400,
        args.length > 3 ? Integer.parseInt(args[3]) : 32,
        args.length > 4 ? args[4] : "100ms",
        args.length > 5 ? args[5] : "100ms",
        args.length > 6 ? Integer.parseInt(args[6]) : 3,
        spareGate(args.length > 7 ? args[7] : "service"));
    if (settings.rates().isEmpty() && settings.burstClients() == 0) {
      throw new IllegalArgumentException("rates (1st argument) none and burst clients (4th) 0: nothing to measure");
    }
    ((ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME))
        .setLevel(ch.qos.logback.classic.Level.WARN);
    System.setProperty("http.maxConnections", "64");
    int exit = 1;
    BenchGuards guards = new BenchGuards();
    String name = "tenantry-bench-signup-" + ProcessHandle.current().pid();
    double signups = settings.rates().stream().mapToDouble(r -> r * settings.seconds()).sum();
    int tenants = (int) (settings.pool() * 3 + 2 * (signups + settings.pool() + 4 * settings.atOnceRounds() * settings.burstClients()));
    try (TestCluster cluster = TestClusters.start(ClusterKind.SIMULATED, name, 0);
         KubernetesClient admin = cluster.newClient();
         DatastoreEmulator emulator = DatastoreEmulator.start()) {
      Crds.install(admin, Tenant.class.getResource("/META-INF/fabric8/tenants.tenantry.io-v1.yml"));
      Crds.install(admin, SparePool.class.getResource("/META-INF/fabric8/sparepools.tenantry.io-v1.yml"));
      Crds.installGatewayApi(admin);
      if (settings.edgeGate()) {
        Crds.installTraefik(admin);
      }
      SignupTracker tracker = new SignupTracker(admin, POOL);
      try (TrafficEdge edge = new TrafficEdge(cluster, admin, TrafficEdge.nodesFor(tenants), settings.throttle(), settings.watchThrottle(),
          settings.edgeGate(), tracker::identitySeen)) {
        new SignupBenchmark(cluster, admin, edge, tracker, emulator, settings, guards).run();
        exit = 0;
      } finally {
        tracker.close();
      }
    } catch (Exception e) {
      e.printStackTrace();
    } finally {
      if (exit == 0) {
        guards.exitIfBroken();
      }
      System.exit(exit);
    }
  }

  private final TestCluster cluster;
  private final KubernetesClient admin;
  private final TrafficEdge edge;
  private final SignupTracker tracker;
  private final Settings settings;
  private final BenchGuards guards;
  private final FleetRecords records;
  private final AtomicLong datastoreCalls = new AtomicLong();
  private final Path work;
  /** The operators' API port, the same for each: the spares' gates at the edge name it. */
  private final int httpPort;
  private final ScheduledExecutorService probes = Executors.newScheduledThreadPool(4);
  private final ExecutorService callers = Executors.newCachedThreadPool();
  private final List<String> summary = new ArrayList<>();
  private final List<String> writesByKind = new ArrayList<>();
  /** Per phase, the failed signups' answers and how many of each, where there were any. */
  private final List<String> failures = new ArrayList<>();
  /** Per phase, the signups whose first POST got no answer and was sent again, by why. */
  private final List<String> retries = new ArrayList<>();
  /** Per phase, the most connections the API listener held at once (sampled every 50 ms): its cap closes idle ones. */
  private final List<String> connectionPeaks = new ArrayList<>();
  /** Per phase, the spares the pool built to replace the bound ones, until quiet: how fast the pool refills here. */
  private final List<String> refills = new ArrayList<>();
  /** Per phase, the tenant workers' load from the first signup until quiet. */
  private final List<String> syncLoads = new ArrayList<>();
  /** Per round, Traefik's CPU from its first signup (or route) until all served. */
  private final List<String> edgeLoads = new ArrayList<>();
  /** Per rate, the API server's writes while the signups came, against what it took building the pool. */
  private final List<String> writeRates = new ArrayList<>();
  /** The API server's writes a second while the pool was built from empty, nothing else running: the pace it keeps here. */
  private double buildWritesPerSecond;
  /** Namespaces holding a peer Service not removed yet: the next round's peers go elsewhere. */
  private final Set<String> peerNamespaces = new HashSet<>();
  private int sequence;

  private SignupBenchmark(TestCluster cluster, KubernetesClient admin, TrafficEdge edge, SignupTracker tracker,
      DatastoreEmulator emulator, Settings settings, BenchGuards guards) throws IOException {
    this.cluster = cluster;
    this.admin = admin;
    this.edge = edge;
    this.tracker = tracker;
    this.settings = settings;
    this.guards = guards;
    this.records = counted(new DatastoreFleetRecords(emulator.datastore(), "bench"), datastoreCalls);
    this.work = Files.createTempDirectory("tenantry-bench-signup-");
    Files.writeString(work.resolve("token"), "bench-token");
    LocalSecretStore.init(work.resolve("store"), work.resolve("keyset.json"));
    try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
      this.httpPort = socket.getLocalPort();
    }
  }

  private void run() throws Exception {
    TenantTemplate template = new TenantTemplate();
    AppSpec web = new AppSpec("web", "registry.example.com/acme/web", "1.0.0", 1, edge.appPort());
    web.setRoutes(List.of(new AppRoute("/")));
    template.getApps().add(web);
    SparePool pool = new SparePool();
    pool.getMetadata().setName(POOL);
    pool.setSpec(new SparePoolSpec(settings.pool(), MAX_PROVISIONING, template));
    try (RunningOperator operator = new RunningOperator(true)) {
      build(pool);
      // Warm-up, not counted: connections, the JIT (signups one by one and at once), Traefik's first reloads.
      List<Signup> peers = new ArrayList<>();
      awaitServed(openLoop(operator, 2, 10, peerServices(peersOf(10)), peers));
      if (settings.burstClients() > 0) {
        awaitServed(openLoop(operator, AT_ONCE, settings.burstClients(), peerServices(peersOf(settings.burstClients())), peers));
      }
      awaitServed(peers);
      removePeers(peers);
      awaitQuiet(operator, List.of());
    }
    System.out.printf("%nSpares gated %s.%n", settings.edgeGate()
        ? "at the edge (routing.spareGate.mode forwardAuth: Traefik asks the operator; Services open)"
        : "by their Services (routing.spareGate.mode service: no pod selected until bound)");
    System.out.printf("%nSignups, open loop, %d s per rate, pool buffer %d (maxProvisioning %d); milestones p50 / p99 in ms from"
        + " the signup's planned send time; route written and accepted are 0 for a spare's route in place before the signup;"
        + " peer: an HTTPRoute the benchmark writes for a Service it made ahead for a Ready spare's pod%n%n",
        settings.seconds(), settings.pool(), MAX_PROVISIONING);
    System.out.println("| rate/s | side | signups | 200 | 503 pool dry | least Ready | answered | Active+Ready | route written | route accepted"
        + " | endpoint ready | identity | recorded | first 200 | not served | serving answered | not serving then | writes/signup | Datastore calls/signup |");
    System.out.println("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    phases();
    System.out.println("\nwrites per signup by kind, 0.2 or more (counted until quiet; nodes and leases left out):");
    writesByKind.forEach(w -> System.out.println("  " + w));
    if (!failures.isEmpty()) {
      System.out.println("\nfailed signups by answer (-1: none within the client's timeout):");
      failures.forEach(f -> System.out.println("  " + f));
    }
    if (!retries.isEmpty()) {
      System.out.println("\nsignups sent again with the same requestId, their first POST closed unanswered:");
      retries.forEach(r -> System.out.println("  " + r));
    }
    System.out.println("\nspares built per phase, from its first signup until quiet (the refill's pace bounds the rate a pool"
        + " sustains: a stream faster than it drains the buffer):");
    refills.forEach(r -> System.out.println("  " + r));
    System.out.println("\ntenant syncs per phase, from its first signup until quiet (workers busy on average, time keys waited in the queue):");
    syncLoads.forEach(w -> System.out.println("  " + w));
    System.out.println("\nthe edge's CPU per round, from its first signup (or route) until all served (Traefik's CPU time"
        + " ÷ the round's time, in cores; it builds its whole configuration again after each change it watches):");
    edgeLoads.forEach(w -> System.out.println("  " + w));
    if (!writeRates.isEmpty()) {
      System.out.println("\nthe API server's writes per rate (nodes and leases left out), against its pace building the pool from"
          + " empty: a stream whose signups, replacements included, ask more than that pace cannot be kept up with by this machine's"
          + " API server, only absorbed by the buffer:");
      writeRates.forEach(w -> System.out.println("  " + w));
    }
    System.out.printf("%nconnections on the operator's API listener at most (httpMaxConnections %d; the edge's forwardAuth"
        + " calls included):%n", OperatorConfig.defaults().httpMaxConnections());
    connectionPeaks.forEach(c -> System.out.println("  " + c));
    System.out.println();
    summary.forEach(System.out::println);
  }

  /** Builds the pool from empty, nothing else running; prints how long that took and the API server's writes meanwhile. */
  private void build(SparePool pool) throws InterruptedException {
    long building = System.nanoTime();
    Counts empty = counts();
    admin.resources(SparePool.class).resource(pool).create();
    awaitPoolFull();
    double seconds = (System.nanoTime() - building) / 1e9;
    double writes = counts().writes() - empty.writes();
    buildWritesPerSecond = writes / seconds;
    System.out.printf(Locale.ROOT, "pool of %d spares built in %.1f s (maxProvisioning %d): %.0f writes a second to the API server,"
        + " %.1f a spare%n", settings.pool(), seconds, MAX_PROVISIONING, buildWritesPerSecond, writes / settings.pool());
  }

  /**
   * Signups at once, the rates, again at once (after the routes the rates left), the bursts; with no burst clients the
   * rates alone (a pool sized for a long stream takes minutes to refill after each), with no rates no second round at once.
   */
  private void phases() throws Exception {
    boolean atOnce = settings.burstClients() > 0;
    if (atOnce) {
      atOnce();
    }
    for (double rate : settings.rates()) {
      for (boolean hold : List.of(true, false)) {
        measured(String.format(Locale.ROOT, "%.0f/s", rate), rate, (int) Math.round(rate * settings.seconds()), 1, hold);
      }
    }
    if (atOnce) {
      if (!settings.rates().isEmpty()) {
        atOnce();
      }
      for (boolean hold : List.of(true, false)) {
        burst(hold);
      }
    }
  }

  /**
   * As many signups as the burst has clients, sent at once, on each side: run before the rates and
   * after them, since the edge's time to load a route grows with the routes it has (named in the label).
   */
  private void atOnce() throws Exception {
    edgeAlone();
    for (boolean hold : List.of(true, false)) {
      int routed = admin.resources(HTTPRoute.class).inAnyNamespace().list().getItems().size();
      measured(String.format(Locale.ROOT, "%d at once, %d routes", settings.burstClients(), routed), AT_ONCE,
          settings.burstClients(), settings.atOnceRounds(), hold);
    }
  }

  /**
   * The edge's own time for as many new routes at once as the burst has clients: plain HTTPRoutes
   * for Services made ahead for the newest Ready spares' pods, written together while no operator runs, each timed from
   * its write to its first 200. The floor of the signups at once: what they take beyond it is the
   * work running meanwhile (the operator's, the API server's, the cluster's), which slows each of
   * the status writes Traefik makes one after another, one per new route, before it serves any.
   */
  private void edgeAlone() throws Exception {
    int routed = admin.resources(HTTPRoute.class).inAnyNamespace().list().getItems().size();
    String label = String.format(Locale.ROOT, "%d at once, %d routes", settings.burstClients(), routed);
    List<Milestone> rounds = new ArrayList<>();
    for (int round = 1; round <= settings.atOnceRounds(); round++) {
      rounds.add(edgeAloneRound(roundLabel(label, round, settings.atOnceRounds())));
    }
    summary.add(String.format(Locale.ROOT, "%s, edge alone (plain routes, no operator): first 200 %s", label, medianOfRounds(rounds)));
  }

  /** One round of {@link #edgeAlone}: its routes are deleted after it, so each round starts from the same routes. */
  private Milestone edgeAloneRound(String label) throws Exception {
    List<Signup> peers = new ArrayList<>();
    List<java.util.concurrent.Future<?>> calls = new ArrayList<>();
    List<String> namespaces = peerServices(settings.burstClients());
    long edgeStarted = System.nanoTime();
    double edgeCpu = edge.cpuSeconds();
    long t0 = edgeStarted + TimeUnit.MILLISECONDS.toNanos(100);
    for (String namespace : namespaces) {
      Signup peer = new Signup("edge-" + sequence, false);
      peer.namespace = namespace;
      peer.host = "peer-" + sequence++ + ".peer.bench";
      peer.start = t0;
      peers.add(peer);
      calls.add(callers.submit(() -> {
        LockSupport.parkNanos(peer.start - System.nanoTime());
        return writePeer(peer);
      }));
    }
    for (java.util.concurrent.Future<?> call : calls) {
      call.get();
    }
    awaitServed(peers);
    edgeLoads.add(label + ", edge alone: " + edgeLoad(edgeCpu, edgeStarted));
    Milestone served = Milestone.of(peers, s -> s.served);
    System.out.printf(Locale.ROOT, "| %s | edge alone: plain routes, no operator | %d | | | | | | %s | %s | | | | %s | %d | | | | |%n", label,
        peers.size(), Milestone.of(peers, s -> tracker.written(s.namespace, s.host)), Milestone.of(peers, s -> tracker.accepted(s.namespace, s.host)),
        served, served.missing());
    removePeers(peers);
    return served;
  }

  /**
   * {@code rounds} times {@code count} signups at {@code rate} on one side, each from a full pool,
   * each printed as a row; summed up by the median of the rounds' p50s (one round: its p50 and p99).
   */
  private void measured(String label, double rate, int count, int rounds, boolean hold) throws Exception {
    try (RunningOperator operator = new RunningOperator(hold)) {
      awaitQuiet(operator, List.of()); // the new process's first sync of every tenant
      String side = label + ", hold " + onOff(hold);
      List<Milestone> firstPages = new ArrayList<>();
      List<Milestone> peerPages = new ArrayList<>();
      List<Signup> served = new ArrayList<>();
      List<Signup> peersServed = new ArrayList<>();
      for (int round = 1; round <= rounds; round++) {
        endSurge(operator);
        List<String> peerNamespaces = peerServices(peersOf(count));
        Counts before = counts();
        tracker.resetLeastReady();
        operator.takePeakConnections();
        long started = System.nanoTime();
        double[] load = operator.load();
        double edgeCpu = edge.cpuSeconds();
        List<Signup> peers = new ArrayList<>();
        List<Signup> signups = openLoop(operator, rate, count, peerNamespaces, peers);
        double streamWrites = (counts().writes() - before.writes()) / ((System.nanoTime() - started) / 1e9);
        awaitServed(signups);
        awaitServed(peers);
        String roundSide = roundLabel(side, round, rounds);
        edgeLoads.add(roundSide + ": " + edgeLoad(edgeCpu, started));
        connectionPeaks.add(roundSide + ": " + operator.takePeakConnections());
        awaitQuiet(operator, signups);
        refills.add(roundSide + ": " + tracker.sparesBuiltSince(started));
        syncLoads.add(roundSide + ": " + operator.loadSince(load, started));
        Phase phase = phase(roundSide, signups, before, peers);
        print(roundLabel(label.replace("/s", ""), round, rounds), hold, phase);
        removePeers(peers);
        firstPages.add(phase.firstPage());
        peerPages.add(phase.peer());
        if (rate != AT_ONCE) {
          writeRates.add(String.format(Locale.ROOT, "%s: %.0f writes a second while the signups came; %.1f writes a signup (until quiet)"
              + " at the pool's build rate (%.0f a second) would take %.1f signups a second", roundSide, streamWrites,
              phase.writesPerSignup(), buildWritesPerSecond, buildWritesPerSecond / phase.writesPerSignup()));
        }
        signups.stream().filter(su -> su.code == 200).forEach(served::add);
        peersServed.addAll(peers);
        guards.atMost("signups at " + roundSide + " never served", phase.notServed(), 0);
        guards.atMost("signups at " + roundSide + " failed (not 200, nor 503 from an empty pool)", phase.failed(), 0);
        guards.atMost("signups at " + roundSide + " told serving before their URL served", phase.sentTo404(), 0);
        guards.atMost("writes per signup at " + roundSide, phase.writesPerSignup(),
            settings.edgeGate() ? MAX_WRITES_PER_SIGNUP_EDGE_GATE : MAX_WRITES_PER_SIGNUP);
      }
      // A subdomain is a new hostname for the edge to load, as the peer's is; the others' routes were there before their signup.
      summary.add(String.format(Locale.ROOT, "%s: first 200 %s; peer %s; p50 ÷ peer's = %.2f; p50 / p99 over the rounds: all %s,"
          + " without a subdomain %s, with one %s, the peer %s", side, medianOfRounds(firstPages), medianOfRounds(peerPages),
          medianP50(firstPages) / medianP50(peerPages), Milestone.of(served, su -> su.served),
          Milestone.of(served.stream().filter(su -> !su.subdomain).toList(), su -> su.served),
          Milestone.of(served.stream().filter(su -> su.subdomain).toList(), su -> su.served), Milestone.of(peersServed, su -> su.served)));
      // Where a new hostname's time goes: the answer (the claim and the bind), the operator's route write, the edge's status write, its reload.
      List<Signup> named = served.stream().filter(su -> su.subdomain).toList();
      summary.add(String.format(Locale.ROOT, "%s, with a subdomain: answered %s, route written %s, accepted %s, first 200 %s", side,
          Milestone.of(named, su -> su.answered), Milestone.of(named, su -> tracker.written(su.namespace, su.host)),
          Milestone.of(named, su -> tracker.accepted(su.namespace, su.host)), Milestone.of(named, su -> su.served)));
    }
  }

  /** Traefik's cores on average since {@code started}, its CPU time then {@code cpuBefore}. */
  private String edgeLoad(double cpuBefore, long started) {
    double seconds = (System.nanoTime() - started) / 1e9;
    return String.format(Locale.ROOT, "%.2f cores on average over %.1f s", (edge.cpuSeconds() - cpuBefore) / seconds, seconds);
  }

  private static String roundLabel(String label, int round, int rounds) {
    return rounds == 1 ? label : label + ", round " + round + " of " + rounds;
  }

  /** One round: its p50 and p99; several: the median of their p50s, and each p50. */
  private static String medianOfRounds(List<Milestone> rounds) {
    if (rounds.size() == 1) {
      return String.format(Locale.ROOT, "p50 %.0f ms, p99 %.0f ms", rounds.get(0).ms(0.5), rounds.get(0).ms(0.99));
    }
    return String.format(Locale.ROOT, "p50 %.0f ms (median of %d rounds: %s)", medianP50(rounds), rounds.size(),
        rounds.stream().map(r -> String.format(Locale.ROOT, "%.0f", r.ms(0.5))).collect(Collectors.joining(", ")));
  }

  private static double medianP50(List<Milestone> rounds) {
    List<Double> p50s = rounds.stream().map(Milestone::p50Ms).sorted().toList();
    int n = p50s.size();
    return n % 2 == 1 ? p50s.get(n / 2) : (p50s.get(n / 2 - 1) + p50s.get(n / 2)) / 2;
  }

  /** More signups than the pool holds, from closed-loop concurrent clients. */
  private void burst(boolean hold) throws Exception {
    try (RunningOperator operator = new RunningOperator(hold)) {
      awaitQuiet(operator, List.of());
      endSurge(operator);
      Counts before = counts();
      tracker.resetLeastReady();
      operator.takePeakConnections();
      long started = System.nanoTime();
      double[] load = operator.load();
      int total = settings.pool() + 2 * settings.burstClients();
      List<Signup> signups = new ArrayList<>();
      for (int i = 0; i < total; i++) {
        signups.add(new Signup(nextRequestId(), i % 4 == 0));
      }
      AtomicInteger next = new AtomicInteger();
      List<java.util.concurrent.Future<?>> clients = new ArrayList<>();
      for (int c = 0; c < settings.burstClients(); c++) {
        clients.add(callers.submit(() -> {
          for (int i = next.getAndIncrement(); i < total; i = next.getAndIncrement()) {
            Signup s = signups.get(i);
            s.start = System.nanoTime();
            signup(operator, s);
          }
          return null;
        }));
      }
      for (java.util.concurrent.Future<?> client : clients) {
        client.get();
      }
      awaitServed(signups);
      connectionPeaks.add("burst, hold " + onOff(hold) + ": " + operator.takePeakConnections());
      awaitQuiet(operator, signups);
      refills.add("burst, hold " + onOff(hold) + ": " + tracker.sparesBuiltSince(started));
      syncLoads.add("burst, hold " + onOff(hold) + ": " + operator.loadSince(load, started));
      Phase phase = phase("burst, hold " + onOff(hold), signups, before, List.of());
      print("burst of " + total + " (" + settings.burstClients() + " clients)", hold, phase);
      guards.atMost("burst signups (hold " + onOff(hold) + ") never served", phase.notServed(), 0);
      guards.atMost("burst signups (hold " + onOff(hold) + ") told serving before their URL served", phase.sentTo404(), 0);
      guards.atMost("burst signups (hold " + onOff(hold) + ") failed (not 200, nor 503 from an empty pool)", phase.failed(), 0);
    }
  }

  /**
   * {@code count} signups sent at {@code rate} per second, each at its planned time, and with every
   * fourth the peer: a plain HTTPRoute to the peer Service in the next of {@code peerNamespaces}
   * ({@link #peerServices}), into {@code peers}. Returns once all are answered.
   */
  private List<Signup> openLoop(RunningOperator operator, double rate, int count, List<String> peerNamespaces,
      List<Signup> peers) throws Exception {
    List<Signup> signups = new ArrayList<>();
    List<java.util.concurrent.Future<?>> calls = new ArrayList<>();
    peerNamespaces = new ArrayList<>(peerNamespaces);
    long t0 = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
    for (int i = 0; i < count; i++) {
      Signup s = new Signup(nextRequestId(), i % 4 == 3);
      s.start = t0 + (long) (i * 1e9 / rate);
      for (long wait = s.start - System.nanoTime(); wait > 0; wait = s.start - System.nanoTime()) {
        LockSupport.parkNanos(wait);
      }
      signups.add(s);
      calls.add(callers.submit(() -> signup(operator, s)));
      if (i % 4 == 1 && !peerNamespaces.isEmpty()) {
        Signup peer = new Signup("peer-" + i, false);
        peer.namespace = peerNamespaces.remove(0);
        peer.host = "peer-" + sequence++ + ".peer.bench";
        peer.start = System.nanoTime();
        peers.add(peer);
        calls.add(callers.submit(() -> writePeer(peer)));
      }
    }
    for (java.util.concurrent.Future<?> call : calls) {
      call.get();
    }
    return signups;
  }

  private String nextRequestId() {
    return "signup-" + (sequence++);
  }

  /**
   * One signup: the POST, then (answered 200) probes of its URL through Traefik, backing off, until its
   * namespace answers. A POST whose connection closes before its answer is sent once more with the
   * same requestId, as docs/allocation-api.md tells a signup service (the same id never gets two
   * tenants); the retries are counted and printed.
   */
  private void signup(RunningOperator operator, Signup s) {
    try {
      byte[] body = s.request().getBytes(StandardCharsets.UTF_8);
      HttpURLConnection connection;
      int code;
      try {
        connection = BenchSupport.postAllocation(operator.url, body);
        code = connection.getResponseCode();
      } catch (IOException closed) {
        s.retried = closed.toString();
        connection = BenchSupport.postAllocation(operator.url, body);
        code = connection.getResponseCode();
      }
      byte[] answer;
      try (InputStream in = code < 400 ? connection.getInputStream() : connection.getErrorStream()) {
        answer = in == null ? new byte[0] : in.readAllBytes();
      }
      s.answered = System.nanoTime();
      s.code = code;
      if (code != 200) {
        s.refusal = new String(answer, StandardCharsets.UTF_8);
        return;
      }
      JsonNode json = JSON.readTree(answer);
      s.tenant = json.get("tenant").asText();
      s.namespace = json.get("namespace").asText();
      s.host = URI.create(json.get("url").asText()).getHost();
      s.statusPath = json.get("status").asText();
    } catch (IOException e) {
      s.answered = System.nanoTime();
      s.code = -1;
      s.refusal = e.toString();
      return;
    }
    probe(s);
    try {
      awaitServingReported(operator, s, s.statusPath);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * What a signup service does before it sends its customer on: asks the status with {@code
   * ?wait=}, for 10 s in all (an answer that comes early saying not serving, because the operator's
   * waits were all taken, is asked again after 250 ms, as docs/allocation-api.md says). Records when
   * an answer said serving, and whether the URL answered from the tenant's namespace right then
   * (else the customer would have met a 404 or another page).
   */
  private void awaitServingReported(RunningOperator operator, Signup s, String status) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    for (long left = TimeUnit.SECONDS.toMillis(10); left > 0; left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())) {
      try {
        HttpURLConnection connection = (HttpURLConnection) new URL(operator.url, status + "?wait=" + left + "ms").openConnection();
        connection.setRequestProperty("Authorization", "Bearer bench-token");
        if (connection.getResponseCode() != 200) {
          return;
        }
        try (InputStream in = connection.getInputStream()) {
          if (JSON.readTree(in.readAllBytes()).get("serving").asBoolean()) {
            s.servingReported = System.nanoTime();
            TrafficEdge.Answer answer = edge.get(s.host);
            s.servedWhenReported = answer.status() == 200 && answer.namespace().equals(s.namespace);
            return;
          }
        }
      } catch (IOException closed) {
        // A status read is safe to repeat: asked again below, within the same 10 s.
      }
      Thread.sleep(250);
    }
  }

  /** Probes the signup's host until its namespace answers, or for {@link #SERVE_TIMEOUT_NANOS}, backing off ({@link #PROBE_MIN_NANOS}). */
  private void probe(Signup s) {
    probes.execute(() -> probeOnce(s));
  }

  private void probeOnce(Signup s) {
    try {
      TrafficEdge.Answer answer = edge.get(s.host);
      if (answer.status() == 200 && answer.namespace().equals(s.namespace)) {
        s.served = System.nanoTime();
      }
    } catch (IOException | RuntimeException e) {
      // Not serving yet: probed again below.
    }
    long waited = System.nanoTime() - s.answered;
    if (s.served > 0 || waited > SERVE_TIMEOUT_NANOS) {
      s.probed.countDown();
      return;
    }
    probes.schedule(() -> probeOnce(s), Math.min(PROBE_MAX_NANOS, Math.max(PROBE_MIN_NANOS, waited / 10)), TimeUnit.NANOSECONDS);
  }

  private void awaitServed(List<Signup> signups) throws InterruptedException {
    for (Signup s : signups) {
      if (s.code == 200) {
        s.probed.await();
      }
    }
  }

  /**
   * Makes a Service named "peer" for the web pod of each of the {@code count} newest Ready spares
   * (the allocator takes the oldest), as a plain Service selecting it: a spare's own Service selects
   * nothing until it is bound. Returns their namespaces once each Service's endpoints name its pod.
   */
  private List<String> peerServices(int count) throws InterruptedException {
    List<Tenant> spares = tracker.readySpares().stream().filter(t -> !peerNamespaces.contains(t.getStatus().getNamespace()))
        .sorted(java.util.Comparator.comparing((Tenant t) -> t.getMetadata().getCreationTimestamp()).reversed())
        .limit(count).toList();
    for (Tenant spare : spares) {
      admin.services().inNamespace(spare.getStatus().getNamespace()).resource(new ServiceBuilder()
          .withNewMetadata().withName(PEER).endMetadata()
          .withNewSpec().withSelector(Labels.selector(spare.getMetadata().getName(), Labels.COMPONENT_APP, "web"))
          .addNewPort().withName("http").withPort(edge.appPort()).withTargetPort(new IntOrString("http")).endPort()
          .endSpec().build()).create();
    }
    List<String> namespaces = spares.stream().map(t -> t.getStatus().getNamespace()).toList();
    peerNamespaces.addAll(namespaces);
    for (String namespace : namespaces) {
      BenchSupport.waitUntil(() -> admin.discovery().v1().endpointSlices().inNamespace(namespace)
          .withLabel("kubernetes.io/service-name", PEER).list().getItems().stream()
          .anyMatch(slice -> slice.getEndpoints() != null && !slice.getEndpoints().isEmpty()), 120);
    }
    return namespaces;
  }

  /** How many of {@code count} signups sent by {@link #openLoop} have a peer: the second of every four. */
  private static int peersOf(int count) {
    return (count + 2) / 4;
  }

  /** Deletes the peer routes and Services, so that no spare stays reachable. */
  private void removePeers(List<Signup> peers) {
    for (Signup s : peers) {
      admin.resources(HTTPRoute.class).inNamespace(s.namespace).withName(PEER).delete();
      admin.services().inNamespace(s.namespace).withName(PEER).delete();
      peerNamespaces.remove(s.namespace);
      tracker.forgetRoute(s.namespace, s.host);
    }
  }

  /** Writes the peer's plain HTTPRoute, then probes its host until its namespace answers. */
  private Void writePeer(Signup peer) {
    admin.resources(HTTPRoute.class).inNamespace(peer.namespace).resource(peerRoute(peer)).create();
    peer.answered = System.nanoTime();
    peer.code = 200;
    probe(peer);
    return null;
  }

  private HTTPRoute peerRoute(Signup s) {
    return new HTTPRouteBuilder().withNewMetadata().withName(PEER).withNamespace(s.namespace).endMetadata()
        .withNewSpec()
        .addNewParentRef().withName("tenantry").withNamespace(TrafficEdge.EDGE_NAMESPACE).endParentRef()
        .withHostnames(s.host)
        .addNewRule().addNewBackendRef().withName(PEER).withPort(edge.appPort()).endBackendRef().endRule()
        .endSpec().build();
  }

  /** Counters read before a phase: the API server's writes (by kind, and their sum) and the Datastore calls. */
  private record Counts(Map<String, Double> byKind, double writes, long datastore) {
    /** The kinds of at least {@code least} writes per signup since {@code before}, most first: "12.0 POST pods". */
    String perSignup(Counts before, int signups, double least) {
      return byKind.entrySet().stream()
          .map(e -> Map.entry(e.getKey(), (e.getValue() - before.byKind().getOrDefault(e.getKey(), 0.0)) / signups))
          .filter(e -> e.getValue() >= least).sorted(Map.Entry.<String, Double>comparingByValue().reversed())
          .map(e -> String.format(Locale.ROOT, "%.2f %s", e.getValue(), e.getKey())).collect(Collectors.joining(", "));
    }
  }

  /** Writes of every kind but the cluster's own heartbeats (kwok's nodes, the components' leases), which go on regardless. */
  private Counts counts() {
    Map<String, Double> writes = BenchSupport.writes(admin);
    writes.keySet().removeIf(kind -> BACKGROUND.matcher(kind).find());
    return new Counts(writes, writes.values().stream().mapToDouble(Double::doubleValue).sum(), datastoreCalls.get());
  }

  private record Phase(int signups, int ok, int dry, int failed, int leastReady, Milestone answered, Milestone ready,
      Milestone written, Milestone accepted, Milestone opened, Milestone identity, Milestone recorded, Milestone firstPage, int notServed, Milestone reported,
      int sentTo404, double writesPerSignup, double datastorePerSignup, Milestone peerWritten, Milestone peerAccepted, Milestone peer) {
  }

  private Phase phase(String label, List<Signup> signups, Counts before, List<Signup> peers) {
    Counts after = counts();
    writesByKind.add(label + ": " + after.perSignup(before, Math.max(1, (int) signups.stream().filter(s -> s.code == 200).count()), 0.2));
    List<Signup> ok = signups.stream().filter(s -> s.code == 200).toList();
    int dry = (int) signups.stream().filter(Signup::poolDry).count();
    Map<String, Long> refusals = signups.stream().filter(s -> s.code != 200 && !s.poolDry())
        .collect(Collectors.groupingBy(Signup::refusalSummary, TreeMap::new, Collectors.counting()));
    if (!refusals.isEmpty()) {
      failures.add(label + ": " + refusals);
    }
    Map<String, Long> retried = signups.stream().filter(s -> s.retried != null)
        .collect(Collectors.groupingBy(s -> s.retried, TreeMap::new, Collectors.counting()));
    if (!retried.isEmpty()) {
      retries.add(label + ": " + retried);
    }
    int n = Math.max(1, ok.size());
    Milestone firstPage = Milestone.of(ok, s -> s.served);
    return new Phase(signups.size(), ok.size(), dry, signups.size() - ok.size() - dry, tracker.leastReady(),
        Milestone.of(signups, s -> s.answered), Milestone.of(ok, s -> tracker.ready(s.tenant)),
        Milestone.of(ok, s -> tracker.written(s.namespace, s.host)), Milestone.of(ok, s -> tracker.accepted(s.namespace, s.host)),
        Milestone.of(ok, s -> tracker.opened(s.namespace)), Milestone.of(ok, s -> tracker.identity(s.namespace, s.organization())), Milestone.of(ok, s -> tracker.recorded(s.tenant)),
        firstPage, firstPage.missing(), Milestone.of(ok, s -> s.servingReported),
        (int) ok.stream().filter(s -> s.servingReported > 0 && !s.servedWhenReported).count(), (after.writes() - before.writes()) / n,
        (double) (after.datastore() - before.datastore()) / n, Milestone.of(peers, s -> tracker.written(s.namespace, s.host)),
        Milestone.of(peers, s -> tracker.accepted(s.namespace, s.host)),
        Milestone.of(peers, s -> s.served));
  }

  private static void print(String rate, boolean hold, Phase p) {
    System.out.printf(Locale.ROOT, "| %s | hold %s | %d | %d | %d | %d | %s | %s | %s | %s | %s | %s | %s | %s | %d | %s | %d | %.1f | %.1f |%n",
        rate, onOff(hold), p.signups(), p.ok(), p.dry(), p.leastReady(), p.answered(), p.ready(), p.written(), p.accepted(), p.opened(),
        p.identity(),
        p.recorded(), p.firstPage(), p.notServed(), p.reported(), p.sentTo404(), p.writesPerSignup(), p.datastorePerSignup());
    if (!p.peer().sortedNanos().isEmpty() || p.peer().missing() > 0) {
      System.out.printf(Locale.ROOT, "| %s | peer, hold %s | %d | | | | | | %s | %s | | | | %s | %d | | | | |%n", rate, onOff(hold),
          p.peer().sortedNanos().size() + p.peer().missing(), p.peerWritten(), p.peerAccepted(), p.peer(), p.peer().missing());
    }
  }

  private static String onOff(boolean hold) {
    return hold ? "on" : "off";
  }

  /**
   * Ends the surge an earlier phase started, if any, and waits until its extra spares are gone. A
   * signup that found the pool empty makes it keep buffer + maxProvisioning spares for 10 minutes,
   * and then retire the extra ones, namespaces and all: the earlier phase's doing, which counted in
   * this one came to some hundred writes per signup. Removing the stamp ends the surge at once.
   */
  private void endSurge(RunningOperator operator) throws InterruptedException {
    SparePool pool = admin.resources(SparePool.class).withName(POOL).get();
    if (pool.getMetadata().getAnnotations() == null || !pool.getMetadata().getAnnotations().containsKey(WellKnown.SHORTAGE_AT)) {
      return;
    }
    long started = System.nanoTime();
    // A JSON patch, not an edit at the read resourceVersion: the operator writes the pool's status meanwhile.
    admin.resources(SparePool.class).withName(POOL).patch(PatchContext.of(PatchType.JSON), "[{\"op\": \"remove\", \"path\":"
        + " \"/metadata/annotations/" + WellKnown.SHORTAGE_AT.replace("~", "~0").replace("/", "~1") + "\"}]");
    BenchSupport.waitUntil(() -> admin.resources(Tenant.class).withLabel(WellKnown.SPARE_POOL, POOL).list().getItems().stream()
        .noneMatch(t -> t.getSpec().getOrganization() == null && t.getSpec().getState() != TenantState.New)
        && admin.namespaces().list().getItems().stream().noneMatch(ns -> "Terminating".equals(ns.getStatus().getPhase())), 1800);
    awaitQuiet(operator, List.of());
    System.out.printf(Locale.ROOT, "  (the surge an earlier phase started ended, its extra spares retired: %.0f s, not counted)%n",
        (System.nanoTime() - started) / 1e9);
  }

  private void awaitPoolFull() throws InterruptedException {
    BenchSupport.waitUntil(() -> tracker.readySpares().size() >= settings.pool(), 1800);
  }

  /**
   * Until the cluster is quiet: every signup's allocation recorded, the operator's queues empty, the
   * pool full, no write to the API server for 2 s, and nothing due within 15 s, or no write for
   * {@link #SETTLED_FOR} (what a refill leaves due is each new spare's rollout deadline, a wake-up that
   * finds it converged and writes nothing, up to 10 minutes later).
   */
  private void awaitQuiet(RunningOperator operator, List<Signup> signups) throws InterruptedException {
    Operator.Parts parts = operator.parts;
    double last = -1;
    long started = System.nanoTime();
    long settledSince = Long.MAX_VALUE;
    for (int round = 1; System.nanoTime() - started < TimeUnit.MINUTES.toNanos(30); round++) {
      double writes = counts().writes();
      long unrecorded = signups.stream().filter(s -> s.code == 200 && tracker.recorded(s.tenant) == 0).count();
      int queued = parts.queue().len() + parts.poolQueue().len() + parts.workers().inProgress() + parts.poolWorkers().inProgress();
      int due = parts.queue().dueWithin(Duration.ofSeconds(15)) + parts.poolQueue().dueWithin(Duration.ofSeconds(15));
      int ready = tracker.readySpares().size();
      boolean settled = writes == last && unrecorded == 0 && queued == 0 && ready >= settings.pool();
      settledSince = !settled ? Long.MAX_VALUE : Math.min(settledSince, System.nanoTime());
      if (settled && (due == 0 || System.nanoTime() - settledSince >= SETTLED_FOR.toNanos())) {
        return;
      }
      if (round % 15 == 0) {
        System.out.printf(Locale.ROOT, "  (waiting for quiet: %.0f writes in 2 s, %d unrecorded, %d queued or syncing, %d due within 15 s,"
            + " %d of %d spares Ready)%n", writes - last, unrecorded, queued, due, ready, settings.pool());
      }
      last = writes;
      Thread.sleep(2000);
    }
    throw new IllegalStateException("the cluster did not become quiet in 30 minutes");
  }

  /** The operator, its allocation API and the counted fleet records, for one phase. */
  private final class RunningOperator implements AutoCloseable {
    final Operator.Parts parts;
    final Operator operator;
    final AllocationService allocation;
    final KubernetesClient client;
    final URL url;
    private final AtomicInteger peakConnections = new AtomicInteger();
    private final ScheduledFuture<?> sampler;

    RunningOperator(boolean hold) throws Exception {
      OperatorConfig config = OperatorConfig.defaults().with("""
          {httpPort: %d, probePort: 0, leaderElection: {enabled: false}, rateLimits: {qps: 1000, burst: 1000},
           maxConcurrentRollouts: 200, routing: {mode: gateway, baseDomain: %s, scheme: http,
             spareGate: {mode: %s, forwardAuthAddress: 'http://127.0.0.1:%d'}},
           fleet: {datastoreProjectId: %s},
           allocation: {enabled: true, tokenFile: '%s', holdDuringSignupBursts: %s, servingProbeAddress: '%s'}}"""
          .formatted(httpPort, BASE_DOMAIN, settings.edgeGate() ? "forwardAuth" : "service", httpPort, DatastoreEmulator.PROJECT_ID,
              work.resolve("token"), hold, edge.gatewayAddress()));
      client = cluster.newClient();
      parts = Operator.wire(client, config, "bench", LocalSecretStore.open(work.resolve("store"), work.resolve("keyset.json")),
          TenantCleanup.fleet(records, config.fleet().clusterName()), records, null);
      operator = new Operator(client, config, "bench", () -> { }, parts);
      operator.start();
      allocation = AllocationService.start(operator, config, client, records, Clock.systemUTC());
      url = new URL("http://localhost:" + operator.httpPort() + "/v1/allocations");
      Gauge connections = parts.registry().get("tenantry.http.connections").tag("listener", "api").gauge();
      sampler = probes.scheduleAtFixedRate(() -> peakConnections.accumulateAndGet((int) connections.value(), Math::max),
          0, 50, TimeUnit.MILLISECONDS);
    }

    /** Tenant syncs so far: count, seconds syncing, keys taken from the queue, seconds they waited there. */
    double[] load() {
      var registry = parts.registry();
      var syncs = registry.get("tenantry.sync").tag("queue", "tenants").timers();
      var waits = registry.get("workqueue.queue.duration").tag("name", "tenants").timer();
      return new double[] {syncs.stream().mapToDouble(t -> t.count()).sum(),
          syncs.stream().mapToDouble(t -> t.totalTime(TimeUnit.SECONDS)).sum(), waits.count(), waits.totalTime(TimeUnit.SECONDS)};
    }

    String loadSince(double[] before, long started) {
      double[] now = load();
      double seconds = (System.nanoTime() - started) / 1e9;
      return String.format(Locale.ROOT, "%.0f syncs in %.0f s, %.2f workers busy on average, mean %.2f s per sync, mean %.2f s in the queue",
          now[0] - before[0], seconds, (now[1] - before[1]) / seconds, (now[1] - before[1]) / Math.max(1, now[0] - before[0]),
          (now[3] - before[3]) / Math.max(1, now[2] - before[2]));
    }

    /** The most connections the API listener held at once since the last call. */
    int takePeakConnections() {
      return peakConnections.getAndSet(0);
    }

    @Override
    public void close() {
      sampler.cancel(false);
      allocation.close();
      operator.close();
      client.close();
    }
  }

  /** FleetRecords whose every call is counted. */
  private static FleetRecords counted(FleetRecords records, AtomicLong calls) {
    return (FleetRecords) Proxy.newProxyInstance(FleetRecords.class.getClassLoader(), new Class<?>[] {FleetRecords.class},
        (proxy, method, args) -> {
          calls.incrementAndGet();
          try {
            return method.invoke(records, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });
  }

  /** One signup (or one peer route) and when each of its milestones was reached, by System.nanoTime(). */
  static final class Signup {
    private static final Pattern TITLE = Pattern.compile("<title>(.*?)</title>");
    final String requestId;
    final boolean subdomain;
    final java.util.concurrent.CountDownLatch probed = new java.util.concurrent.CountDownLatch(1);
    volatile long start;
    volatile long answered;
    volatile int code;
    /** The answer's body when it was not 200, or the client's error when there was none. */
    volatile String refusal;
    volatile String tenant;
    volatile String namespace;
    volatile String host;
    /** The allocation's status URL, from the 200. */
    volatile String statusPath;
    /** Why the first POST got no answer, when it was sent again. */
    volatile String retried;
    volatile long served;
    volatile long servingReported;
    volatile boolean servedWhenReported;

    Signup(String requestId, boolean subdomain) {
      this.requestId = requestId;
      this.subdomain = subdomain;
    }

    /**
     * Whether the answer was the pool running out: a 503 for want of a Ready spare, or with every
     * Ready spare taken by the signups beside it. Any other 503 (a busy listener, the fleet records
     * out of reach) is a failed signup.
     */
    boolean poolDry() {
      return code == 503 && refusal != null
          && (refusal.contains("no Ready spare") || refusal.contains("taken by concurrent requests"));
    }

    /** The failed answer in a few words: its code and the start of its body (an error page's title), on one line. */
    String refusalSummary() {
      String text = refusal == null ? "" : refusal.replaceAll("\\s+", " ").strip();
      Matcher title = TITLE.matcher(text);
      if (title.find()) {
        text = title.group(1);
      }
      return code + " " + text.substring(0, Math.min(80, text.length()));
    }

    String organization() {
      return "Org " + requestId;
    }

    String request() {
      var node = JSON.createObjectNode().put("requestId", requestId).put("organization", organization())
          .put("email", requestId + "@bench.example").put("pool", POOL);
      if (subdomain) {
        node.put("subdomain", "s" + requestId.replace("signup-", "") + "-" + ProcessHandle.current().pid());
      }
      return node.toString();
    }
  }

  /** p50 and p99 of one milestone over some signups, in ms from each one's start; those that never reached it are missing. */
  record Milestone(List<Long> sortedNanos, int missing) {
    static Milestone of(List<Signup> signups, java.util.function.ToLongFunction<Signup> at) {
      ConcurrentLinkedQueue<Long> reached = new ConcurrentLinkedQueue<>();
      int missing = 0;
      for (Signup s : signups) {
        long t = at.applyAsLong(s);
        if (t > 0) {
          reached.add(Math.max(0, t - s.start));
        } else {
          missing++;
        }
      }
      return new Milestone(reached.stream().sorted().toList(), missing);
    }

    double ms(double quantile) {
      if (sortedNanos.isEmpty()) {
        return Double.NaN;
      }
      int index = (int) Math.ceil(quantile * sortedNanos.size()) - 1;
      return sortedNanos.get(Math.max(0, index)) / 1e6;
    }

    double p50Ms() {
      return ms(0.50);
    }

    String p50() {
      return String.format(Locale.ROOT, "%.0f ms", ms(0.50));
    }

    @Override
    public String toString() {
      return String.format(Locale.ROOT, "%.0f / %.0f", ms(0.50), ms(0.99)) + (missing > 0 ? " (" + missing + " never)" : "");
    }
  }

  static Map<String, String> annotations(Tenant t) {
    return t.getMetadata().getAnnotations() == null ? Map.of() : t.getMetadata().getAnnotations();
  }
}
