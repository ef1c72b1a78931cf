package io.tenantry.controller.operator;

import static io.tenantry.controller.operator.OperatorHarness.awaitPhase;
import static io.tenantry.controller.operator.OperatorHarness.setState;
import static io.tenantry.controller.operator.OperatorHarness.tenant;
import static io.tenantry.controller.operator.OperatorHarness.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.tenantry.api.v1alpha1.PoolerMode;
import io.tenantry.api.v1alpha1.PoolerSpec;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.resources.AppPod;
import io.tenantry.controller.status.Conditions;
import io.tenantry.secretstore.Scope;
import io.tenantry.testsupport.TestCluster;
import io.tenantry.testsupport.WithCluster;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/** A database's PgBouncer on the simulated cluster: made, bound, stopped, removed and refused as the spec and plan say. */
@WithCluster(workloads = true)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PoolerIT {

  private static final Duration CONVERGE = Duration.ofSeconds(90);

  private static OperatorHarness harness;
  private static KubernetesClient client;

  @BeforeAll
  static void start(TestCluster cluster, KubernetesClient kubernetesClient) throws Exception {
    client = kubernetesClient;
    harness = new OperatorHarness(cluster, OperatorConfig.defaults());
  }

  @AfterAll
  static void stop() {
    if (harness != null) {
      harness.close();
    }
  }

  @Test
  void aPooledDatabaseGetsAHardenedPgBouncerTheAppsBindTo() {
    String name = uniqueName("pooled");
    client.resources(Tenant.class).resource(pooled(name, 5)).create();
    awaitPhase(client, name, TenantPhase.Ready, CONVERGE);
    String ns = "tenant-" + name;

    Deployment pooler = client.apps().deployments().inNamespace(ns).withName("db-main-pooler").get();
    assertThat(pooler.getSpec().getReplicas()).isEqualTo(1);
    assertThat(pooler.getStatus().getReadyReplicas()).as("Ready waits for the pooler too").isEqualTo(1);
    Container pgbouncer = pooler.getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(pgbouncer.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
    assertThat(pgbouncer.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
    assertThat(client.services().inNamespace(ns).withName("db-main-pooler").get()).isNotNull();
    String ini = decode(client.secrets().inNamespace(ns).withName("db-main-pooler-config").get(), "pgbouncer.ini");
    assertThat(ini).contains("pool_mode = transaction", "default_pool_size = 5");

    Secret binding = client.secrets().inNamespace(ns).withName("db-main-binding").get();
    assertThat(decode(binding, "host")).startsWith("db-main-pooler.");
    assertThat(decode(binding, "jdbc-url")).startsWith("jdbc:postgresql://db-main-pooler.").endsWith("?prepareThreshold=0");
    Secret direct = client.secrets().inNamespace(ns).withName("db-main-direct-binding").get();
    assertThat(decode(direct, "host")).as("migrations bypass the pooler").startsWith("db-main.");
    assertThat(decode(direct, "password")).isEqualTo(decode(binding, "password"));

    setState(client, name, TenantState.Frozen);
    awaitPhase(client, name, TenantPhase.Frozen, CONVERGE);
    assertThat(client.apps().deployments().inNamespace(ns).withName("db-main-pooler").get().getSpec().getReplicas()).isZero();

    setState(client, name, TenantState.Archived);
    awaitPhase(client, name, TenantPhase.Archived, CONVERGE);
    await().atMost(CONVERGE).until(() -> client.apps().deployments().inNamespace(ns).withName("db-main-pooler").get() == null);
    assertThat(decode(client.secrets().inNamespace(ns).withName("db-main-binding").get(), "host"))
        .as("archived: the binding is the database's again").startsWith("db-main.");
  }

  @Test
  void aPoolLargerThanThePlansBudgetIsRefusedNamingTheFieldAndNothingOfItIsWritten() {
    String name = uniqueName("greedy");
    client.resources(Tenant.class).resource(tenant(name, 1, true)).create();
    awaitPhase(client, name, TenantPhase.Ready, CONVERGE);
    String ns = "tenant-" + name;
    String host = decode(client.secrets().inNamespace(ns).withName("db-main-binding").get(), "host");

    client.resources(Tenant.class).withName(name).edit(t -> {
      t.getSpec().getDatabases().get(0).setPooler(new PoolerSpec(PoolerMode.TRANSACTION, 50, 100, 1));
      return t;
    });
    Tenant refused = awaitPhase(client, name, TenantPhase.Degraded, CONVERGE);
    Condition ready = Conditions.find(refused.getStatus().getConditions(), Conditions.READY).orElseThrow();
    assertThat(ready.getReason()).isEqualTo("PoolerRefused");
    assertThat(ready.getMessage()).contains("spec.databases[0].pooler");
    harness.awaitIdle();
    assertThat(client.apps().deployments().inNamespace(ns).withName("db-main-pooler").get()).isNull();
    assertThat(decode(client.secrets().inNamespace(ns).withName("db-main-binding").get(), "host")).isEqualTo(host);
  }

  @Test
  @Order(Integer.MAX_VALUE) // last: it restarts the operator
  void aCredentialChangeInTheStoreRollsThePoolerOnceAndTheBindingFollows() throws Exception {
    String name = uniqueName("rotated");
    client.resources(Tenant.class).resource(pooled(name, 5)).create();
    awaitPhase(client, name, TenantPhase.Ready, CONVERGE);
    String ns = "tenant-" + name;
    harness.awaitIdle();
    String hash = restartHash(ns);
    long before = poolerWrites(ns);

    String rotated = "rotated-" + name;
    harness.store.put(Scope.tenant(name), "db-main-credentials",
        Map.of("username", "tenant".getBytes(StandardCharsets.UTF_8), "password", rotated.getBytes(StandardCharsets.UTF_8)));
    harness.restart(); // credentials are read from the store once per process: a restart brings a change made there
    await().atMost(CONVERGE).until(() -> rotated.equals(decode(client.secrets().inNamespace(ns).withName("db-main-binding").get(),
        "password")));
    assertThat(decode(client.secrets().inNamespace(ns).withName("db-main-pooler-config").get(), "userlist.txt")).contains(rotated);
    harness.awaitIdle();
    Thread.sleep(1000);
    harness.awaitIdle();
    assertThat(restartHash(ns)).isNotEqualTo(hash);
    assertThat(poolerWrites(ns) - before).as("writes of the pooler's Deployment: one roll").isEqualTo(1);
  }

  private static String restartHash(String ns) {
    return client.apps().deployments().inNamespace(ns).withName("db-main-pooler").get().getSpec().getTemplate().getMetadata()
        .getAnnotations().get(AppPod.RESTART_HASH);
  }

  /** Requests but GETs the operator sent to the pooler's Deployment so far. */
  private static long poolerWrites(String ns) {
    return harness.requests.all().stream()
        .filter(r -> !r.startsWith("GET ") && r.contains("/namespaces/" + ns + "/deployments/db-main-pooler")).count();
  }

  private static Tenant pooled(String name, int poolSize) {
    Tenant tenant = tenant(name, 1, true);
    tenant.getSpec().getDatabases().get(0).setPooler(new PoolerSpec(PoolerMode.TRANSACTION, poolSize, 100, 1));
    return tenant;
  }

  private static String decode(Secret secret, String key) {
    return new String(Base64.getDecoder().decode(secret.getData().get(key)), StandardCharsets.UTF_8);
  }
}
