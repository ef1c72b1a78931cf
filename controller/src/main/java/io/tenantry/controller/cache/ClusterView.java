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
    long fingerprint = t == null ? 0 : mix(t.getMetadata().getResourceVersion().hashCode());
    for (HasMetadata o : ownedBy(tenant)) {
      fingerprint += identity(o);
    }
    for (Secret template : templateSecrets()) {
      fingerprint += identity(template);
    }
    return fingerprint;
  }

  /** Summed, so the order objects are listed in does not matter. */
  private static long identity(HasMetadata o) {
    return mix(((long) o.getMetadata().getUid().hashCode() << 32) ^ o.getMetadata().getResourceVersion().hashCode());
  }

  private static long mix(long value) {
    long z = value * 0x9E3779B97F4A7C15L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    return z ^ (z >>> 31);
  }
}
