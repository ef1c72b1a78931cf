package io.tenantry.controller.resources;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.tenantry.controller.config.Plan;
import io.tenantry.controller.config.PlanToleration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * What a plan lets a tenant's pods ask of the nodes: a PriorityClass, tolerations and whether they
 * share the host's user IDs. The operator sets these on every pod it makes ({@link #placed}), and
 * writes them into the tenant namespace as the parameters of the admission policy
 * {@code tenantry-tenant-pods} ({@link #parameters}), which holds every other pod there to the same.
 */
public final class PodPolicy {

  /** The label the policy's binding selects its parameters by (with the operator's managed-by label, which tenants cannot set). */
  public static final String POLICY_LABEL = "tenantry.io/policy";

  private PodPolicy() {
  }

  /** {@code spec} with the plan's priority class, tolerations and user namespace. */
  public static PodSpec placed(PodSpec spec, Plan plan) {
    return new PodSpecBuilder(spec)
        .withPriorityClassName(plan.priorityClassName().isEmpty() ? null : plan.priorityClassName())
        .withTolerations(plan.tolerations().stream().map(t -> new TolerationBuilder().withKey(emptyToNull(t.key()))
            .withOperator(t.operator()).withValue(emptyToNull(t.value())).withEffect(emptyToNull(t.effect())).build()).toList())
        .withHostUsers(plan.hostUsers() ? null : Boolean.FALSE)
        .build();
  }

  /** The policy's parameters: the plan's values as the policy's expressions read them. */
  public static ConfigMap parameters(TenantContext ctx) {
    Plan plan = ctx.plan();
    Map<String, String> labels = Labels.owned(ctx.name());
    labels.put(POLICY_LABEL, "pods");
    Map<String, String> data = new LinkedHashMap<>();
    data.put("priorityClassName", plan.priorityClassName());
    data.put("tolerations", plan.tolerations().stream().map(PlanToleration::policyForm).collect(Collectors.joining(",")));
    data.put("hostUsers", plan.hostUsers().toString());
    return new ConfigMapBuilder().withMetadata(ctx.meta(Names.POD_POLICY, labels)).withData(data).build();
  }

  private static String emptyToNull(String value) {
    return value.isEmpty() ? null : value;
  }
}
