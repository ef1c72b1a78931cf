package io.tenantry.controller.migration;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobCondition;
import io.tenantry.api.v1alpha1.AppSpec;
import io.tenantry.controller.resources.AppPod;
import io.tenantry.controller.resources.Labels;
import io.tenantry.controller.resources.Names;
import io.tenantry.controller.resources.TenantContext;
import java.util.Map;

/**
 * The Job that migrates an app to its spec's version: the app's pod (bindings, secrets, identity,
 * configuration) at the new image, running {@code apps[].migrate}. One Job per app and version,
 * named after both, so a failed one is never retried for the same version by accident: change the
 * version, or delete the Job to run it again.
 */
public final class MigrationJob {

  /**
   * No retry: the Job starts once the app's databases are ready, so a failure is the migration's
   * own, and a person decides (a new version, or deleting the failed Job, runs it again).
   */
  static final int BACKOFF_LIMIT = 0;

  private MigrationJob() {
  }

  public static String name(AppSpec app) {
    return Names.migration(app.getName(), AppPod.sha256(app.getImage() + ":" + app.getVersion()).substring(0, 10));
  }

  public static Job job(TenantContext ctx, AppSpec app) {
    Map<String, String> labels = Labels.workload(ctx.name(), Labels.COMPONENT_MIGRATION, app.getName());
    Map<String, String> podLabels = Labels.selector(ctx.name(), Labels.COMPONENT_MIGRATION, app.getName());
    podLabels.put(Labels.VERSION, app.getVersion());
    ContainerBuilder container = new ContainerBuilder()
        .withName("migrate")
        .withCommand(app.getMigrate().getCommand())
        .withArgs(app.getMigrate().getArgs());
    return new JobBuilder()
        .withMetadata(ctx.meta(name(app), labels))
        .editMetadata().addToLabels(Labels.VERSION, app.getVersion()).endMetadata()
        .withNewSpec()
        .withBackoffLimit(BACKOFF_LIMIT)
        .withActiveDeadlineSeconds(app.getMigrate().getTimeoutSeconds().longValue())
        .withNewTemplate()
        .withNewMetadata().withLabels(podLabels).endMetadata()
        // Direct bindings: DDL and advisory locks need a session, which a transaction pooler does not keep.
        .withSpec(AppPod.spec(ctx, app, app.getVersion(), container, "Never", true))
        .endTemplate()
        .endSpec()
        .build();
  }

  /** What a Job's conditions say (a null Job: absent). */
  public static MigrationDecision.JobState state(Job job) {
    if (job == null) {
      return MigrationDecision.JobState.ABSENT;
    }
    if (condition(job, "Complete") != null) {
      return MigrationDecision.JobState.SUCCEEDED;
    }
    return condition(job, "Failed") != null ? MigrationDecision.JobState.FAILED : MigrationDecision.JobState.RUNNING;
  }

  /** The Job's own account of its failure: its Failed condition's reason and message. */
  public static String failure(Job job) {
    JobCondition failed = condition(job, "Failed");
    return failed == null ? "" : failed.getReason() + ": " + failed.getMessage();
  }

  private static JobCondition condition(Job job, String type) {
    if (job.getStatus() == null || job.getStatus().getConditions() == null) {
      return null;
    }
    return job.getStatus().getConditions().stream()
        .filter(c -> type.equals(c.getType()) && "True".equals(c.getStatus())).findFirst().orElse(null);
  }
}
