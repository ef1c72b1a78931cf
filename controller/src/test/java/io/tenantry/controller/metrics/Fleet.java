package io.tenantry.controller.metrics;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.tenantry.api.WellKnown;
import io.tenantry.api.v1alpha1.AppSpec;
import io.tenantry.api.v1alpha1.SparePool;
import io.tenantry.api.v1alpha1.SparePoolSpec;
import io.tenantry.api.v1alpha1.SparePoolStatus;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.api.v1alpha1.TenantSpec;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.api.v1alpha1.TenantStatus;
import io.tenantry.api.v1alpha1.TenantTemplate;
import io.tenantry.controller.resources.Labels;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Tenants, pools and template secrets as the cache holds them, for the metrics' tests. */
final class Fleet {

  private Fleet() {
  }

  /** A Tenant in {@code state} on {@code plan}; with a status of {@code phase} unless that is null. */
  static Tenant tenant(String name, TenantState state, TenantPhase phase, String plan) {
    Tenant tenant = new Tenant();
    tenant.getMetadata().setName(name);
    tenant.getMetadata().setCreationTimestamp("2026-03-01T09:00:00Z");
    TenantSpec spec = new TenantSpec();
    spec.setState(state);
    spec.setPlan(plan);
    tenant.setSpec(spec);
    if (phase != null) {
      TenantStatus status = new TenantStatus();
      status.setPhase(phase);
      tenant.setStatus(status);
    }
    return tenant;
  }

  /** A Degraded tenant whose Ready condition turned False at {@code since}. */
  static Tenant degraded(String name, Instant since) {
    Tenant tenant = tenant(name, TenantState.Active, TenantPhase.Degraded, "standard");
    tenant.getStatus().setConditions(new ArrayList<>(List.of(condition("Ready", false, "RolloutTimedOut", since))));
    return tenant;
  }

  static Condition condition(String type, boolean status, String reason, Instant since) {
    return new ConditionBuilder().withType(type).withStatus(status ? "True" : "False").withReason(reason)
        .withMessage("").withLastTransitionTime(since.toString()).build();
  }

  /** A SparePool keeping {@code buffer} spares whose status counts as given, or has no status when {@code ready} is null. */
  static SparePool pool(String name, int buffer, Integer ready, int provisioning, int allocated) {
    TenantTemplate template = new TenantTemplate();
    template.getApps().add(new AppSpec("web", "registry.example.com/acme/web", "1.0.0", 1, 8080));
    SparePool pool = new SparePool();
    pool.getMetadata().setName(name);
    pool.setSpec(new SparePoolSpec(buffer, 2, template));
    if (ready != null) {
      SparePoolStatus status = new SparePoolStatus();
      status.setReady(ready);
      status.setProvisioning(provisioning);
      status.setAllocated(allocated);
      pool.setStatus(status);
    }
    return pool;
  }

  /** A tenant namespace, as the operator makes it. */
  static Namespace namespace(String tenant) {
    return new NamespaceBuilder().withNewMetadata().withName("tenant-" + tenant).withLabels(Labels.owned(tenant)).endMetadata().build();
  }

  /** A template Secret of the template namespace at {@code version}. */
  static Secret template(String name, String version) {
    return new SecretBuilder().withNewMetadata().withName(name).withNamespace("tenantry-templates")
        .withLabels(Map.of(WellKnown.TEMPLATE, "true"))
        .withAnnotations(Map.of(WellKnown.SECRET_VERSION, version, WellKnown.CONTENT_HASH, "hash-" + version))
        .endMetadata().build();
  }

  /** A tenant's copy of the template Secret {@code name} at {@code version}. */
  static Secret copy(String tenant, String name, String version) {
    Map<String, String> labels = Labels.owned(tenant);
    labels.put(WellKnown.TEMPLATE, "copy");
    return new SecretBuilder().withNewMetadata().withName(name).withNamespace("tenant-" + tenant).withLabels(labels)
        .withAnnotations(Map.of(WellKnown.SECRET_VERSION, version, WellKnown.CONTENT_HASH, "hash-" + version))
        .endMetadata().build();
  }
}
