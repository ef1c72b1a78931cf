package io.tenantry.controller.resources;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.tenantry.api.WellKnown;
import io.tenantry.api.v1alpha1.DatabaseEngine;
import io.tenantry.api.v1alpha1.DatabaseSpec;
import io.tenantry.controller.binding.ServiceBinding;
import io.tenantry.controller.config.OperatorConfig;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * One database of the tenant: a single-replica StatefulSet with its own volume, a headless
 * Service, a PodDisruptionBudget and the credentials Secret its clients read.
 */
public final class DatabaseModel {

  public static final String USERNAME_KEY = "username";
  public static final String PASSWORD_KEY = "password";
  /** The engines' official images run as this user; it also owns the data volume. */
  public static final long DATABASE_USER = 999L;

  private DatabaseModel() {
  }

  /**
   * What differs between engines: port, data directory, user, plain env, the variables that carry
   * the password, the binding's type and logical database (null: the engine has none), the
   * readiness check (authenticated where the engine needs it) and the directories besides the
   * data volume the engine writes to (emptyDirs, the root filesystem being read-only).
   */
  record Engine(int port, String dataPath, String username, Map<String, String> env, List<String> passwordVars,
      List<String> args, String bindingType, String database, List<String> readiness, List<String> writableDirs) {
  }

  static Engine engine(DatabaseEngine engine) {
    return switch (engine) {
      case POSTGRES -> new Engine(5432, "/var/lib/postgresql/data", "tenant",
          Map.of("POSTGRES_USER", "tenant", "PGDATA", "/var/lib/postgresql/data/pgdata"),
          List.of("POSTGRES_PASSWORD"), List.of(), "postgresql", "tenant",
          List.of("pg_isready", "--host=127.0.0.1", "--port=5432", "--username=tenant", "--dbname=tenant"),
          List.of("/var/run/postgresql", "/tmp"));
      case MYSQL -> new Engine(3306, "/var/lib/mysql", "tenant",
          Map.of("MYSQL_USER", "tenant", "MYSQL_DATABASE", "tenant"),
          List.of("MYSQL_PASSWORD", "MYSQL_ROOT_PASSWORD"), List.of(), "mysql", "tenant",
          List.of("sh", "-c", "MYSQL_PWD=\"$MYSQL_PASSWORD\" exec mysqladmin ping --host=127.0.0.1 --user=tenant --silent"),
          List.of("/var/run/mysqld", "/tmp"));
      case REDIS -> new Engine(6379, "/data", "default", Map.of(),
          List.of("REDIS_PASSWORD"), List.of("--requirepass", "$(REDIS_PASSWORD)"), "redis", null,
          List.of("sh", "-c", "REDISCLI_AUTH=\"$REDIS_PASSWORD\" redis-cli -h 127.0.0.1 ping | grep -q PONG"),
          List.of("/tmp"));
    };
  }

