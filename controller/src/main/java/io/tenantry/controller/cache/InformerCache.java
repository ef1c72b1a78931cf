package io.tenantry.controller.cache;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LimitRange;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.tenantry.api.Spares;
import io.tenantry.api.WellKnown;
import io.tenantry.api.v1alpha1.SparePool;
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
public final class InformerCache implements ClusterView, AutoCloseable {

  public static final String TENANT_INDEX = "tenant";
  /** Indexes the template namespace's template Secrets (and nothing from any other namespace). */
  private static final String TEMPLATE_INDEX = "template";

  /**
   * Every kind the operator owns in a tenant's namespace (and the namespace itself). Volume claims
   * are made by the StatefulSets' claim templates (which carry the tenant's labels), never applied;
   * the operator deletes one only when its data is safe elsewhere (a major upgrade's old volume).
   */
  public static final List<Class<? extends HasMetadata>> OWNED_KINDS = List.of(
      Namespace.class, RoleBinding.class, NetworkPolicy.class, ResourceQuota.class, LimitRange.class,
      Secret.class, ConfigMap.class, Service.class, PodDisruptionBudget.class, StatefulSet.class, Deployment.class, Job.class,
      PersistentVolumeClaim.class, HorizontalPodAutoscaler.class);

  private static final String POOL_INDEX = "pool";
  private static final InformerRetries RETRIES = new InformerRetries();

  private final SharedIndexInformer<Tenant> tenants;
  private final SharedIndexInformer<SparePool> pools;
  private final Map<Class<? extends HasMetadata>, SharedIndexInformer<? extends HasMetadata>> owned = new LinkedHashMap<>();
  private final Map<Class<? extends HasMetadata>, CompactItemStore<? extends HasMetadata>> ownedStores = new LinkedHashMap<>();

  private final String namespacePrefix;
  private final String templateNamespace;
  private final String edgeNamespace;
  private final List<Class<? extends HasMetadata>> routeKinds;

  /**
   * @param namespacePrefix tenant namespaces are named this plus the tenant's name
   * @param templateNamespace the one namespace template Secrets are taken from
   * @param edgeNamespace where a Frozen tenant's route is, the one object a tenant owns outside its namespace
   * @param resync how often every Tenant is re-queued even without events (zero: never)
   * @param enqueue receives the name of a tenant that needs a sync
   * @param enqueueFirst receives the name of a tenant the allocation API just bound: its customer
   *     waits for its first sync, which goes ahead of the rest (the refill's new spares)
   * @param enqueuePool receives the name of a spare pool that needs a sync (its own, or one of its spares, changed)
   * @param routeKinds the kind of the tenants' routes (HTTPRoute or Ingress), when tenants are routed
   */
  public InformerCache(KubernetesClient client, String namespacePrefix, String templateNamespace, String edgeNamespace,
      Duration resync, Consumer<String> enqueue, Consumer<String> enqueueFirst, Consumer<String> enqueuePool,
      List<Class<? extends HasMetadata>> routeKinds) {
    this.namespacePrefix = namespacePrefix;
    this.templateNamespace = templateNamespace;
    this.edgeNamespace = edgeNamespace;
    this.routeKinds = List.copyOf(routeKinds);
    tenants = client.resources(Tenant.class).runnableInformer(resync.toMillis()).itemStore(new LeanItemStore<>());
    tenants.exceptionHandler(RETRIES);
    tenants.addEventHandler(handler(t -> t, t -> (Spares.justBound(t) ? enqueueFirst : enqueue).accept(t.getMetadata().getName())));
    tenants.addIndexers(Map.of(POOL_INDEX, t -> {
      String pool = t.getMetadata().getLabels() == null ? null : t.getMetadata().getLabels().get(WellKnown.SPARE_POOL);
      return pool == null ? List.of() : List.of(pool);
    }));
    tenants.addEventHandler(handler(t -> t.getMetadata().getLabels() == null ? null
        : t.getMetadata().getLabels().get(WellKnown.SPARE_POOL), enqueuePool));
    pools = client.resources(SparePool.class).runnableInformer(resync.toMillis()).itemStore(new LeanItemStore<>());
    pools.exceptionHandler(RETRIES);
    pools.addEventHandler(handler(p -> p.getMetadata().getName(), enqueuePool));
    for (Class<? extends HasMetadata> kind : OWNED_KINDS) {
      owned.put(kind, ownedInformer(client, kind, enqueue));
    }
    for (Class<? extends HasMetadata> kind : routeKinds) {
      owned.put(kind, ownedInformer(client, kind, enqueue));
    }
    // A template Secret concerns every tenant: its change fans out to all of them.
    owned.get(Secret.class).addIndexers(Map.of(TEMPLATE_INDEX, s -> isTemplate(s) ? List.of("true") : List.of()));
    owned.get(Secret.class).addEventHandler(handler(
        s -> isTemplate(s) ? "" : null, ignored -> tenantNames().forEach(enqueue)));
  }

  /**
   * A template is a Secret labelled as one in the template namespace. The label alone is not
   * enough: anyone who can write a Secret in their own namespace could set it, and a template is
   * copied into every tenant.
   */
  private boolean isTemplate(HasMetadata secret) {
    Map<String, String> labels = secret.getMetadata().getLabels();
    return templateNamespace.equals(secret.getMetadata().getNamespace())
        && labels != null && "true".equals(labels.get(WellKnown.TEMPLATE));
  }

