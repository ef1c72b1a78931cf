package io.tenantry.controller.resources;

import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import java.util.List;

/**
 * Who may do what in a tenant namespace: an admin manages the tenant's workloads and
 * configuration, an operator runs day-to-day operations, a viewer reads. None of them may change
 * the guardrails (quota, limit range, network policies, roles). Each role is bound to the group
 * {@code tenantry:<tenant>:<role>}, which the identity provider maps people to.
 *
 * <p>What no level gets, because it reaches beyond the namespace or fools the operator: writing
 * {@code endpoints} or {@code endpointslices} (hand-made endpoints can forward a Service's traffic
 * anywhere), and writing {@code pods/status} (a faked Ready would pass the rollout gate). Only the
 * admin may exec into pods: that reads every Secret a pod mounts, which the admin may read anyway;
 * the operator level may not, since it cannot read Secrets.
 */
public final class RbacModel {

  public static final List<String> ACCESS_LEVELS = List.of("admin", "operator", "viewer");

  private static final List<String> READ = List.of("get", "list", "watch");
  private static final List<String> WRITE = List.of("get", "list", "watch", "create", "update", "patch", "delete");

  private RbacModel() {
  }

  public static List<Role> roles(TenantContext ctx) {
    return ACCESS_LEVELS.stream().map(level -> role(ctx, level)).toList();
  }

  public static List<RoleBinding> roleBindings(TenantContext ctx) {
    return ACCESS_LEVELS.stream().map(level -> new RoleBindingBuilder()
        .withMetadata(ctx.meta(Names.role(level)))
        .withNewRoleRef().withApiGroup("rbac.authorization.k8s.io").withKind("Role").withName(Names.role(level)).endRoleRef()
        .addNewSubject().withApiGroup("rbac.authorization.k8s.io").withKind("Group")
        .withName("tenantry:" + ctx.name() + ":" + level).endSubject()
        .build()).toList();
  }

  static Role role(TenantContext ctx, String level) {
    return new RoleBuilder().withMetadata(ctx.meta(Names.role(level))).withRules(rules(level)).build();
  }

  static List<PolicyRule> rules(String level) {
    return switch (level) {
      case "admin" -> List.of(
          rule("", List.of("pods", "pods/log", "pods/exec", "services", "configmaps", "secrets", "serviceaccounts",
              "persistentvolumeclaims", "events"), WRITE),
          rule("", List.of("endpoints"), READ),
          rule("apps", List.of("deployments", "deployments/scale", "statefulsets", "statefulsets/scale", "replicasets"), WRITE),
          rule("", List.of("resourcequotas", "limitranges"), READ),
          rule("networking.k8s.io", List.of("networkpolicies"), READ));
      case "operator" -> List.of(
          rule("", List.of("pods", "pods/log", "services", "configmaps", "events"), WRITE),
          rule("", List.of("endpoints"), READ),
          rule("apps", List.of("deployments", "deployments/scale", "statefulsets", "statefulsets/scale"), List.of("get", "list", "watch", "patch")),
          rule("", List.of("resourcequotas", "limitranges", "persistentvolumeclaims"), READ));
      case "viewer" -> List.of(
          rule("", List.of("pods", "pods/log", "services", "endpoints", "configmaps", "events", "persistentvolumeclaims",
              "resourcequotas", "limitranges"), READ),
          rule("apps", List.of("deployments", "statefulsets", "replicasets"), READ));
      default -> throw new IllegalArgumentException("unknown access level " + level);
    };
  }

  private static PolicyRule rule(String group, List<String> resources, List<String> verbs) {
    return new PolicyRuleBuilder().withApiGroups(group).withResources(resources).withVerbs(verbs).build();
  }
}
