package io.tenantry.deploy.rollout;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.tenantry.api.WellKnown;
import io.tenantry.api.v1alpha1.AppSpec;
import io.tenantry.api.v1alpha1.AppStatus;
import io.tenantry.api.v1alpha1.SparePool;
import io.tenantry.api.v1alpha1.SparePoolSpec;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.api.v1alpha1.TenantSpec;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.api.v1alpha1.TenantStatus;
import io.tenantry.api.v1alpha1.TenantTemplate;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** Tenants and pools as the API server would return them, for tests without a cluster. */
final class Fixtures {

  private Fixtures() {
  }

  static Tenant tenant(String name, TenantState state, String... apps) {
    Tenant tenant = new Tenant();
    tenant.getMetadata().setName(name);
    tenant.getMetadata().setGeneration(1L);
    TenantSpec spec = new TenantSpec();
    spec.setState(state);
    for (String app : apps) {
      spec.getApps().add(new AppSpec(app, "registry.example.com/" + app, "1.0.0", 1, 8080));
    }
    tenant.setSpec(spec);
    return tenant;
  }

  static Tenant spare(String name, String pool) {
    Tenant tenant = tenant(name, TenantState.New, "web");
    tenant.getMetadata().setLabels(Map.of(WellKnown.SPARE_POOL, pool));
    return tenant;
  }

  static SparePool pool(String name, String... apps) {
    SparePool pool = new SparePool();
    pool.getMetadata().setName(name);
    TenantTemplate template = new TenantTemplate();
    for (String app : apps) {
      template.getApps().add(new AppSpec(app, "registry.example.com/" + app, "1.0.0", 1, 8080));
    }
    pool.setSpec(new SparePoolSpec(2, 1, template));
    return pool;
  }

  /** The status the operator writes: {@code app} at {@code version}, for generation {@code observed}. */
  static Tenant withStatus(Tenant tenant, long observed, TenantPhase phase, String app, String version, boolean ready,
      String readyMessage) {
    TenantStatus status = new TenantStatus();
    status.setObservedGeneration(observed);
    status.setPhase(phase);
    status.setApps(List.of(new AppStatus(app, version, ready, ready ? 1 : 0)));
    Condition condition = new ConditionBuilder().withType("Ready").withStatus(ready ? "True" : "False")
        .withMessage(readyMessage).build();
    status.setConditions(List.of(condition));
    tenant.setStatus(status);
    return tenant;
  }

  static RolloutRequest request(Selection selection, int waveSize, String... clusters) {
    return new RolloutRequest("web", "2.0.0", selection, List.of(clusters), waveSize,
        FailureLimits.fromFlags(null, null), Duration.ofMinutes(10));
  }
}
