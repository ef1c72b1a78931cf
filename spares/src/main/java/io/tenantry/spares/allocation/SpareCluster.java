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
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One fleet cluster as the allocation API sees it: an informer over its spare tenants (those
 * labelled with a pool) and the one write that binds a spare to a customer.
 */
public final class SpareCluster implements AutoCloseable {

  /** Conflicts on one spare worth re-reading for: the operator or pool controller may write it meanwhile. */
  private static final int BIND_ATTEMPTS = 5;

  /** What binding a spare came to. */
  public enum Binding {
    /** The tenant is bound to the request (now, or it already was). */
    BOUND,
    /** The tenant is gone, retired, or held by another request: it cannot serve this one. */
    UNAVAILABLE
  }

  private final String name;
  private final KubernetesClient client;
  private final boolean ownsClient;
  private final SharedIndexInformer<Tenant> spares;

  /**
   * Starts watching the cluster's spares and waits for the first list.
   *
   * @param ownsClient whether {@link #close()} closes the client too
   */
  public SpareCluster(String name, KubernetesClient client, boolean ownsClient) {
    this.name = name;
    this.client = client;
    this.ownsClient = ownsClient;
    this.spares = client.resources(Tenant.class).withLabel(WellKnown.SPARE_POOL).inform();
  }

  public String name() {
    return name;
  }

  public boolean isSynced() {
    return spares.hasSynced();
  }

  /** The pool's Ready spares, the longest-standing first (as cached). */
  public List<Tenant> readySpares(String pool) {
    return spares.getStore().list().stream()
        .filter(t -> pool.equals(Spares.pool(t)) && Spares.isReady(t) && t.getStatus().getNamespace() != null)
        .sorted(Comparator.comparing((Tenant t) -> t.getMetadata().getCreationTimestamp())
            .thenComparing(t -> t.getMetadata().getName()))
        .toList();
  }

  /** Every spare no customer holds yet, as cached. */
  public List<Tenant> unallocatedSpares() {
    return spares.getStore().list().stream().filter(Spares::isUnallocated).toList();
  }

  /** The cached resourceVersion of a spare, or null when the cache does not hold it. */
  public String cachedResourceVersion(String tenant) {
    Tenant cached = spares.getStore().getByKey(tenant);
    return cached == null ? null : cached.getMetadata().getResourceVersion();
  }

  /**
   * Binds the spare to the allocation: state Active, the customer's organization and email, and the
   * request id and time as annotations, in one update guarded by resourceVersion. A conflict re-reads
   * the tenant and tries again while it is still an unallocated spare; a tenant already bound to
   * this request id counts as bound, so a retry or a second process finishing the same binding
   * is harmless.
   */
  public Binding bind(String tenant, Allocation allocation) {
    Tenant current = spares.getStore().getByKey(tenant);
    for (int attempt = 0; attempt < BIND_ATTEMPTS; attempt++) {
      if (current == null) {
        current = client.resources(Tenant.class).withName(tenant).get();
      }
      if (current == null) {
        return Binding.UNAVAILABLE;
      }
      if (allocation.requestId().equals(annotation(current, WellKnown.ALLOCATION_REQUEST))) {
        return Binding.BOUND;
      }
      if (!Spares.isUnallocated(current)) {
        return Binding.UNAVAILABLE;
      }
      try {
        client.resources(Tenant.class).resource(bound(current, allocation)).update();
        return Binding.BOUND;
      } catch (KubernetesClientException e) {
        if (e.getCode() == 404) {
          return Binding.UNAVAILABLE;
        }
        if (e.getCode() != 409) {
          throw e;
        }
        current = null; // Someone wrote it since: read it again.
      }
    }
    return Binding.UNAVAILABLE;
  }

  private Tenant bound(Tenant spare, Allocation allocation) {
    Tenant copy = client.getKubernetesSerialization().clone(spare);
    copy.setStatus(null);
    copy.getSpec().setState(TenantState.Active);
    copy.getSpec().setOrganization(allocation.organization());
    copy.getSpec().setEmail(allocation.email());
    Map<String, String> annotations = copy.getMetadata().getAnnotations() == null
        ? new HashMap<>() : new HashMap<>(copy.getMetadata().getAnnotations());
    annotations.put(WellKnown.ALLOCATION_REQUEST, allocation.requestId());
    annotations.put(WellKnown.ALLOCATED_AT, allocation.allocatedAt().toString());
    copy.getMetadata().setAnnotations(annotations);
    return copy;
  }

  /**
   * Stamps the pool with the time a signup found it empty, so its controller builds beyond the
   * buffer for a while. Returns false when the cluster has no such pool.
   */
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
