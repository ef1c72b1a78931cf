package io.tenantry.controller.resources;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.tenantry.api.WellKnown;
import io.tenantry.api.v1alpha1.TenantState;
import java.util.Map;

/**
 * The tenant's namespace, enforcing the Pod Security "restricted" standard, labelled with its
 * Tenant's state (what the namespace deletion policy reads), stamped with its Tenant's UID and
 * annotated with what its plan lets pods ask of the nodes ({@link PodPolicy}).
 */
public final class NamespaceModel {

  private NamespaceModel() {
  }

  public static Namespace namespace(TenantContext ctx) {
    return namespace(ctx, ctx.tenant().getSpec().getState());
  }

  /** The namespace as it is labelled while its Tenant is in {@code state}. */
  public static Namespace namespace(TenantContext ctx, TenantState state) {
    Map<String, String> labels = Labels.owned(ctx.name());
    labels.put(WellKnown.STATE, state.name());
    labels.put("pod-security.kubernetes.io/enforce", "restricted");
    labels.put("pod-security.kubernetes.io/enforce-version", "latest");
    labels.put("pod-security.kubernetes.io/audit", "restricted");
    labels.put("pod-security.kubernetes.io/warn", "restricted");
    Namespace namespace = new NamespaceBuilder()
        .withNewMetadata().withName(ctx.namespace()).withLabels(labels).endMetadata()
        .build();
    if (ctx.plan() != null) { // A tenant purged with an unknown plan: its namespace is labelled, then deleted.
      namespace.getMetadata().getAnnotations().putAll(PodPolicy.annotations(ctx.plan()));
    }
    String uid = ctx.tenant().getMetadata().getUid();
    if (uid != null) {
      namespace.getMetadata().getAnnotations().put(WellKnown.TENANT_UID, uid);
    }
    return namespace;
  }
}
