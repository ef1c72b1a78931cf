package io.tenantry.controller.resources;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Secret;
import io.tenantry.api.v1alpha1.AppSpec;
import io.tenantry.api.v1alpha1.DatabaseSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Everything a tenant should have in the cluster, as a pure function of its spec, plan, the
 * operator's settings and its secrets. Ordered so that what others depend on comes first:
 * namespace, guardrails, secrets, databases, apps.
 */
public final class DesiredState {

  private DesiredState() {
  }

  /**
   * @param credentials the credentials of each database by name; each must be present
   * @param templates the template namespace's Secrets, copied into the tenant namespace
   */
  public static List<HasMetadata> of(TenantContext ctx, Map<String, DatabaseCredentials> credentials, List<Secret> templates,
      Workloads workloads) {
    List<HasMetadata> objects = new ArrayList<>();
    objects.add(NamespaceModel.namespace(ctx));
    objects.addAll(RbacModel.roles(ctx));
    objects.addAll(RbacModel.roleBindings(ctx));
    objects.addAll(NetworkPolicyModel.networkPolicies(ctx));
    objects.add(QuotaModel.resourceQuota(ctx));
    objects.add(QuotaModel.limitRange(ctx));
    templates.forEach(t -> objects.add(SecretCopyModel.copy(ctx, t)));
    for (DatabaseSpec db : ctx.tenant().getSpec().getDatabases()) {
      DatabaseCredentials dbCredentials = credentials.get(db.getName());
      if (dbCredentials == null) {
        throw new IllegalArgumentException("no credentials for database " + db.getName());
      }
      objects.add(DatabaseModel.credentials(ctx, db, dbCredentials));
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
            : ctx.config().appReplicasManagedExternally() ? null : app.getReplicas();
        objects.add(AppModel.deployment(ctx, app, replicas));
      }
    }
    return objects;
  }
}
