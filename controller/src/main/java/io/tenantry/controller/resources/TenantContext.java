package io.tenantry.controller.resources;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.config.Plan;
import java.util.Map;

/** What every builder needs to know about the tenant being built: its spec, namespace, plan and the operator's settings. */
public record TenantContext(Tenant tenant, OperatorConfig config, Plan plan) {

  public String name() {
    return tenant.getMetadata().getName();
  }

  public String namespace() {
    return Names.namespace(config.namespacePrefix(), name());
  }

  /** Metadata of an owned object in the tenant namespace. */
  public ObjectMeta meta(String objectName) {
    return meta(objectName, Labels.owned(name()));
  }

  public ObjectMeta meta(String objectName, Map<String, String> labels) {
    return new ObjectMetaBuilder().withName(objectName).withNamespace(namespace()).withLabels(labels).build();
  }
}
