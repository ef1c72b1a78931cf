package io.tenantry.controller.cache;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LimitRange;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.controller.resources.Labels;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The operator's view of the cluster: a shared index informer on Tenants and, filtered by the
 * management label, one on every kind the operator owns. An index maps each owned object to its
 * tenant (the {@code tenantry.io/tenant} label), and every event on an owned object enqueues that
 * tenant. Syncs read only from here; nothing in this class calls the API server after start.
 */
public final class InformerCache implements AutoCloseable {

  public static final String TENANT_INDEX = "tenant";

  /** Every kind the operator owns in a tenant's namespace (and the namespace itself). */
  public static final List<Class<? extends HasMetadata>> OWNED_KINDS = List.of(
      Namespace.class, Role.class, RoleBinding.class, NetworkPolicy.class, ResourceQuota.class, LimitRange.class,
      Secret.class, Service.class, PodDisruptionBudget.class, StatefulSet.class, Deployment.class);

  private final SharedIndexInformer<Tenant> tenants;
  private final Map<Class<? extends HasMetadata>, SharedIndexInformer<? extends HasMetadata>> owned = new LinkedHashMap<>();

  /**
   * @param resync how often every Tenant is re-queued even without events (zero: never)
   * @param enqueue receives the name of a tenant that needs a sync
   */
  public InformerCache(KubernetesClient client, Duration resync, Consumer<String> enqueue) {
    tenants = client.resources(Tenant.class).runnableInformer(resync.toMillis());
    tenants.addEventHandler(handler(t -> t.getMetadata().getName(), enqueue));
    for (Class<? extends HasMetadata> kind : OWNED_KINDS) {
      owned.put(kind, ownedInformer(client, kind, enqueue));
    }
  }

  private static <T extends HasMetadata> SharedIndexInformer<T> ownedInformer(KubernetesClient client, Class<T> kind,
      Consumer<String> enqueue) {
    SharedIndexInformer<T> informer = kind == Namespace.class
        ? client.resources(kind).withLabel(Labels.MANAGED_BY, Labels.MANAGER).runnableInformer(0)
        : client.resources(kind).inAnyNamespace().withLabel(Labels.MANAGED_BY, Labels.MANAGER).runnableInformer(0);
    informer.addIndexers(Map.of(TENANT_INDEX, o -> {
      String tenant = tenantOf(o);
      return tenant == null ? List.of() : List.of(tenant);
    }));
    informer.addEventHandler(handler(InformerCache::tenantOf, enqueue));
    return informer;
  }

  private static <T extends HasMetadata> ResourceEventHandler<T> handler(Function<T, String> key,
      Consumer<String> enqueue) {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(T obj) {
        enqueue(key.apply(obj));
      }

      @Override
      public void onUpdate(T oldObj, T newObj) {
        enqueue(key.apply(newObj));
      }

      @Override
      public void onDelete(T obj, boolean deletedFinalStateUnknown) {
        enqueue(key.apply(obj));
      }

      private void enqueue(String tenant) {
        if (tenant != null) {
          enqueue.accept(tenant);
        }
      }
    };
  }

  private static String tenantOf(HasMetadata object) {
    Map<String, String> labels = object.getMetadata().getLabels();
    return labels == null ? null : labels.get(Labels.TENANT);
  }

  /** Starts every informer and waits until each has listed its objects. */
  public void start(Duration timeout) throws Exception {
    List<CompletableFuture<Void>> started = new ArrayList<>();
    started.add(tenants.start().toCompletableFuture());
    owned.values().forEach(i -> started.add(i.start().toCompletableFuture()));
    CompletableFuture.allOf(started.toArray(CompletableFuture[]::new)).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  public boolean hasSynced() {
    return tenants.hasSynced() && owned.values().stream().allMatch(SharedIndexInformer::hasSynced);
  }

  public Tenant tenant(String name) {
    return tenants.getIndexer().getByKey(name);
  }

  public List<String> tenantNames() {
    return tenants.getIndexer().listKeys();
  }

  /** The cached object, or null. */
  public <T extends HasMetadata> T get(Class<T> kind, String namespace, String name) {
    @SuppressWarnings("unchecked")
    SharedIndexInformer<T> informer = (SharedIndexInformer<T>) owned.get(kind);
    if (informer == null) {
      throw new IllegalArgumentException(kind.getSimpleName() + " is not an owned kind");
    }
    return informer.getIndexer().getByKey(namespace == null ? name : namespace + "/" + name);
  }

  /** Every cached object owned for {@code tenant}, of every kind. */
  public List<HasMetadata> ownedBy(String tenant) {
    List<HasMetadata> result = new ArrayList<>();
    owned.values().forEach(i -> result.addAll(i.getIndexer().byIndex(TENANT_INDEX, tenant)));
    return result;
  }

  /**
   * A fingerprint of everything the cache holds about a tenant: the Tenant's and every owned
   * object's identity and resourceVersion. Equal fingerprints mean nothing about the tenant
   * changed in between, so a sync that found it converged would find it converged again.
   */
  public long fingerprint(String tenant) {
    Tenant t = tenant(tenant);
    long fingerprint = t == null ? 0 : mix(t.getMetadata().getResourceVersion().hashCode());
    for (SharedIndexInformer<? extends HasMetadata> informer : owned.values()) {
      for (HasMetadata o : informer.getIndexer().byIndex(TENANT_INDEX, tenant)) {
        // Order-independent: the index returns its objects in no particular order.
        fingerprint += mix(((long) o.getMetadata().getUid().hashCode() << 32) ^ o.getMetadata().getResourceVersion().hashCode());
      }
    }
    return fingerprint;
  }

  private static long mix(long value) {
    long z = value * 0x9E3779B97F4A7C15L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    return z ^ (z >>> 31);
  }

  @Override
  public void close() {
    tenants.close();
    owned.values().forEach(SharedIndexInformer::close);
  }
}
