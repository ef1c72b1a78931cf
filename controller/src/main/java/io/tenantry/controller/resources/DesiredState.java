package io.tenantry.controller.resources;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.tenantry.api.v1alpha1.AppSpec;
import io.tenantry.api.v1alpha1.DatabaseSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Everything a tenant should have in the cluster, as a pure function of its spec, plan, the
 * operator's settings and the database passwords. Ordered so that what others depend on comes
 * first: namespace, guardrails, credentials, databases, apps.
 */
public final class DesiredState {

  private DesiredState() {
  }

  /**
   * @param passwords the password of each database by name; each must be present
   */
  public static List<HasMetadata> of(TenantContext ctx, Map<String, String> passwords, Workloads workloads) {
    List<HasMetadata> objects = new ArrayList<>();
    objects.add(NamespaceModel.namespace(ctx));
    objects.addAll(RbacModel.roles(ctx));
    objects.addAll(RbacModel.roleBindings(ctx));
    objects.addAll(NetworkPolicyModel.networkPolicies(ctx));
    objects.add(QuotaModel.resourceQuota(ctx));
    objects.add(QuotaModel.limitRange(ctx));
    for (DatabaseSpec db : ctx.tenant().getSpec().getDatabases()) {
      String password = passwords.get(db.getName());
      if (password == null) {
        throw new IllegalArgumentException("no password for database " + db.getName());
      }
      objects.add(DatabaseModel.credentials(ctx, db, password));
      if (workloads != Workloads.REMOVED) {
        objects.add(DatabaseModel.service(ctx, db));
        objects.add(DatabaseModel.podDisruptionBudget(ctx, db));
        objects.add(DatabaseModel.statefulSet(ctx, db, workloads == Workloads.RUNNING ? 1 : 0));
      }
    }
    if (workloads != Workloads.REMOVED) {
      for (AppSpec app : ctx.tenant().getSpec().getApps()) {
        objects.add(AppModel.service(ctx, app));
        if (workloads == Workloads.RUNNING && app.getReplicas() > 1) {
          objects.add(AppModel.podDisruptionBudget(ctx, app));
        }
        Integer replicas = workloads == Workloads.SCALED_TO_ZERO ? Integer.valueOf(0)
            : ctx.config().appReplicasManagedExternally ? null : app.getReplicas();
        objects.add(AppModel.deployment(ctx, app, replicas));
      }
    }
    return objects;
  }
}
