package io.tenantry.controller.pool;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.tenantry.api.v1alpha1.SparePool;
import io.tenantry.api.v1alpha1.SparePoolStatus;
import io.tenantry.api.v1alpha1.Tenant;

/** {@link SpareWriter} on the API server. */
public final class KubeSpareWriter implements SpareWriter {

  private final KubernetesClient client;

  public KubeSpareWriter(KubernetesClient client) {
    this.client = client;
  }

  @Override
  public void create(Tenant spare) {
    client.resources(Tenant.class).resource(spare).create();
  }

  @Override
  public void update(Tenant updated) {
    client.resources(Tenant.class).resource(updated).update();
  }

  @Override
  public void delete(Tenant spare) {
    client.resources(Tenant.class).resource(spare).delete();
  }

  @Override
  public void writeStatus(SparePool cached, SparePoolStatus status) {
    SparePool update = new SparePool();
    update.setMetadata(new ObjectMetaBuilder().withName(cached.getMetadata().getName())
        .withResourceVersion(cached.getMetadata().getResourceVersion()).build());
    update.setSpec(cached.getSpec());
    update.setStatus(status);
    client.resources(SparePool.class).resource(update).updateStatus();
  }
}
