package io.tenantry.controller.apply;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantStatus;
import java.util.List;

/** {@link TenantWriter} on the API server: the status subresource, and a merge patch of the finalizer list. */
public final class KubeTenantWriter implements TenantWriter {

  private final KubernetesClient client;

  public KubeTenantWriter(KubernetesClient client) {
    this.client = client;
  }

  @Override
  public void writeStatus(Tenant cached, TenantStatus status) {
    Tenant update = new Tenant();
    update.setMetadata(new ObjectMetaBuilder().withName(cached.getMetadata().getName())
        .withResourceVersion(cached.getMetadata().getResourceVersion()).build());
    update.setSpec(cached.getSpec());
    update.setStatus(status);
    client.resources(Tenant.class).resource(update).updateStatus();
  }

  /**
   * The whole list is written: a merge patch replaces lists, and the resourceVersion in it guards
   * the write. Patched through the cached Tenant, since patching by name first reads the object
   * from the server (fabric8's {@code withName(...).patch}): one request instead of two.
   */
  @Override
  public void writeFinalizers(Tenant cached, List<String> finalizers) {
    ObjectNode patch = Serialization.jsonMapper().createObjectNode();
    ObjectNode metadata = patch.putObject("metadata");
    metadata.put("resourceVersion", cached.getMetadata().getResourceVersion());
    finalizers.forEach(metadata.putArray("finalizers")::add);
    client.resources(Tenant.class).resource(cached).patch(PatchContext.of(PatchType.JSON_MERGE), patch.toString());
  }
}
