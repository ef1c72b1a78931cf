package io.tenantry.spares.allocation;

import static net.logstash.logback.argument.StructuredArguments.kv;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.spares.allocation.AllocationOutcome.Allocated;
import io.tenantry.spares.allocation.AllocationOutcome.NoSpare;
import io.tenantry.spares.allocation.AllocationOutcome.UnknownPool;
import io.tenantry.spares.fleet.Allocation;
import io.tenantry.spares.fleet.FleetRecords;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Binds Ready spares to signups. What keeps the guarantees:
 * <ul>
 *   <li><b>Never the same tenant twice.</b> The one picker of this process (a lock held for
 *       microseconds, no I/O under it) hands each Ready spare to one request at a time, and the bind
 *       is an update at the cached resourceVersion: a spare another process bound, or anything
 *       changed since the cache saw it, fails with a conflict and the request moves on to the next
 *       spare.</li>
 *   <li><b>The same request id, the same tenant.</b> The bind writes the request id on the Tenant,
 *       so the answer survives any restart: a request id is first looked up in the clusters'
 *       caches (indexed by request id), and concurrent requests with one id in this process wait
 *       for the first. The lookup also asks the fleet records when a registered cluster is out of
 *       this process's reach.</li>
 *   <li><b>Records agree with the clusters.</b> Each allocation is written to the fleet records
 *       after the answer, off the signup path, and the Tenant is then marked recorded; a process
 *       killed before that leaves an unmarked Tenant, which {@link #recordUnrecorded()} (at start
 *       and every refresh) records.</li>
 * </ul>
 * A signup therefore costs one Kubernetes write on its path; Datastore transactions (tens of
 * milliseconds each) happen behind it.
 */
