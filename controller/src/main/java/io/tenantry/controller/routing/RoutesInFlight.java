package io.tenantry.controller.routing;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.tenantry.controller.cache.ClusterView;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The bound tenants whose route {@link BoundRoutes} is writing, so that their first sync, which
 * runs at the same moment, does not apply the same route a second time: a tenant is held from
 * the bind until the write fails, or succeeds and the cache shows the route (its watch event
 * queues the tenant again, and that sync finds the route in place). A sync that held the route
 * back gets its tenant queued again when the route was not written after all, or when the cache
 * has not shown it within {@code unseen} (a route deleted before its watch event came), so a held
 * route is never left unwritten.
 */
public final class RoutesInFlight {

  private final ClusterView cache;
  private final Consumer<String> requeue;
  private final Duration unseen;
  private final Map<String, Entry> tenants = new ConcurrentHashMap<>();

  /** One tenant's route: in flight until {@code written} is set; {@code held} once a sync held it back. */
  private static final class Entry {
    private volatile List<HasMetadata> written;
    private volatile boolean held;
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

  /** The bind's thread will write the tenant's route. */
  public void started(String tenant) {
    tenants.put(tenant, new Entry());
  }

  /** The tenant's route was written: held until the cache shows it, at most {@code unseen}. */
  public void written(String tenant, List<HasMetadata> routes) {
    Entry entry = tenants.get(tenant);
    if (entry == null) {
      return;
    }
    entry.written = List.copyOf(routes);
    CompletableFuture.delayedExecutor(unseen.toMillis(), TimeUnit.MILLISECONDS).execute(() -> release(tenant, entry));
  }

  /** The tenant's route was not written (refused, not routed, left to a newer sync): its sync writes it. */
  public void notWritten(String tenant) {
    Entry entry = tenants.get(tenant);
    if (entry != null) {
      release(tenant, entry);
    }
  }

  private void release(String tenant, Entry entry) {
    if (tenants.remove(tenant, entry) && entry.held && !seen(entry)) {
      requeue.accept(tenant);
    }
  }

  /** Whether the route was written and the cache shows it. */
  private boolean seen(Entry entry) {
    List<HasMetadata> written = entry.written;
    return written != null && written.stream().allMatch(this::cached);
  }

  /**
   * Whether the tenant's sync should leave its route to the bind's thread, now; the tenant is then
   * queued again once the route is in the cache or is the sync's to write.
   */
  public boolean holds(String tenant) {
    boolean[] holds = {false};
    tenants.computeIfPresent(tenant, (name, entry) -> {
      if (seen(entry)) {
        return null; // In the cache: the sync sees it, and writes it only if it changed since.
      }
      entry.held = true;
      holds[0] = true;
      return entry;
    });
    return holds[0];
  }

  private boolean cached(HasMetadata route) {
    return cache.get(route.getClass(), route.getMetadata().getNamespace(), route.getMetadata().getName()) != null;
  }
}
