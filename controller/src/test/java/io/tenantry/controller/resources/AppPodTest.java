package io.tenantry.controller.resources;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.WeightedPodAffinityTerm;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.tenantry.api.v1alpha1.AppSecretRef;
import io.tenantry.api.v1alpha1.AppSpec;
import io.tenantry.api.v1alpha1.ConfigFile;
import io.tenantry.api.v1alpha1.DatabaseEngine;
import io.tenantry.api.v1alpha1.DatabaseSpec;
import io.tenantry.api.v1alpha1.EnvVar;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantSpec;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.controller.config.OperatorConfig;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The pod an app gets: its bindings, secrets, identity, configuration and probes, exactly. */
public class AppPodTest {

  private static final Map<String, DatabaseCredentials> CREDENTIALS = Map.of(
      "main", new DatabaseCredentials("tenant", "p@ss:w/rd%?#", "v1", "h1"),
      "cache", new DatabaseCredentials("default", "s3cret", "v2", "h2"),
      "audit", new DatabaseCredentials("tenant", "other", "v3", "h3"));

  private static final Secret SMTP = new SecretBuilder()
      .withNewMetadata().withName("smtp").withNamespace("tenantry-templates").addToAnnotations("tenantry.io/content-hash", "c1")
      .endMetadata().addToData("password", "c2VjcmV0").build();
  private static final Secret STRIPE = new SecretBuilder()
      .withNewMetadata().withName("stripe").withNamespace("tenantry-templates").addToAnnotations("tenantry.io/content-hash", "c2")
      .endMetadata().addToData("key", "c2VjcmV0").build();

  public static AppSpec web() {
    AppSpec web = new AppSpec("web", "registry.example.com/acme/web", "2.0.0", 1, 8080);
    web.getEnv().add(new EnvVar("LOG_LEVEL", "info"));
    web.setDatabases(List.of("main", "cache"));
    web.getSecrets().add(new AppSecretRef("smtp", false));
    web.setReadinessPath("/healthz");
    web.setLivenessPath("/livez");
    return web;
  }

  public static TenantContext context(AppSpec app) {
    Tenant tenant = new Tenant();
    tenant.getMetadata().setName("acme");
    TenantSpec spec = new TenantSpec();
    spec.setState(TenantState.Active);
    spec.setOrganization("Acme Corp");
    spec.setEmail("ops@acme.example");
    spec.getDatabases().add(new DatabaseSpec("main", DatabaseEngine.POSTGRES, "16.4", "10Gi"));
    spec.getDatabases().add(new DatabaseSpec("cache", DatabaseEngine.REDIS, "7.2", "1Gi"));
    spec.getDatabases().add(new DatabaseSpec("audit", DatabaseEngine.MYSQL, "8.4", "1Gi"));
    spec.getApps().add(app);
    tenant.setSpec(spec);
    OperatorConfig config = OperatorConfig.defaults();
    return new TenantContext(tenant, config, config.plans().get("standard"));
  }

  public static Deployment deployment(AppSpec app) {
    TenantContext ctx = context(app);
    return AppModel.deployment(ctx, app, app.getVersion(), 1,
        AppPod.restartHash(ctx, app, DesiredState.byName(List.of(SMTP, STRIPE)), CREDENTIALS));
  }

