package io.tenantry.spares.allocation;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.tenantry.api.Spares;
import io.tenantry.api.WellKnown;
import io.tenantry.api.v1alpha1.SparePool;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.spares.fleet.Allocation;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One fleet cluster as the allocation API sees it ({@link SpareSource}): an informer over the
 * tenants built as spares (labelled with a pool; they keep the label once allocated), indexed by
 * the request id they were allocated to, and the writes that bind a spare to a customer and mark
 * its allocation recorded. The bound Tenant is where a request id's answer lives: it survives any
 * restart of the operator.
 */
public final class SpareCluster implements SpareSource, AutoCloseable {

  private static final String BY_REQUEST = "allocation-request";
  private static final String READY_BY_POOL = "ready-by-pool";

  private final String name;
  private final KubernetesClient client;
  private final boolean ownsClient;
  private final SharedIndexInformer<Tenant> spares;
  private final BindListener onBound;

  /**
   * Starts watching the cluster's spares and waits for the first list.
   *
   * @param ownsClient whether {@link #close()} closes the client too
   * @param onBound told of every spare this process binds, as the bind starts and once it is bound
   */
  public SpareCluster(String name, KubernetesClient client, boolean ownsClient, BindListener onBound) {
    this.name = name;
    this.client = client;
    this.ownsClient = ownsClient;
    this.onBound = onBound;
    this.spares = client.resources(Tenant.class).withLabel(WellKnown.SPARE_POOL).runnableInformer(0);
    spares.addIndexers(Map.of(BY_REQUEST, t -> {
      String requestId = annotation(t, WellKnown.ALLOCATION_REQUEST);
      return requestId == null ? List.of() : List.of(requestId);
    }, READY_BY_POOL, t -> Spares.isReady(t) && t.getStatus().getNamespace() != null ? List.of(Spares.pool(t)) : List.of()));
    spares.run();
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public boolean isSynced() {
    return spares.hasSynced();
  }

  /** The pool's Ready spares, as cached (an index the informer keeps: allocated tenants are not looked at). */
  @Override
  public List<Tenant> readySpares(String pool) {
    return spares.getIndexer().byIndex(READY_BY_POOL, pool);
  }

  /** The cached resourceVersion of a spare, or null when the cache does not hold it. */
  @Override
  public String cachedResourceVersion(String tenant) {
    Tenant cached = spares.getStore().getByKey(tenant);
    return cached == null ? null : cached.getMetadata().getResourceVersion();
  }

  /** The allocation the cached tenants hold for the request id, if one of them was bound to it. */
  @Override
  public Optional<Allocation> allocationFor(String requestId) {
    return spares.getIndexer().byIndex(BY_REQUEST, requestId).stream().findFirst().map(this::allocationOf);
  }

  /** Allocations bound in this cluster but not yet marked as recorded in the fleet records. */
  @Override
  public List<Allocation> unrecorded() {
    return spares.getStore().list().stream()
        .filter(Spares::unrecorded)
        .map(this::allocationOf)
        .toList();
  }

  /**
   * Binds the spare to the allocation: state Active, the customer's organization and email, the
   * subdomain when the signup named one, and the request id and time as annotations, in one update
   * at the cached resourceVersion. Returns false
   * when the spare changed since it was cached (409), is gone (404) or is no spare any more: the
   * caller moves on to another spare. The listener hears of the bind as it starts, of its end when
   * it did not bind (also when it threw: it may or may not have been applied), and of the bound Tenant.
   */
  @Override
  public boolean bind(String tenant, Allocation allocation) {
    Tenant cached = spares.getStore().getByKey(tenant);
    if (cached == null || !Spares.isUnallocated(cached)) {
      return false;
    }
    Tenant binding = bound(cached, allocation);
    Runnable notBound = onBound.binding(cached, binding);
    Tenant stored;
    try {
      stored = client.resources(Tenant.class).resource(binding).update();
    } catch (RuntimeException e) {
      notBound.run();
      if (e instanceof KubernetesClientException k && (k.getCode() == 409 || k.getCode() == 404)) {
        return false;
      }
      throw e;
    }
    onBound.bound(stored);
    return true;
  }

  private Tenant bound(Tenant spare, Allocation allocation) {
    Tenant copy = client.getKubernetesSerialization().clone(spare);
    copy.setStatus(null);
    copy.getSpec().setState(TenantState.Active);
    copy.getSpec().setOrganization(allocation.organization());
    copy.getSpec().setEmail(allocation.email());
    if (allocation.subdomain() != null) {
      copy.getSpec().setSubdomain(allocation.subdomain());
    }
    Map<String, String> annotations = copy.getMetadata().getAnnotations() == null
        ? new HashMap<>() : new HashMap<>(copy.getMetadata().getAnnotations());
    annotations.put(WellKnown.ALLOCATION_REQUEST, allocation.requestId());
    annotations.put(WellKnown.ALLOCATED_AT, allocation.allocatedAt().toString());
    copy.getMetadata().setAnnotations(annotations);
    return copy;
  }

  @Override
  public boolean boundWith(String tenant, String subdomain) {
    Tenant current = client.resources(Tenant.class).withName(tenant).get();
    return current != null && !Spares.isUnallocated(current) && subdomain.equals(current.getSpec().getSubdomain());
  }

  @Override
  public boolean serving(String tenant, Spares.Exposure exposure) {
    Tenant cached = spares.getStore().getByKey(tenant);
    return cached != null && Spares.serving(cached, exposure);
  }

  /** Marks the tenant's allocation as recorded in the fleet records (a merge patch of one annotation). */
  @Override
  public void markRecorded(String tenant) {
    try {
      client.resources(Tenant.class).withName(tenant).patch(PatchContext.of(PatchType.JSON_MERGE),
          "{\"metadata\":{\"annotations\":{\"" + WellKnown.ALLOCATION_RECORDED + "\":\"true\"}}}");
    } catch (KubernetesClientException e) {
      if (e.getCode() != 404) {
        throw e; // A tenant deleted meanwhile needs no mark.
      }
    }
  }

  /**
   * Stamps the pool with the time a signup found it empty, so its controller builds beyond the
   * buffer for a while. Returns false when the cluster has no such pool.
   */
  @Override
  public boolean signalShortage(String pool, Instant now) {
    try {
      client.resources(SparePool.class).withName(pool).patch(PatchContext.of(PatchType.JSON_MERGE),
          "{\"metadata\":{\"annotations\":{\"" + WellKnown.SHORTAGE_AT + "\":\"" + now + "\"}}}");
      return true;
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404) {
        return false;
      }
      throw e;
    }
  }

  /** The allocation a bound tenant holds, read back from what {@link #bind} wrote. */
  private Allocation allocationOf(Tenant tenant) {
    String namespace = tenant.getStatus() == null ? null : tenant.getStatus().getNamespace();
    return new Allocation(annotation(tenant, WellKnown.ALLOCATION_REQUEST), tenant.getSpec().getOrganization(),
        tenant.getSpec().getEmail(), tenant.getMetadata().getName(), tenant.getMetadata().getUid(), name, namespace,
        Instant.parse(annotation(tenant, WellKnown.ALLOCATED_AT)), tenant.getSpec().getSubdomain());
  }

  private static String annotation(Tenant tenant, String key) {
    Map<String, String> annotations = tenant.getMetadata().getAnnotations();
    return annotations == null ? null : annotations.get(key);
  }

  @Override
  public void close() {
    spares.close();
    if (ownsClient) {
      client.close();
    }
  }
}
