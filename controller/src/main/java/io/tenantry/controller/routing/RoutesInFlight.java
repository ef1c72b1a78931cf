package io.tenantry.controller.routing;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.controller.cache.ClusterView;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The bound tenants whose route {@link BoundRoutes} is writing, so that a sync running meanwhile
 * leaves the route alone: the tenant's first sync does not apply it a second time, and a sync
 * planned from the Tenant as it was before its bind (a spare: no route) does not delete it. A
 * tenant is held from the bind until the write fails, or succeeds and the cache shows both the
 * route and the bound Tenant (their watch events queue the tenant again, and that sync finds the
 * route in place). A sync that held the route back gets its tenant queued again when the route
 * was not written after all, or when the cache has not shown it within {@code unseen} (a route
 * deleted before its watch event came), so a held route is never left unwritten.
 */
public final class RoutesInFlight {

  private final ClusterView cache;
  private final Consumer<String> requeue;
  private final Duration unseen;
  private final Map<String, Entry> tenants = new ConcurrentHashMap<>();

  /**
   * One tenant's route, for the Tenant's {@code generation} the bind stored: in flight until
   * {@code written} is set; {@code held} once a sync held it back.
   */
  private static final class Entry {
    private final long generation;
    private volatile List<HasMetadata> written;
    private volatile boolean held;

    private Entry(long generation) {
      this.generation = generation;
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

  /** The bind's thread will write the route of the tenant, bound at {@code generation}. */
  public void started(String tenant, long generation) {
    tenants.put(tenant, new Entry(generation));
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
    if (tenants.remove(tenant, entry) && entry.held && !seen(tenant, entry)) {
      requeue.accept(tenant);
    }
  }

  /** Whether the route was written and the cache shows it, and the Tenant as bound or later. */
  private boolean seen(String tenant, Entry entry) {
    List<HasMetadata> written = entry.written;
    Tenant cached = cache.tenant(tenant);
    return written != null && written.stream().allMatch(this::cached) && cached != null
        && cached.getMetadata().getGeneration() != null && cached.getMetadata().getGeneration() >= entry.generation;
  }

  /**
   * Whether the tenant's sync, whose plan writes or deletes the route, should leave it to the
   * bind's thread; the tenant is then queued again once the cache shows the route and the bound
   * Tenant, or the route is the sync's to write. Once the cache shows them, the route is held
   * once more: the plan was made before they came (a later plan finds the route in place and
   * changes nothing), so the tenant is queued again at once for a plan that sees them.
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

  private boolean cached(HasMetadata route) {
    return cache.get(route.getClass(), route.getMetadata().getNamespace(), route.getMetadata().getName()) != null;
  }
}
