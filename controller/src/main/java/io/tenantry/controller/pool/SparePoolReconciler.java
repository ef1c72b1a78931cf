package io.tenantry.controller.pool;

import static net.logstash.logback.argument.StructuredArguments.kv;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.tenantry.api.SignupPause;
import io.tenantry.api.Spares;
import io.tenantry.api.Timestamps;
import io.tenantry.api.WellKnown;
import io.tenantry.api.v1alpha1.SparePool;
import io.tenantry.api.v1alpha1.SparePoolStatus;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.api.v1alpha1.TenantSpec;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.api.v1alpha1.TenantTemplate;
import io.tenantry.controller.cache.ClusterView;
import io.tenantry.controller.queue.SyncResult;
import io.tenantry.controller.status.Conditions;
import io.tenantry.controller.status.Reason;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a SparePool's buffer of Ready spares: spares are New tenants built from the pool's
 * template and labelled with the pool. It builds at most {@code maxProvisioning} at once,
 * retires spares beyond the buffer (Purged, then deleted), keeps unallocated spares on the
 * pool's template, and reports ready / provisioning / allocated counts. Allocated spares (bound
 * to a customer, no longer New) are never touched. Every write is guarded by resourceVersion.
 *
 * <p>Surge: when a signup found the pool empty (the allocation API stamps
 * {@link WellKnown#SHORTAGE_AT} on the pool), the pool keeps {@code buffer + maxProvisioning}
 * spares for {@link #SURGE_WINDOW} after that, so that demand which outran the buffer meets a
 * bigger one; afterwards the extra spares are retired like any excess.
 *
 * <p>Refill behind signups: while spares are being allocated, replacements and the pool's status
 * wait for the signups to pause ({@link SignupPause}: a second, at most ten into a burst; for as
 * long as the signups keep coming while the buffer covers them, the status then written every ten
 * seconds). The buffer covers a stream while half of it is still Ready, or while its Ready spares
 * would last {@link #STREAM_COVER} more at the stream's pace so far. Building a spare costs the API server some forty writes (its namespace and
 * objects, their statuses, the pod kube-controller-manager makes), and the status changes with
 * every bind: all of it would otherwise queue up between the binds of the signups that caused it,
 * and a stream the buffer can absorb would wait behind its own refill. Once the buffer no longer
 * covers, the refill runs alongside the signups, so that a stream longer than the buffer finds spares. A pool
 * emptied by a burst refills a second after its last bind: signups that find it empty bind nothing.
 * While the buffer covers, the refill also waits until the edge has taken the routes of the burst's
 * customers as they are now ({@link Edge#took}; a subdomain is a new route), at most
 * {@link SignupPause#MAX_HOLD} after each bind: the Gateway writes its verdict on a new route before it
 * serves it, and those writes queue behind the refill's at the API server.
 *
 * <p>Routes ahead: the spares next in line for a signup ({@link Spares#nextInLine}, the
 * operator's {@code routing.spareRoutesAhead} of them, by default every Ready one) have their route written ahead by their own
 * sync; binds move the line, and the spares that join it are queued here for that sync, once the
 * signups pause, as the refill is.
 *
 * <p>Names: a spare is named {@code <pool>-} and five random characters, reserved fleet-wide
 * ({@link SpareNames}) before its Tenant is created; a name another cluster holds is drawn again.
 */
public final class SparePoolReconciler {

  /**
   * The edge as the pool sees it: how many of a pool's Ready spares are routed ahead (0: none, routing
   * is off), who writes their route (the spare's name and after how long, for the tenant sync that
   * writes it), and whether the edge has taken a bound tenant's route as it is now.
   */
  public record Edge(int routesAhead, BiConsumer<String, Duration> routeAhead, Predicate<Tenant> took) {
    /** Routing off: nothing is routed ahead or waited for. */
    public static final Edge NONE = new Edge(0, (spare, after) -> { }, tenant -> true);
  }

  private static final Logger LOG = LoggerFactory.getLogger(SparePoolReconciler.class);
  private static final String ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final Duration SURGE_WINDOW = Duration.ofMinutes(10);
  /** How long a spare this process created counts before the cache shows it (it may be deleted unseen). */
  private static final Duration UNSEEN_CREATE_TTL = Duration.ofMinutes(1);
  /** How far apart the spares that join the line have their routes written: at most 20 new routes a second. */
  static final Duration ROUTE_SPACING = Duration.ofMillis(50);
  /** How often a refill that waits for the edge looks again: its verdicts are no event of the pool's. */
  static final Duration EDGE_POLL = Duration.ofMillis(200);
  /**
   * How long the Ready spares must last at a stream's pace for its refill to keep waiting: longer than
   * a replacement takes to become Ready while the refill runs beside the signups (some 40 writes each).
   */
  static final Duration STREAM_COVER = Duration.ofSeconds(30);
  /** Draws of a spare's name before giving up; with 36^5 names, more than one is already rare. */
  private static final int NAME_DRAWS = 5;

  private final ClusterView cache;
  private final SpareWriter writer;
  private final SpareNames names;
  private final Clock clock;
  /** Whether replacements wait for a burst of signups to pause (allocation.holdDuringSignupBursts). */
  private final boolean holdDuringBursts;
  /**
   * By pool, the spares this process created that the cache has not shown yet, with when: the
   * informer lags the writes, and a sync in between (another spare's event) would otherwise build
   * them again, beyond maxProvisioning or the buffer (client-go's controllers keep "expectations").
   */
  private final Map<String, Map<String, Instant>> unseenCreates = new ConcurrentHashMap<>();
  /** By pool, when the refill was first held back for the signups arriving now. */
  private final Map<String, Instant> heldSince = new ConcurrentHashMap<>();
  /** By pool, its allocated spares at its last sync outside a hold: the binds since are the stream's pace. */
  private final Map<String, Integer> allocatedBeforeHold = new ConcurrentHashMap<>();
  /** By pool, when a hold last let the status through: one the buffer stretches shows its counts every MAX_HOLD. */
  private final Map<String, Instant> statusInHoldAt = new ConcurrentHashMap<>();
  private final Edge edge;
  /** By pool, the customers of its latest signups whose routes the edge may not have taken yet, with when they were bound. */
  private final Map<String, Map<String, Instant>> awaitingEdge = new ConcurrentHashMap<>();
  /** By pool, the latest bind it has seen. */
  private final Map<String, Instant> latestSignup = new ConcurrentHashMap<>();
  /** By pool, the spares next in line at its last sync. */
  private final Map<String, Set<String>> inLine = new ConcurrentHashMap<>();
  /** By pool, when the next spare that joins the line may have its route written. */
  private final Map<String, Instant> nextRouteAt = new ConcurrentHashMap<>();

  /** @param edge routing.spareRoutesAhead (Integer.MAX_VALUE for all) and the edge's verdicts; {@link Edge#NONE} when routing is off */
  public SparePoolReconciler(ClusterView cache, SpareWriter writer, SpareNames names, Clock clock, boolean holdDuringBursts,
      Edge edge) {
    this.cache = cache;
    this.writer = writer;
    this.names = names;
    this.clock = clock;
    this.holdDuringBursts = holdDuringBursts;
    this.edge = edge;
  }

  public SyncResult sync(String poolName) {
    SparePool pool = cache.pool(poolName);
    if (pool == null) {
      forget(poolName);
      return SyncResult.done(); // A deleted pool stops refilling; its spares stay tenants.
    }
    TenantTemplate template = pool.getSpec().getTemplate();
    List<Tenant> spares = cache.spares(poolName);
    int unseen = unseen(poolName, spares);
    List<Tenant> unallocated = new ArrayList<>();
    int allocated = 0;
    Instant lastSignup = null;
    for (Tenant spare : spares) {
      TenantState state = spare.getSpec().getState();
      if (state == TenantState.New) {
        unallocated.add(spare);
      } else if (state == TenantState.Purged && spare.getSpec().getOrganization() == null) {
        retire(spare); // One of ours, retired: gone once purged.
      } else if (spare.getSpec().getOrganization() != null) {
        allocated++;
        // Only those bound since the signups paused (whose first sync often ran before this one), not every tenant ever.
        Instant at = Spares.justBound(spare) || Spares.unrecorded(spare) ? bound(poolName, spare) : null;
        lastSignup = later(lastSignup, at);
      }
    }
    // The newest first: when shrinking, those are the ones least likely to be Ready already.
    unallocated.sort(Comparator.comparing((Tenant t) -> t.getMetadata().getCreationTimestamp()).reversed());
    Duration surgeLeft = surgeLeft(pool);
    int buffer = pool.getSpec().getBuffer();
    int target = buffer + (surgeLeft.isZero() ? 0 : pool.getSpec().getMaxProvisioning());
    int changes = 0;
    while (unallocated.size() > target) {
      setState(unallocated.remove(0), TenantState.Purged);
      changes++;
    }
    for (Tenant spare : unallocated) {
      if (!template.equals(templateOf(spare.getSpec()))) {
        follow(spare, template);
        changes++;
      }
    }
    int ready = (int) unallocated.stream().filter(Spares::isReady).count();
    int provisioning = unallocated.size() - ready + unseen;
    Duration held = held(poolName, remembered(poolName, lastSignup), ready, buffer, allocated);
    lineUp(poolName, spares, held);
    int toCreate = !held.isZero() ? 0
        : Math.min(target - unallocated.size() - unseen, pool.getSpec().getMaxProvisioning() - provisioning);
    for (int i = 0; i < toCreate; i++) {
      create(pool);
      provisioning++;
      changes++;
    }
    if (held.isZero() || statusDueInHold(poolName)) {
      writeStatus(pool, ready, provisioning, allocated);
    }
    if (changes > 0) {
      LOG.info("spare pool converging {} {} {} {} {}", kv("pool", poolName), kv("target", target), kv("ready", ready),
          kv("provisioning", provisioning), kv("created", Math.max(0, toCreate)));
    }
    // Come back when the refill may start, or when the surge ends, to retire what it built.
    Duration next = held.isZero() ? surgeLeft : surgeLeft.isZero() ? held : min(held, surgeLeft);
    return next.isZero() ? SyncResult.done() : SyncResult.after(next);
  }

  private void forget(String poolName) {
    unseenCreates.remove(poolName);
    heldSince.remove(poolName);
    allocatedBeforeHold.remove(poolName);
    statusInHoldAt.remove(poolName);
    inLine.remove(poolName);
    nextRouteAt.remove(poolName);
    awaitingEdge.remove(poolName);
    latestSignup.remove(poolName);
  }

  /**
   * The latest bind the pool has seen, {@code seen} now among them: the records of a burst held ten seconds are
   * marked together, and none may be left unrecorded then.
   */
  private Instant remembered(String poolName, Instant seen) {
    Instant latest = later(seen, latestSignup.get(poolName));
    if (latest != null) {
      latestSignup.put(poolName, latest);
    }
    return latest;
  }

  private static Instant later(Instant a, Instant b) {
    return a == null || b != null && b.isAfter(a) ? b : a;
  }

  /**
   * Queues the spares that joined the pool's line since its last sync (all of it, on this process's
   * first), {@link #ROUTE_SPACING} apart, once the signups pause (as the refill waits): a build of
   * the Gateway that meets new routes writes each one's verdict, one after another, before it
   * serves anything, the customers of the burst included; spaced, each build meets a few.
   */
  private void lineUp(String poolName, List<Tenant> spares, Duration held) {
    if (edge.routesAhead() == 0 || !held.isZero()) {
      return;
    }
    Set<String> line = Spares.nextInLine(spares, edge.routesAhead());
    Set<String> before = inLine.put(poolName, line);
    Instant now = clock.instant();
    for (String spare : line) {
      if (before == null || !before.contains(spare)) {
        Instant next = nextRouteAt.getOrDefault(poolName, now);
        Instant at = next.isAfter(now) ? next : now;
        nextRouteAt.put(poolName, at.plus(ROUTE_SPACING));
        edge.routeAhead().accept(spare, Duration.between(now, at));
      }
    }
  }

  /** How much longer the refill and the status wait: for the signups to pause, then for the edge. */
  private Duration held(String poolName, Instant lastSignup, int ready, int buffer, int allocated) {
    boolean bufferCovers = bufferCovers(poolName, ready, buffer, allocated);
    Duration held = refillHeld(poolName, lastSignup, bufferCovers);
    if (heldSince.get(poolName) == null) {
      allocatedBeforeHold.put(poolName, allocated);
    }
    return max(held, edgeAwaited(poolName, bufferCovers));
  }

  /**
   * Whether the {@code ready} spares absorb the signups arriving now: half the buffer is still Ready, or
   * they last {@link #STREAM_COVER} at the pace of the binds since the hold began (over a second at least,
   * so that the first binds of a burst count as a fast stream, not an endless one). Binds are counted
   * from the pool's allocated spares, not from the spares seen just bound: a bound spare's own first
   * sync, which ends that, may well run before the pool's next one.
   */
  private boolean bufferCovers(String poolName, int ready, int buffer, int allocated) {
    if (2 * ready >= buffer) {
      return true;
    }
    Instant since = heldSince.get(poolName);
    Integer before = allocatedBeforeHold.get(poolName);
    if (since == null || before == null) {
      return false;
    }
    long heldMillis = Math.max(Duration.between(since, clock.instant()).toMillis(), SignupPause.PAUSE.toMillis());
    // At least the bind that began the hold: tenants deleted meanwhile do not make the stream endless.
    long binds = Math.max(1, allocated - before);
    return ready * heldMillis >= binds * STREAM_COVER.toMillis();
  }

  /**
   * How much longer replacements and the status wait for the signups arriving now to pause; zero: not at all.
   * While the buffer covers them, for as long as the signups keep coming: the buffer absorbs the stream.
   */
  private Duration refillHeld(String poolName, Instant lastSignup, boolean bufferCovers) {
    Instant now = clock.instant();
    if (!holdDuringBursts || lastSignup == null || !SignupPause.inBurst(Duration.between(lastSignup, now))) {
      heldSince.remove(poolName);
      statusInHoldAt.remove(poolName);
      return Duration.ZERO;
    }
    Instant since = heldSince.computeIfAbsent(poolName, p -> now);
    return bufferCovers ? SignupPause.PAUSE.minus(Duration.between(lastSignup, now))
        : SignupPause.holdLeft(Duration.between(lastSignup, now), Duration.between(since, now));
  }

  /**
   * How much longer the refill waits for the edge to take the routes of the customers bound lately
   * ({@link #EDGE_POLL}: it looks again then); zero: it need not. Each is waited for at most
   * {@link SignupPause#MAX_HOLD} after its bind, and none once the buffer no longer covers the signups.
   */
  private Duration edgeAwaited(String poolName, boolean bufferCovers) {
    Map<String, Instant> awaiting = awaitingEdge.get(poolName);
    if (awaiting == null || awaiting.isEmpty()) {
      return Duration.ZERO;
    }
    Instant expired = clock.instant().minus(SignupPause.MAX_HOLD);
    awaiting.entrySet().removeIf(bound -> {
      Tenant tenant = cache.tenant(bound.getKey());
      return !bufferCovers || !bound.getValue().isAfter(expired) || tenant == null || edge.took().test(tenant);
    });
    return awaiting.isEmpty() ? Duration.ZERO : EDGE_POLL;
  }

  /** Whether the status, held with the refill, is due anyway: the hold has lasted {@link SignupPause#MAX_HOLD} since it last was. */
  private boolean statusDueInHold(String poolName) {
    Instant now = clock.instant();
    Instant last = statusInHoldAt.getOrDefault(poolName, heldSince.getOrDefault(poolName, now));
    if (Duration.between(last, now).compareTo(SignupPause.MAX_HOLD) < 0) {
      return false;
    }
    statusInHoldAt.put(poolName, now);
    return true;
  }

  /**
   * When the allocation API bound {@code spare} (null: unknown); the edge is awaited for its customer's route when that
   * was less than {@link SignupPause#MAX_HOLD} ago.
   */
  private Instant bound(String poolName, Tenant spare) {
    Instant at = allocatedAt(spare);
    if (at != null && holdDuringBursts && at.isAfter(clock.instant().minus(SignupPause.MAX_HOLD))) {
      awaitingEdge.computeIfAbsent(poolName, p -> new ConcurrentHashMap<>()).putIfAbsent(spare.getMetadata().getName(), at);
    }
    return at;
  }

  /** When the allocation API bound the spare; null when it was bound otherwise (by hand) or the stamp is unreadable. */
  private static Instant allocatedAt(Tenant spare) {
    String stamp = spare.getMetadata().getAnnotations() == null ? null : spare.getMetadata().getAnnotations().get(WellKnown.ALLOCATED_AT);
    try {
      return stamp == null ? null : Instant.parse(stamp);
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  private static <T extends Comparable<T>> T min(T a, T b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  private static <T extends Comparable<T>> T max(T a, T b) {
    return a.compareTo(b) >= 0 ? a : b;
  }

  /** How many spares this process created for the pool that {@code cached} does not show yet; forgets the others. */
  private int unseen(String poolName, List<Tenant> cached) {
    Map<String, Instant> unseen = unseenCreates.get(poolName);
    if (unseen == null) {
      return 0;
    }
    cached.forEach(spare -> unseen.remove(spare.getMetadata().getName()));
    Instant expired = clock.instant().minus(UNSEEN_CREATE_TTL);
    unseen.values().removeIf(createdAt -> createdAt.isBefore(expired));
    return unseen.size();
  }

  /** How long the pool's current surge lasts; zero when there is none (or the stamp is unreadable). */
  private Duration surgeLeft(SparePool pool) {
    String stamp = pool.getMetadata().getAnnotations() == null ? null : pool.getMetadata().getAnnotations().get(WellKnown.SHORTAGE_AT);
    if (stamp == null) {
      return Duration.ZERO;
    }
    try {
      Duration left = Duration.between(clock.instant(), Instant.parse(stamp).plus(SURGE_WINDOW));
      return left.isNegative() ? Duration.ZERO : left;
    } catch (DateTimeParseException e) {
      return Duration.ZERO;
    }
  }

  static TenantTemplate templateOf(TenantSpec spec) {
    TenantTemplate template = new TenantTemplate();
    template.setPlan(spec.getPlan());
    template.setDatabases(spec.getDatabases());
    template.setApps(spec.getApps());
    return template;
  }

  private void create(SparePool pool) {
    Tenant spare = new Tenant();
    spare.setMetadata(new ObjectMetaBuilder().withName(reservedName(pool.getMetadata().getName()))
        .addToLabels(WellKnown.SPARE_POOL, pool.getMetadata().getName())
        .addToFinalizers(WellKnown.CLEANUP_FINALIZER).build());
    TenantSpec spec = new TenantSpec();
    spec.setState(TenantState.New);
    copy(pool.getSpec().getTemplate(), spec);
    spare.setSpec(spec);
    writer.create(spare);
    unseenCreates.computeIfAbsent(pool.getMetadata().getName(), name -> new ConcurrentHashMap<>())
        .put(spare.getMetadata().getName(), clock.instant());
  }

  /** A fresh name for a spare of the pool, reserved for this cluster across the fleet. */
  private String reservedName(String pool) {
    for (int draw = 0; draw < NAME_DRAWS; draw++) {
      String name = pool + "-" + suffix();
      if (names.reserve(name)) {
        return name;
      }
      LOG.info("spare name taken in the fleet; drawing another {} {}", kv("pool", pool), kv("name", name));
    }
    throw new IllegalStateException("no free spare name for pool " + pool + " after " + NAME_DRAWS + " draws");
  }

  /** Puts an unallocated spare on the pool's current template (a PUT at the cached resourceVersion). */
  private void follow(Tenant spare, TenantTemplate template) {
    Tenant updated = copyOf(spare);
    copy(template, updated.getSpec());
    writer.update(updated);
  }

  private void setState(Tenant spare, TenantState state) {
    Tenant updated = copyOf(spare);
    updated.getSpec().setState(state);
    writer.update(updated);
  }

  private void retire(Tenant spare) {
    if (spare.getStatus() != null && spare.getStatus().getPhase() == TenantPhase.Purged
        && spare.getMetadata().getDeletionTimestamp() == null) {
      writer.delete(spare);
    }
  }

  private void writeStatus(SparePool pool, int ready, int provisioning, int allocated) {
    SparePoolStatus previous = pool.getStatus() == null ? new SparePoolStatus() : pool.getStatus();
    SparePoolStatus status = new SparePoolStatus();
    status.setReady(ready);
    status.setProvisioning(provisioning);
    status.setAllocated(allocated);
    status.setObservedGeneration(pool.getMetadata().getGeneration());
    boolean full = ready >= pool.getSpec().getBuffer();
    // The condition speaks of the buffer the user asked for; a surge only adds to it.
    Condition condition = Conditions.condition(previous.getConditions(), Conditions.READY, full, full ? Reason.BufferFull : Reason.Refilling,
        ready + " of " + pool.getSpec().getBuffer() + " spares ready, " + provisioning + " being built", pool.getMetadata().getGeneration(),
        Timestamps.now(clock));
    status.setConditions(new ArrayList<>(List.of(condition)));
    if (status.equals(pool.getStatus())) {
      return;
    }
    writer.writeStatus(pool, status);
  }

  private static Tenant copyOf(Tenant tenant) {
    Tenant copy = new Tenant();
    copy.setMetadata(new ObjectMetaBuilder(tenant.getMetadata()).build());
    TenantSpec spec = new TenantSpec();
    spec.setState(tenant.getSpec().getState());
    spec.setOrganization(tenant.getSpec().getOrganization());
    spec.setEmail(tenant.getSpec().getEmail());
    copy(templateOf(tenant.getSpec()), spec);
    copy.setSpec(spec);
    return copy;
  }

  private static void copy(TenantTemplate from, TenantSpec to) {
    to.setPlan(from.getPlan());
    to.setDatabases(new ArrayList<>(from.getDatabases()));
    to.setApps(new ArrayList<>(from.getApps()));
  }

  private static String suffix() {
    StringBuilder suffix = new StringBuilder();
    for (int i = 0; i < 5; i++) {
      suffix.append(ALPHABET.charAt(RANDOM.nextInt(ALPHABET.length())));
    }
    return suffix.toString();
  }
}
