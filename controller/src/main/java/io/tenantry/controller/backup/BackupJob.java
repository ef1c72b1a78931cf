package io.tenantry.controller.backup;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.tenantry.api.v1alpha1.DatabaseSpec;
import io.tenantry.backup.BackupId;
import io.tenantry.backup.postgres.PostgresCommands;
import io.tenantry.controller.resources.DatabaseModel;
import io.tenantry.controller.resources.Labels;
import io.tenantry.controller.resources.Names;
import io.tenantry.controller.resources.PodPolicy;
import io.tenantry.controller.resources.PodSecurity;
import io.tenantry.controller.resources.TenantContext;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * The Job that backs up one database, and the Secret it alone reads: pure builders. The pod runs
 * two containers sharing an emptyDir: {@code dump}, the database's own image running
 * {@link PostgresCommands#dumpScript()} (pg_dump into a FIFO), and {@code agent}, the operator's
 * image, which takes the snapshot, encrypts the stream with the backup's key and uploads it to the
 * one object its token allows, then reports in its termination message. The Secret holds that key
 * and token and nothing else: no credential of the store ever enters the namespace. The Job runs
 * once ({@code backoffLimit: 0}): a failed backup is reported and the next one is scheduled.
 */
public final class BackupJob {

  /** The Job's annotation naming its backup. */
  public static final String BACKUP_ID = "tenantry.io/backup-id";
  /** The Job's annotation naming the object the backup goes to. */
  public static final String OBJECT_PATH = "tenantry.io/backup-object";
  /** The Job's annotation saying why it runs (scheduled, on-demand). */
  public static final String KIND = "tenantry.io/backup-kind";
  public static final String AGENT = "agent";
  public static final String DUMP = "dump";
  static final String DATA_KEY = "data-key";
  static final String TARGET = "target";
  static final String WORK = "/work";
  static final String SECRET_DIR = "/var/run/tenantry-backup";
  static final String AGENT_MAIN = "io.tenantry.backup.agent.BackupAgent";

  private BackupJob() {
  }

  /** {@code backup-<id>}: at most 61 characters for a database name of 30. */
  public static String name(BackupId id) {
    return "backup-" + id;
  }

  public static Job job(TenantContext ctx, DatabaseSpec db, BackupId id, String objectPath, String kind, Duration deadline) {
    String name = name(id);
    Map<String, String> podLabels = Labels.selector(ctx.name(), Labels.COMPONENT_BACKUP, db.getName());
    List<EnvVar> libpq = libpq(ctx, db);
    Container dump = new ContainerBuilder()
        .withName(DUMP)
        .withImage(DatabaseModel.image(ctx, db))
        .withCommand("sh", "-c", PostgresCommands.dumpScript())
        .withEnv(libpq)
        .addToEnv(new EnvVarBuilder().withName("WORK").withValue(WORK).build())
        .addNewVolumeMount().withName("work").withMountPath(WORK).endVolumeMount()
        .withNewResources().addToRequests("cpu", new Quantity("100m")).addToRequests("memory", new Quantity("64Mi"))
        .addToLimits("memory", new Quantity("256Mi")).endResources()
        .withSecurityContext(PodSecurity.container(true))
        .build();
    Container agent = new ContainerBuilder()
        .withName(AGENT)
        .withImage(ctx.config().backups().agentImage())
        .withCommand("java", "-XX:MaxRAMPercentage=60", "-cp", "@/app/jib-classpath-file", AGENT_MAIN)
        .withArgs("backup", "--work", WORK, "--key", SECRET_DIR + "/" + DATA_KEY, "--target", SECRET_DIR + "/" + TARGET,
            "--object-path", objectPath, "--report", "/dev/termination-log")
        .withEnv(libpq)
        .addNewVolumeMount().withName("work").withMountPath(WORK).endVolumeMount()
        .addNewVolumeMount().withName("backup").withMountPath(SECRET_DIR).withReadOnly(true).endVolumeMount()
        .withTerminationMessagePolicy("File")
        .withNewResources().addToRequests("cpu", new Quantity("100m")).addToRequests("memory", new Quantity("192Mi"))
        .addToLimits("memory", new Quantity("384Mi")).endResources()
        .withSecurityContext(PodSecurity.container(true))
        .build();
    return new JobBuilder()
        .withMetadata(ctx.meta(name, Labels.workload(ctx.name(), Labels.COMPONENT_BACKUP, db.getName())))
        .editMetadata().addToAnnotations(BACKUP_ID, id.toString()).addToAnnotations(OBJECT_PATH, objectPath)
        .addToAnnotations(KIND, kind).endMetadata()
        .withNewSpec()
        .withBackoffLimit(0)
        .withActiveDeadlineSeconds(deadline.toSeconds())
        .withNewTemplate()
        .withNewMetadata().withLabels(podLabels).addToAnnotations(BACKUP_ID, id.toString()).endMetadata()
        .withSpec(PodPolicy.placed(new PodSpecBuilder()
            .withRestartPolicy("Never")
            .withAutomountServiceAccountToken(false)
            .withSecurityContext(PodSecurity.pod(DatabaseModel.DATABASE_USER))
            .withContainers(dump, agent)
            .addNewVolume().withName("work").withNewEmptyDir().withSizeLimit(new Quantity("16Mi")).endEmptyDir().endVolume()
            .addNewVolume().withName("backup").withNewSecret().withSecretName(name).withDefaultMode(0400).endSecret().endVolume()
            .build(), ctx.plan()))
        .endTemplate()
        .endSpec()
        .build();
  }

  /** The Job's Secret: the backup's key, and the URL (with its one-object token) it uploads to. */
  public static Secret secret(TenantContext ctx, BackupId id, String database, byte[] dataKey, String targetUrl) {
    return new SecretBuilder()
        .withMetadata(ctx.meta(name(id), Labels.workload(ctx.name(), Labels.COMPONENT_BACKUP, database)))
        .editMetadata().addToAnnotations(BACKUP_ID, id.toString()).endMetadata()
        .withType("Opaque")
        .addToData(DATA_KEY, Base64.getEncoder().encodeToString(dataKey))
        .addToData(TARGET, Base64.getEncoder().encodeToString(targetUrl.getBytes(StandardCharsets.UTF_8)))
        .build();
  }

  /** The backup key a Job's Secret holds, or null if it holds none. */
  public static byte[] dataKey(Secret secret) {
    String encoded = secret == null || secret.getData() == null ? null : secret.getData().get(DATA_KEY);
    try {
      return encoded == null ? null : Base64.getDecoder().decode(encoded);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /** libpq's variables for the database's Service, with the password from its credentials Secret. */
  private static List<EnvVar> libpq(TenantContext ctx, DatabaseSpec db) {
    return List.of(
        new EnvVarBuilder().withName("PGHOST").withValue(DatabaseModel.host(ctx, db)).build(),
        new EnvVarBuilder().withName("PGPORT").withValue("5432").build(),
        new EnvVarBuilder().withName("PGDATABASE").withValue(DatabaseModel.defaultUsername(db.getEngine())).build(),
        new EnvVarBuilder().withName("PGUSER").withNewValueFrom().withNewSecretKeyRef().withName(Names.credentials(db.getName()))
            .withKey(DatabaseModel.USERNAME_KEY).endSecretKeyRef().endValueFrom().build(),
        new EnvVarBuilder().withName("PGPASSWORD").withNewValueFrom().withNewSecretKeyRef().withName(Names.credentials(db.getName()))
            .withKey(DatabaseModel.PASSWORD_KEY).endSecretKeyRef().endValueFrom().build());
  }
}
