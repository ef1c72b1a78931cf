package io.tenantry.controller.lifecycle;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.tenantry.api.v1alpha1.Tenant;
import java.util.ArrayList;
import java.util.List;

/**
 * The Tenant finalizer guarding external cleanup: a Tenant is not gone until the operator has
 * purged what it owns outside the cluster. The finalizer list is written whole, guarded by the
 * cached resourceVersion: if anything changed meanwhile the write fails with a conflict and the
 * sync is retried on fresh data, so another controller's finalizer is never lost.
 */
final class Finalizer {

  static final String NAME = "tenantry.io/cleanup";

  private Finalizer() {
  }

  static boolean has(Tenant tenant) {
    List<String> finalizers = tenant.getMetadata().getFinalizers();
    return finalizers != null && finalizers.contains(NAME);
  }

  static void add(KubernetesClient client, Tenant tenant) {
    List<String> finalizers = new ArrayList<>(current(tenant));
    finalizers.add(NAME);
    write(client, tenant, finalizers);
  }

  static void remove(KubernetesClient client, Tenant tenant) {
    List<String> finalizers = new ArrayList<>(current(tenant));
    finalizers.remove(NAME);
    write(client, tenant, finalizers);
  }

  private static List<String> current(Tenant tenant) {
    return tenant.getMetadata().getFinalizers() == null ? List.of() : tenant.getMetadata().getFinalizers();
  }

  private static void write(KubernetesClient client, Tenant tenant, List<String> finalizers) {
    ObjectNode patch = Serialization.jsonMapper().createObjectNode();
    ObjectNode metadata = patch.putObject("metadata");
    metadata.put("resourceVersion", tenant.getMetadata().getResourceVersion());
    finalizers.forEach(metadata.putArray("finalizers")::add);
    client.resources(Tenant.class).withName(tenant.getMetadata().getName())
        .patch(PatchContext.of(PatchType.JSON_MERGE), patch.toString());
  }
}
