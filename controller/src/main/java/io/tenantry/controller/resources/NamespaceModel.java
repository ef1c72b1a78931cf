package io.tenantry.controller.resources;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import java.util.Map;

/** The tenant's namespace, enforcing the Pod Security "restricted" standard. */
public final class NamespaceModel {

  private NamespaceModel() {
  }

  public static Namespace namespace(TenantContext ctx) {
    Map<String, String> labels = Labels.owned(ctx.name());
    labels.put("pod-security.kubernetes.io/enforce", "restricted");
    labels.put("pod-security.kubernetes.io/enforce-version", "latest");
    labels.put("pod-security.kubernetes.io/audit", "restricted");
    labels.put("pod-security.kubernetes.io/warn", "restricted");
    return new NamespaceBuilder()
        .withNewMetadata().withName(ctx.namespace()).withLabels(labels).endMetadata()
        .build();
  }
}