  /** The database's StatefulSet with {@code replicas} pods (1 when running, 0 when frozen), at {@code volume}'s version and claim. */
  public static StatefulSet statefulSet(TenantContext ctx, DatabaseSpec db, int replicas, DatabaseVolume volume) {
    Engine engine = engine(db.getEngine());
    String name = Names.database(db.getName());
    Map<String, String> selector = Labels.selector(ctx.name(), Labels.COMPONENT_DATABASE, db.getName());
    Map<String, String> podLabels = new LinkedHashMap<>(selector);
    podLabels.put(Labels.VERSION, volume.version());
    List<EnvVar> env = new ArrayList<>();
    new TreeMap<>(engine.env()).forEach((key, value) -> env.add(new EnvVarBuilder().withName(key).withValue(value).build()));
    for (String var : engine.passwordVars()) {
      env.add(new EnvVarBuilder().withName(var).withNewValueFrom().withNewSecretKeyRef()
          .withName(Names.credentials(db.getName())).withKey(PASSWORD_KEY).endSecretKeyRef().endValueFrom().build());
    }
    Container container = new ContainerBuilder()
        .withName(db.getEngine().name().toLowerCase(Locale.ROOT))
        .withImage(image(ctx.config().databaseImages(), db.getEngine()) + ":" + volume.version())
        .withArgs(args(ctx, db, engine))
        .addNewPort().withName("db").withContainerPort(engine.port()).endPort()
        .withEnv(env)
        .addNewVolumeMount().withName(volume.claim()).withMountPath(engine.dataPath()).endVolumeMount()
        .addAllToVolumeMounts(PodSecurity.scratchMounts(engine.writableDirs()))
        .withNewReadinessProbe().withNewExec().withCommand(engine.readiness()).endExec()
        .withPeriodSeconds(10).withTimeoutSeconds(5).withFailureThreshold(3).endReadinessProbe()
        .withNewLivenessProbe().withNewTcpSocket().withPort(new IntOrString("db")).endTcpSocket()
        .withInitialDelaySeconds(30).withPeriodSeconds(10).withTimeoutSeconds(5).withFailureThreshold(6).endLivenessProbe()
        .withSecurityContext(PodSecurity.container(true))
        .build();
    return new StatefulSetBuilder()
        .withMetadata(ctx.meta(name, Labels.workload(ctx.name(), Labels.COMPONENT_DATABASE, db.getName())))
        .withNewSpec()
        .withReplicas(replicas)
        .withServiceName(name)
        // Archiving deletes the StatefulSet; its volume claims must stay for Archived -> Active.
        .withNewPersistentVolumeClaimRetentionPolicy().withWhenDeleted("Retain").withWhenScaled("Retain")
        .endPersistentVolumeClaimRetentionPolicy()
        .withNewSelector().withMatchLabels(selector).endSelector()
        .withNewTemplate()
        .withNewMetadata().withLabels(podLabels).endMetadata()
        .withSpec(PodPolicy.placed(new PodSpecBuilder()
            .withAutomountServiceAccountToken(false)
            .withSecurityContext(PodSecurity.pod(DATABASE_USER))
            .withContainers(container)
            .withVolumes(PodSecurity.scratchVolumes(engine.writableDirs()))
            .build(), ctx.plan()))
        .endTemplate()
        .addNewVolumeClaimTemplate()
        .withNewMetadata().withName(volume.claim()).withLabels(Labels.workload(ctx.name(), Labels.COMPONENT_DATABASE, db.getName())).endMetadata()
        .withNewSpec()
        .withAccessModes("ReadWriteOnce")
        .withStorageClassName(emptyToNull(ctx.plan().storageClassName()))
        .withNewResources().addToRequests("storage", new Quantity(db.getStorage())).endResources()
        .endSpec()
        .endVolumeClaimTemplate()
        .endSpec()
        .build();
  }

  /** The engine's arguments, and a PostgreSQL server's max_connections when its plan sets one. */
  private static List<String> args(TenantContext ctx, DatabaseSpec db, Engine engine) {
    Integer maxConnections = ctx.plan().pooler().serverMaxConnections();
    if (db.getEngine() != DatabaseEngine.POSTGRES || maxConnections == null) {
      return engine.args();
    }
    List<String> args = new ArrayList<>(engine.args());
    args.add("-c");
    args.add("max_connections=" + maxConnections);
    return args;
  }

  /**
   * Headless: clients reach the single pod by its stable DNS name. The type and an empty external
   * name are set although they are the defaults, so that the operator owns both and one apply puts
   * back a Service turned into an ExternalName ({@link AppModel#service}).
   */
  public static Service service(TenantContext ctx, DatabaseSpec db) {
    return new ServiceBuilder()
        .withMetadata(ctx.meta(Names.database(db.getName()), Labels.workload(ctx.name(), Labels.COMPONENT_DATABASE, db.getName())))
        .withNewSpec()
        .withType("ClusterIP")
        .withExternalName("")
        .withClusterIP("None")
        .withSelector(Labels.selector(ctx.name(), Labels.COMPONENT_DATABASE, db.getName()))
        .addNewPort().withName("db").withPort(engine(db.getEngine()).port()).withTargetPort(new IntOrString("db")).endPort()
        .endSpec()
        .build();
  }

  /**
   * Forbids voluntary eviction of the single database pod: draining its node waits for an
   * operator's decision instead of taking the customer's database down.
   */
  public static PodDisruptionBudget podDisruptionBudget(TenantContext ctx, DatabaseSpec db) {
    return new PodDisruptionBudgetBuilder()
        .withMetadata(ctx.meta(Names.database(db.getName()), Labels.workload(ctx.name(), Labels.COMPONENT_DATABASE, db.getName())))
        .withNewSpec()
        .withMinAvailable(new IntOrString(1))
        .withNewSelector().withMatchLabels(Labels.selector(ctx.name(), Labels.COMPONENT_DATABASE, db.getName())).endSelector()
        .endSpec()
        .build();
  }

