package io.tenantry.controller.fakes;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatusBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetStatusBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.tenantry.api.Spares;
import io.tenantry.api.v1alpha1.SparePool;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.controller.apply.ObjectKey;
import io.tenantry.controller.cache.ClusterView;
import io.tenantry.controller.resources.Labels;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An in-memory {@link ClusterView}: what a sync reads, held in maps instead of informers. Every
 * object put here gets a uid (once) and a new resourceVersion and generation, as the API server
 * would give it; reads return what was put, so a test sees exactly what a sync wrote.
 */
public final class FakeCluster implements ClusterView {

  private final AtomicLong versions = new AtomicLong(100);
  private final Map<String, Tenant> tenants = new LinkedHashMap<>();
  private final Map<String, SparePool> pools = new LinkedHashMap<>();
  private final Map<ObjectKey, HasMetadata> owned = new LinkedHashMap<>();
  private final List<Secret> templates = new ArrayList<>();

  /** Stores a copy of the Tenant, as the API server would after a write. */
  public Tenant putTenant(Tenant tenant) {
    Tenant stored = stamp(copy(tenant), tenants.get(tenant.getMetadata().getName()));
    tenants.put(stored.getMetadata().getName(), stored);
    return stored;
  }

  public void removeTenant(String name) {
    tenants.remove(name);
  }

  public SparePool putPool(SparePool pool) {
    SparePool stored = stamp(copy(pool), pools.get(pool.getMetadata().getName()));
    pools.put(stored.getMetadata().getName(), stored);
    return stored;
  }

  /** Stores an owned object (a copy), labelled for its tenant by the caller, as the owned informers would see it. */
  public <T extends HasMetadata> T putOwned(T object) {
    ObjectKey key = ObjectKey.of(object);
    T stored = stamp(copy(object), owned.get(key));
    owned.put(key, stored);
    return stored;
  }

  public void removeOwned(HasMetadata object) {
    owned.remove(ObjectKey.of(object));
  }

  public void addTemplate(Secret template) {
    templates.add(stamp(copy(template), null));
  }

  /** Marks every Deployment and StatefulSet of the tenant rolled out at its spec, as their controllers would. */
  public void rollOut(String tenant) {
    for (HasMetadata object : ownedBy(tenant)) {
      if (object instanceof Deployment d) {
        int replicas = d.getSpec().getReplicas() == null ? 1 : d.getSpec().getReplicas();
        d.setStatus(new DeploymentStatusBuilder().withObservedGeneration(d.getMetadata().getGeneration())
            .withReplicas(replicas).withUpdatedReplicas(replicas).withAvailableReplicas(replicas).build());
        putOwned(d);
      } else if (object instanceof StatefulSet s) {
        int replicas = s.getSpec().getReplicas();
        s.setStatus(new StatefulSetStatusBuilder().withObservedGeneration(s.getMetadata().getGeneration())
            .withReplicas(replicas).withUpdatedReplicas(replicas).withReadyReplicas(replicas).build());
        putOwned(s);
      }
    }
  }

  /** Marks the namespace terminating, as a delete of it would. */
  public void terminate(String namespace) {
    Namespace ns = get(Namespace.class, null, namespace);
    ns.getMetadata().setDeletionTimestamp("2026-01-01T00:00:00Z");
    putOwned(ns);
  }

  @Override
  public Tenant tenant(String name) {
    return tenants.get(name);
  }

  @Override
  public List<String> tenantNames() {
    return List.copyOf(tenants.keySet());
  }

  @Override
  public SparePool pool(String name) {
    return pools.get(name);
  }

  @Override
  public List<Tenant> spares(String pool) {
    return tenants.values().stream().filter(t -> pool.equals(Spares.pool(t))).toList();
  }

  @Override
  public <T extends HasMetadata> T get(Class<T> kind, String namespace, String name) {
    HasMetadata object = owned.get(new ObjectKey(HasMetadata.getKind(kind), namespace, name));
    return object == null ? null : kind.cast(object);
  }

  @Override
  public List<HasMetadata> ownedBy(String tenant) {
    return owned.values().stream()
        .filter(o -> o.getMetadata().getLabels() != null && tenant.equals(o.getMetadata().getLabels().get(Labels.TENANT)))
        .toList();
  }

  @Override
  public List<Secret> templateSecrets() {
    return List.copyOf(templates);
  }

  private <T extends HasMetadata> T stamp(T object, HasMetadata previous) {
    var meta = object.getMetadata();
    meta.setUid(previous != null ? previous.getMetadata().getUid() : meta.getUid() != null ? meta.getUid() : UUID.randomUUID().toString());
    meta.setResourceVersion(Long.toString(versions.incrementAndGet()));
    long generation = previous == null || previous.getMetadata().getGeneration() == null ? 1 : previous.getMetadata().getGeneration();
    meta.setGeneration(previous != null && !sameSpec(previous, object) ? generation + 1 : generation);
    if (meta.getCreationTimestamp() == null) {
      meta.setCreationTimestamp(previous != null ? previous.getMetadata().getCreationTimestamp()
          : Instant.parse("2026-01-01T00:00:00Z").plusSeconds(versions.get()).toString());
    }
    return object;
  }

  /** Whether the two objects have the same spec (a change of anything else keeps the generation, as the API server does). */
  private static boolean sameSpec(HasMetadata a, HasMetadata b) {
    var left = Serialization.jsonMapper().valueToTree(a).get("spec");
    var right = Serialization.jsonMapper().valueToTree(b).get("spec");
    return left == null ? right == null : left.equals(right);
  }

  @SuppressWarnings("unchecked")
  private static <T extends HasMetadata> T copy(T object) {
    return (T) Serialization.clone(object);
  }
}
