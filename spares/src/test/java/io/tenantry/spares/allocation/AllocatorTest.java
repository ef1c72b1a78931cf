package io.tenantry.spares.allocation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClientException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tenantry.spares.allocation.AllocationOutcome.Allocated;
import io.tenantry.spares.allocation.AllocationOutcome.NoSpare;
import io.tenantry.spares.allocation.AllocationOutcome.SubdomainRefused;
import io.tenantry.spares.allocation.AllocationOutcome.SubdomainTaken;
import io.tenantry.spares.allocation.AllocationOutcome.UnknownPool;
import io.tenantry.spares.fleet.Allocation;
import io.tenantry.spares.fleet.Cluster;
import io.tenantry.spares.fleet.HostnameClaim;
import io.tenantry.spares.fleet.InMemoryFleetRecords;
import io.tenantry.spares.fleet.TenantRef;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The {@link Allocator} against clusters and fleet records in memory: each case is "the clusters
 * hold X → the request gets Y, with these writes". The cluster stand-in refuses a bind at a stale
 * resourceVersion as the API server does, so races with other processes are played exactly.
 */
class AllocatorTest {

  private static final Instant NOW = Instant.parse("2026-03-01T10:00:00Z");
  /** Spares' ages; whole seconds, as Kubernetes stamps creationTimestamp. */
  private static final Instant T0 = NOW.minus(Duration.ofHours(2));
  private static final Duration RETRY_AFTER = Duration.ofSeconds(30);
  private static final TenantUrls URLS = new TenantUrls("https", "tenants.example");

  private final InMemoryFleetRecords records = new InMemoryFleetRecords();
  private final InMemorySpareSources sources = new InMemorySpareSources();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final List<Allocator> allocators = new ArrayList<>();

  @AfterEach
  void closeAllocators() {
    allocators.forEach(Allocator::close);
  }

  /** A new allocator over the same clusters and records: a restarted process, or another one. */
  private Allocator newAllocator() {
    return newAllocator(URLS);
  }

  /** A new allocator routing tenants as {@code urls} says. */
  private Allocator newAllocator(TenantUrls urls) {
    Allocator allocator = new Allocator(records, sources, urls, Clock.fixed(NOW, ZoneOffset.UTC), RETRY_AFTER, true, ServingProbe.NONE, registry);
    allocators.add(allocator);
    return allocator;
  }

  /** A reachable cluster registered in the fleet records, with SparePools of these names. */
  private InMemorySpareCluster cluster(String name, String... pools) {
    registered(name);
    return sources.add(new InMemorySpareCluster(name, pools));
  }

  /** A cluster registered in the fleet records only: out of this process's reach. */
  private void registered(String name) {
    records.registerCluster(new Cluster(name, name + "-context", Map.of(), T0));
  }

  private static AllocationRequest request(String requestId) {
    return request(requestId, "default");
  }

  private static AllocationRequest request(String requestId, String pool) {
    return new AllocationRequest(requestId, "Initech", "ops@initech.example", pool, null);
  }

  /** A request of the default pool asking for {@code subdomain}. */
  private static AllocationRequest named(String requestId, String subdomain) {
    return new AllocationRequest(requestId, "Initech", "ops@initech.example", "default", subdomain);
  }

  /** An allocation made earlier, by this process or another. */
  private static Allocation earlier(String requestId, String tenant, String cluster) {
    return earlier(requestId, tenant, cluster, null);
  }

  private static Allocation earlier(String requestId, String tenant, String cluster, String subdomain) {
    return new Allocation(requestId, "Globex", "it@globex.example", tenant, "uid-" + tenant, cluster, "tenant-" + tenant,
        NOW.minusSeconds(30), subdomain);
  }

  /** The outcome in a line: what a case expects, and what a failure shows. */
  private static String describe(AllocationOutcome outcome) {
    if (outcome instanceof Allocated a) {
      return (a.replayed() ? "replayed " : "allocated ") + a.allocation().cluster() + "/" + a.allocation().tenant();
    }
    if (outcome instanceof NoSpare none) {
      return "no spare, retry after " + none.retryAfter().toSeconds() + "s: " + none.message();
    }
    return "unknown pool " + ((UnknownPool) outcome).pool();
  }

  private List<String> shortages() {
    return sources.clusters().stream().flatMap(c -> c.shortages().stream().map(s -> c.name() + ": " + s)).toList();
  }

  private int binds() {
    return sources.clusters().stream().mapToInt(InMemorySpareCluster::binds).sum();
  }

  private int conflicts() {
    return sources.clusters().stream().mapToInt(InMemorySpareCluster::conflicts).sum();
  }

