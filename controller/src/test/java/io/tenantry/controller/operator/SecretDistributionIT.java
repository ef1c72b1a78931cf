package io.tenantry.controller.operator;

import static io.tenantry.controller.operator.OperatorHarness.awaitPhase;
import static io.tenantry.controller.operator.OperatorHarness.setState;
import static io.tenantry.controller.operator.OperatorHarness.tenant;
import static io.tenantry.controller.operator.OperatorHarness.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.resources.DatabaseModel;
import io.tenantry.secretstore.Scope;
import io.tenantry.testsupport.TestCluster;
import io.tenantry.testsupport.WithCluster;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Secrets from the store reach every tenant: template secrets are copied into each tenant
 * namespace (one write per namespace when one changes), database credentials are generated once,
 * kept in the store and restored from it byte for byte, and no secret value is ever logged.
 */
@WithCluster(workloads = true)
class SecretDistributionIT {

  private static final int TENANTS = 50;
  private static final String SMTP_PASSWORD = "smtp-password-do-not-log-7f3a";
  private static final ListAppender<ILoggingEvent> LOGS = new ListAppender<>();
  private static OperatorHarness harness;
  private static KubernetesClient client;
  private static final List<String> names = new ArrayList<>();

  @BeforeAll
  static void startOperator(TestCluster cluster, KubernetesClient kubernetesClient) throws Exception {
    LOGS.start();
    ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).addAppender(LOGS);
    client = kubernetesClient;
    harness = new OperatorHarness(cluster, OperatorConfig.defaults());
    harness.store.put(Scope.template(), "smtp", Map.of("password", SMTP_PASSWORD.getBytes(StandardCharsets.UTF_8)));
    harness.store.put(Scope.template(), "api-key", Map.of("key", "api-key-value-4b1c".getBytes(StandardCharsets.UTF_8)));
    harness.parts.templates().refresh();
    for (int i = 0; i < TENANTS; i++) {
      String name = uniqueName("secrets");
      names.add(name);
      client.resources(Tenant.class).resource(tenant(name, 1, i == 0)).create();
    }
    await().atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofSeconds(1)).until(() -> names.stream().allMatch(n -> {
      Tenant t = client.resources(Tenant.class).withName(n).get();
      return t.getStatus() != null && t.getStatus().getPhase() == TenantPhase.Ready;
    }));
  }

  @AfterAll
  static void stopOperator() {
    harness.close();
    ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).detachAppender(LOGS);
  }

  @Test
  void templateSecretsAreCopiedAndOneChangeCostsOneWritePerNamespace() {
    for (String name : names) {
      Secret copy = client.secrets().inNamespace("tenant-" + name).withName("smtp").get();
      assertThat(decode(copy, "password")).isEqualTo(SMTP_PASSWORD);
    }
    harness.awaitIdle();
    String before = client.resources(Tenant.class).withName(names.get(1)).get().getStatus().getSecretsVersion();
    assertThat(before).isNotBlank();
    long writesBefore = tenantSecretWrites();

    harness.store.put(Scope.template(), "smtp", Map.of("password", "rotated-smtp-password-9e2d".getBytes(StandardCharsets.UTF_8)));
    harness.parts.templates().refresh();
    await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofSeconds(1)).until(() -> names.stream().allMatch(n -> {
      Tenant t = client.resources(Tenant.class).withName(n).get();
      return !before.equals(t.getStatus().getSecretsVersion());
    }));
    harness.awaitIdle();

    assertThat(tenantSecretWrites() - writesBefore).as("secret writes into tenant namespaces").isEqualTo(TENANTS);
    for (String name : names) {
      assertThat(decode(client.secrets().inNamespace("tenant-" + name).withName("smtp").get(), "password"))
          .isEqualTo("rotated-smtp-password-9e2d");
      assertThat(client.resources(Tenant.class).withName(name).get().getStatus().getConditions())
          .anySatisfy(c -> assertThat(c.getType() + "=" + c.getStatus()).isEqualTo("SecretsSynced=True"));
    }
  }

  @Test
  void databaseCredentialsComeFromTheStoreAndSurviveEverything() throws Exception {
    String name = names.get(0);
    String ns = "tenant-" + name;
    Secret original = client.secrets().inNamespace(ns).withName("db-main-credentials").get();
    byte[] stored = harness.store.get(Scope.tenant(name), "db-main-credentials").orElseThrow().data().get("password");
    assertThat(DatabaseModel.password(original)).isEqualTo(new String(stored, StandardCharsets.UTF_8));

    // Deleted by hand: restored from the store, byte for byte.
    client.secrets().inNamespace(ns).withName("db-main-credentials").delete();
    await().atMost(Duration.ofSeconds(30)).until(() -> {
      Secret s = client.secrets().inNamespace(ns).withName("db-main-credentials").get();
      return s != null && s.getMetadata().getDeletionTimestamp() == null && !s.getMetadata().getUid().equals(original.getMetadata().getUid());
    });
    assertThat(client.secrets().inNamespace(ns).withName("db-main-credentials").get().getData()).isEqualTo(original.getData());

    // A restarted operator (nothing kept in memory) keeps them, and restores them from the store.
    harness.restart();
    harness.awaitIdle();
    assertThat(client.secrets().inNamespace(ns).withName("db-main-credentials").get().getData()).isEqualTo(original.getData());
    client.secrets().inNamespace(ns).withName("db-main-credentials").delete();
    await().atMost(Duration.ofSeconds(30)).until(() -> {
      Secret s = client.secrets().inNamespace(ns).withName("db-main-credentials").get();
      return s != null && s.getMetadata().getDeletionTimestamp() == null && s.getData().equals(original.getData());
    });

    // Archived and back.
    setState(client, name, TenantState.Archived);
    awaitPhase(client, name, TenantPhase.Archived, Duration.ofMinutes(2));
    setState(client, name, TenantState.Active);
    awaitPhase(client, name, TenantPhase.Ready, Duration.ofMinutes(2));
    assertThat(client.secrets().inNamespace(ns).withName("db-main-credentials").get().getData()).isEqualTo(original.getData());
  }

  @Test
  void noSecretValueIsLoggedOrInAnEvent() {
    List<String> values = new ArrayList<>(List.of(SMTP_PASSWORD, "rotated-smtp-password-9e2d", "api-key-value-4b1c"));
    Secret credentials = client.secrets().inNamespace("tenant-" + names.get(0)).withName("db-main-credentials").get();
    values.add(DatabaseModel.password(credentials));
    assertThat(LOGS.list).isNotEmpty();
    for (ILoggingEvent event : LOGS.list) {
      assertThat(event.getFormattedMessage()).doesNotContain(values);
    }
    for (Event event : client.v1().events().inNamespace("default").list().getItems()) {
      assertThat(event.getMessage()).doesNotContain(values);
    }
  }

  private static long tenantSecretWrites() {
    return harness.requests.all().stream()
        .filter(r -> !r.startsWith("GET") && r.contains("/namespaces/tenant-") && r.contains("/secrets/"))
        .count();
  }

  private static String decode(Secret secret, String key) {
    return new String(Base64.getDecoder().decode(secret.getData().get(key)), StandardCharsets.UTF_8);
  }
}
