package io.tenantry.spares.allocation;

import static net.logstash.logback.argument.StructuredArguments.kv;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.tenantry.api.SignupPause;
import io.tenantry.api.Spares;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.spares.allocation.AllocationOutcome.Allocated;
import io.tenantry.spares.allocation.AllocationOutcome.NoSpare;
import io.tenantry.spares.allocation.AllocationOutcome.SubdomainRefused;
import io.tenantry.spares.allocation.AllocationOutcome.SubdomainTaken;
import io.tenantry.spares.allocation.AllocationOutcome.UnknownPool;
import io.tenantry.spares.fleet.Allocation;
import io.tenantry.spares.fleet.FleetInputException;
import io.tenantry.spares.fleet.FleetNames;
import io.tenantry.spares.fleet.FleetRecords;
import io.tenantry.spares.fleet.HostnameClaim;
import io.tenantry.spares.fleet.TenantRef;
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
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
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
 *   <li><b>One subdomain, one tenant.</b> A request naming a subdomain claims its hostname in the
 *       fleet records for the chosen spare before the bind, and binds only if that spare holds
 *       it; a hostname another tenant holds is answered {@link SubdomainTaken}, nothing bound.
 *       Signups naming one hostname are served one at a time in this process, so each sees the
 *       claim of the one before; across processes the claim alone decides, and a loser that finds
 *       no free spare meanwhile is told to retry (503), then learns the name is taken. A spare not
 *       bound gives back this request's claim and keeps its others; when another process bound it
 *       under the same subdomain (claims are by the spare's cluster and UID, so both held one claim), the claim is
 *       kept and the request told the name is taken. Two windows remain: a bind that threw after
 *       the API server applied it leaves the bound tenant without its claim until the operator
 *       syncs it and claims its names; a process killed between claim and bind leaves the name held
 *       by an unbound spare until that spare is allocated (the operator then lets the name go) or
 *       purged.</li>
 *   <li><b>Records agree with the clusters.</b> Each allocation is written to the fleet records
 *       after the answer, off the signup path, and the Tenant is then marked recorded; a process
 *       killed before that leaves an unmarked Tenant, which {@link #recordUnrecorded()} (at start
 *       and every refresh) records. In a burst of signups the recording waits for them to pause
 *       ({@link SignupPause}): its marks would otherwise reach the API server between the binds.</li>
 * </ul>
 * A signup therefore costs one Kubernetes write on its path; Datastore transactions (tens of
 * milliseconds each) happen behind it, except for a signup naming a subdomain, whose lookup and
 * claim of the hostname come first.
 */
public final class Allocator implements Allocations, AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(Allocator.class);
  /** Spares tried for one request before it is answered with a 503 (they were all taken under it). */
  private static final int MAX_CANDIDATES = 8;
  /**
   * How often this process stamps one pool's shortage. The surge a stamp starts lasts minutes; without
   * this, every signup a dry pool answers 503 would write the SparePool again (and wake its
   * reconciler), and a burst's clients retrying would add those writes to an API server already
   * behind.
   */
  static final Duration SHORTAGE_STAMP_INTERVAL = Duration.ofSeconds(5);
  /** How long an answer is kept in memory for retries the informer cache may not show yet. */
  private static final Duration RECENT = Duration.ofMinutes(1);

  private final FleetRecords records;
  private final SpareSources directory;
  private final TenantUrls urls;
  private final Clock clock;
  private final Duration retryAfter;
  private final boolean holdDuringBursts;
  private final ServingWaits servingWaits;
  private final MeterRegistry registry;
  private final ExecutorService recorder = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "allocation-recorder");
    t.setDaemon(true);
    return t;
  });
  /** System.nanoTime() of the latest bind by this process; MIN_VALUE before the first. */
  private volatile long lastBind = Long.MIN_VALUE;
  private volatile boolean closing;

  /** Requests being served, by request id: a concurrent retry waits for the first. */
  private final Map<String, CompletableFuture<AllocationOutcome>> serving = new ConcurrentHashMap<>();
  /** Answers given in the last minute, by request id, for retries the cache does not show yet. */
  private final Map<String, Allocation> recent = new ConcurrentHashMap<>();
  /** When this process last stamped a pool's shortage (or is stamping it), by cluster and pool. */
  private final Map<PoolKey, Instant> shortageStamped = new ConcurrentHashMap<>();
  /** Signups naming a hostname, by hostname: one at a time in this process, so each sees the claim before it. */
  private final Map<String, CompletableFuture<Void>> claiming = new ConcurrentHashMap<>();

  private final Object picker = new Object();
  /** Spares being bound by this process; guarded by {@link #picker}. */
  private final Set<SpareKey> inFlight = new HashSet<>();
  /** The resourceVersion of spares bound by this process that the cache still shows as spares. */
  private final Map<SpareKey, String> justBound = new HashMap<>();

  /**
   * @param directory the clusters to take spares from: in the operator, the {@link ClusterDirectory}
   * @param urls where tenants are reached, from the operator's routing settings
   * @param retryAfter what a 503 tells the caller to wait: about the time to build a spare
   * @param holdDuringBursts whether the fleet record of a signup in a burst waits for the burst to pause
   * @param probe what tells whether the edge serves a routed tenant's hostname yet
   */
  public Allocator(FleetRecords records, SpareSources directory, TenantUrls urls, Clock clock, Duration retryAfter,
      boolean holdDuringBursts, ServingProbe probe, MeterRegistry registry) {
    this.records = records;
    this.directory = directory;
    this.urls = urls;
    this.clock = clock;
    this.retryAfter = retryAfter;
    this.holdDuringBursts = holdDuringBursts;
    this.servingWaits = new ServingWaits(directory, urls, probe, registry);
    this.registry = registry;
  }

  /** A spare of one cluster: what the picker looks up for every Ready spare, so no string is built for it. */
  private record SpareKey(String cluster, String tenant) {
  }

  private record PoolKey(String cluster, String pool) {
  }

  private record Candidate(SpareSource cluster, String tenant, String uid, String namespace, String resourceVersion) {
    SpareKey key() {
      return new SpareKey(cluster.name(), tenant);
    }

    /** The spare as the fleet records key its claims. */
    TenantRef ref() {
      return new TenantRef(cluster.name(), tenant, uid);
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
      sample.stop(Timer.builder("tenantry.allocation.duration").description("Allocation requests by outcome")
          .tag("outcome", AllocationOutcome.label(outcome)).publishPercentileHistogram().register(registry));
    }
  }


  /** One request id served at a time in this process; a concurrent one gets the first's tenant. */
  private AllocationOutcome serveOnce(AllocationRequest request) {
    CompletableFuture<AllocationOutcome> mine = new CompletableFuture<>();
    CompletableFuture<AllocationOutcome> first = serving.putIfAbsent(request.requestId(), mine);
    if (first != null) {
      AllocationOutcome outcome = first.join();
      return outcome instanceof Allocated a ? new Allocated(a.allocation(), a.url(), true) : outcome;
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
      // Idempotency by request id wins: a retry naming another subdomain still gets the first answer.
      return allocated(earlier.get(), true);
    }
    if (request.subdomain() == null) {
      return bindAny(request, null);
    }
    if (!urls.enabled()) {
      return new SubdomainRefused(request.subdomain(), "routing is off: the operator has no routing.baseDomain");
    }
    if (urls.reserved(request.subdomain())) {
      LOG.info("reserved subdomain refused; nothing bound {} {}", kv("requestId", request.requestId()),
          kv("subdomain", request.subdomain()));
      return new SubdomainRefused(request.subdomain(), "subdomain " + request.subdomain()
          + " is reserved (the operator's routing.reservedSubdomains); choose another subdomain");
    }
    String hostname = urls.hostname(request.subdomain());
    try {
      FleetNames.requireHostname("subdomain", hostname);
    } catch (FleetInputException e) {
      // A label of up to 63 characters under a long base domain can pass the 253 of a hostname.
      return new SubdomainRefused(request.subdomain(), "too long under " + urls.baseDomain() + ": " + hostname
          + " would not be a valid hostname");
    }
    return oneAtATime(hostname, () -> {
      // Held already: answered without taking a spare, also when the pool is empty.
      Optional<HostnameClaim> holder = records.hostnameHolder(hostname);
      return holder.isPresent() ? subdomainTaken(request.requestId(), request.subdomain(), holder.get().tenant())
          : bindAny(request, hostname);
    });
  }

  /** Binds a Ready spare of the request's pool, with {@code hostname} (when not null) claimed for it first. */
  private AllocationOutcome bindAny(AllocationRequest request, String hostname) {
    Set<SpareKey> tried = new HashSet<>();
    for (int tries = 0; tries < MAX_CANDIDATES; tries++) {
      Candidate candidate = pick(request.pool(), tried);
      if (candidate == null) {
        break;
      }
      tried.add(candidate.key());
      Allocation allocation = new Allocation(request.requestId(), request.organization(), request.email(),
          candidate.tenant(), candidate.uid(), candidate.cluster().name(), candidate.namespace(), now(), request.subdomain());
      AllocationOutcome outcome = claimAndBind(candidate, allocation, hostname);
      if (outcome != null) {
        return outcome;
      }
    }
    if (!tried.isEmpty()) {
      return new NoSpare(request.pool(), Duration.ofSeconds(1), "every Ready spare tried was taken by concurrent requests; retry");
    }
    return shortage(request.pool());
  }

  /** What binding one reserved spare came to. */
  private enum Bind {
    BOUND,
    /** Taken or changed meanwhile: the next spare is tried. */
    LOST,
    /** Taken meanwhile by another process's signup with the same subdomain, which holds the name. */
    TAKEN
  }

  /**
   * Claims the hostname (when not null) for the reserved spare, then binds it; null when the spare
   * was lost to another process, so the caller tries the next one. The spare is given back unless bound.
   */
  private AllocationOutcome claimAndBind(Candidate candidate, Allocation allocation, String hostname) {
    Bind result = Bind.LOST;
    try {
      if (hostname == null) {
        result = candidate.cluster().bind(candidate.tenant(), allocation) ? Bind.BOUND : Bind.LOST;
      } else {
        HostnameClaim claim = records.claimHostname(hostname, candidate.ref());
        if (!claim.heldBy(candidate.ref())) {
          return subdomainTaken(allocation.requestId(), allocation.subdomain(), claim.tenant());
        }
        result = bindClaimed(candidate, allocation, hostname);
      }
    } finally {
      finish(candidate, result == Bind.BOUND);
    }
    if (result == Bind.TAKEN) {
      return subdomainTaken(allocation.requestId(), allocation.subdomain(), candidate.tenant());
    }
    if (result == Bind.LOST) {
      return null;
    }
    remember(allocation);
    LOG.info("tenant allocated {} {} {} {}", kv("requestId", allocation.requestId()), kv("tenant", allocation.tenant()),
        kv("cluster", allocation.cluster()), kv("subdomain", allocation.subdomain()));
    long bound = System.nanoTime();
    long previous = lastBind;
    lastBind = bound;
    boolean burst = holdDuringBursts && previous != Long.MIN_VALUE && SignupPause.inBurst(Duration.ofNanos(bound - previous));
    recorder.execute(() -> {
      if (burst) {
        awaitSignupPause(bound);
      }
      record(allocation);
    });
    return allocated(allocation, false);
  }

  /**
   * Binds the spare the hostname was claimed for. A bind that fails or throws gives the claim back,
   * so the next spare or a retry can have it; unless another process bound the spare with the same
   * subdomain meanwhile, when the claim, shared by the spare's UID, is that signup's.
   */
  private Bind bindClaimed(Candidate candidate, Allocation allocation, String hostname) {
    try {
      if (candidate.cluster().bind(candidate.tenant(), allocation)) {
        return Bind.BOUND;
      }
      if (candidate.cluster().boundWith(candidate.tenant(), allocation.subdomain())) {
        return Bind.TAKEN;
      }
    } catch (RuntimeException e) {
      release(candidate.ref(), hostname);
      throw e;
    }
    release(candidate.ref(), hostname);
    return Bind.LOST;
  }

  /**
   * Deletes the spare's claim on the hostname and keeps its others: another process may be binding
   * the same spare with a name of its own. A failure is logged, never thrown over the bind's.
   */
  private void release(TenantRef tenant, String hostname) {
    try {
      List<String> others = records.hostnamesOf(tenant).stream().map(HostnameClaim::hostname)
          .filter(h -> !h.equals(hostname)).toList();
      records.releaseHostnames(tenant, others);
    } catch (RuntimeException e) {
      LOG.warn("hostname claim of an unbound spare not released {} {} {}", kv("tenant", tenant.name()), kv("hostname", hostname),
          kv("error", e.getMessage()));
    }
  }

  private AllocationOutcome subdomainTaken(String requestId, String subdomain, String holder) {
    String hostname = urls.hostname(subdomain);
    LOG.info("subdomain taken; nothing bound {} {} {}", kv("requestId", requestId), kv("hostname", hostname),
        kv("holder", holder));
    return new SubdomainTaken(subdomain, hostname);
  }

  private Allocated allocated(Allocation allocation, boolean replayed) {
    return new Allocated(allocation, urls.url(allocation).orElse(null), replayed);
  }

  /** Serves the signups naming one hostname one at a time in this process; others wait their turn. */
  private AllocationOutcome oneAtATime(String hostname, Supplier<AllocationOutcome> serve) {
    CompletableFuture<Void> mine = new CompletableFuture<>();
    for (CompletableFuture<Void> ahead = claiming.putIfAbsent(hostname, mine); ahead != null;
        ahead = claiming.putIfAbsent(hostname, mine)) {
      ahead.join();
    }
    try {
      return serve.get();
    } finally {
      claiming.remove(hostname, mine);
      mine.complete(null);
    }
  }

  @Override
  public Optional<Allocated> lookup(String requestId) {
    return find(requestId).map(a -> allocated(a, true));
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

  /** See {@link ServingWaits}: no caller's thread is held while the tenant does not serve yet. */
  @Override
  public CompletableFuture<Boolean> whenServing(Allocation allocation, Duration wait) {
    return servingWaits.whenServing(allocation, wait);
  }

  private void remember(Allocation allocation) {
    Instant expired = clock.instant().minus(RECENT);
    recent.values().removeIf(a -> a.allocatedAt().isBefore(expired));
    recent.put(allocation.requestId(), allocation);
  }

  /** Waits for the signups of the burst the bind at {@code bound} (its System.nanoTime()) belongs to to pause. */
  private void awaitSignupPause(long bound) {
    long slice = Duration.ofMillis(100).toNanos(); // So that close() is not kept waiting.
    for (long now = System.nanoTime(); !closing; now = System.nanoTime()) {
      Duration wait = SignupPause.holdLeft(Duration.ofNanos(now - lastBind), Duration.ofNanos(now - bound));
      if (wait.isZero()) {
        return;
      }
      LockSupport.parkNanos(Math.min(wait.toNanos(), slice));
    }
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
      known |= stampShortage(cluster, pool);
    }
    if (!known) {
      return new UnknownPool(pool);
    }
    LOG.info("no Ready spare; pool told to grow {}", kv("pool", pool));
    return new NoSpare(pool, retryAfter, "no Ready spare in pool " + pool + "; the pool is growing, retry after "
        + retryAfter.toSeconds() + "s");
  }

  /**
   * Stamps the pool's shortage on the cluster, at most once per {@link #SHORTAGE_STAMP_INTERVAL} from
   * this process; false when the cluster has no such pool. Within the interval (the stamp's write in
   * flight included) the pool counts as known: a pool deleted meanwhile is answered 503, not 404.
   */
  private boolean stampShortage(SpareSource cluster, String pool) {
    PoolKey key = new PoolKey(cluster.name(), pool);
    Instant now = now();
    boolean[] mine = {false};
    shortageStamped.compute(key, (k, last) -> {
      if (last != null && now.isBefore(last.plus(SHORTAGE_STAMP_INTERVAL))) {
        return last;
      }
      mine[0] = true;
      return now;
    });
    if (!mine[0]) {
      return true; // Stamped within the interval by an earlier request.
    }
    boolean known = false;
    try {
      known = cluster.signalShortage(pool, now);
      return known;
    } finally {
      if (!known) {
        shortageStamped.remove(key, now); // Not stamped: the next request tries again.
      }
    }
  }

  /**
   * The one picker: reserves the Ready spare of the pool that has stood longest, in the cluster with
   * the most Ready spares of that pool, under a lock that covers no I/O.
   */
  private Candidate pick(String pool, Set<SpareKey> tried) {
    synchronized (picker) {
      Candidate best = null;
      int bestCount = 0;
      for (SpareSource cluster : directory.clusters()) {
        // One pass, no sorting: every signup of a burst waits here for the ones ahead of it.
        Tenant oldest = null;
        int available = 0;
        for (Tenant spare : cluster.readySpares(pool)) {
          SpareKey key = new SpareKey(cluster.name(), spare.getMetadata().getName());
          if (!tried.contains(key) && !taken(key, spare)) {
            available++;
            oldest = oldest == null || Spares.LONGEST_STANDING.compare(spare, oldest) < 0 ? spare : oldest;
          }
        }
        if (available > bestCount) {
          bestCount = available;
          best = new Candidate(cluster, oldest.getMetadata().getName(), oldest.getMetadata().getUid(),
              oldest.getStatus().getNamespace(), oldest.getMetadata().getResourceVersion());
        }
      }
      if (best != null) {
        inFlight.add(best.key());
      }
      return best;
    }
  }

  /** Whether this process is binding the spare, or bound it and the cache has not caught up. */
  private boolean taken(SpareKey key, Tenant spare) {
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
        String cached = directory.cluster(e.getKey().cluster()).map(c -> c.cachedResourceVersion(e.getKey().tenant())).orElse(null);
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
    closing = true;
    servingWaits.close();
    recorder.shutdown();
    try {
      recorder.awaitTermination(10, java.util.concurrent.TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