  static Stream<Arguments> picks() {
    return Stream.of(
        Arguments.of("one Ready spare: it is bound",
            given(t -> t.cluster("c1", "default").ready("s1", "default", T0)),
            "allocated c1/s1", 1, List.of()),
        Arguments.of("the longest-standing Ready spare first",
            given(t -> t.cluster("c1", "default").ready("s-a", "default", T0.plusSeconds(10)).ready("s-b", "default", T0)),
            "allocated c1/s-b", 1, List.of()),
        Arguments.of("spares of the same age: by name",
            given(t -> t.cluster("c1", "default").ready("s-b", "default", T0).ready("s-a", "default", T0)),
            "allocated c1/s-a", 1, List.of()),
        Arguments.of("from the cluster with the most Ready spares of the pool",
            given(t -> {
              t.cluster("c1", "default").ready("old", "default", T0);
              t.cluster("c2", "default").ready("new-1", "default", NOW).ready("new-2", "default", NOW);
            }),
            "allocated c2/new-1", 1, List.of()));
  }

  static Stream<Arguments> noSpare() {
    return Stream.of(
        Arguments.of("spares still being built are not handed out; the pool is told to grow",
            given(t -> t.cluster("c1", "default").provisioning("s1", "default", T0)),
            "no spare, retry after 30s: no Ready spare in pool default", 0, List.of("c1: default@" + NOW)),
        Arguments.of("an empty pool: every cluster's pool of that name is told to grow",
            given(t -> {
              t.cluster("c1", "default");
              t.cluster("c2", "default", "eu");
            }),
            "no spare, retry after 30s: no Ready spare in pool default", 0,
            List.of("c1: default@" + NOW, "c2: default@" + NOW)),
        Arguments.of("Ready spares of another pool only: no spare",
            given(t -> t.cluster("c1", "default", "eu").ready("s1", "eu", T0)),
            "no spare, retry after 30s: no Ready spare in pool default", 0, List.of("c1: default@" + NOW)),
        Arguments.of("no cluster has the pool: unknown pool, nothing stamped",
            given(t -> t.cluster("c1", "eu").ready("s1", "eu", T0)),
            "unknown pool default", 0, List.of()),
        Arguments.of("no cluster reachable yet: no verdict on the pool",
            given(t -> { }),
            "no spare, retry after 30s: no fleet cluster is reachable yet", 0, List.of()));
  }

  static Stream<Arguments> answeredBefore() {
    return Stream.of(
        Arguments.of("the request id is bound to a tenant in a cluster: that tenant, nothing bound",
            given(t -> t.cluster("c1", "default").ready("s1", "default", T0)
                .bound(earlier("signup-1", "s0", "c1"), "default", true)),
            "replayed c1/s0", 0, List.of()),
        Arguments.of("the request id is held in a cluster out of reach: answered from the fleet records",
            given(t -> {
              t.registered("c9");
              t.records.recordAllocation(earlier("signup-1", "far", "c9"));
              t.cluster("c1", "default").ready("s1", "default", T0);
              t.sources.setReachesAll(false);
            }),
            "replayed c9/far", 0, List.of()));
  }

  static Stream<Arguments> racesLost() {
    return Stream.of(
        Arguments.of("race lost: the first spare was taken by another process, the next one is bound",
            given(t -> {
              InMemorySpareCluster c1 = t.cluster("c1", "default").ready("s1", "default", T0).ready("s2", "default", NOW);
              c1.takeElsewhere("s1", earlier("other-process", "s1", "c1"));
            }),
            "allocated c1/s2", 2, List.of()),
        Arguments.of("race lost on every spare: retry in a second, the pool is not stamped",
            given(t -> {
              InMemorySpareCluster c1 = t.cluster("c1", "default").ready("s1", "default", T0).ready("s2", "default", NOW);
              c1.takeElsewhere("s1", earlier("other-1", "s1", "c1"));
              c1.takeElsewhere("s2", earlier("other-2", "s2", "c1"));
            }),
            "no spare, retry after 1s: every Ready spare tried was taken", 2, List.of()),
        Arguments.of("race lost again and again: at most 8 spares tried for one request",
            given(t -> {
              InMemorySpareCluster c1 = t.cluster("c1", "default");
              for (int i = 0; i < 10; i++) {
                c1.ready("s" + i, "default", T0.plusSeconds(i));
                c1.takeElsewhere("s" + i, earlier("other-" + i, "s" + i, "c1"));
              }
            }),
            "no spare, retry after 1s: every Ready spare tried was taken", 8, List.of()));
  }

