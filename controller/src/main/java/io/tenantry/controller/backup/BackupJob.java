package io.tenantry.controller.backup;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.tenantry.api.v1alpha1.DatabaseSpec;
import io.tenantry.backup.BackupId;
import io.tenantry.backup.Manifest;
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
 * The Jobs that back up one database and drill a restore of it, and the Secret each alone reads:
 * pure builders. A backup's pod runs two containers sharing an emptyDir: {@code dump}, the
 * database's own image running {@link PostgresCommands#dumpScript()} (pg_dump into a FIFO), and
 * {@code agent}, the operator's image, which takes the snapshot, encrypts the stream with the
 * backup's key and uploads it to the one object its token allows, then reports beside it. A
 * drill's pod is the same shape the other way ({@link #drill}). The Secret holds the backup's key
 * and the token and nothing else: no credential of the store ever enters the namespace. Each Job
 * runs once ({@code backoffLimit: 0}): a failure is reported and the next attempt is scheduled.
 */
public final class BackupJob {

  /** The Job's annotation naming its backup. */
  public static final String BACKUP_ID = "tenantry.io/backup-id";
  /** The Job's annotation naming the object the backup goes to. */
  public static final String OBJECT_PATH = "tenantry.io/backup-object";
  /** The Job's annotation saying why it runs (scheduled, on-demand). */
  public static final String KIND = "tenantry.io/backup-kind";
  /** A drill Job's annotation naming the backup it restores. */
  public static final String DRILL_OF = "tenantry.io/drill-of";
  /** A restore Job's annotation: the spec.databases[].restoreFrom it answers. */
  public static final String RESTORE_OF = "tenantry.io/restore-of";
  /** A restore Job's annotation: the backup it restores, as the status records it ({@code [<tenant>/]<id>}). */
  public static final String RESTORE_BACKUP = "tenantry.io/restore-backup";
  public static final String AGENT = "agent";
  public static final String DUMP = "dump";
  public static final String RESTORE = "restore";
  /** The drill's scratch server's port, on the pod's loopback. */
  static final int SCRATCH_PORT = 5432;
  /** Room for the scratch server beyond the restored data: initdb's files, WAL, the server's log. */
  private static final long SCRATCH_OVERHEAD = 128L << 20;
  static final String DATA_KEY = "data-key";
  static final String TARGET = "target";
  static final String WORK = "/work";
  static final String SCRATCH = "/scratch";
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
    List<EnvVar> libpq = libpq(ctx, db);
    Container dump = engine(ctx, db, DUMP, PostgresCommands.dumpScript(), libpq);
    Container agent = agent(ctx, List.of("backup", "--work", WORK, "--key", SECRET_DIR + "/" + DATA_KEY, "--target",
        SECRET_DIR + "/" + TARGET, "--object-path", objectPath, "--report", "/dev/termination-log",
        "--drop-replaced-before", id.started().minus(ctx.config().backups().keepReplacedForDuration()).toString()), libpq);
    return oneShot(ctx, db, name, Map.of(BACKUP_ID, id.toString(), OBJECT_PATH, objectPath, KIND, kind), deadline,
        List.of(dump, agent), List.of());
  }

  /** {@code drill-<id>}: at most 60 characters for a database name of 30. */
  public static String drillName(String backupId) {
    return "drill-" + backupId;
  }

  /**
   * Bytes of scratch space a drill of {@code manifest}'s backup needs: the database's size when it
   * was dumped, a quarter more (indexes rebuilt, free space), and the server's own files. A
   * manifest from before the size was recorded gets eight times its dump (custom-format dumps are
   * compressed).
   */
  public static long scratchBytes(Manifest manifest) {
    long data = manifest.databaseBytes() > 0 ? manifest.databaseBytes() + manifest.databaseBytes() / 4
        : manifest.plaintextBytes() * 8;
    long bytes = data + SCRATCH_OVERHEAD;
    return (bytes + (1 << 20) - 1) & -(1L << 20); // whole MiB
  }

  /**
   * The restore drill of backup {@code manifest}: {@code restore}, the database's own image running
   * {@link PostgresCommands#drillScript()} (a throwaway server in an emptyDir of
   * {@link #scratchBytes} whose ephemeral storage the quota counts, and pg_restore into it), and
   * {@code agent}, which downloads the object with the token in the Secret, decrypts it into the
   * FIFO, compares every table's row count with the backup's and reports to the store. The tenant's
   * database is never touched: the drill needs only its credentials' user name, so ownership
   * restores as it was.
   */
  public static Job drill(TenantContext ctx, DatabaseSpec db, Manifest manifest, Duration deadline) {
    String name = drillName(manifest.id());
    Quantity scratch = new Quantity((scratchBytes(manifest) >> 20) + "Mi");
    List<EnvVar> libpq = List.of(
        new EnvVarBuilder().withName("PGHOST").withValue("127.0.0.1").build(),
        new EnvVarBuilder().withName("PGPORT").withValue(Integer.toString(SCRATCH_PORT)).build(),
        new EnvVarBuilder().withName("PGDATABASE").withValue("postgres").build(),
        new EnvVarBuilder().withName("PGUSER").withNewValueFrom().withNewSecretKeyRef().withName(Names.credentials(db.getName()))
            .withKey(DatabaseModel.USERNAME_KEY).endSecretKeyRef().endValueFrom().build(),
        new EnvVarBuilder().withName("PGPASSWORD").withValue("").build()); // the scratch server trusts its loopback
    Container restore = new ContainerBuilder()
        .withName(RESTORE)
        .withImage(DatabaseModel.image(ctx, db))
        .withCommand("sh", "-c", PostgresCommands.drillScript())
        .withEnv(libpq)
        .addToEnv(new EnvVarBuilder().withName("WORK").withValue(WORK).build(),
            new EnvVarBuilder().withName("SCRATCH").withValue(SCRATCH).build())
        .addNewVolumeMount().withName("work").withMountPath(WORK).endVolumeMount()
        .addNewVolumeMount().withName("scratch").withMountPath(SCRATCH).endVolumeMount()
        .withNewResources().addToRequests("cpu", new Quantity("100m")).addToRequests("memory", new Quantity("128Mi"))
        .addToRequests("ephemeral-storage", scratch).addToLimits("memory", new Quantity("512Mi"))
        .addToLimits("ephemeral-storage", scratch).endResources()
        .withSecurityContext(PodSecurity.container(true))
        .build();
    Container agent = agent(ctx, List.of("restore", "--work", WORK, "--key", SECRET_DIR + "/" + DATA_KEY, "--target",
        SECRET_DIR + "/" + TARGET, "--object-path", manifest.location().objectPath(manifest.backupId()), "--report",
        "/dev/termination-log"), libpq);
    return oneShot(ctx, db, name, Map.of(DRILL_OF, manifest.id()), deadline, List.of(restore, agent),
        List.of(new VolumeBuilder().withName("scratch").withNewEmptyDir().withSizeLimit(scratch).endEmptyDir().build()));
  }

  /** {@code restore-<database>-<yyyymmdd>-<hhmmss>}: at most 53 characters. */
  public static String restoreName(String database, String stamp) {
    return "restore-" + database + "-" + stamp;
  }

  /**
   * The restore of {@code manifest}'s backup into database {@code db} of the tenant: {@code restore},
   * the database's own image, creates the side database {@code side} on the tenant's server and runs
   * pg_restore into it ({@link PostgresCommands#sideRestoreScript()}); {@code agent} downloads and
   * decrypts the object, checks every table's row count, then swaps the side database in and keeps
   * the live one as {@code keepAs}. The live database is never written to.
   */
  public static Job restore(TenantContext ctx, DatabaseSpec db, Manifest manifest, String requested, String backup,
      String name, String side, String keepAs, Duration deadline) {
    List<EnvVar> libpq = libpq(ctx, db, side);
    Container restore = engine(ctx, db, RESTORE, PostgresCommands.sideRestoreScript(), libpq);
    Container agent = agent(ctx, List.of("restore", "--work", WORK, "--key", SECRET_DIR + "/" + DATA_KEY, "--target",
        SECRET_DIR + "/" + TARGET, "--object-path", manifest.location().objectPath(manifest.backupId()), "--report",
        "/dev/termination-log", "--replace", DatabaseModel.defaultUsername(db.getEngine()), "--keep-as", keepAs), libpq);
    return oneShot(ctx, db, name, Map.of(RESTORE_OF, requested, RESTORE_BACKUP, backup), deadline, List.of(restore, agent),
        List.of());
  }

  /**
   * A Job that runs once ({@code backoffLimit: 0}) within {@code deadline}: {@code containers}
   * sharing the work emptyDir, the Secret of the same name mounted read-only, no service account
   * token, restricted, placed as the plan says; {@code annotations} on the Job and its pod.
   */
  private static Job oneShot(TenantContext ctx, DatabaseSpec db, String name, Map<String, String> annotations,
      Duration deadline, List<Container> containers, List<Volume> volumes) {
    PodSpecBuilder pod = new PodSpecBuilder()
        .withRestartPolicy("Never")
        .withAutomountServiceAccountToken(false)
        .withSecurityContext(PodSecurity.pod(DatabaseModel.DATABASE_USER))
        .withContainers(containers)
        .addNewVolume().withName("work").withNewEmptyDir().withSizeLimit(new Quantity("16Mi")).endEmptyDir().endVolume()
        .addToVolumes(volumes.toArray(Volume[]::new))
        .addNewVolume().withName("backup").withNewSecret().withSecretName(name).withDefaultMode(0400).endSecret().endVolume();
    return new JobBuilder()
        .withMetadata(ctx.meta(name, Labels.workload(ctx.name(), Labels.COMPONENT_BACKUP, db.getName())))
        .editMetadata().addToAnnotations(annotations).endMetadata()
        .withNewSpec()
        .withBackoffLimit(0)
        .withActiveDeadlineSeconds(deadline.toSeconds())
        .withNewTemplate()
        .withNewMetadata().withLabels(Labels.selector(ctx.name(), Labels.COMPONENT_BACKUP, db.getName()))
        .addToAnnotations(annotations).endMetadata()
        .withSpec(PodPolicy.placed(pod.build(), ctx.plan()))
        .endTemplate()
        .endSpec()
        .build();
  }

  /** A container of the database's own image running {@code script} against the server libpq's variables name. */
  private static Container engine(TenantContext ctx, DatabaseSpec db, String name, String script, List<EnvVar> libpq) {
    return new ContainerBuilder()
        .withName(name)
        .withImage(DatabaseModel.image(ctx, db))
        .withCommand("sh", "-c", script)
        .withEnv(libpq)
        .addToEnv(new EnvVarBuilder().withName("WORK").withValue(WORK).build())
        .addNewVolumeMount().withName("work").withMountPath(WORK).endVolumeMount()
        .withNewResources().addToRequests("cpu", new Quantity("100m")).addToRequests("memory", new Quantity("64Mi"))
        .addToLimits("memory", new Quantity("256Mi")).endResources()
        .withSecurityContext(PodSecurity.container(true))
        .build();
  }

  /** The agent's container: the operator's image, the backup's Secret, the shared work directory. */
  private static Container agent(TenantContext ctx, List<String> args, List<EnvVar> libpq) {
    return new ContainerBuilder()
        .withName(AGENT)
        .withImage(ctx.config().backups().agentImage())
        .withCommand("java", "-XX:MaxRAMPercentage=60", "-cp", "@/app/jib-classpath-file", AGENT_MAIN)
        .withArgs(args)
        .withEnv(libpq)
        .addNewVolumeMount().withName("work").withMountPath(WORK).endVolumeMount()
        .addNewVolumeMount().withName("backup").withMountPath(SECRET_DIR).withReadOnly(true).endVolumeMount()
        .withTerminationMessagePolicy("File")
        .withNewResources().addToRequests("cpu", new Quantity("100m")).addToRequests("memory", new Quantity("192Mi"))
        .addToLimits("memory", new Quantity("384Mi")).endResources()
        .withSecurityContext(PodSecurity.container(true))
        .build();
  }

  /**
   * The Secret of Job {@code job} (a backup's or a drill's): the backup's key, and the URL (with its
   * one-object token) it uploads to or downloads from.
   */
  public static Secret secret(TenantContext ctx, String job, String database, byte[] dataKey, String targetUrl) {
    return new SecretBuilder()
        .withMetadata(ctx.meta(job, Labels.workload(ctx.name(), Labels.COMPONENT_BACKUP, database)))
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
    return libpq(ctx, db, DatabaseModel.defaultUsername(db.getEngine()));
  }

  /** The same, for {@code database} on that server. */
  private static List<EnvVar> libpq(TenantContext ctx, DatabaseSpec db, String database) {
    return List.of(
        new EnvVarBuilder().withName("PGHOST").withValue(DatabaseModel.host(ctx, db)).build(),
        new EnvVarBuilder().withName("PGPORT").withValue("5432").build(),
        new EnvVarBuilder().withName("PGDATABASE").withValue(database).build(),
        new EnvVarBuilder().withName("PGUSER").withNewValueFrom().withNewSecretKeyRef().withName(Names.credentials(db.getName()))
            .withKey(DatabaseModel.USERNAME_KEY).endSecretKeyRef().endValueFrom().build(),
        new EnvVarBuilder().withName("PGPASSWORD").withNewValueFrom().withNewSecretKeyRef().withName(Names.credentials(db.getName()))
            .withKey(DatabaseModel.PASSWORD_KEY).endSecretKeyRef().endValueFrom().build());
  }
}
