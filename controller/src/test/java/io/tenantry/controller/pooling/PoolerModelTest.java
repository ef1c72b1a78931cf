package io.tenantry.controller.pooling;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.tenantry.api.v1alpha1.DatabaseSpec;
import io.tenantry.api.v1alpha1.PoolerMode;
import io.tenantry.api.v1alpha1.PoolerSpec;
import io.tenantry.controller.resources.AppPod;
import io.tenantry.controller.resources.AppPodTest;
import io.tenantry.controller.resources.DatabaseCredentials;
import io.tenantry.controller.resources.Labels;
import io.tenantry.controller.resources.TenantContext;
import io.tenantry.controller.resources.Workloads;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

class PoolerModelTest {

  static final DatabaseCredentials CREDENTIALS = new DatabaseCredentials("tenant", "s3cret-pw", "7", "hash-7");

  /** Tenant acme whose PostgreSQL database "main" has {@code pooler}. */
  static TenantContext context(PoolerSpec pooler) {
    TenantContext ctx = AppPodTest.context(AppPodTest.web());
    main(ctx).setPooler(pooler);
    return ctx;
  }

  static DatabaseSpec main(TenantContext ctx) {
    return ctx.tenant().getSpec().getDatabases().get(0);
  }

  @Test
  void thePoolerRunsPinnedPgBouncerRestrictedReadOnlyAndReadyOnceItAcceptsConnections() {
    TenantContext ctx = context(new PoolerSpec(PoolerMode.TRANSACTION, 10, 100, 2));
    Deployment deployment = PoolerModel.deployment(ctx, main(ctx), 2, "abc");
    PodSpec pod = deployment.getSpec().getTemplate().getSpec();
    Container container = pod.getContainers().get(0);
    assertThat(deployment.getMetadata().getName()).isEqualTo("db-main-pooler");
    assertThat(deployment.getMetadata().getNamespace()).isEqualTo("tenant-acme");
    assertThat(deployment.getSpec().getTemplate().getMetadata().getLabels()).containsEntry(Labels.COMPONENT, "pooler")
        .containsEntry(Labels.NAME, "main");
    assertThat(container.getImage()).isEqualTo("ghcr.io/cloudnative-pg/pgbouncer:1.24.0");
    assertThat(container.getCommand()).containsExactly("/usr/bin/pgbouncer", "/etc/pgbouncer/pgbouncer.ini");
    assertThat(container.getReadinessProbe().getTcpSocket().getPort().getStrVal()).isEqualTo("pgbouncer");
    assertThat(container.getLivenessProbe()).as("kube-score: not the readiness probe again").isNull();
    assertThat(container.getPorts().get(0).getContainerPort()).isEqualTo(5432);
    assertThat(container.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
    assertThat(container.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
    assertThat(container.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
    assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
    assertThat(pod.getSecurityContext().getRunAsUser()).isEqualTo(PoolerModel.POOLER_USER);
    assertThat(pod.getAutomountServiceAccountToken()).isFalse();
    assertThat(pod.getVolumes().get(0).getSecret().getSecretName()).isEqualTo("db-main-pooler-config");
    assertThat(pod.getVolumes().get(0).getSecret().getDefaultMode()).isEqualTo(0440);
    assertThat(pod.getAffinity().getPodAntiAffinity()).isNotNull();
  }

  @Test
  void theServiceReachesOnlyThePoolerPodsOnPostgresPort() {
    TenantContext ctx = context(new PoolerSpec());
    Service service = PoolerModel.service(ctx, main(ctx));
    assertThat(service.getMetadata().getName()).isEqualTo("db-main-pooler");
    assertThat(service.getSpec().getSelector()).containsEntry(Labels.COMPONENT, "pooler").containsEntry(Labels.NAME, "main");
    assertThat(service.getSpec().getPorts().get(0).getPort()).isEqualTo(5432);
    assertThat(PoolerModel.host(ctx, main(ctx))).isEqualTo("db-main-pooler.tenant-acme.svc.cluster.local");
  }

  @Test
  void theConfigSecretHoldsTheRenderedFilesAndTheCredentialsVersion() {
    TenantContext ctx = context(new PoolerSpec());
    PgBouncerConfig config = PoolerModel.config(ctx, main(ctx), CREDENTIALS, 20);
    Secret secret = PoolerModel.configSecret(ctx, main(ctx), config, CREDENTIALS);
    assertThat(secret.getMetadata().getName()).isEqualTo("db-main-pooler-config");
    assertThat(decoded(secret, "pgbouncer.ini")).isEqualTo(config.ini())
        .contains("host=db-main.tenant-acme.svc.cluster.local port=5432", "max_db_connections = 20");
    assertThat(decoded(secret, "userlist.txt")).isEqualTo("\"tenant\" \"s3cret-pw\"\n");
    assertThat(secret.getMetadata().getAnnotations()).containsValues("7", "hash-7");
  }

  @Test
  void aCredentialChangeChangesTheRestartHashOnceAndTheHashNeverCarriesThePassword() {
    TenantContext ctx = context(new PoolerSpec());
    String before = hash(ctx, CREDENTIALS);
    DatabaseCredentials rotated = new DatabaseCredentials("tenant", "n3w-pw", "8", "hash-8");
    assertThat(hash(ctx, CREDENTIALS)).isEqualTo(before);
    assertThat(hash(ctx, rotated)).isNotEqualTo(before).isEqualTo(hash(ctx, rotated));
    assertThat(hash(ctx, new DatabaseCredentials("tenant", "other-pw", "7", "hash-7"))).isEqualTo(before);
  }

  @Test
  void frozenKeepsThePoolerAtZeroPodsAndArchivedRemovesIt() {
    TenantContext ctx = context(new PoolerSpec(PoolerMode.TRANSACTION, 10, 100, 3));
    List<HasMetadata> running = PoolerModel.objects(ctx, main(ctx), CREDENTIALS, Workloads.RUNNING, 10);
    assertThat(running).extracting(o -> o.getKind() + "/" + o.getMetadata().getName()).containsExactly(
        "Secret/db-main-pooler-config", "Service/db-main-pooler", "PodDisruptionBudget/db-main-pooler", "Deployment/db-main-pooler");
    assertThat(deployment(running).getSpec().getReplicas()).isEqualTo(3);
    List<HasMetadata> frozen = PoolerModel.objects(ctx, main(ctx), CREDENTIALS, Workloads.SCALED_TO_ZERO, 10);
    assertThat(deployment(frozen).getSpec().getReplicas()).isZero();
    assertThat(frozen).noneMatch(o -> o.getKind().equals("PodDisruptionBudget"));
    assertThat(PoolerModel.objects(ctx, main(ctx), CREDENTIALS, Workloads.REMOVED, 10)).isEmpty();
    assertThat(PoolerModel.objects(context(null), main(context(null)), CREDENTIALS, Workloads.RUNNING, 10)).isEmpty();
  }

  private static String hash(TenantContext ctx, DatabaseCredentials credentials) {
    String hash = deployment(PoolerModel.objects(ctx, main(ctx), credentials, Workloads.RUNNING, 10))
        .getSpec().getTemplate().getMetadata().getAnnotations().get(AppPod.RESTART_HASH);
    assertThat(hash).hasSize(16).doesNotContain(credentials.password());
    return hash;
  }

  private static Deployment deployment(List<HasMetadata> objects) {
    return objects.stream().filter(Deployment.class::isInstance).map(Deployment.class::cast).findFirst().orElseThrow();
  }

  static String decoded(Secret secret, String key) {
    return new String(Base64.getDecoder().decode(secret.getData().get(key)), StandardCharsets.UTF_8);
  }
}