  /** Keeps the lambdas of the cases typed. */
  private static Consumer<AllocatorTest> given(Consumer<AllocatorTest> setup) {
    return setup;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource({"picks", "noSpare", "answeredBefore", "racesLost"})
  void oneRequest(String name, Consumer<AllocatorTest> given, String expected, int binds, List<String> shortages) {
    given.accept(this);

    AllocationOutcome outcome = newAllocator().allocate(request("signup-1"));

    assertThat(describe(outcome)).startsWith(expected);
    assertThat(binds()).as("binds attempted").isEqualTo(binds);
    assertThat(shortages()).as("pools told of a shortage").isEqualTo(shortages);
    if (outcome instanceof Allocated a && !a.replayed()) {
      Allocation allocation = a.allocation();
      assertThat(allocation).isEqualTo(new Allocation("signup-1", "Initech", "ops@initech.example", allocation.tenant(),
          "uid-" + allocation.tenant(), allocation.cluster(), "tenant-" + allocation.tenant(), NOW, null));
      assertThat(a.url()).isEqualTo("https://" + allocation.tenant() + ".tenants.example/");
      assertThat(sources.cluster(allocation.cluster()).orElseThrow().boundOnServer(allocation.tenant()))
          .as("what the cluster holds").isEqualTo(allocation);
    }
  }

  @Test
  void aDryPoolIsStampedOncePerIntervalHoweverManySignupsFindItEmpty() {
    InMemorySpareCluster c1 = cluster("c1", "default");
    AtomicReference<Instant> now = new AtomicReference<>(NOW);
    Clock clock = new Clock() {
      @Override
      public Instant instant() {
        return now.get();
      }

      @Override
      public ZoneOffset getZone() {
        return ZoneOffset.UTC;
      }

      @Override
      public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException();
      }
    };
    Allocator allocator = new Allocator(records, sources, URLS, clock, RETRY_AFTER, true, ServingProbe.NONE, registry);
    allocators.add(allocator);

    List<String> answers = new ArrayList<>();
    for (Duration at : List.of(Duration.ZERO, Duration.ZERO, Duration.ofMillis(4999), Allocator.SHORTAGE_STAMP_INTERVAL,
        Duration.ofSeconds(6))) {
      now.set(NOW.plus(at));
      answers.add(describe(allocator.allocate(request("signup-" + answers.size()))));
    }

    assertThat(answers).as("every signup is told the pool is growing").hasSize(5)
        .allMatch(a -> a.startsWith("no spare, retry after " + RETRY_AFTER.toSeconds() + "s: no Ready spare in pool default"));
    assertThat(c1.shortages()).as("one stamp per interval, however many signups").containsExactly(
        "default@" + NOW, "default@" + NOW.plus(Allocator.SHORTAGE_STAMP_INTERVAL));
    assertThat(describe(allocator.allocate(request("signup-other-pool", "missing")))).as("an unknown pool, stamped nothing")
        .isEqualTo("unknown pool missing");
    assertThat(describe(allocator.allocate(request("signup-other-pool-again", "missing"))))
        .as("nor remembered as known").isEqualTo("unknown pool missing");
  }

  @Test
  void aRetryGetsTheSameTenantWhileTheCacheHasNotSeenTheBind() {
    InMemorySpareCluster c1 = cluster("c1", "default").ready("s1", "default", T0).ready("s2", "default", NOW);
    c1.holdCache();
    Allocator allocator = newAllocator();

    AllocationOutcome first = allocator.allocate(request("signup-1"));
    AllocationOutcome retry = allocator.allocate(request("signup-1"));

    assertThat(describe(first)).isEqualTo("allocated c1/s1");
    assertThat(retry).isEqualTo(replayOf(first));
    assertThat(c1.binds()).isEqualTo(1);
  }

  /** The answer a retry of {@code first} gets. */
  private static Allocated replayOf(AllocationOutcome first) {
    Allocated allocated = (Allocated) first;
    return new Allocated(allocated.allocation(), allocated.url(), true);
  }

  @Test
  void servingIsWaitedForUpToTheTimeAskedAndSeenOnceTheTenantServes() throws Exception {
    InMemorySpareCluster c1 = cluster("c1", "default").ready("s1", "default", T0);
    Allocator allocator = newAllocator();
    Allocation allocation = ((Allocated) allocator.allocate(request("signup-1"))).allocation();

    long started = System.nanoTime();
    assertThat(allocator.whenServing(allocation, Duration.ofMillis(200)).join()).as("not serving yet").isFalse();
    assertThat(System.nanoTime() - started).as("waited the 200 ms asked").isGreaterThanOrEqualTo(200_000_000L);

    Thread serves = new Thread(() -> {
      LockSupport.parkNanos(100_000_000L);
      c1.nowServing("s1");
    });
    serves.start();
    assertThat(allocator.whenServing(allocation, Duration.ofSeconds(10)).join()).isTrue();
    serves.join();
    assertThat(allocator.lookup("signup-1")).map(Allocated::allocation).contains(allocation);
    assertThat(allocator.lookup("signup-2")).isEmpty();
  }

