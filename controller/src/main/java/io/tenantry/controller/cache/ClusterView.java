package io.tenantry.controller.cache;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Secret;
import io.tenantry.api.v1alpha1.SparePool;
import io.tenantry.api.v1alpha1.Tenant;
import java.util.List;

/**
 * What a sync reads: the operator's view of the cluster, as the informers last saw it. Reading
 * never calls the API server. {@link InformerCache} is the one fed by watches.
 */
public interface ClusterView {

  /** The Tenant, or null. */
  Tenant tenant(String name);

  List<String> tenantNames();

  /** The SparePool, or null. */
  SparePool pool(String name);

  /** The tenants created by a spare pool, allocated or not. */
  List<Tenant> spares(String pool);

  /** The cached owned object ({@code namespace} null when cluster-scoped), or null. */
  <T extends HasMetadata> T get(Class<T> kind, String namespace, String name);

  /** Every cached object owned for {@code tenant}, of every kind. */
  List<HasMetadata> ownedBy(String tenant);

  /**
   * Says that a sync found the tenant converged, so its objects will not be read again until
   * something about it changes: a cache may keep them in a form that is smaller but slower to read.
   */
  default void converged(String tenant) {
  }

  /** The Secrets of the template namespace, to be copied into every tenant namespace. */
  List<Secret> templateSecrets();

  /**
   * A fingerprint of everything a tenant's desired state depends on: the Tenant's, every owned
   * object's and every template Secret's identity and resourceVersion. Equal fingerprints mean
   * nothing the tenant depends on changed in between, so a sync that found it converged would
   * find it converged again.
   */
  default long fingerprint(String tenant) {
    Tenant t = tenant(tenant);
    return (t == null ? 0 : mix(t.getMetadata().getResourceVersion().hashCode())) + dependencies(tenant);
  }

  /** The sum of {@link #identity} over the tenant's owned objects and the template Secrets (order does not matter). */
  default long dependencies(String tenant) {
    long sum = 0;
    for (HasMetadata o : ownedBy(tenant)) {
      sum += identity(o.getMetadata().getUid(), o.getMetadata().getResourceVersion());
    }
    for (Secret template : templateSecrets()) {
      sum += identity(template.getMetadata().getUid(), template.getMetadata().getResourceVersion());
    }
    return sum;
  }

  /** One object's part of a fingerprint. */
  static long identity(String uid, String resourceVersion) {
    return mix(((long) uid.hashCode() << 32) ^ resourceVersion.hashCode());
  }

  private static long mix(long value) {
    long z = value * 0x9E3779B97F4A7C15L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    return z ^ (z >>> 31);
  }
}
