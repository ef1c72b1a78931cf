package io.tenantry.spares.allocation;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.tenantry.api.Spares;
import io.tenantry.api.WellKnown;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.api.v1alpha1.TenantSpec;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.api.v1alpha1.TenantStatus;
import io.tenantry.spares.fleet.Allocation;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A {@link SpareSource} in memory, for unit tests, modelled as {@link SpareCluster} sees a real
 * cluster: what the API server holds, and a cache (the informer) that shows it either at once or
 * only on {@link #sync()}, so tests can put the cache behind the server. A bind is an update at
 * the cached resourceVersion, refused as a 409 would be when the server has moved on; other
 * processes are played by {@link #takeElsewhere}. Every call is atomic under one lock; a bind can
 * be held open ({@link #holdBinds()}) to test what happens meanwhile.
 */
final class InMemorySpareCluster implements SpareSource {

  /** One tenant as stored: immutable, so the cache can share the server's objects. */
  private record Stored(String name, String pool, Instant created, boolean ready, String resourceVersion,
                        Allocation allocation, boolean recorded) {

    Stored bound(Allocation allocation, String resourceVersion) {
      return new Stored(name, pool, created, false, resourceVersion, allocation, false);
    }

    Stored recorded(String resourceVersion) {
      return new Stored(name, pool, created, ready, resourceVersion, allocation, true);
    }

    String namespace() {
      return "tenant-" + name;
    }
  }

  /** A bind held open: {@link #entered} once a bind waits, {@link #release()} lets it go on. */
  static final class HeldBinds {
    private final CountDownLatch entered = new CountDownLatch(1);
    private final CountDownLatch released = new CountDownLatch(1);

    void awaitEntered() throws InterruptedException {
      if (!entered.await(5, TimeUnit.SECONDS)) {
        throw new AssertionError("no bind started within 5 s");
      }
    }

    void release() {
      released.countDown();
    }
  }

  private final String name;
  private final Set<String> pools;
  private final Map<String, Stored> server = new TreeMap<>();
  private final Map<String, Stored> cache = new TreeMap<>();
  private final List<String> shortages = new ArrayList<>();
  private final List<String> marked = new ArrayList<>();
  /** Tenants whose status says they serve at their URL (set by the test, as the operator's sync would). */
  private final Set<String> serving = java.util.concurrent.ConcurrentHashMap.newKeySet();
  private boolean cacheFollows = true;
  private boolean synced = true;
  private long version;
  private int binds;
  private int conflicts;
  private RuntimeException nextBindFailure;
  private volatile HeldBinds held;
  private volatile long bindMillis;

  /** A cluster with SparePools of the given names, whose cache shows every write at once. */
  InMemorySpareCluster(String name, String... pools) {
    this.name = name;
    this.pools = Set.of(pools);
  }

  /** A Ready spare of the pool, built at {@code created}. */
  synchronized InMemorySpareCluster ready(String tenant, String pool, Instant created) {
    return put(new Stored(tenant, pool, created, true, nextVersion(), null, false));
  }

  /** A spare of the pool still being built (phase Provisioning). */
  synchronized InMemorySpareCluster provisioning(String tenant, String pool, Instant created) {
    return put(new Stored(tenant, pool, created, false, nextVersion(), null, false));
  }

  /** A spare bound to the allocation before (by this or another process), marked recorded or not. */
  synchronized InMemorySpareCluster bound(Allocation allocation, String pool, boolean recorded) {
    Instant created = allocation.allocatedAt().minusSeconds(60);
    return put(new Stored(allocation.tenant(), pool, created, false, nextVersion(), allocation, recorded));
  }

  /** Another process binds the spare: the server moves on, this cache does not see it yet. */
  synchronized void takeElsewhere(String tenant, Allocation theirs) {
    server.put(tenant, server.get(tenant).bound(theirs, nextVersion()));
  }

  /** From now on the cache shows writes only on {@link #sync()}, as an informer behind the server. */
  synchronized void holdCache() {
    cacheFollows = false;
  }

  /** The cache catches up with the server. */
  synchronized void sync() {
    cache.clear();
    cache.putAll(server);
  }

  /** Whether the cache has listed the cluster yet. */
  synchronized void setSynced(boolean synced) {
    this.synced = synced;
  }

  /** The next bind fails with this, as an API server that cannot be reached. */
  synchronized void failNextBind(RuntimeException failure) {
    nextBindFailure = failure;
  }

  /** Every bind from now on waits until the returned handle is released. */
  HeldBinds holdBinds() {
    HeldBinds hold = new HeldBinds();
    held = hold;
    return hold;
  }

  /** Every bind from now on takes this long outside the lock, so that concurrent binds overlap. */
  void bindTakes(long millis) {
    bindMillis = millis;
  }

  /** The allocation the server holds for the tenant, or null when it is unbound or unknown. */
  synchronized Allocation boundOnServer(String tenant) {
    Stored stored = server.get(tenant);
    return stored == null ? null : stored.allocation();
  }

  /** Whether the server holds the tenant marked as recorded. */
  synchronized boolean isMarkedRecorded(String tenant) {
    Stored stored = server.get(tenant);
    return stored != null && stored.recorded();
  }

  /** Binds attempted, successful or not. */
  synchronized int binds() {
    return binds;
  }

  /** Binds refused because the server had moved on since the cache saw the spare (409). */
  synchronized int conflicts() {
    return conflicts;
  }

  /** The pools told of a shortage, as {@code pool@time}, in order. */
  synchronized List<String> shortages() {
    return List.copyOf(shortages);
  }

  /** The tenants marked recorded, in order. */
  synchronized List<String> marked() {
    return List.copyOf(marked);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public synchronized boolean isSynced() {
    return synced;
  }

  @Override
  public synchronized List<Tenant> readySpares(String pool) {
    // The same selection as SpareCluster, on the same Tenant objects, newest first: the allocator must choose.
    return cache.values().stream().map(InMemorySpareCluster::tenant)
        .filter(t -> pool.equals(Spares.pool(t)) && Spares.isReady(t) && t.getStatus().getNamespace() != null)
        .sorted(Comparator.comparing((Tenant t) -> t.getMetadata().getCreationTimestamp()).reversed())
        .toList();
  }

  @Override
  public synchronized String cachedResourceVersion(String tenant) {
    Stored cached = cache.get(tenant);
    return cached == null ? null : cached.resourceVersion();
  }

  @Override
  public synchronized Optional<Allocation> allocationFor(String requestId) {
    return cache.values().stream().map(Stored::allocation)
        .filter(a -> a != null && a.requestId().equals(requestId)).findFirst();
  }

  @Override
  public synchronized List<Allocation> unrecorded() {
    return cache.values().stream().filter(s -> s.allocation() != null && !s.recorded()).map(Stored::allocation).toList();
  }

  @Override
  public boolean bind(String tenant, Allocation allocation) {
    waitOutsideTheLock();
    synchronized (this) {
      binds++;
      if (nextBindFailure != null) {
        RuntimeException failure = nextBindFailure;
        nextBindFailure = null;
        throw failure;
      }
      Stored cached = cache.get(tenant);
      if (cached == null || cached.allocation() != null) {
        return false;
      }
      Stored current = server.get(tenant);
      if (current == null || !current.resourceVersion().equals(cached.resourceVersion())) {
        conflicts++;
        return false;
      }
      if (!allocation.namespace().equals(current.namespace()) || !allocation.cluster().equals(name)) {
        throw new AssertionError("bound with the wrong namespace or cluster: " + allocation);
      }
      write(current.bound(allocation, nextVersion()));
      return true;
    }
  }

  @Override
  public synchronized boolean boundWith(String tenant, String subdomain) {
    Stored current = server.get(tenant);
    return current != null && current.allocation() != null && subdomain.equals(current.allocation().subdomain());
  }

  @Override
  public boolean serving(String tenant, Spares.Exposure exposure) {
    return serving.contains(tenant);
  }

  /** The tenant's status now says it serves. */
  void nowServing(String tenant) {
    serving.add(tenant);
  }

  @Override
  public synchronized void markRecorded(String tenant) {
    Stored current = server.get(tenant);
    if (current == null) {
      return;
    }
    marked.add(tenant);
    write(current.recorded(nextVersion()));
  }

  @Override
  public synchronized boolean signalShortage(String pool, Instant now) {
    if (!pools.contains(pool)) {
      return false;
    }
    shortages.add(pool + "@" + now);
    return true;
  }

  private void waitOutsideTheLock() {
    try {
      HeldBinds hold = held;
      if (hold != null) {
        hold.entered.countDown();
        if (!hold.released.await(5, TimeUnit.SECONDS)) {
          throw new KubernetesClientException("bind held for more than 5 s");
        }
      }
      long millis = bindMillis;
      if (millis > 0) {
        Thread.sleep(millis);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KubernetesClientException("interrupted");
    }
  }

  private InMemorySpareCluster put(Stored stored) {
    server.put(stored.name(), stored);
    cache.put(stored.name(), stored);
    return this;
  }

  private void write(Stored stored) {
    server.put(stored.name(), stored);
    if (cacheFollows) {
      cache.put(stored.name(), stored);
    }
  }

  private String nextVersion() {
    return Long.toString(++version);
  }

  /** The Tenant the informer would hold for what is stored. */
  private static Tenant tenant(Stored stored) {
    Tenant tenant = new Tenant();
    tenant.setMetadata(new ObjectMetaBuilder().withName(stored.name()).withUid("uid-" + stored.name()).withGeneration(1L)
        .withResourceVersion(stored.resourceVersion()).withCreationTimestamp(stored.created().toString())
        .withLabels(Map.of(WellKnown.SPARE_POOL, stored.pool())).build());
    TenantSpec spec = new TenantSpec();
    TenantStatus status = new TenantStatus();
    status.setNamespace(stored.namespace());
    status.setObservedGeneration(1L);
    status.setPhase(stored.ready() ? TenantPhase.Ready : TenantPhase.Provisioning);
    if (stored.allocation() != null) {
      spec.setState(TenantState.Active);
      spec.setOrganization(stored.allocation().organization());
      spec.setEmail(stored.allocation().email());
      spec.setSubdomain(stored.allocation().subdomain());
    }
    tenant.setSpec(spec);
    tenant.setStatus(status);
    return tenant;
  }
}
