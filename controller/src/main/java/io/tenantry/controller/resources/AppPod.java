package io.tenantry.controller.resources;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvFromSource;
import io.fabric8.kubernetes.api.model.EnvFromSourceBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.ProbeBuilder;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.tenantry.api.WellKnown;
import io.tenantry.api.v1alpha1.AppSecretRef;
import io.tenantry.api.v1alpha1.AppSpec;
import io.tenantry.api.v1alpha1.ComputeResources;
import io.tenantry.api.v1alpha1.ConfigFile;
import io.tenantry.api.v1alpha1.DatabaseSpec;
import io.tenantry.controller.binding.ServiceBinding;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The pod an app runs in, shared by its Deployment and its migration Job so that a migration sees
 * exactly what the app will: the app's bindings under {@link ServiceBinding#ROOT}, its template
 * secrets under {@link #SECRETS_DIR}, the tenant's identity under {@link #IDENTITY_DIR} and its
 * configuration files under {@link #CONFIG_DIR}, all read-only. Files refresh in place; what
 * reaches the container as environment (env-consumed secrets, binding URIs) or as configuration
 * is summed up in the {@link #RESTART_HASH} annotation, so that a change rolls the pods.
 */
public final class AppPod {

  public static final String SECRETS_DIR = "/etc/tenantry/secrets";
  public static final String IDENTITY_DIR = "/etc/tenantry/tenant";
  public static final String CONFIG_DIR = "/etc/tenantry/config";
  /** Pod-template annotation: a hash of the inputs a running pod cannot pick up without a restart. */
  public static final String RESTART_HASH = "tenantry.io/restart-hash";
  private static final String IDENTITY_VOLUME = "tenant-identity";
  private static final String CONFIG_VOLUME = "config";

  private AppPod() {
  }

  /** The databases {@code app} is bound to: those it names, or all of the tenant's. */
  public static List<DatabaseSpec> boundDatabases(TenantContext ctx, AppSpec app) {
    List<DatabaseSpec> all = ctx.tenant().getSpec().getDatabases();
    return app.getDatabases() == null ? all : all.stream().filter(db -> app.getDatabases().contains(db.getName())).toList();
  }

  /** The template secrets {@code app} names that are not among {@code templates}. */
  public static List<String> missingSecrets(AppSpec app, Map<String, Secret> templates) {
    return app.getSecrets().stream().map(AppSecretRef::getName).filter(name -> !templates.containsKey(name)).toList();
  }

  /**
   * Hash of what the app's containers read only at start: its configuration files, the content of
   * the template secrets it takes as environment and the credentials behind its binding URIs.
   */
  public static String restartHash(TenantContext ctx, AppSpec app, Map<String, Secret> templates,
      Map<String, DatabaseCredentials> credentials) {
    StringBuilder inputs = new StringBuilder();
    for (ConfigFile file : app.getConfig()) {
      inputs.append("config:").append(file.getName()).append('=').append(file.getContent()).append('\n');
    }
    for (AppSecretRef ref : app.getSecrets()) {
      if (Boolean.TRUE.equals(ref.getEnvFrom())) {
        inputs.append("secret:").append(ref.getName()).append('=').append(contentHash(templates.get(ref.getName()))).append('\n');
      }
    }
    for (DatabaseSpec db : boundDatabases(ctx, app)) {
      DatabaseCredentials dbCredentials = credentials.get(db.getName());
      inputs.append("binding:").append(db.getName()).append('=').append(dbCredentials == null ? "" : dbCredentials.contentHash())
          .append('\n');
      // The binding URI points at the pooler while there is one; a database without one adds nothing,
      // so that the hashes of tenants that never had a pooler stay as they were.
      if (db.getPooler() != null) {
        inputs.append("pooler:").append(db.getName()).append('=').append(db.getPooler().getMode()).append('\n');
      }
    }
    return sha256(inputs.toString()).substring(0, 16);
  }

  /** The app's pod: its container as {@code container} finishes it, with every input mounted or set. */
  public static PodSpec spec(TenantContext ctx, AppSpec app, String version, ContainerBuilder container, String restartPolicy) {
    return spec(ctx, app, version, container, restartPolicy, false);
  }

  /**
   * As {@link #spec(TenantContext, AppSpec, String, ContainerBuilder, String)}; {@code direct}: the
   * bindings of pooled databases reach the database itself ({@link Names#directBinding}), at the
   * same path, as a migration needs.
   */
  public static PodSpec spec(TenantContext ctx, AppSpec app, String version, ContainerBuilder container, String restartPolicy,
      boolean direct) {
    boolean readOnlyRoot = !Boolean.TRUE.equals(app.getWritableRootFilesystem());
    List<Volume> volumes = new ArrayList<>();
    List<VolumeMount> mounts = new ArrayList<>();
    for (DatabaseSpec db : boundDatabases(ctx, app)) {
      String volume = "binding-" + db.getName();
      volumes.add(new VolumeBuilder().withName(volume).withNewSecret().withSecretName(bindingSecret(db, direct))
          .endSecret().build());
      mounts.add(readOnly(volume, ServiceBinding.ROOT + "/" + db.getName()));
    }
    for (AppSecretRef ref : app.getSecrets()) {
      if (!Boolean.TRUE.equals(ref.getEnvFrom())) {
        String volume = "secret-" + sha256(ref.getName()).substring(0, 12);
        volumes.add(new VolumeBuilder().withName(volume).withNewSecret().withSecretName(ref.getName()).endSecret().build());
        mounts.add(readOnly(volume, SECRETS_DIR + "/" + ref.getName()));
      }
    }
    volumes.add(new VolumeBuilder().withName(IDENTITY_VOLUME).withNewConfigMap().withName(Names.IDENTITY).endConfigMap().build());
    mounts.add(readOnly(IDENTITY_VOLUME, IDENTITY_DIR));
    if (!app.getConfig().isEmpty()) {
      volumes.add(new VolumeBuilder().withName(CONFIG_VOLUME).withNewConfigMap().withName(Names.appConfig(app.getName()))
          .endConfigMap().build());
      mounts.add(readOnly(CONFIG_VOLUME, CONFIG_DIR));
    }
    List<String> scratch = readOnlyRoot ? List.of("/tmp") : List.of();
    volumes.addAll(PodSecurity.scratchVolumes(scratch));
    mounts.addAll(PodSecurity.scratchMounts(scratch));
    container
        .withImage(app.getImage() + ":" + version)
        .withEnv(env(ctx, app, direct))
        .withEnvFrom(envFrom(app))
        .withVolumeMounts(mounts)
        .withResources(resources(app))
        .withSecurityContext(PodSecurity.container(readOnlyRoot));
    return PodPolicy.placed(new PodSpecBuilder()
        .withAutomountServiceAccountToken(false)
        .withEnableServiceLinks(false)
        .withRestartPolicy(restartPolicy)
        .withSecurityContext(PodSecurity.pod(null))
        .withContainers(container.build())
        .withVolumes(volumes)
        .build(), ctx.plan());
  }

  /** Ready once serving: an HTTP GET on readinessPath, or a TCP connection to the port when the app names no path. */
  static Probe readiness(AppSpec app) {
    ProbeBuilder probe = new ProbeBuilder().withPeriodSeconds(5).withTimeoutSeconds(2).withFailureThreshold(3);
    if (app.getReadinessPath() == null) {
      probe.withNewTcpSocket().withPort(new IntOrString("http")).endTcpSocket();
    } else {
      probe.withNewHttpGet().withPath(app.getReadinessPath()).withPort(new IntOrString("http")).endHttpGet();
    }
    return probe.build();
  }

  /** Restarts a container that stopped answering livenessPath; none without one (a restart is not always a cure). */
  static Probe liveness(AppSpec app) {
    return app.getLivenessPath() == null ? null : new ProbeBuilder()
        .withNewHttpGet().withPath(app.getLivenessPath()).withPort(new IntOrString("http")).endHttpGet()
        .withInitialDelaySeconds(10).withPeriodSeconds(10).withTimeoutSeconds(2).withFailureThreshold(3)
        .build();
  }

  private static VolumeMount readOnly(String volume, String path) {
    return new VolumeMountBuilder().withName(volume).withMountPath(path).withReadOnly(true).build();
  }

  /** The spec's literal variables, SERVICE_BINDING_ROOT, then one URI variable per binding, read from its Secret. */
  private static List<EnvVar> env(TenantContext ctx, AppSpec app, boolean direct) {
    List<EnvVar> env = new ArrayList<>();
    app.getEnv().forEach(e -> env.add(new EnvVarBuilder().withName(e.getName()).withValue(e.getValue()).build()));
    env.add(new EnvVarBuilder().withName(ServiceBinding.ROOT_VARIABLE).withValue(ServiceBinding.ROOT).build());
    for (DatabaseSpec db : boundDatabases(ctx, app)) {
      env.add(new EnvVarBuilder().withName(ServiceBinding.envName(db.getName())).withNewValueFrom().withNewSecretKeyRef()
          .withName(bindingSecret(db, direct)).withKey(ServiceBinding.URI_KEY).endSecretKeyRef().endValueFrom().build());
    }
    return env;
  }

  /** The binding Secret the pod reads for {@code db}: the pooled one, or with {@code direct} the database's own. */
  private static String bindingSecret(DatabaseSpec db, boolean direct) {
    return direct && db.getPooler() != null ? Names.directBinding(db.getName()) : Names.binding(db.getName());
  }

  private static List<EnvFromSource> envFrom(AppSpec app) {
    return app.getSecrets().stream().filter(ref -> Boolean.TRUE.equals(ref.getEnvFrom()))
        .map(ref -> new EnvFromSourceBuilder().withNewSecretRef().withName(ref.getName()).endSecretRef().build())
        .toList();
  }

  private static ResourceRequirements resources(AppSpec app) {
    ResourceRequirementsBuilder builder = new ResourceRequirementsBuilder();
    if (app.getResources() != null) {
      builder.withRequests(QuotaModel.quantities(values(app.getResources().getRequests())));
      builder.withLimits(QuotaModel.quantities(values(app.getResources().getLimits())));
    }
    return builder.build();
  }

  private static Map<String, String> values(ComputeResources resources) {
    Map<String, String> values = new LinkedHashMap<>();
    if (resources != null) {
      if (resources.getCpu() != null) {
        values.put("cpu", resources.getCpu());
      }
      if (resources.getMemory() != null) {
        values.put("memory", resources.getMemory());
      }
    }
    return values;
  }

  private static String contentHash(Secret secret) {
    if (secret == null) {
      return "";
    }
    Map<String, String> annotations = secret.getMetadata().getAnnotations();
    String hash = annotations == null ? null : annotations.get(WellKnown.CONTENT_HASH);
    return hash != null ? hash : sha256(String.valueOf(secret.getData()));
  }

  public static String sha256(String value) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JDK", e);
    }
  }
}