  @Test
  void anAppBoundToTwoDatabasesAndOneTemplateSecretGetsExactlyThisPod() {
    PodSpec pod = deployment(web()).getSpec().getTemplate().getSpec();
    assertThat(pod.getVolumes()).extracting(v -> v.getName() + ":" + (v.getSecret() != null ? "secret/" + v.getSecret().getSecretName()
            : v.getConfigMap() != null ? "configMap/" + v.getConfigMap().getName() : "emptyDir/" + v.getEmptyDir().getSizeLimit()))
        .containsExactly(
            "binding-main:secret/db-main-binding",
            "binding-cache:secret/db-cache-binding",
            "secret-" + AppPod.sha256("smtp").substring(0, 12) + ":secret/smtp",
            "tenant-identity:configMap/tenant-identity",
            "scratch-tmp:emptyDir/256Mi");
    Container container = pod.getContainers().get(0);
    assertThat(container.getVolumeMounts()).extracting(m -> m.getMountPath() + (Boolean.TRUE.equals(m.getReadOnly()) ? " ro" : " rw"))
        .containsExactly("/bindings/main ro", "/bindings/cache ro", "/etc/tenantry/secrets/smtp ro", "/etc/tenantry/tenant ro",
            "/tmp rw");
    assertThat(container.getEnv()).extracting(e -> e.getName() + "=" + (e.getValue() != null ? e.getValue()
            : e.getValueFrom().getSecretKeyRef().getName() + "#" + e.getValueFrom().getSecretKeyRef().getKey()))
        .containsExactly("LOG_LEVEL=info", "SERVICE_BINDING_ROOT=/bindings", "MAIN_URL=db-main-binding#uri",
            "CACHE_URL=db-cache-binding#uri");
    assertThat(container.getEnvFrom()).isEmpty();
    assertThat(container.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/healthz");
    assertThat(container.getReadinessProbe().getHttpGet().getPort().getStrVal()).isEqualTo("http");
    assertThat(container.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/livez");
    assertThat(container.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
    assertThat(container.getSecurityContext().getRunAsNonRoot()).isTrue();
    assertThat(container.getSecurityContext().getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
    assertThat(container.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
    assertThat(pod.getAutomountServiceAccountToken()).isFalse();
  }

  @Test
  void withoutAReadinessPathThePortMustAcceptConnectionsAndNoLivenessIsGuessed() {
    AppSpec app = new AppSpec("api", "registry.example.com/acme/api", "1.0", 1, 9000);
    Container container = deployment(app).getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(container.getReadinessProbe().getTcpSocket().getPort().getStrVal()).isEqualTo("http");
    assertThat(container.getLivenessProbe()).isNull();
  }

  @Test
  void absentDatabasesMeansBoundToAll() {
    AppSpec app = new AppSpec("api", "registry.example.com/acme/api", "1.0", 1, 9000);
    assertThat(AppPod.boundDatabases(context(app), app)).extracting(DatabaseSpec::getName).containsExactly("main", "cache", "audit");
    app.setDatabases(List.of());
    assertThat(AppPod.boundDatabases(context(app), app)).isEmpty();
  }

  @Test
  void theBindingSecretHasTheSpecKeysAndAPercentEncodedUri() {
    AppSpec app = web();
    TenantContext ctx = context(app);
    Secret binding = DatabaseModel.bindingSecret(ctx, ctx.tenant().getSpec().getDatabases().get(0), CREDENTIALS.get("main"));
    Map<String, String> files = binding.getData().entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey,
        e -> new String(Base64.getDecoder().decode(e.getValue()), StandardCharsets.UTF_8)));
    assertThat(binding.getType()).isEqualTo("servicebinding.io/postgresql");
    assertThat(files).containsOnly(
        Map.entry("type", "postgresql"), Map.entry("provider", "tenantry"),
        Map.entry("host", "db-main.tenant-acme.svc.cluster.local"), Map.entry("port", "5432"),
        Map.entry("username", "tenant"), Map.entry("password", "p@ss:w/rd%?#"), Map.entry("database", "tenant"),
        Map.entry("uri", "postgresql://tenant:p%40ss%3Aw%2Frd%25%3F%23@db-main.tenant-acme.svc.cluster.local:5432/tenant"));
    Secret redis = DatabaseModel.bindingSecret(ctx, ctx.tenant().getSpec().getDatabases().get(1), CREDENTIALS.get("cache"));
    assertThat(redis.getData()).doesNotContainKey("database");
  }

  @Test
  void envSecretsAndConfigRollThePodsFileSecretsDoNot() {
    AppSpec app = web();
    String before = hash(app);
    app.getSecrets().add(new AppSecretRef("stripe", true));
    String withEnvSecret = hash(app);
    assertThat(withEnvSecret).isNotEqualTo(before);
    assertThat(deployment(app).getSpec().getTemplate().getSpec().getContainers().get(0).getEnvFrom())
        .extracting(e -> e.getSecretRef().getName()).containsExactly("stripe");
    app.getConfig().add(new ConfigFile("app.yaml", "feature: on"));
    assertThat(hash(app)).isNotEqualTo(withEnvSecret);
    // A changed file-mounted secret (smtp) is refreshed in place: the hash does not see it.
    TenantContext ctx = context(app);
    Secret smtpChanged = new SecretBuilder(SMTP).editMetadata().addToAnnotations("tenantry.io/content-hash", "c9").endMetadata().build();
    assertThat(AppPod.restartHash(ctx, app, DesiredState.byName(List.of(smtpChanged, STRIPE)), CREDENTIALS)).isEqualTo(hash(app));
  }

  @Test
  void aWritableRootFilesystemIsTheAppsChoice() {
    AppSpec app = web();
    app.setWritableRootFilesystem(true);
    PodSpec pod = deployment(app).getSpec().getTemplate().getSpec();
    assertThat(pod.getContainers().get(0).getSecurityContext().getReadOnlyRootFilesystem()).isFalse();
    assertThat(pod.getVolumes()).noneMatch(v -> v.getEmptyDir() != null);
  }

  @Test
  void replicasPreferDifferentNodesWithoutRequiringThem() {
    PodSpec pod = deployment(web()).getSpec().getTemplate().getSpec();
    assertThat(pod.getAffinity().getPodAntiAffinity().getRequiredDuringSchedulingIgnoredDuringExecution()).isEmpty();
    WeightedPodAffinityTerm preferred = pod.getAffinity().getPodAntiAffinity().getPreferredDuringSchedulingIgnoredDuringExecution().get(0);
    assertThat(preferred.getPodAffinityTerm().getTopologyKey()).isEqualTo("kubernetes.io/hostname");
    assertThat(preferred.getPodAffinityTerm().getLabelSelector().getMatchLabels())
        .isEqualTo(deployment(web()).getSpec().getSelector().getMatchLabels());
  }

  @Test
  void theIdentityNamesTheCustomer() {
    AppSpec app = web();
    HasMetadata identity = IdentityModel.configMap(context(app));
    assertThat(((io.fabric8.kubernetes.api.model.ConfigMap) identity).getData()).containsExactly(
        Map.entry("name", "acme"), Map.entry("organization", "Acme Corp"), Map.entry("email", "ops@acme.example"),
        Map.entry("plan", "standard"), Map.entry("state", "Active"));
  }

  private static String hash(AppSpec app) {
    return deployment(app).getSpec().getTemplate().getMetadata().getAnnotations().get(AppPod.RESTART_HASH);
  }
}
