package io.tenantry.controller.status;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantStatus;

/**
 * Writes a tenant's status through the status subresource, only when it differs from the cached
 * one, guarded by the cached resourceVersion: a concurrent change makes the write fail (409) and
 * the tenant is synced again, never overwritten blindly.
 */
public final class StatusWriter {

  private final KubernetesClient client;

  public StatusWriter(KubernetesClient client) {
    this.client = client;
  }

  /** Returns whether it wrote. */
  public boolean write(Tenant cached, TenantStatus status) {
    if (status.equals(cached.getStatus())) {
      return false;
    }
    Tenant update = new Tenant();
    update.setMetadata(new ObjectMetaBuilder().withName(cached.getMetadata().getName())
        .withResourceVersion(cached.getMetadata().getResourceVersion()).build());
    update.setSpec(cached.getSpec());
    update.setStatus(status);
    client.resources(Tenant.class).resource(update).updateStatus();
    return true;
  }
}
