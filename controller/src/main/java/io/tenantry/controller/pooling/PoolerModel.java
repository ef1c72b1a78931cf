package io.tenantry.controller.pooling;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.tenantry.api.v1alpha1.DatabaseSpec;
import io.tenantry.controller.resources.AppModel;
import io.tenantry.controller.resources.AppPod;
import io.tenantry.controller.resources.DatabaseCredentials;
import io.tenantry.controller.resources.DatabaseModel;
import io.tenantry.controller.resources.Labels;
import io.tenantry.controller.resources.Names;
import io.tenantry.controller.resources.PodPolicy;
import io.tenantry.controller.resources.PodSecurity;
import io.tenantry.controller.resources.TenantContext;
import io.tenantry.controller.resources.Workloads;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The PgBouncer in front of one PostgreSQL database ({@code spec.databases[].pooler}): a
 * Deployment {@code db-<name>-pooler} hardened like every other pod, its Service, the Secret with
 * its configuration ({@link PgBouncerConfig}) and, above one replica, a PodDisruptionBudget.
 */
public final class PoolerModel {

  /** The pinned image's pgbouncer user; it reads the configuration Secret as its group. */
  public static final long POOLER_USER = 998L;
  static final String BINARY = "/usr/bin/pgbouncer";
  static final String PORT_NAME = "pgbouncer";
  private static final String CONFIG_VOLUME = "config";

  private PoolerModel() {
  }

  /**
   * The pooler's objects for {@code workloads}: none without a pooler or once removed (Archived),
   * zero pods when the tenant's workloads are at zero, the spec's replicas otherwise.
   */
  public static List<HasMetadata> objects(TenantContext ctx, DatabaseSpec db, DatabaseCredentials credentials,
      Workloads workloads, int maxDbConnections) {
    if (db.getPooler() == null || workloads == Workloads.REMOVED) {
      return List.of();
    }
    PgBouncerConfig config = config(ctx, db, credentials, maxDbConnections);
    int replicas = workloads == Workloads.RUNNING ? db.getPooler().getReplicas() : 0;
    List<HasMetadata> objects = new ArrayList<>();
    objects.add(configSecret(ctx, db, config, credentials));
    objects.add(service(ctx, db));
    if (replicas > 1) {
      objects.add(podDisruptionBudget(ctx, db));
    }
    objects.add(deployment(ctx, db, replicas, restartHash(config, credentials)));
    return objects;
  }

  /** The configuration of {@code db}'s pooler, reaching the database as its direct binding does. */
  public static PgBouncerConfig config(TenantContext ctx, DatabaseSpec db, DatabaseCredentials credentials, int maxDbConnections) {
    return PgBouncerConfig.of(DatabaseModel.binding(ctx, db, credentials), db.getPooler(), maxDbConnections);
  }

  /** The in-cluster DNS name of the pooler's Service. */
  public static String host(TenantContext ctx, DatabaseSpec db) {
    return Names.pooler(db.getName()) + "." + ctx.namespace() + ".svc." + ctx.config().clusterDomain();
  }

  /**
   * A hash of what PgBouncer reads only at start: the ini, and the credentials by their content
   * hash (the userlist holds the password, which no annotation may carry in any form). A
   * credential change thus rolls the pods once.
   */
  public static String restartHash(PgBouncerConfig config, DatabaseCredentials credentials) {
    return sha256(config.ini() + "\ncredentials=" + credentials.contentHash()).substring(0, 16);
  }

  /** The Secret the pods mount at {@link PgBouncerConfig#DIRECTORY}, with the credentials' store version and content hash. */
  public static Secret configSecret(TenantContext ctx, DatabaseSpec db, PgBouncerConfig config, DatabaseCredentials credentials) {
    Map<String, String> data = new LinkedHashMap<>();
    data.put(PgBouncerConfig.INI, base64(config.ini()));
    data.put(PgBouncerConfig.USERLIST, base64(config.userlist()));
    return DatabaseModel.fromCredentials(ctx.meta(Names.poolerConfig(db.getName()), labels(ctx, db)), "Opaque", credentials, data);
  }

