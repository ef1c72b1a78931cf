package io.tenantry.controller.resources;

import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.SubjectBuilder;
import io.tenantry.api.v1alpha1.TenantState;
import java.util.List;

/**
 * Who may do what in a tenant namespace: an admin manages the tenant's workloads and
 * configuration, an operator runs day-to-day operations, a viewer reads. Each level is a
 * ClusterRole installed with the operator (the chart's {@code templates/tenant-roles.yaml}, and
 * the plain manifests rendered from it), never written by the operator: a RoleBinding in the
 * tenant namespace binds it to the group {@code tenantry:<tenant>:<level>}, which the identity
 * provider maps people to, so it grants its rules in that namespace only.
 *
 * <p>The operator binds these roles without holding their rules: its account may {@code bind}
 * exactly these ClusterRoles (RBAC {@code resourceNames}) and may not {@code escalate}, so it cannot
 * grant anyone, itself included, anything else. What the levels hold, and what none of them gets
 * (guardrails, endpoints, {@code pods/status}), is said next to their rules in the chart.
 */
public final class RbacModel {

  public static final List<String> ACCESS_LEVELS = List.of("admin", "operator", "viewer");
  private static final String VIEWER = "viewer";

  private RbacModel() {
  }

  /** The ClusterRole holding an access level's rules: {@code tenantry-tenant-<level>}. */
  public static String clusterRole(String level) {
    return "tenantry-tenant-" + level;
  }

  /**
   * One binding per level; while the tenant is Frozen or Archived, one binding of the viewer role to
   * every level's group: a tenant that is not running is looked at, not changed (nor can its people
   * start workloads or fill its quota meanwhile).
   */
  public static List<RoleBinding> roleBindings(TenantContext ctx) {
    TenantState state = ctx.tenant().getSpec().getState();
    if (state == TenantState.Frozen || state == TenantState.Archived) {
      return List.of(binding(ctx, VIEWER, ACCESS_LEVELS));
    }
    return ACCESS_LEVELS.stream().map(level -> binding(ctx, level, List.of(level))).toList();
  }

  private static RoleBinding binding(TenantContext ctx, String level, List<String> groups) {
    return new RoleBindingBuilder()
        .withMetadata(ctx.meta(Names.role(level)))
        .withNewRoleRef().withApiGroup("rbac.authorization.k8s.io").withKind("ClusterRole").withName(clusterRole(level))
        .endRoleRef()
        .withSubjects(groups.stream().map(group -> new SubjectBuilder().withApiGroup("rbac.authorization.k8s.io")
            .withKind("Group").withName("tenantry:" + ctx.name() + ":" + group).build()).toList())
        .build();
  }
}
