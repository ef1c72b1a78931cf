package io.tenantry.controller.metrics;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Secret;
import io.tenantry.api.WellKnown;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.controller.cache.ClusterView;
import io.tenantry.controller.resources.Names;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Pure: how many tenants do not run on the current template secrets. The template namespace holds
 * what the store holds (refreshed every {@code templateSyncSeconds}); every tenant namespace holds
 * a copy of each template, stamped with the store's version and content hash. A tenant is behind
 * when a copy is missing or stamped otherwise than its template.
 *
 * <p>Only tenants whose namespace the cache holds are compared (one still being made, or purged,
 * has nothing to compare), and Purged tenants never. Right after a template changes every tenant
 * is behind until its sync copies the new version: it is the count that stays above zero that
 * tells of a problem (a namespace the copies cannot be written into, a store that cannot be read).
 */
public final class TemplateSkew {

  private TemplateSkew() {
  }

  public static long tenantsBehind(ClusterView cache, Collection<Tenant> tenants, String namespacePrefix) {
    List<Secret> templates = cache.templateSecrets();
    if (templates.isEmpty()) {
      return 0;
    }
    return tenants.stream().filter(t -> behind(cache, templates, t, namespacePrefix)).count();
  }

  private static boolean behind(ClusterView cache, List<Secret> templates, Tenant tenant, String namespacePrefix) {
    if (tenant.getSpec() != null && tenant.getSpec().getState() == TenantState.Purged) {
      return false;
    }
    String namespace = Names.namespace(namespacePrefix, tenant.getMetadata().getName());
    if (cache.get(Namespace.class, null, namespace) == null) {
      return false;
    }
    for (Secret template : templates) {
      Secret copy = cache.get(Secret.class, namespace, template.getMetadata().getName());
      if (copy == null || !sameStamp(template, copy, WellKnown.SECRET_VERSION) || !sameStamp(template, copy, WellKnown.CONTENT_HASH)) {
        return true;
      }
    }
    return false;
  }

  private static boolean sameStamp(Secret template, Secret copy, String annotation) {
    return Objects.equals(annotation(template, annotation), annotation(copy, annotation));
  }

  private static String annotation(Secret secret, String key) {
    Map<String, String> annotations = secret.getMetadata().getAnnotations();
    return annotations == null ? null : annotations.get(key);
  }
}