  /** The pooler's Deployment with {@code replicas} pods, spread over nodes. */
  public static Deployment deployment(TenantContext ctx, DatabaseSpec db, int replicas, String restartHash) {
    Map<String, String> selector = selector(ctx, db);
    return new DeploymentBuilder()
        .withMetadata(ctx.meta(Names.pooler(db.getName()), labels(ctx, db)))
        .withNewSpec()
        .withReplicas(replicas)
        .withPaused(false)
        .withNewSelector().withMatchLabels(selector).endSelector()
        .withNewTemplate()
        .withNewMetadata().withLabels(selector).addToAnnotations(AppPod.RESTART_HASH, restartHash).endMetadata()
        .withSpec(podSpec(ctx, db))
        .endTemplate()
        .endSpec()
        .build();
  }

  /**
   * A ClusterIP Service on PostgreSQL's port. Type and an empty external name are set although
   * they are the defaults, so that the operator owns both (as for every Service it makes).
   */
  public static Service service(TenantContext ctx, DatabaseSpec db) {
    return new ServiceBuilder()
        .withMetadata(ctx.meta(Names.pooler(db.getName()), labels(ctx, db)))
        .withNewSpec()
        .withType("ClusterIP")
        .withExternalName("")
        .withSelector(selector(ctx, db))
        .addNewPort().withName(PORT_NAME).withPort(PgBouncerConfig.PORT).withTargetPort(new IntOrString(PORT_NAME)).endPort()
        .endSpec()
        .build();
  }

  /** Keeps all but one pooler pod up through voluntary disruptions; only made above one replica. */
  public static PodDisruptionBudget podDisruptionBudget(TenantContext ctx, DatabaseSpec db) {
    return new PodDisruptionBudgetBuilder()
        .withMetadata(ctx.meta(Names.pooler(db.getName()), labels(ctx, db)))
        .withNewSpec()
        .withMaxUnavailable(new IntOrString(1))
        .withNewSelector().withMatchLabels(selector(ctx, db)).endSelector()
        .endSpec()
        .build();
  }

  /** Restricted and read-only like every pod of the tenant; the configuration mounted read-only, readable by the pooler's group alone. */
  private static PodSpec podSpec(TenantContext ctx, DatabaseSpec db) {
    return PodPolicy.placed(new PodSpecBuilder()
        .withAutomountServiceAccountToken(false)
        .withEnableServiceLinks(false)
        .withSecurityContext(PodSecurity.pod(POOLER_USER))
        .withContainers(container(ctx))
        .addNewVolume().withName(CONFIG_VOLUME).withNewSecret().withSecretName(Names.poolerConfig(db.getName()))
        .withDefaultMode(0440).endSecret().endVolume()
        .withAffinity(AppModel.spreadOverNodes(selector(ctx, db)))
        .build(), ctx.plan());
  }

  /**
   * PgBouncer itself, bypassing the image's entrypoint script: the configuration is complete as
   * mounted. Ready once it accepts connections; no liveness probe: one on the same port would only
   * see a listener gone with its process, which restarts the container anyway.
   */
  private static Container container(TenantContext ctx) {
    return new ContainerBuilder()
        .withName(PORT_NAME)
        .withImage(ctx.config().databaseImages().pgbouncer())
        .withCommand(BINARY, PgBouncerConfig.DIRECTORY + "/" + PgBouncerConfig.INI)
        .addNewPort().withName(PORT_NAME).withContainerPort(PgBouncerConfig.PORT).endPort()
        .addNewVolumeMount().withName(CONFIG_VOLUME).withMountPath(PgBouncerConfig.DIRECTORY).withReadOnly(true).endVolumeMount()
        .withNewReadinessProbe().withNewTcpSocket().withPort(new IntOrString(PORT_NAME)).endTcpSocket()
        .withPeriodSeconds(5).withTimeoutSeconds(2).withFailureThreshold(3).endReadinessProbe()
        .withSecurityContext(PodSecurity.container(true))
        .build();
  }

  private static Map<String, String> selector(TenantContext ctx, DatabaseSpec db) {
    return Labels.selector(ctx.name(), Labels.COMPONENT_POOLER, db.getName());
  }

  private static Map<String, String> labels(TenantContext ctx, DatabaseSpec db) {
    return Labels.workload(ctx.name(), Labels.COMPONENT_POOLER, db.getName());
  }

  private static String base64(String value) {
    return Base64.getEncoder().encodeToString(value.getBytes(StandardCharsets.UTF_8));
  }

  private static String sha256(String value) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
