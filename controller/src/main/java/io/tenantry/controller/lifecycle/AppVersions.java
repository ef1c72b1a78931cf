package io.tenantry.controller.lifecycle;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.tenantry.api.v1alpha1.AppSpec;
import io.tenantry.controller.apply.ObjectKey;
import io.tenantry.controller.cache.ClusterView;
import io.tenantry.controller.migration.MigrationDecision;
import io.tenantry.controller.migration.MigrationJob;
import io.tenantry.controller.resources.AppPod;
import io.tenantry.controller.resources.Labels;
import io.tenantry.controller.resources.Names;
import io.tenantry.controller.resources.TenantContext;
import io.tenantry.controller.resources.Workloads;
import io.tenantry.controller.rollout.Readiness;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which version each app's Deployment is built at, read from the cache: the spec's, unless a
 * migration must run first (then the deployed one, or none yet) or a template secret the app
 * names is missing (then the Deployment is kept exactly as it is, its last good spec).
 *
 * @param versions the version to build each app's Deployment at; absent: keep it as it is
 * @param kept the Deployments to leave untouched
 * @param jobs the migration Jobs wanted
 * @param failures one line per failed migration, with the Job's own message
 * @param missingSecrets one line per app naming template secrets that do not exist
 */
record AppVersions(Map<String, String> versions, Set<ObjectKey> kept, List<Job> jobs, List<String> failures,
    List<String> missingSecrets) {

  static AppVersions of(TenantContext ctx, ClusterView cache, Workloads workloads, Map<String, Secret> templates) {
    Map<String, String> versions = new HashMap<>();
    Set<ObjectKey> kept = new HashSet<>();
    List<Job> jobs = new ArrayList<>();
    List<String> failures = new ArrayList<>();
    List<String> missing = new ArrayList<>();
    for (AppSpec app : ctx.tenant().getSpec().getApps()) {
      List<String> absent = AppPod.missingSecrets(app, templates);
      Deployment deployment = cache.get(Deployment.class, ctx.namespace(), Names.app(app.getName()));
      String deployed = deployment == null ? null : deployment.getSpec().getTemplate().getMetadata().getLabels().get(Labels.VERSION);
      MigrationDecision.Step step;
      Job job = null;
      if (workloads == Workloads.RESTORING && deployment == null) {
        // While data is restored (a tenant made from a backup, or back from its archive), an app
        // that has no Deployment gets none: it is made once the restore is done.
        kept.add(new ObjectKey("Deployment", ctx.namespace(), Names.app(app.getName())));
        continue;
      }
      if (!absent.isEmpty()) {
        missing.add("app " + app.getName() + ": template secret " + String.join(", ", absent) + " does not exist");
        step = new MigrationDecision.Step(MigrationDecision.State.NOT_NEEDED, null, false);
      } else {
        job = app.getMigrate() == null ? null : cache.get(Job.class, ctx.namespace(), MigrationJob.name(app));
        step = MigrationDecision.decide(app.getVersion(), app.getMigrate() != null, deployed, MigrationJob.state(job),
            databasesReady(ctx, cache, app), workloads == Workloads.RUNNING);
      }
      if (step.deployVersion() != null) {
        versions.put(app.getName(), step.deployVersion());
      } else {
        kept.add(new ObjectKey("Deployment", ctx.namespace(), Names.app(app.getName())));
      }
      if (step.jobWanted()) {
        jobs.add(MigrationJob.job(ctx, app));
      }
      if (step.state() == MigrationDecision.State.FAILED) {
        failures.add("app " + app.getName() + ": migration to " + app.getVersion() + " failed (" + MigrationJob.failure(job) + ")");
      }
    }
    return new AppVersions(versions, kept, jobs, failures, missing);
  }

  private static boolean databasesReady(TenantContext ctx, ClusterView cache, AppSpec app) {
    return AppPod.boundDatabases(ctx, app).stream()
        .allMatch(db -> Readiness.rolledOut(cache.get(StatefulSet.class, ctx.namespace(), Names.database(db.getName()))));
  }
}
