package io.tenantry.controller.resources;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.tenantry.api.v1alpha1.AppSpec;
import io.tenantry.api.v1alpha1.DatabaseSpec;
import io.tenantry.controller.autoscaling.Autoscaling;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Everything a tenant should have in the cluster, as a pure function of its spec, plan, the
 * operator's settings and its secrets. Ordered so that what others depend on comes first:
 * the {@link #guardrails} (namespace, role bindings, policies, quota), secrets, identity,
 * databases, apps.
 */
public final class DesiredState {

  private DesiredState() {
  }

  /**
   * @param credentials the credentials of each database by name; each must be present
   * @param templates the template namespace's Secrets, copied into the tenant namespace
   * @param versions the version each app's Deployment is built at; an app without one keeps its
   *     Deployment as it is (a migration has not let it start yet, or a secret it names is missing)
   * @param volumes the version and volume each database runs at; one without runs its spec's version
   *     on the first claim
   */
  public static List<HasMetadata> of(TenantContext ctx, Map<String, DatabaseCredentials> credentials, List<Secret> templates,
      Workloads workloads, Map<String, String> versions, Map<String, DatabaseVolume> volumes) {
    List<HasMetadata> objects = new ArrayList<>(guardrails(ctx));
    templates.forEach(t -> objects.add(SecretCopyModel.copy(ctx, t)));
    objects.add(IdentityModel.configMap(ctx));
    for (DatabaseSpec db : ctx.tenant().getSpec().getDatabases()) {
      DatabaseCredentials dbCredentials = credentials.get(db.getName());
      if (dbCredentials == null) {
        throw new IllegalArgumentException("no credentials for database " + db.getName());
      }
      objects.add(DatabaseModel.credentials(ctx, db, dbCredentials));
      objects.add(DatabaseModel.bindingSecret(ctx, db, dbCredentials));
      if (workloads != Workloads.REMOVED) {
        objects.add(DatabaseModel.service(ctx, db));
        objects.add(DatabaseModel.podDisruptionBudget(ctx, db));
        objects.add(DatabaseModel.statefulSet(ctx, db, workloads == Workloads.SCALED_TO_ZERO ? 0 : 1,
            volumes.getOrDefault(db.getName(), new DatabaseVolume(db.getVersion(), DatabaseVolume.FIRST_CLAIM))));
      }
    }
    Map<String, Secret> templatesByName = byName(templates);
    for (AppSpec app : ctx.tenant().getSpec().getApps()) {
      if (!app.getConfig().isEmpty()) {
        objects.add(AppModel.configFiles(ctx, app));
      }
      if (workloads == Workloads.REMOVED) {
        continue;
      }
      objects.add(AppModel.service(ctx, app));
      if (workloads == Workloads.RUNNING && Autoscaling.wantsDisruptionBudget(app, ctx.plan())) {
        objects.add(AppModel.podDisruptionBudget(ctx, app));
      }
      Optional<Autoscaling.Bounds> bounds = Autoscaling.bounds(app, ctx.plan());
      String version = versions.get(app.getName());
      if (version != null) {
        objects.add(appDeployment(ctx, app, version, workloads, bounds, AppPod.restartHash(ctx, app, templatesByName, credentials)));
      }
      // After its Deployment: the HPA first meets it with its replicas handed over.
      bounds.ifPresent(b -> objects.add(AppModel.horizontalPodAutoscaler(ctx, app, b)));
    }
    return objects;
  }

  /**
   * An app's Deployment: at zero while the apps are stopped; else at its fixed replicas, or with
   * its replicas left to its HPA (or, with the deprecated appReplicasManagedExternally, to whoever
   * scales it), handed over from their live value ({@link Autoscaling}).
   */
  private static Deployment appDeployment(TenantContext ctx, AppSpec app, String version, Workloads workloads,
      Optional<Autoscaling.Bounds> bounds, String restartHash) {
    if (workloads == Workloads.SCALED_TO_ZERO || workloads == Workloads.RESTORING) {
      return AppModel.deployment(ctx, app, version, 0, restartHash);
    }
    Deployment deployment = AppModel.deployment(ctx, app, version, app.fixedReplicas(), restartHash);
    if (bounds.isPresent()) {
      return Autoscaling.leftToAutoscaler(deployment, bounds.get().min());
    }
    return ctx.config().appReplicasManagedExternally() ? Autoscaling.leftToAutoscaler(deployment, 1) : deployment;
  }

  /**
   * The namespace and what confines the tenant in it: its people's role bindings, network
   * policies, quota and limit range. A function of the spec and plan alone, so they can be put in
   * place before anything that reads the namespace or the secret store, and whatever fails there.
   */
  public static List<HasMetadata> guardrails(TenantContext ctx) {
    List<HasMetadata> objects = new ArrayList<>();
    objects.add(NamespaceModel.namespace(ctx));
    objects.addAll(RbacModel.roleBindings(ctx));
    objects.addAll(NetworkPolicyModel.networkPolicies(ctx));
    objects.add(QuotaModel.resourceQuota(ctx));
    objects.add(QuotaModel.limitRange(ctx));
    return objects;
  }

  /** The template Secrets by name. */
  public static Map<String, Secret> byName(List<Secret> templates) {
    Map<String, Secret> byName = new LinkedHashMap<>();
    templates.forEach(t -> byName.put(t.getMetadata().getName(), t));
    return byName;
  }
}
