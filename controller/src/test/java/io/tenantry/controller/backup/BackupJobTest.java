package io.tenantry.controller.backup;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.tenantry.api.v1alpha1.DatabaseEngine;
import io.tenantry.api.v1alpha1.DatabaseSpec;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantSpec;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.backup.BackupId;
import io.tenantry.backup.Manifest;
import io.tenantry.backup.postgres.PostgresCommands;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.resources.TenantContext;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class BackupJobTest {

  private static final BackupId ID = BackupId.parse("main-20261126-020000-a1b2c3");
  private static final String PATH = "backups/local/acme-uid/main/" + ID + ".dump.enc";

  @Test
  void theDumpRunsInTheDatabasesOwnImageAndTheAgentInTheOperatorsBothRestricted() {
    Job job = BackupJob.job(context(), database(), ID, PATH, "scheduled", Duration.ofHours(2));

    assertThat(job.getMetadata().getName()).isEqualTo("backup-main-20261126-020000-a1b2c3").hasSizeLessThanOrEqualTo(63);
    assertThat(job.getMetadata().getNamespace()).isEqualTo("tenant-acme");
    assertThat(job.getMetadata().getLabels()).containsEntry("app.kubernetes.io/managed-by", "tenantry")
        .containsEntry("app.kubernetes.io/component", "backup").containsEntry("app.kubernetes.io/name", "main");
    assertThat(job.getMetadata().getAnnotations()).containsEntry(BackupJob.BACKUP_ID, ID.toString())
        .containsEntry(BackupJob.OBJECT_PATH, PATH).containsEntry(BackupJob.KIND, "scheduled");
    assertThat(job.getSpec().getBackoffLimit()).isZero();
    assertThat(job.getSpec().getActiveDeadlineSeconds()).isEqualTo(7200L);
    PodSpec pod = job.getSpec().getTemplate().getSpec();
    assertThat(pod.getRestartPolicy()).isEqualTo("Never");
    assertThat(pod.getAutomountServiceAccountToken()).isFalse();
    assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();

    Container dump = pod.getContainers().get(0);
    assertThat(dump.getName()).isEqualTo("dump");
    assertThat(dump.getImage()).isEqualTo("docker.io/library/postgres:16.4");
    assertThat(dump.getCommand()).containsExactly("sh", "-c", PostgresCommands.dumpScript());
    assertThat(values(dump)).containsEntry("PGHOST", "db-main.tenant-acme.svc.cluster.local").containsEntry("PGPORT", "5432")
        .containsEntry("WORK", "/work");
    assertThat(dump.getEnv()).filteredOn(e -> e.getName().equals("PGPASSWORD")).singleElement()
        .satisfies(e -> assertThat(e.getValueFrom().getSecretKeyRef().getName()).isEqualTo("db-main-credentials"));

    Container agent = pod.getContainers().get(1);
    assertThat(agent.getImage()).isEqualTo("tenantry-operator:0.1.0");
    assertThat(agent.getCommand()).contains(BackupJob.AGENT_MAIN);
    // The data restores replaced goes once backups.keepReplacedFor (7 days) has passed since.
    assertThat(String.join(" ", agent.getArgs())).isEqualTo("backup --work /work --key /var/run/tenantry-backup/data-key"
        + " --target /var/run/tenantry-backup/target --object-path " + PATH + " --report /dev/termination-log"
        + " --drop-replaced-before 2026-11-19T02:00:00Z");
    assertThat(agent.getTerminationMessagePolicy()).isEqualTo("File");
    for (Container container : pod.getContainers()) {
      assertThat(container.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
      assertThat(container.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
      assertThat(container.getResources().getLimits()).containsKey("memory");
    }
    assertThat(pod.getVolumes()).filteredOn(v -> v.getSecret() != null).singleElement()
        .satisfies(v -> assertThat(v.getSecret().getSecretName()).isEqualTo(job.getMetadata().getName()));
  }

  @Test
  void theSecretHoldsTheKeyAndTheOneObjectTargetAndNothingElse() {
    Secret secret = BackupJob.secret(context(), BackupJob.name(ID), "main", new byte[] {1, 2, 3}, "http://transfer/backup-transfer/v1/token");

    assertThat(secret.getData()).containsOnlyKeys("data-key", "target");
    assertThat(BackupJob.dataKey(secret)).containsExactly(1, 2, 3);
    assertThat(new String(Base64.getDecoder().decode(secret.getData().get("target")), StandardCharsets.UTF_8))
        .isEqualTo("http://transfer/backup-transfer/v1/token");
    assertThat(secret.getMetadata().getLabels()).containsEntry("app.kubernetes.io/component", "backup");
    assertThat(TenantBackups.isBackupObject(secret)).isTrue();
    assertThat(BackupJob.dataKey(null)).isNull();
  }

  @Test
  void aDrillRestoresIntoAScratchServerInItsPodSizedFromTheBackupAndNeverReachesTheTenantsDatabase() {
    Job job = BackupJob.drill(context(), database(), manifest(400L << 20, 50L << 20), Duration.ofHours(2));

    assertThat(job.getMetadata().getName()).isEqualTo("drill-main-20261126-020000-a1b2c3").hasSizeLessThanOrEqualTo(63);
    assertThat(job.getMetadata().getAnnotations()).containsEntry(BackupJob.DRILL_OF, ID.toString())
        .doesNotContainKey(BackupJob.BACKUP_ID);
    assertThat(TenantBackups.isBackupObject(job)).isTrue();
    assertThat(job.getSpec().getBackoffLimit()).isZero();
    PodSpec pod = job.getSpec().getTemplate().getSpec();
    Container restore = pod.getContainers().get(0);
    assertThat(restore.getName()).isEqualTo("restore");
    assertThat(restore.getImage()).isEqualTo("docker.io/library/postgres:16.4");
    assertThat(restore.getCommand()).containsExactly("sh", "-c", PostgresCommands.drillScript());
    // 400 MiB of data, a quarter more, and 128 MiB for the server: requested, limited and the emptyDir's size.
    assertThat(restore.getResources().getRequests().get("ephemeral-storage").toString()).isEqualTo("628Mi");
    assertThat(restore.getResources().getLimits().get("ephemeral-storage").toString()).isEqualTo("628Mi");
    assertThat(pod.getVolumes()).filteredOn(v -> v.getName().equals("scratch")).singleElement()
        .satisfies(v -> assertThat(v.getEmptyDir().getSizeLimit().toString()).isEqualTo("628Mi"));
    Container agent = pod.getContainers().get(1);
    assertThat(String.join(" ", agent.getArgs())).isEqualTo("restore --work /work --key /var/run/tenantry-backup/data-key"
        + " --target /var/run/tenantry-backup/target --object-path backups/local/acme-acme-uid/main/" + ID + ".dump.enc"
        + " --report /dev/termination-log");
    for (Container container : pod.getContainers()) {
      // Both talk to the scratch server on the pod's loopback; no password of the tenant's database is mounted.
      assertThat(values(container)).containsEntry("PGHOST", "127.0.0.1").containsEntry("PGDATABASE", "postgres");
      assertThat(container.getEnv()).noneMatch(e -> e.getValueFrom() != null
          && e.getValueFrom().getSecretKeyRef().getKey().equals("password"));
      assertThat(container.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
    }
  }

  @Test
  void aRestoreGoesIntoASideDatabaseOnTheTenantsServerAndSwapsItInKeepingTheLiveOne() {
    Job job = BackupJob.restore(context(), database(), manifest(1L << 20, 1L << 20), "latest", ID.toString(),
        BackupJob.restoreName("main", "20261126-120000"), "tenant_restore_20261126120000", "tenant_before_20261126120000",
        Duration.ofHours(2));

    assertThat(job.getMetadata().getName()).isEqualTo("restore-main-20261126-120000");
    assertThat(job.getMetadata().getAnnotations()).containsEntry(BackupJob.RESTORE_OF, "latest")
        .containsEntry(BackupJob.RESTORE_BACKUP, ID.toString()).doesNotContainKeys(BackupJob.BACKUP_ID, BackupJob.DRILL_OF);
    PodSpec pod = job.getSpec().getTemplate().getSpec();
    Container restore = pod.getContainers().get(0);
    assertThat(restore.getCommand()).containsExactly("sh", "-c", PostgresCommands.sideRestoreScript());
    Container agent = pod.getContainers().get(1);
    assertThat(String.join(" ", agent.getArgs())).endsWith("--replace tenant --keep-as tenant_before_20261126120000");
    for (Container container : pod.getContainers()) {
      // The tenant's own server, the side database: never the live one.
      assertThat(values(container)).containsEntry("PGHOST", "db-main.tenant-acme.svc.cluster.local")
          .containsEntry("PGDATABASE", "tenant_restore_20261126120000");
    }
  }

  @Test
  void scratchSpaceFollowsTheDatabasesSizeOrEightTimesTheDumpWhenTheManifestHasNone() {
    assertThat(BackupJob.scratchBytes(manifest(0, 10L << 20))).isEqualTo((80L + 128) << 20);
    assertThat(BackupJob.scratchBytes(manifest(1000, 10L << 20))).isEqualTo(129L << 20); // rounded up to a whole MiB
  }

  private static Manifest manifest(long databaseBytes, long dumpBytes) {
    return new Manifest(Manifest.FORMAT, ID.toString(), "local", "acme", "acme-uid", "main", "scheduled", "postgresql",
        "16.4", ID.started(), ID.started().plusSeconds(60), dumpBytes, dumpBytes + 100, "ab", "AAAAAA==", "key",
        Map.of("public.items", 10L), databaseBytes);
  }

  private static Map<String, String> values(Container container) {
    return container.getEnv().stream().filter(e -> e.getValue() != null).collect(Collectors.toMap(EnvVar::getName, EnvVar::getValue));
  }

  private static DatabaseSpec database() {
    return new DatabaseSpec("main", DatabaseEngine.POSTGRES, "16.4", "1Gi");
  }

  private static TenantContext context() {
    Tenant tenant = new Tenant();
    tenant.getMetadata().setName("acme");
    tenant.getMetadata().setUid("acme-uid");
    TenantSpec spec = new TenantSpec();
    spec.setState(TenantState.Active);
    spec.getDatabases().add(database());
    tenant.setSpec(spec);
    OperatorConfig config = OperatorConfig.defaults();
    return new TenantContext(tenant, config, config.plans().get("standard"));
  }
}
