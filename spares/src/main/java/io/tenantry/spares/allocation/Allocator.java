package io.tenantry.spares.allocation;

import static net.logstash.logback.argument.StructuredArguments.kv;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.spares.allocation.AllocationOutcome.Allocated;
import io.tenantry.spares.allocation.AllocationOutcome.NoSpare;
import io.tenantry.spares.allocation.AllocationOutcome.UnknownPool;
import io.tenantry.spares.allocation.SpareCluster.Binding;
import io.tenantry.spares.fleet.Allocation;
import io.tenantry.spares.fleet.FleetConflictException;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Binds Ready spares to signups. The order of its steps is what keeps the guarantees:
 * <ol>
 *   <li><b>Pick</b> (the one picker of this process, under a lock held for microseconds): the Ready
 *       spare of the pool that has stood longest, in the cluster with the most Ready spares of that
 *       pool, skipping spares this process is binding or has just bound.</li>
 *   <li><b>Claim</b> in the fleet records: {@link FleetRecords#recordAllocation} is a transaction keyed
 *       by request id. A request id served before gets its first record back (a replay), whatever
 *       process served it; a spare already held by another request id is refused (another process
 *       picked it too) and the next spare is tried.</li>
 *   <li><b>Bind</b> the spare in its cluster with a resourceVersion-guarded update. A spare that
 *       vanished or was retired in between gives the claim back ({@link FleetRecords#releaseAllocation})
 *       and the next spare is tried.</li>
 * </ol>
 * A process killed between claim and bind leaves a record whose spare is still unbound: a retry of
 * the request finds the record and finishes the binding, and {@link #finishInterruptedBindings()}
 * (run at start and periodically) does the same without waiting for the caller. So a spare is never
 * bound twice (the claim is exclusive and the bind is guarded), never lost (an unbound claimed spare
 * is bound to its record or released), and a request id always finds the same tenant.
 */
public final class Allocator {

  private static final Logger LOG = LoggerFactory.getLogger(Allocator.class);
  /** Spares tried for one request before it is answered with a 503 (they were all taken under it). */
  private static final int MAX_CANDIDATES = 8;

  private final FleetRecords records;
  private final ClusterDirectory directory;
  private final Clock clock;
  private final Duration retryAfter;
  private final MeterRegistry registry;

  private final Object picker = new Object();
  /** cluster/tenant of spares being claimed or bound by this process; guarded by {@link #picker}. */
  private final Set<String> inFlight = new HashSet<>();
  /** cluster/tenant → resourceVersion of spares bound by this process that the cache still shows as spares. */
  private final Map<String, String> justBound = new HashMap<>();

  /**
   * @param retryAfter what a 503 tells the caller to wait: about the time to build a spare
   */
  public Allocator(FleetRecords records, ClusterDirectory directory, Clock clock, Duration retryAfter, MeterRegistry registry) {
    this.records = records;
    this.directory = directory;
    this.clock = clock;
    this.retryAfter = retryAfter;
    this.registry = registry;
  }

  private record Candidate(SpareCluster cluster, String tenant, String namespace, String resourceVersion) {
    String key() {
      return cluster.name() + "/" + tenant;
    }
  }

  public AllocationOutcome allocate(AllocationRequest request) {
    Timer.Sample sample = Timer.start(registry);
    AllocationOutcome outcome = null;
    try {
      outcome = serve(request);
      return outcome;
    } finally {
      String tag = outcome == null ? "error"
          : outcome instanceof Allocated a ? (a.replayed() ? "replayed" : "allocated")
          : outcome instanceof NoSpare ? "no_spare" : "unknown_pool";
      sample.stop(Timer.builder("tenantry.allocation.duration").description("Allocation requests by outcome")
          .tag("outcome", tag).publishPercentileHistogram().register(registry));
    }
  }

  private AllocationOutcome serve(AllocationRequest request) {
    Set<String> tried = new HashSet<>();
    for (int tries = 0; tries < MAX_CANDIDATES; tries++) {
      Candidate candidate = pick(request.pool(), tried);
      if (candidate == null) {
        Optional<Allocation> earlier = records.findAllocation(request.requestId());
        if (earlier.isPresent()) {
          Optional<Allocated> replayed = replay(earlier.get());
          if (replayed.isPresent()) {
            return replayed.get();
          }
          continue; // Its spare was lost before binding: the request is served afresh.
        }
        return shortage(request.pool());
      }
      tried.add(candidate.key());
      boolean bound = false;
      try {
        Allocation proposal = new Allocation(request.requestId(), request.organization(), request.email(),
            candidate.tenant(), candidate.cluster().name(), candidate.namespace(), now());
        Allocation stored;
        try {
          stored = records.recordAllocation(proposal);
        } catch (FleetConflictException e) {
          continue; // Another process claimed this spare first.
        }
        if (!stored.equals(proposal)) {
          Optional<Allocated> replayed = replay(stored);
          if (replayed.isPresent()) {
            return replayed.get();
          }
          continue;
        }
        if (candidate.cluster().bind(candidate.tenant(), stored) == Binding.BOUND) {
          bound = true;
          LOG.info("tenant allocated {} {} {}", kv("requestId", stored.requestId()), kv("tenant", stored.tenant()),
              kv("cluster", stored.cluster()));
          return new Allocated(stored, false);
        }
        records.releaseAllocation(stored.requestId(), stored.tenant());
      } finally {
        finish(candidate, bound);
      }
    }
    return new NoSpare(request.pool(), Duration.ofSeconds(1), "every Ready spare tried was taken by concurrent requests; retry");
  }

  /**
   * A request id served before: makes sure its tenant is bound (finishing a binding an earlier
   * process did not) and answers with the first record. Empty when the record's spare was lost
   * before it was bound: the record is released so the request can be served afresh.
   */
  private Optional<Allocated> replay(Allocation record) {
    Optional<SpareCluster> cluster = directory.cluster(record.cluster());
    if (cluster.isEmpty() || cluster.get().bind(record.tenant(), record) == Binding.BOUND) {
      // A cluster this process cannot reach was bound by the process that could.
      return Optional.of(new Allocated(record, true));
    }
    LOG.warn("allocation record points at a spare that can no longer be bound; released {} {} {}",
        kv("requestId", record.requestId()), kv("tenant", record.tenant()), kv("cluster", record.cluster()));
    records.releaseAllocation(record.requestId(), record.tenant());
    return Optional.empty();
  }

  private AllocationOutcome shortage(String pool) {
    boolean known = false;
    for (SpareCluster cluster : directory.clusters()) {
      known |= cluster.signalShortage(pool, now());
    }
    if (!known) {
      return new UnknownPool(pool);
    }
    LOG.info("no Ready spare; pool told to grow {}", kv("pool", pool));
    return new NoSpare(pool, retryAfter, "no Ready spare in pool " + pool + "; the pool is growing, retry after "
        + retryAfter.toSeconds() + "s");
  }

  /** The one picker: chooses and reserves a spare under a lock that covers no I/O. */
  private Candidate pick(String pool, Set<String> tried) {
    synchronized (picker) {
      Candidate best = null;
      int bestCount = 0;
      for (SpareCluster cluster : directory.clusters()) {
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
  private boolean taken(SpareCluster cluster, Tenant spare) {
    String key = cluster.name() + "/" + spare.getMetadata().getName();
    if (inFlight.contains(key)) {
      return true;
    }
    String boundAt = justBound.get(key);
    if (boundAt == null) {
      return false;
    }
    if (boundAt.equals(spare.getMetadata().getResourceVersion())) {
      return true;
    }
    justBound.remove(key); // The cache shows a newer version than the one bound; forget it.
    return false;
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

  /**
   * Finishes what a killed process left: every unallocated spare that the fleet records say was
   * claimed is bound to its record (or its claim released, when the spare cannot take it).
   * Returns how many spares it bound.
   */
  public int finishInterruptedBindings() {
    int finished = 0;
    for (SpareCluster cluster : directory.clusters()) {
      if (!cluster.isSynced()) {
        continue;
      }
      for (Tenant spare : cluster.unallocatedSpares()) {
        String key = cluster.name() + "/" + spare.getMetadata().getName();
        synchronized (picker) {
          if (inFlight.contains(key)) {
            continue; // This process is binding it right now.
          }
        }
        Optional<Allocation> claim = records.findAllocationByTenant(spare.getMetadata().getName());
        if (claim.isPresent() && claim.get().cluster().equals(cluster.name()) && replay(claim.get()).isPresent()) {
          finished++;
          LOG.info("finished an interrupted allocation {} {} {}", kv("requestId", claim.get().requestId()),
              kv("tenant", claim.get().tenant()), kv("cluster", cluster.name()));
        }
      }
    }
    return finished;
  }

  private Instant now() {
    return clock.instant().truncatedTo(ChronoUnit.MICROS);
  }
}