  /** The credentials Secret, with the store version and content hash of the credentials it holds. */
  public static Secret credentials(TenantContext ctx, DatabaseSpec db, DatabaseCredentials credentials) {
    Map<String, String> data = new LinkedHashMap<>();
    data.put(USERNAME_KEY, base64(credentials.username()));
    data.put(PASSWORD_KEY, base64(credentials.password()));
    return fromCredentials(ctx.meta(Names.credentials(db.getName()), Labels.workload(ctx.name(), Labels.COMPONENT_DATABASE,
        db.getName())), "Opaque", credentials, data);
  }

  /**
   * A Secret made from {@code credentials} ({@code data} already base64), annotated with their
   * store version and content hash, by which a copy is checked against the store.
   */
  public static Secret fromCredentials(ObjectMeta meta, String type, DatabaseCredentials credentials, Map<String, String> data) {
    return new SecretBuilder()
        .withMetadata(meta)
        .editMetadata()
        .addToAnnotations(WellKnown.SECRET_VERSION, credentials.version())
        .addToAnnotations(WellKnown.CONTENT_HASH, credentials.contentHash())
        .endMetadata()
        .withType(type)
        .withData(data)
        .build();
  }

  /** The binding Secret of {@code db}: the Service Binding spec's keys, from the stored credentials (never generated here). */
  public static Secret bindingSecret(TenantContext ctx, DatabaseSpec db, DatabaseCredentials credentials) {
    return bindingSecret(ctx, db, credentials, Names.binding(db.getName()), binding(ctx, db, credentials).entries());
  }

  /** A binding Secret of {@code db} named {@code name}, holding {@code entries} (a pooler's binding keeps the direct one's type). */
  public static Secret bindingSecret(TenantContext ctx, DatabaseSpec db, DatabaseCredentials credentials, String name,
      Map<String, String> entries) {
    Map<String, String> data = new LinkedHashMap<>();
    entries.forEach((key, value) -> data.put(key, base64(value)));
    return fromCredentials(ctx.meta(name, Labels.workload(ctx.name(), Labels.COMPONENT_DATABASE, db.getName())),
        "servicebinding.io/" + engine(db.getEngine()).bindingType(), credentials, data);
  }

  /** How apps reach {@code db} with {@code credentials}: its Service's in-cluster DNS name, port and logical database. */
  public static ServiceBinding binding(TenantContext ctx, DatabaseSpec db, DatabaseCredentials credentials) {
    Engine engine = engine(db.getEngine());
    return new ServiceBinding(engine.bindingType(), host(ctx, db), engine.port(), credentials.username(), credentials.password(),
        engine.database());
  }

  /** The in-cluster DNS name of {@code db}'s Service. */
  public static String host(TenantContext ctx, DatabaseSpec db) {
    return Names.database(db.getName()) + "." + ctx.namespace() + ".svc." + ctx.config().clusterDomain();
  }

  /** {@code db}'s image at its version: its own tools (pg_dump, pg_restore) match its server. */
  public static String image(TenantContext ctx, DatabaseSpec db) {
    return image(ctx.config().databaseImages(), db.getEngine()) + ":" + db.getVersion();
  }

  /** The user a new database's credentials name. */
  public static String defaultUsername(DatabaseEngine engine) {
    return engine(engine).username();
  }

  /** The username kept in a credentials Secret, or null when missing, empty or not base64. */
  public static String username(Secret secret) {
    return decoded(secret, USERNAME_KEY);
  }

  /** The password kept in a credentials Secret, or null when missing, empty or not base64. */
  public static String password(Secret secret) {
    return decoded(secret, PASSWORD_KEY);
  }

  /** A key of a Secret the tenant can write: anything there may be missing or malformed, and reads as null. */
  private static String decoded(Secret secret, String key) {
    String encoded = secret == null || secret.getData() == null ? null : secret.getData().get(key);
    if (encoded == null || encoded.isEmpty()) {
      return null;
    }
    try {
      return new String(Base64.getDecoder().decode(encoded), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException notBase64) {
      return null;
    }
  }

  private static String image(OperatorConfig.DatabaseImages images, DatabaseEngine engine) {
    return switch (engine) {
      case POSTGRES -> images.postgres();
      case MYSQL -> images.mysql();
      case REDIS -> images.redis();
    };
  }

  private static String base64(String value) {
    return Base64.getEncoder().encodeToString(value.getBytes(StandardCharsets.UTF_8));
  }

  private static String emptyToNull(String value) {
    return value == null || value.isEmpty() ? null : value;
  }
}