  @Override
  public List<Secret> templateSecrets() {
    @SuppressWarnings("unchecked")
    SharedIndexInformer<Secret> secrets = (SharedIndexInformer<Secret>) owned.get(Secret.class);
    return secrets.getIndexer().byIndex(TEMPLATE_INDEX, "true");
  }

  private <T extends HasMetadata> SharedIndexInformer<T> ownedInformer(KubernetesClient client, Class<T> kind,
      Consumer<String> enqueue) {
    SharedIndexInformer<T> informer = kind == Namespace.class
        ? client.resources(kind).withLabel(Labels.MANAGED_BY, Labels.MANAGER).runnableInformer(0)
        : client.resources(kind).inAnyNamespace().withLabel(Labels.MANAGED_BY, Labels.MANAGER).runnableInformer(0);
    CompactItemStore<T> store = new CompactItemStore<>(kind, client.getKubernetesSerialization());
    informer.itemStore(store);
    informer.exceptionHandler(RETRIES);
    ownedStores.put(kind, store);
    informer.addIndexers(Map.of(TENANT_INDEX, o -> {
      String tenant = tenantOf(o);
      return tenant == null ? List.of() : List.of(tenant);
    }));
    informer.addEventHandler(handler(this::tenantOf, enqueue));
    return informer;
  }

  private static <T extends HasMetadata, K> ResourceEventHandler<T> handler(Function<T, K> key, Consumer<K> enqueue) {
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

      private void enqueue(K tenant) {
        if (tenant != null) {
          enqueue.accept(tenant);
        }
      }
    };
  }

  /**
   * The tenant an object belongs to: its tenant label, when the object is that tenant's namespace
   * or lies in it. A label claiming another tenant's name is ignored, so that an object in one
   * namespace can never be counted (or deleted) as another tenant's.
   */
  private String tenantOf(HasMetadata object) {
    Map<String, String> labels = object.getMetadata().getLabels();
    String tenant = labels == null ? null : labels.get(Labels.TENANT);
    if (tenant == null) {
      return null;
    }
    String namespace = object instanceof Namespace ? object.getMetadata().getName() : object.getMetadata().getNamespace();
    // Outside its namespace, a tenant owns only its route in the edge namespace (a Frozen tenant's).
    boolean edgeRoute = edgeNamespace.equals(namespace) && routeKinds.contains(object.getClass());
    return (namespacePrefix + tenant).equals(namespace) || edgeRoute ? tenant : null;
  }

  /** Starts every informer and waits until each has listed its objects. */
  public void start(Duration timeout) throws Exception {
    List<CompletableFuture<Void>> started = new ArrayList<>();
    started.add(tenants.start().toCompletableFuture());
    started.add(pools.start().toCompletableFuture());
    owned.values().forEach(i -> started.add(i.start().toCompletableFuture()));
    CompletableFuture.allOf(started.toArray(CompletableFuture[]::new)).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  public boolean hasSynced() {
    return tenants.hasSynced() && pools.hasSynced() && owned.values().stream().allMatch(SharedIndexInformer::hasSynced);
  }

  @Override
  public Tenant tenant(String name) {
    return tenants.getIndexer().getByKey(name);
  }

  @Override
  public SparePool pool(String name) {
    return pools.getIndexer().getByKey(name);
  }

  /** Every SparePool the informer holds (what the fleet's metrics count). */
  public List<SparePool> sparePools() {
    return pools.getIndexer().list();
  }

  @Override
  public List<Tenant> spares(String pool) {
    return tenants.getIndexer().byIndex(POOL_INDEX, pool);
  }

  @Override
  public List<String> tenantNames() {
    return tenants.getIndexer().listKeys();
  }

  @Override
  public <T extends HasMetadata> T get(Class<T> kind, String namespace, String name) {
    @SuppressWarnings("unchecked")
    SharedIndexInformer<T> informer = (SharedIndexInformer<T>) owned.get(kind);
    if (informer == null) {
      throw new IllegalArgumentException(kind.getSimpleName() + " is not an owned kind");
    }
    return informer.getIndexer().getByKey(namespace == null ? name : namespace + "/" + name);
  }

  @Override
  public List<HasMetadata> ownedBy(String tenant) {
    List<HasMetadata> result = new ArrayList<>();
    owned.values().forEach(i -> result.addAll(i.getIndexer().byIndex(TENANT_INDEX, tenant)));
    return result;
  }

  /** Keeps the tenant's objects compact until the watch brings a change ({@link CompactItemStore}). */
  @Override
  public void converged(String tenant) {
    owned.forEach((kind, informer) -> informer.getIndexer().indexKeys(TENANT_INDEX, tenant).forEach(ownedStores.get(kind)::compact));
  }

  /** As {@link ClusterView#dependencies}, from the identities the stores keep decoded: no object is decoded. */
  @Override
  public long dependencies(String tenant) {
    long sum = 0;
    for (var kind : owned.entrySet()) {
      sum += identities(kind.getKey(), kind.getValue().getIndexer().indexKeys(TENANT_INDEX, tenant));
    }
    return sum + identities(Secret.class, owned.get(Secret.class).getIndexer().indexKeys(TEMPLATE_INDEX, "true"));
  }

  private long identities(Class<? extends HasMetadata> kind, List<String> keys) {
    CompactItemStore<?> store = ownedStores.get(kind);
    return keys.stream().mapToLong(store::identity).sum();
  }

  @Override
  public void close() {
    tenants.close();
    pools.close();
    owned.values().forEach(SharedIndexInformer::close);
  }
}