public final class Allocator implements Allocations, AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(Allocator.class);
  /** Spares tried for one request before it is answered with a 503 (they were all taken under it). */
  private static final int MAX_CANDIDATES = 8;
  /** How long an answer is kept in memory for retries the informer cache may not show yet. */
  private static final Duration RECENT = Duration.ofMinutes(1);

  private final FleetRecords records;
  private final SpareSources directory;
  private final Clock clock;
  private final Duration retryAfter;
  private final MeterRegistry registry;
  private final ExecutorService recorder = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "allocation-recorder");
    t.setDaemon(true);
    return t;
  });

  /** Requests being served, by request id: a concurrent retry waits for the first. */
  private final Map<String, CompletableFuture<AllocationOutcome>> serving = new ConcurrentHashMap<>();
  /** Answers given in the last minute, by request id, for retries the cache does not show yet. */
  private final Map<String, Allocation> recent = new ConcurrentHashMap<>();

  private final Object picker = new Object();
  /** cluster/tenant of spares being bound by this process; guarded by {@link #picker}. */
  private final Set<String> inFlight = new HashSet<>();
  /** cluster/tenant → resourceVersion of spares bound by this process that the cache still shows as spares. */
  private final Map<String, String> justBound = new HashMap<>();

  /**
   * @param directory the clusters to take spares from: in the operator, the {@link ClusterDirectory}
   * @param retryAfter what a 503 tells the caller to wait: about the time to build a spare
   */
  public Allocator(FleetRecords records, SpareSources directory, Clock clock, Duration retryAfter, MeterRegistry registry) {
    this.records = records;
    this.directory = directory;
    this.clock = clock;
    this.retryAfter = retryAfter;
    this.registry = registry;
  }

  private record Candidate(SpareSource cluster, String tenant, String namespace, String resourceVersion) {
    String key() {
      return cluster.name() + "/" + tenant;
    }
  }

  @Override
  public AllocationOutcome allocate(AllocationRequest request) {
    Timer.Sample sample = Timer.start(registry);
    AllocationOutcome outcome = null;
    try {
      outcome = serveOnce(request);
      return outcome;
    } finally {
      String tag = outcome == null ? "error"
          : outcome instanceof Allocated a ? (a.replayed() ? "replayed" : "allocated")
          : outcome instanceof NoSpare ? "no_spare" : "unknown_pool";
      sample.stop(Timer.builder("tenantry.allocation.duration").description("Allocation requests by outcome")
          .tag("outcome", tag).publishPercentileHistogram().register(registry));
    }
  }

  /** One request id served at a time in this process; a concurrent one gets the first's tenant. */
  private AllocationOutcome serveOnce(AllocationRequest request) {
    CompletableFuture<AllocationOutcome> mine = new CompletableFuture<>();
    CompletableFuture<AllocationOutcome> first = serving.putIfAbsent(request.requestId(), mine);
    if (first != null) {
      AllocationOutcome outcome = first.join();
      return outcome instanceof Allocated a ? new Allocated(a.allocation(), true) : outcome;
    }
    try {
      AllocationOutcome outcome = serve(request);
      mine.complete(outcome);
      return outcome;
    } catch (RuntimeException e) {
      mine.completeExceptionally(e);
      throw e;
    } finally {
      serving.remove(request.requestId());
    }
  }

  private AllocationOutcome serve(AllocationRequest request) {
    Optional<Allocation> earlier = find(request.requestId());
    if (earlier.isPresent()) {
      return new Allocated(earlier.get(), true);
    }
    Set<String> tried = new HashSet<>();
    for (int tries = 0; tries < MAX_CANDIDATES; tries++) {
      Candidate candidate = pick(request.pool(), tried);
      if (candidate == null) {
        break;
      }
      tried.add(candidate.key());
      Allocation allocation = new Allocation(request.requestId(), request.organization(), request.email(),
          candidate.tenant(), candidate.cluster().name(), candidate.namespace(), now());
      boolean bound = false;
      try {
        bound = candidate.cluster().bind(candidate.tenant(), allocation);
      } finally {
        finish(candidate, bound);
      }
      if (bound) {
        remember(allocation);
        LOG.info("tenant allocated {} {} {}", kv("requestId", allocation.requestId()), kv("tenant", allocation.tenant()),
            kv("cluster", allocation.cluster()));
        recorder.execute(() -> record(allocation));
        return new Allocated(allocation, false);
      }
    }
    if (!tried.isEmpty()) {
      return new NoSpare(request.pool(), Duration.ofSeconds(1), "every Ready spare tried was taken by concurrent requests; retry");
    }
    return shortage(request.pool());
  }

  /** The allocation of a request id served before, by this process or any other. */
  private Optional<Allocation> find(String requestId) {
    Allocation remembered = recent.get(requestId);
    if (remembered != null) {
      return Optional.of(remembered);
    }
    for (SpareSource cluster : directory.clusters()) {
      Optional<Allocation> bound = cluster.allocationFor(requestId);
      if (bound.isPresent()) {
        return bound;
      }
    }
    // A cluster out of reach may hold it; only the fleet records can tell.
    return directory.reachesAll() ? Optional.empty() : records.findAllocation(requestId);
  }

  private void remember(Allocation allocation) {
    Instant expired = clock.instant().minus(RECENT);
    recent.values().removeIf(a -> a.allocatedAt().isBefore(expired));
    recent.put(allocation.requestId(), allocation);
  }

  /** Writes the allocation to the fleet records, then marks its Tenant recorded. */
  private void record(Allocation allocation) {
    try {
      Allocation stored = records.recordAllocation(allocation);
      if (!stored.tenant().equals(allocation.tenant()) || !stored.cluster().equals(allocation.cluster())) {
        // Only possible when two processes served one request id within the cache lag.
        LOG.error("request id allocated twice; the fleet records keep the first {} {} {}",
            kv("requestId", allocation.requestId()), kv("recorded", stored.tenant()), kv("alsoBound", allocation.tenant()));
      }
      directory.cluster(allocation.cluster()).ifPresent(c -> c.markRecorded(allocation.tenant()));
    } catch (RuntimeException e) {
      // The Tenant stays unmarked; the next refresh records it.
      LOG.warn("allocation not recorded yet {} {} {}", kv("requestId", allocation.requestId()),
          kv("tenant", allocation.tenant()), kv("error", e.getMessage()));
    }
  }

  /**
   * Records every allocation the clusters hold that the fleet records may lack (a process killed
   * between bind and record, or Datastore unavailable then). Returns how many it recorded.
   */
  public int recordUnrecorded() {
    int recorded = 0;
    for (SpareSource cluster : directory.clusters()) {
      if (!cluster.isSynced()) {
        continue;
      }
      for (Allocation allocation : cluster.unrecorded()) {
        record(allocation);
        recorded++;
      }
    }
    return recorded;
  }

  private AllocationOutcome shortage(String pool) {
    if (directory.clusters().isEmpty()) {
      // Not yet connected (the fleet records were unreachable at start): no verdict on the pool.
      return new NoSpare(pool, retryAfter, "no fleet cluster is reachable yet; retry");
    }
    boolean known = false;
    for (SpareSource cluster : directory.clusters()) {
      known |= cluster.signalShortage(pool, now());
    }
    if (!known) {
      return new UnknownPool(pool);
    }
    LOG.info("no Ready spare; pool told to grow {}", kv("pool", pool));
    return new NoSpare(pool, retryAfter, "no Ready spare in pool " + pool + "; the pool is growing, retry after "
        + retryAfter.toSeconds() + "s");
  }

  /**
   * The one picker: reserves the Ready spare of the pool that has stood longest, in the cluster with
   * the most Ready spares of that pool, under a lock that covers no I/O.
   */
  private Candidate pick(String pool, Set<String> tried) {
    synchronized (picker) {
      Candidate best = null;
      int bestCount = 0;
      for (SpareSource cluster : directory.clusters()) {
        List<Tenant> available = cluster.readySpares(pool).stream()
            .filter(t -> !tried.contains(cluster.name() + "/" + t.getMetadata().getName()) && !taken(cluster, t))
            .toList();
        if (available.size() > bestCount) {
          Tenant spare = available.get(0);
          bestCount = available.size();
          best = new Candidate(cluster, spare.getMetadata().getName(), spare.getStatus().getNamespace(),
              spare.getMetadata().getResourceVersion());
        }
      }
      if (best != null) {
        inFlight.add(best.key());
      }
      return best;
    }
  }

  /** Whether this process is binding the spare, or bound it and the cache has not caught up. */
  private boolean taken(SpareSource cluster, Tenant spare) {
    String key = cluster.name() + "/" + spare.getMetadata().getName();
    if (inFlight.contains(key)) {
      return true;
    }
    String boundAt = justBound.get(key);
    return boundAt != null && boundAt.equals(spare.getMetadata().getResourceVersion());
  }

  private void finish(Candidate candidate, boolean bound) {
    synchronized (picker) {
      inFlight.remove(candidate.key());
      if (bound) {
        justBound.put(candidate.key(), candidate.resourceVersion());
      }
      // Entries the cache has moved past are dropped, so the map stays as small as the cache lag.
      justBound.entrySet().removeIf(e -> {
        String[] parts = e.getKey().split("/", 2);
        String cached = directory.cluster(parts[0]).map(c -> c.cachedResourceVersion(parts[1])).orElse(null);
        return !e.getValue().equals(cached);
      });
    }
  }

  private Instant now() {
    return clock.instant().truncatedTo(ChronoUnit.MICROS);
  }

  /** Lets the allocations already handed to the recorder be written, then stops it. */
  @Override
  public void close() {
    recorder.shutdown();
    try {
      recorder.awaitTermination(10, java.util.concurrent.TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
