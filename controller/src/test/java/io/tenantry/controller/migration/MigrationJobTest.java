package io.tenantry.controller.migration;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.tenantry.api.v1alpha1.AppSpec;
import io.tenantry.api.v1alpha1.MigrationSpec;
import io.tenantry.api.v1alpha1.PoolerSpec;
import io.tenantry.controller.resources.AppModel;
import io.tenantry.controller.resources.AppPodTest;
import io.tenantry.controller.resources.Labels;
import io.tenantry.controller.resources.TenantContext;
import java.util.List;
import org.junit.jupiter.api.Test;

class MigrationJobTest {

  @Test
  void theMigrationJobRunsTheNewImageWithTheAppsInputsAndNeverRestarts() {
    AppSpec app = AppPodTest.web();
    app.setMigrate(new MigrationSpec(List.of("/app/migrate"), List.of("--to", "2.0.0")));
    Job job = MigrationJob.job(AppPodTest.context(app), app);
    PodSpec pod = job.getSpec().getTemplate().getSpec();
    PodSpec appPod = AppPodTest.deployment(app).getSpec().getTemplate().getSpec();
    assertThat(job.getMetadata().getName()).startsWith("migrate-web-").hasSizeLessThanOrEqualTo(63);
    assertThat(job.getSpec().getActiveDeadlineSeconds()).isEqualTo(600L);
    assertThat(job.getSpec().getBackoffLimit()).isZero();
    assertThat(pod.getRestartPolicy()).isEqualTo("Never");
    assertThat(pod.getContainers().get(0).getImage()).isEqualTo("registry.example.com/acme/web:2.0.0");
    assertThat(pod.getContainers().get(0).getCommand()).containsExactly("/app/migrate");
    assertThat(pod.getContainers().get(0).getArgs()).containsExactly("--to", "2.0.0");
    assertThat(pod.getContainers().get(0).getReadinessProbe()).isNull();
    assertThat(pod.getVolumes()).isEqualTo(appPod.getVolumes());
    assertThat(pod.getContainers().get(0).getEnv()).isEqualTo(appPod.getContainers().get(0).getEnv());
    assertThat(pod.getContainers().get(0).getSecurityContext()).isEqualTo(appPod.getContainers().get(0).getSecurityContext());
    assertThat(job.getSpec().getTemplate().getMetadata().getLabels()).containsEntry(Labels.COMPONENT, "migration")
        .doesNotContainEntry(Labels.COMPONENT, "app");
  }

  @Test
  void withAPoolerTheMigrationReadsTheDirectBindingAtTheSamePathAndTheAppThePooledOne() {
    AppSpec app = AppPodTest.web();
    app.setMigrate(new MigrationSpec(List.of("/app/migrate"), List.of()));
    TenantContext ctx = AppPodTest.context(app);
    ctx.tenant().getSpec().getDatabases().get(0).setPooler(new PoolerSpec());
    PodSpec pod = MigrationJob.job(ctx, app).getSpec().getTemplate().getSpec();
    PodSpec appPod = AppModel.deployment(ctx, app, "2.0.0", 1, "h").getSpec().getTemplate().getSpec();
    assertThat(secretOf(pod, "binding-main")).isEqualTo("db-main-direct-binding");
    assertThat(secretOf(appPod, "binding-main")).isEqualTo("db-main-binding");
    assertThat(secretOf(pod, "binding-cache")).as("no pooler: one binding").isEqualTo("db-cache-binding");
    assertThat(pod.getContainers().get(0).getVolumeMounts()).isEqualTo(appPod.getContainers().get(0).getVolumeMounts());
    assertThat(pod.getContainers().get(0).getEnv()).filteredOn(e -> e.getName().equals("MAIN_URL"))
        .singleElement().satisfies(e -> assertThat(e.getValueFrom().getSecretKeyRef().getName()).isEqualTo("db-main-direct-binding"));
  }

  private static String secretOf(PodSpec pod, String volume) {
    return pod.getVolumes().stream().filter(v -> v.getName().equals(volume)).findFirst().orElseThrow().getSecret().getSecretName();
  }

  @Test
  void aJobsStateAndFailureComeFromItsConditions() {
    assertThat(MigrationJob.state(null)).isEqualTo(MigrationDecision.JobState.ABSENT);
    Job running = new JobBuilder().withNewStatus().withActive(1).endStatus().build();
    assertThat(MigrationJob.state(running)).isEqualTo(MigrationDecision.JobState.RUNNING);
    Job failed = new JobBuilder().withNewStatus().addNewCondition().withType("Failed").withStatus("True")
        .withReason("DeadlineExceeded").withMessage("Job was active longer than specified deadline").endCondition().endStatus().build();
    assertThat(MigrationJob.state(failed)).isEqualTo(MigrationDecision.JobState.FAILED);
    assertThat(MigrationJob.failure(failed)).isEqualTo("DeadlineExceeded: Job was active longer than specified deadline");
    Job complete = new JobBuilder().withNewStatus().addNewCondition().withType("Complete").withStatus("True").endCondition()
        .endStatus().build();
    assertThat(MigrationJob.state(complete)).isEqualTo(MigrationDecision.JobState.SUCCEEDED);
  }
}
