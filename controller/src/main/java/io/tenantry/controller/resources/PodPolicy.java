package io.tenantry.controller.resources;

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
 * writes them onto the tenant namespace ({@link #annotations}), where the admission policy
 * {@code tenantry-tenant-pods} reads them to hold every other pod of the namespace to the same.
 *
 * <p>On the namespace rather than in a parameters object the policy's binding would name
 * ({@code paramRef}): the namespace exists before anything in it, so the policy never meets a pod
 * before its parameters, and a ConfigMap {@code paramKind} is lost by kube-apiserver for good once
 * its binding is deleted, as an uninstall does (kubernetes/kubernetes#133827).
 */
public final class PodPolicy {

  /** The PriorityClass the namespace's pods may name; empty: none. */
  public static final String PRIORITY_CLASS = "tenantry.io/pod-priority-class";
  /** The tolerations they may carry, comma-separated, each {@code key|operator|value|effect}. */
  public static final String TOLERATIONS = "tenantry.io/pod-tolerations";
  /** {@code false}: they must run in a user namespace. */
  public static final String HOST_USERS = "tenantry.io/pod-host-users";

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

  /** The plan's values as the policy reads them from the namespace's annotations. */
  public static Map<String, String> annotations(Plan plan) {
    Map<String, String> annotations = new LinkedHashMap<>();
    annotations.put(PRIORITY_CLASS, plan.priorityClassName());
    annotations.put(TOLERATIONS, plan.tolerations().stream().map(PlanToleration::policyForm).collect(Collectors.joining(",")));
    annotations.put(HOST_USERS, plan.hostUsers().toString());
    return annotations;
  }

  private static String emptyToNull(String value) {
    return value.isEmpty() ? null : value;
  }
}
