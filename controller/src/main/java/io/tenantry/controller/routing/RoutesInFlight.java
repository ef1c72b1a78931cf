package io.tenantry.controller.routing;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.controller.apply.Applier;
import io.tenantry.controller.cache.ClusterView;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The bound tenants whose way in (route, opened Services, identity: the objects
 * {@link SpareGate#writtenOnBind} names; "the route" below) {@link BoundRoutes} is writing, so
 * that a sync running meanwhile leaves them alone: the tenant's first sync does not apply them a second time, and a sync planned
 * from the Tenant as it was before its bind (a spare: its Services closed, its route for its own
 * name or none) does not close or delete them. A tenant is held from the bind until the write fails,
 * or succeeds and the cache shows both the route as written and the bound Tenant (their watch events
 * queue the tenant again, and that sync finds the route in place). A sync that held the route back
 * gets its tenant queued again when the route was not written after all, or when the cache has not
 * shown it within {@code unseen} (a route deleted or changed before its watch event came), so a
 * held route is never left unwritten.
 */
public final class RoutesInFlight {

  private final ClusterView cache;
  private final Consumer<String> requeue;
  private final Duration unseen;
  private final Map<String, Entry> tenants = new ConcurrentHashMap<>();

  /**
   * One tenant's route, for the Tenant the bind stored ({@code uid}, {@code generation}): in
   * flight until {@code written} is set; {@code held} once a sync held it back.
   */
  private static final class Entry {
    private final String uid;
    private final long generation;
    private volatile List<HasMetadata> written;
    private volatile boolean held;

    private Entry(Tenant bound) {
      this.uid = bound.getMetadata().getUid();
      this.generation = generation(bound);
    }
  }

  /**
   * @param requeue queues a tenant for a sync
   * @param unseen how long a written route may stay out of the cache before the sync writes it itself
   */
  public RoutesInFlight(ClusterView cache, Consumer<String> requeue, Duration unseen) {
    this.cache = cache;
    this.requeue = requeue;
    this.unseen = unseen;
  }

  /** The bind's thread will write the route of {@code bound}, the Tenant as the bind stored it (or will store it). */
  public void started(Tenant bound) {
    tenants.put(bound.getMetadata().getName(), new Entry(bound));
  }

  /** The tenant's route was written: held until the cache shows it and the bound Tenant ({@link #expireLater}). */
  public void written(String tenant, List<HasMetadata> routes) {
    Entry entry = tenants.get(tenant);
    if (entry == null) {
      return;
    }
    entry.written = List.copyOf(routes);
    expireLater(tenant, entry);
  }

  /**
   * Lets the sync write the route once {@code unseen} has passed without the cache showing it; a
   * route in the cache waits on for its Tenant's watch event (else a plan from the Tenant before
   * its bind would delete it), which always comes: the bound generation or a later one, or the
   * Tenant's deletion.
   */
  private void expireLater(String tenant, Entry entry) {
    CompletableFuture.delayedExecutor(unseen.toMillis(), TimeUnit.MILLISECONDS).execute(() -> {
      if (tenants.get(tenant) == entry && routesCached(entry) && !tenantCaughtUp(tenant, entry)) {
        expireLater(tenant, entry);
      } else {
        release(tenant, entry);
      }
    });
  }

  /** The tenant's route was not written (refused, not routed, left to a newer sync): its sync writes it. */
  public void notWritten(String tenant) {
    Entry entry = tenants.get(tenant);
    if (entry != null) {
      release(tenant, entry);
    }
  }

  /**
   * The bind the route was written ahead of ({@link BoundRoutes#binding}) did not happen: the
   * tenant's sync, queued at once, puts its own route back (its watch event queues it again should
   * the cache not show the route written ahead yet).
   */
  public void notBound(String tenant) {
    tenants.remove(tenant);
    requeue.accept(tenant);
  }

  private void release(String tenant, Entry entry) {
    if (tenants.remove(tenant, entry) && entry.held && !seen(tenant, entry)) {
      requeue.accept(tenant);
    }
  }

  /** Whether the route was written and the cache shows it, and the Tenant as bound or later. */
  private boolean seen(String tenant, Entry entry) {
    return routesCached(entry) && tenantCaughtUp(tenant, entry);
  }

  private boolean routesCached(Entry entry) {
    List<HasMetadata> written = entry.written;
    return written != null && written.stream().allMatch(this::cached);
  }

  /** Whether the cache shows the Tenant as bound or later, or no longer that tenant (deleted, or made again). */
  private boolean tenantCaughtUp(String tenant, Entry entry) {
    Tenant cached = cache.tenant(tenant);
    return cached == null || !Objects.equals(entry.uid, cached.getMetadata().getUid()) || generation(cached) >= entry.generation;
  }

  private static long generation(Tenant tenant) {
    Long generation = tenant.getMetadata().getGeneration();
    return generation == null ? 0 : generation;
  }

  /**
   * Whether the tenant's sync, whose plan writes or deletes the route, should leave it to the
   * bind's thread; the tenant is then queued again once the cache shows the route and the bound
   * Tenant, or the route is the sync's to write. Once the cache shows them, the route is held
   * once more: the plan was made before they came (a later plan finds the route in place and
   * changes nothing), so the tenant is queued again at once for a plan that sees them. Ask once
   * per sync, for all the objects it would write or delete: that answer is the sync's.
   */
  public boolean holds(String tenant) {
    boolean[] seen = {false};
    Entry held = tenants.computeIfPresent(tenant, (name, entry) -> {
      if (seen(name, entry)) {
        seen[0] = true;
        return null;
      }
      entry.held = true;
      return entry;
    });
    if (seen[0]) {
      requeue.accept(tenant);
      return true;
    }
    return held != null;
  }

  /** Whether the cache shows {@code written} as it was written. */
  private boolean cached(HasMetadata written) {
    HasMetadata cached = cache.get(written.getClass(), written.getMetadata().getNamespace(), written.getMetadata().getName());
    return Applier.upToDate(written, cached);
  }
}
