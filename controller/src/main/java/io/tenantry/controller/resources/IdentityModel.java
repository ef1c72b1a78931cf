package io.tenantry.controller.resources;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.tenantry.api.v1alpha1.TenantSpec;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Who the tenant serves, as files every app reads under {@link AppPod#IDENTITY_DIR}: name,
 * organization, email, plan and state. A ConfigMap mounted as a volume, so that binding a spare
 * to its customer is one write the kubelet refreshes in place, and no pod restarts.
 */
public final class IdentityModel {

  private IdentityModel() {
  }

  public static ConfigMap configMap(TenantContext ctx) {
    TenantSpec spec = ctx.tenant().getSpec();
    Map<String, String> data = new LinkedHashMap<>();
    data.put("name", ctx.name());
    data.put("organization", orEmpty(spec.getOrganization()));
    data.put("email", orEmpty(spec.getEmail()));
    data.put("plan", spec.getPlan());
    data.put("state", spec.getState().name());
    return new ConfigMapBuilder().withMetadata(ctx.meta(Names.IDENTITY)).withData(data).build();
  }

  private static String orEmpty(String value) {
    return value == null ? "" : value;
  }
}