  @Test
  void theEdgeIsProbedOnlyOnceTheStatusServesAndThenLessAndLessOften() {
    InMemorySpareCluster c1 = cluster("c1", "default").ready("s1", "default", T0);
    List<String> probed = new CopyOnWriteArrayList<>();
    AtomicBoolean edgeServes = new AtomicBoolean();
    Allocator allocator = new Allocator(records, sources, URLS, Clock.fixed(NOW, ZoneOffset.UTC), RETRY_AFTER, true,
        hostname -> probed.add(hostname) && edgeServes.get(), registry);
    allocators.add(allocator);
    Allocation allocation = ((Allocated) allocator.allocate(request("signup-1"))).allocation();

    assertThat(allocator.whenServing(allocation, Duration.ofMillis(200)).join()).as("the status does not serve yet").isFalse();
    assertThat(probed).as("no edge probe before the status serves").isEmpty();

    c1.nowServing("s1");
    assertThat(allocator.whenServing(allocation, Duration.ofSeconds(1)).join()).as("the edge has no route yet").isFalse();
    // Pauses of 50, 100, 200, 400 ms: probes at 0, 50, 150, 350 and 750 ms of the second, fewer on a slow
    // machine; at every status poll (ServingWaits.STATUS_POLL, 20 ms) it would be 50.
    assertThat(probed).as("the edge probed at once, then after growing pauses").hasSizeBetween(1, 5)
        .allMatch("s1.tenants.example"::equals);
    assertThat(registry.counter("tenantry.allocation.edge.probes").count()).as("counted").isEqualTo(probed.size());

    edgeServes.set(true);
    probed.clear();
    assertThat(allocator.whenServing(allocation, Duration.ofSeconds(1)).join()).as("a new wait probes at once").isTrue();
    assertThat(probed).hasSize(1);
  }

  @Test
  void aWaitHoldsNoThreadAndEndsNotServingWhenTheAllocatorCloses() throws Exception {
    cluster("c1", "default").ready("s1", "default", T0);
    Allocator allocator = newAllocator();
    Allocation allocation = ((Allocated) allocator.allocate(request("signup-1"))).allocation();

    CompletableFuture<Boolean> serving = allocator.whenServing(allocation, Duration.ofSeconds(30));
    assertThat(serving).as("returned at once, waiting elsewhere").isNotDone();
    allocator.close();
    assertThat(serving.get(1, TimeUnit.SECONDS)).isFalse();
  }

  @Test
  void aRetryAfterARestartIsAnsweredFromTheBoundTenant() {
    InMemorySpareCluster c1 = cluster("c1", "default").ready("s1", "default", T0).ready("s2", "default", NOW);
    AllocationOutcome first = newAllocator().allocate(request("signup-1"));

    AllocationOutcome retry = newAllocator().allocate(request("signup-1"));

    assertThat(retry).isEqualTo(replayOf(first));
    assertThat(c1.binds()).isEqualTo(1);
  }

  @Test
  void aConcurrentRetryWaitsForTheFirstAndGetsItsTenant() throws Exception {
    // Two spares: a retry served on its own would be handed the second one.
    InMemorySpareCluster c1 = cluster("c1", "default").ready("s1", "default", T0).ready("s2", "default", NOW);
    InMemorySpareCluster.HeldBinds held = c1.holdBinds();
    Allocator allocator = newAllocator();
    AtomicReference<AllocationOutcome> first = new AtomicReference<>();
    AtomicReference<AllocationOutcome> retry = new AtomicReference<>();
    Thread firstThread = new Thread(() -> first.set(allocator.allocate(request("signup-1"))));
    Thread retryThread = new Thread(() -> retry.set(allocator.allocate(request("signup-1"))));

    firstThread.start();
    held.awaitEntered();
    retryThread.start();
    await().atMost(Duration.ofSeconds(5)).until(() -> retryThread.getState() == Thread.State.WAITING);
    held.release();
    firstThread.join(5_000);
    retryThread.join(5_000);

    assertThat(describe(first.get())).isEqualTo("allocated c1/s1");
    assertThat(retry.get()).isEqualTo(replayOf(first.get()));
    assertThat(c1.binds()).isEqualTo(1);
  }

  @Test
  void aSpareBoundHereIsNotOfferedAgainWhileTheCacheStillShowsItReady() {
    InMemorySpareCluster c1 = cluster("c1", "default").ready("s1", "default", T0).ready("s2", "default", NOW);
    c1.holdCache();
    Allocator allocator = newAllocator();

    assertThat(describe(allocator.allocate(request("signup-1")))).isEqualTo("allocated c1/s1");
    assertThat(describe(allocator.allocate(request("signup-2")))).isEqualTo("allocated c1/s2");
    assertThat(describe(allocator.allocate(request("signup-3")))).startsWith("no spare, retry after 30s");
    c1.sync();
    assertThat(describe(allocator.allocate(request("signup-4")))).startsWith("no spare, retry after 30s");

    assertThat(c1.binds()).isEqualTo(2);
    assertThat(c1.conflicts()).as("binds at a stale resourceVersion").isZero();
  }

  @ParameterizedTest(name = "cache behind the server: {0}")
  @ValueSource(booleans = {false, true})
  void neverTheSameSpareToTwoRequests(boolean cacheLags) throws Exception {
    InMemorySpareCluster c1 = cluster("c1", "default");
    InMemorySpareCluster c2 = cluster("c2", "default");
    for (int i = 0; i < 12; i++) {
      c1.ready("a" + i, "default", T0.plusSeconds(i));
    }
    for (int i = 0; i < 8; i++) {
      c2.ready("b" + i, "default", T0.plusSeconds(i));
    }
    for (InMemorySpareCluster c : List.of(c1, c2)) {
      c.bindTakes(2); // Binds overlap, as over a network.
      if (cacheLags) {
        c.holdCache();
      }
    }
    Allocator allocator = newAllocator();
    int requests = 32;
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(requests);
    List<Future<AllocationOutcome>> futures = new ArrayList<>();
    try {
      for (int i = 0; i < requests; i++) {
        AllocationRequest request = request("signup-" + i);
        futures.add(pool.submit(() -> {
          start.await();
          return allocator.allocate(request);
        }));
      }
      start.countDown();
      List<Allocated> allocated = new ArrayList<>();
      int noSpare = 0;
      for (Future<AllocationOutcome> future : futures) {
        AllocationOutcome outcome = future.get(10, TimeUnit.SECONDS);
        if (outcome instanceof Allocated a) {
          allocated.add(a);
        } else {
          assertThat(outcome).isInstanceOf(NoSpare.class);
          noSpare++;
        }
      }

      Set<String> tenants = new HashSet<>();
      for (Allocated a : allocated) {
        assertThat(a.replayed()).isFalse();
        assertThat(tenants.add(a.allocation().cluster() + "/" + a.allocation().tenant()))
            .as("%s handed out twice", a.allocation().tenant()).isTrue();
        assertThat(sources.cluster(a.allocation().cluster()).orElseThrow().boundOnServer(a.allocation().tenant()))
            .isEqualTo(a.allocation());
      }
      assertThat(allocated).hasSize(20);
      assertThat(noSpare).isEqualTo(12);
      // Each bind attempted succeeded: the picker never offered one spare to two requests at once.
      assertThat(binds()).as("binds attempted").isEqualTo(20);
      assertThat(conflicts()).as("binds refused as stale").isZero();
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aBindOutageIsThrownAndReleasesTheSpare() {
    InMemorySpareCluster c1 = cluster("c1", "default").ready("s1", "default", T0);
    KubernetesClientException outage = new KubernetesClientException("connection refused");
    c1.failNextBind(outage);
    Allocator allocator = newAllocator();

    assertThatThrownBy(() -> allocator.allocate(request("signup-1"))).isSameAs(outage);

    assertThat(describe(allocator.allocate(request("signup-2")))).isEqualTo("allocated c1/s1");
    assertThat(registry.get("tenantry.allocation.duration").tag("outcome", "error").timer().count()).isEqualTo(1);
  }

  @Test
  void anAllocationIsRecordedBehindTheAnswerAndItsTenantMarked() {
    InMemorySpareCluster c1 = cluster("c1", "default").ready("s1", "default", T0);
    Allocator allocator = newAllocator();

    Allocation allocation = ((Allocated) allocator.allocate(request("signup-1"))).allocation();
    allocator.close(); // Waits for the recorder.

    assertThat(records.findAllocation("signup-1")).contains(allocation);
    assertThat(records.placement("s1")).contains("c1");
    assertThat(allocation.tenantUid()).isEqualTo("uid-s1");
    assertThat(records.placementUid("s1")).as("the placement names the Tenant object").contains("uid-s1");
    assertThat(c1.isMarkedRecorded("s1")).isTrue();
    assertThat(c1.unrecorded()).isEmpty();
  }

  @Test
  void withTheFleetRecordsDownASignupIsStillServedAndRecordedLater() {
    InMemorySpareCluster c1 = cluster("c1", "default").ready("s1", "default", T0);
    records.setAvailable(false);
    Allocator first = newAllocator();

    Allocation allocation = ((Allocated) first.allocate(request("signup-1"))).allocation();
    first.close();
    assertThat(c1.isMarkedRecorded("s1")).isFalse();

    records.setAvailable(true);
    Allocator next = newAllocator();
    assertThat(next.recordUnrecorded()).isEqualTo(1);
    assertThat(records.findAllocation("signup-1")).contains(allocation);
    assertThat(c1.isMarkedRecorded("s1")).isTrue();
    assertThat(next.recordUnrecorded()).isZero();
  }

  @Test
  void recordUnrecordedRecordsWhatAKilledProcessLeftInSyncedClusters() {
    Allocation a1 = earlier("signup-1", "s1", "c1");
    Allocation a2 = earlier("signup-2", "s2", "c1");
    Allocation a3 = earlier("signup-3", "s3", "c1");
    Allocation a5 = earlier("signup-5", "s5", "c2");
    InMemorySpareCluster c1 = cluster("c1", "default").bound(a1, "default", false).bound(a2, "default", false)
        .bound(a3, "default", true).ready("s4", "default", T0);
    InMemorySpareCluster c2 = cluster("c2", "default").bound(a5, "default", false);
    c2.setSynced(false);
    Allocator allocator = newAllocator();

    assertThat(allocator.recordUnrecorded()).isEqualTo(2);
    assertThat(records.findAllocation("signup-1")).contains(a1);
    assertThat(records.findAllocation("signup-2")).contains(a2);
    assertThat(records.findAllocation("signup-3")).as("marked recorded already").isEmpty();
    assertThat(records.findAllocation("signup-5")).as("its cluster not listed yet").isEmpty();
    assertThat(c1.marked()).containsExactly("s1", "s2");
    assertThat(allocator.recordUnrecorded()).isZero();

    c2.setSynced(true);
    assertThat(allocator.recordUnrecorded()).isEqualTo(1);
    assertThat(records.findAllocation("signup-5")).contains(a5);
    assertThat(c2.marked()).containsExactly("s5");
  }

  @Test
  void withEveryClusterInReachTheRecordsAreNotAskedAndKeepTheFirstRecordOfAnId() {
    // The records hold the id for a tenant no cluster shows any more (a lag between two processes).
    registered("c9");
    records.recordAllocation(earlier("signup-1", "gone", "c9"));
    InMemorySpareCluster c1 = cluster("c1", "default").ready("s1", "default", T0);
    Allocator allocator = newAllocator();

    assertThat(describe(allocator.allocate(request("signup-1")))).isEqualTo("allocated c1/s1");
    allocator.close();

    assertThat(records.allocationLookups()).as("Datastore lookups on the signup path").isZero();
    assertThat(records.findAllocation("signup-1").orElseThrow().tenant()).isEqualTo("gone");
    assertThat(c1.isMarkedRecorded("s1")).as("marked, so it is not recorded again and again").isTrue();
  }

  @Test
  void everyOutcomeIsTimedUnderItsKind() {
    cluster("c1", "default").ready("s1", "default", T0);
    Allocator allocator = newAllocator();

    allocator.allocate(request("signup-1"));
    allocator.allocate(request("signup-1"));
    allocator.allocate(request("signup-2"));
    allocator.allocate(request("signup-3", "eu"));
    records.claimHostname("shop.tenants.example", new TenantRef("c9", "acme", "uid-acme"));
    allocator.allocate(named("signup-4", "shop"));
    newAllocator(TenantUrls.OFF).allocate(named("signup-5", "shop"));

    for (String outcome : List.of("allocated", "replayed", "no_spare", "unknown_pool", "subdomain_taken", "subdomain_refused")) {
      assertThat(registry.get("tenantry.allocation.duration").tag("outcome", outcome).timer().count())
          .as(outcome).isEqualTo(1);
    }
  }

  @Test
  void aSubdomainIsClaimedForTheSpareWrittenOnItsTenantAndAnsweredAsItsUrl() {
    InMemorySpareCluster c1 = cluster("c1", "default").ready("s1", "default", T0);

    Allocated allocated = (Allocated) newAllocator().allocate(named("signup-1", "shop"));

    assertThat(allocated.url()).isEqualTo("https://shop.tenants.example/");
    assertThat(allocated.allocation().subdomain()).isEqualTo("shop");
    assertThat(c1.boundOnServer("s1")).isEqualTo(allocated.allocation());
    assertThat(records.hostnameHolder("shop.tenants.example")).hasValueSatisfying(claim -> {
      assertThat(claim.tenant()).isEqualTo("s1");
      assertThat(claim.cluster()).isEqualTo("c1");
    });
  }

  @Test
  void theUrlFollowsTheConfiguredScheme() {
    cluster("c1", "default").ready("s1", "default", T0);

    Allocated allocated = (Allocated) newAllocator(new TenantUrls("http", "apps.test")).allocate(request("signup-1"));

    assertThat(allocated.url()).isEqualTo("http://s1.apps.test/");
  }

  @Test
  void withRoutingOffTheAnswerHasNoUrlAndASubdomainIsRefusedUnbound() {
    InMemorySpareCluster c1 = cluster("c1", "default").ready("s1", "default", T0).ready("s2", "default", NOW);
    Allocator allocator = newAllocator(TenantUrls.OFF);

    assertThat(((Allocated) allocator.allocate(request("signup-1"))).url()).isNull();
    assertThat(allocator.allocate(named("signup-2", "shop")))
        .isEqualTo(new SubdomainRefused("shop", "routing is off: the operator has no routing.baseDomain"));
    assertThat(c1.binds()).as("binds attempted").isEqualTo(1);
  }

  @Test
  void aReservedSubdomainIsRefusedUnboundAndUnclaimedWhileOthersAreServed() {
    InMemorySpareCluster c1 = cluster("c1", "default").ready("s1", "default", T0).ready("s2", "default", NOW);
    Allocator allocator = newAllocator(new TenantUrls("https", "tenants.example", Set.of("www", "mail")));

    assertThat(allocator.allocate(named("signup-1", "www"))).isEqualTo(new SubdomainRefused("www",
        "subdomain www is reserved (the operator's routing.reservedSubdomains); choose another subdomain"));
    assertThat(c1.binds()).as("binds attempted").isZero();
    assertThat(records.hostnameHolder("www.tenants.example")).as("claimed").isEmpty();
    assertThat(records.findAllocation("signup-1")).as("recorded").isEmpty();

    assertThat(allocator.allocate(named("signup-2", "wwwx"))).isInstanceOf(Allocated.class);
    assertThat(allocator.allocate(request("signup-3"))).as("no subdomain: the spare's name").isInstanceOf(Allocated.class);
    assertThat(registry.get("tenantry.allocation.duration").tag("outcome", "subdomain_refused").timer().count()).isEqualTo(1);
  }

  @Test
  void aSubdomainTooLongForTheBaseDomainIsRefusedUnbound() {
    InMemorySpareCluster c1 = cluster("c1", "default").ready("s1", "default", T0);
    String longDomain = ("d".repeat(60) + ".").repeat(3) + "example";

    AllocationOutcome outcome = newAllocator(new TenantUrls("https", longDomain)).allocate(named("signup-1", "s".repeat(63)));

    assertThat(outcome).isInstanceOfSatisfying(SubdomainRefused.class, r -> assertThat(r.message()).contains("too long"));
    assertThat(c1.binds()).isZero();
  }

  @Test
  void aRetryGetsTheSameUrlEvenWhenItNamesAnotherSubdomain() {
    InMemorySpareCluster c1 = cluster("c1", "default").ready("s1", "default", T0).ready("s2", "default", NOW);
    AllocationOutcome first = newAllocator().allocate(named("signup-1", "shop"));

    AllocationOutcome retry = newAllocator().allocate(named("signup-1", "store"));

    assertThat(retry).isEqualTo(replayOf(first));
    assertThat(((Allocated) retry).url()).isEqualTo("https://shop.tenants.example/");
    assertThat(c1.binds()).isEqualTo(1);
    assertThat(records.hostnameHolder("store.tenants.example")).isEmpty();
  }

  @Test
  void aRetryAnsweredFromTheFleetRecordsGetsTheUrlOfItsSubdomain() {
    registered("c9");
    records.recordAllocation(earlier("signup-1", "far", "c9", "shop"));
    cluster("c1", "default").ready("s1", "default", T0);
    sources.setReachesAll(false);

    Allocated retry = (Allocated) newAllocator().allocate(request("signup-1"));

    assertThat(retry.replayed()).isTrue();
    assertThat(retry.url()).isEqualTo("https://shop.tenants.example/");
  }

  @Test
  void aSubdomainAnotherTenantHoldsIsTakenAndNoSpareIsBoundEvenFromAnEmptyPool() {
    records.claimHostname("shop.tenants.example", new TenantRef("c9", "acme", "uid-acme"));
    InMemorySpareCluster c1 = cluster("c1", "default");
    Allocator allocator = newAllocator();

    assertThat(allocator.allocate(named("signup-1", "shop"))).isEqualTo(new SubdomainTaken("shop", "shop.tenants.example"));
    assertThat(c1.shortages()).as("an empty pool is not stamped for a request that cannot be served").isEmpty();
    c1.ready("s1", "default", T0);
    assertThat(allocator.allocate(named("signup-1", "shop"))).isEqualTo(new SubdomainTaken("shop", "shop.tenants.example"));
    assertThat(c1.binds()).isZero();

    assertThat(describe(allocator.allocate(request("signup-2")))).isEqualTo("allocated c1/s1");
  }

  @Test
  void aSubdomainHeldByATenantOfTheSparesNameOnAnotherClusterIsTaken() {
    records.claimHostname("shop.tenants.example", new TenantRef("c9", "s1", "uid-s1-of-c9"));
    InMemorySpareCluster c1 = cluster("c1", "default").ready("s1", "default", T0);

    assertThat(newAllocator().allocate(named("signup-1", "shop"))).isEqualTo(new SubdomainTaken("shop", "shop.tenants.example"));
    assertThat(c1.binds()).isZero();
    assertThat(records.hostnameHolder("shop.tenants.example")).map(HostnameClaim::cluster).contains("c9");
  }

  @Test
  void ofConcurrentSignupsNamingOneSubdomainOneGetsItAndTheOthersBindNothing() throws Exception {
    InMemorySpareCluster c1 = cluster("c1", "default");
    for (int i = 0; i < 4; i++) {
      c1.ready("s" + i, "default", T0.plusSeconds(i));
    }
    c1.bindTakes(2);
    Allocator allocator = newAllocator();
    List<AllocationOutcome> outcomes = concurrently(32, i -> allocator.allocate(named("signup-" + i, "shop")));

    assertThat(outcomes).filteredOn(Allocated.class::isInstance).singleElement()
        .satisfies(o -> assertThat(((Allocated) o).url()).isEqualTo("https://shop.tenants.example/"));
    assertThat(outcomes).filteredOn(o -> !(o instanceof Allocated)).hasSize(31)
        .allSatisfy(o -> assertThat(o).isEqualTo(new SubdomainTaken("shop", "shop.tenants.example")));
    assertThat(c1.binds()).as("binds attempted").isEqualTo(1);
    assertThat(c1.readySpares("default")).hasSize(3);
  }

  @Test
  void aBindThatThrowsGivesTheClaimBackSoTheRetryGetsTheSubdomain() {
    InMemorySpareCluster c1 = cluster("c1", "default").ready("s1", "default", T0);
    KubernetesClientException outage = new KubernetesClientException("connection refused");
    c1.failNextBind(outage);
    Allocator allocator = newAllocator();

    assertThatThrownBy(() -> allocator.allocate(named("signup-1", "shop"))).isSameAs(outage);
    assertThat(records.hostnameHolder("shop.tenants.example")).isEmpty();

    Allocated retry = (Allocated) allocator.allocate(named("signup-1", "shop"));
    assertThat(retry.url()).isEqualTo("https://shop.tenants.example/");
    assertThat(records.hostnameHolder("shop.tenants.example")).map(HostnameClaim::tenant).contains("s1");
  }

  @Test
  void aSpareLostToAnotherProcessGivesItsClaimBackAndTheNextSpareGetsTheSubdomain() {
    InMemorySpareCluster c1 = cluster("c1", "default").ready("s1", "default", T0).ready("s2", "default", NOW);
    c1.takeElsewhere("s1", earlier("other-process", "s1", "c1"));

    Allocated allocated = (Allocated) newAllocator().allocate(named("signup-1", "shop"));

    assertThat(describe(allocated)).isEqualTo("allocated c1/s2");
    assertThat(allocated.url()).isEqualTo("https://shop.tenants.example/");
    assertThat(records.hostnameHolder("shop.tenants.example")).map(HostnameClaim::tenant).contains("s2");
    assertThat(records.hostnamesOf(new TenantRef("c1", "s1", "uid-s1"))).isEmpty();
  }

  @Test
  void aSpareAnotherProcessBoundUnderTheSameSubdomainKeepsTheClaimAndTheRequestIsTaken() throws Exception {
    InMemorySpareCluster c1 = cluster("c1", "default").ready("s1", "default", T0).ready("s2", "default", NOW);
    InMemorySpareCluster.HeldBinds held = c1.holdBinds();
    Allocator allocator = newAllocator();
    AtomicReference<AllocationOutcome> outcome = new AtomicReference<>();
    Thread signup = new Thread(() -> outcome.set(allocator.allocate(named("signup-1", "shop"))));

    signup.start();
    held.awaitEntered(); // The claim is made; the bind waits.
    // Another process picked the same spare for the same subdomain: its claim is this one, and it binds first.
    c1.takeElsewhere("s1", earlier("other-process", "s1", "c1", "shop"));
    held.release();
    signup.join(5_000);

    assertThat(outcome.get()).isEqualTo(new SubdomainTaken("shop", "shop.tenants.example"));
    assertThat(records.hostnameHolder("shop.tenants.example")).map(HostnameClaim::tenant).contains("s1");
    assertThat(c1.boundOnServer("s2")).as("nothing bound for the request").isNull();
  }

  /** Runs {@code count} calls at once and returns their outcomes in call order. */
  private static List<AllocationOutcome> concurrently(int count, IntFunction<AllocationOutcome> call)
      throws Exception {
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(count);
    try {
      List<Future<AllocationOutcome>> futures = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        int index = i;
        futures.add(pool.submit(() -> {
          start.await();
          return call.apply(index);
        }));
      }
      start.countDown();
      List<AllocationOutcome> outcomes = new ArrayList<>();
      for (Future<AllocationOutcome> future : futures) {
        outcomes.add(future.get(10, TimeUnit.SECONDS));
      }
      return outcomes;
    } finally {
      pool.shutdownNow();
    }
  }
}
