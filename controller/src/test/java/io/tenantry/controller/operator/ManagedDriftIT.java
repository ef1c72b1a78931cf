package io.tenantry.controller.operator;

import static io.tenantry.controller.operator.OperatorHarness.awaitPhase;
import static io.tenantry.controller.operator.OperatorHarness.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.status.Conditions;
import io.tenantry.testsupport.TestCluster;
import io.tenantry.testsupport.WithCluster;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Acting as a cluster admin, each field the operator reads back from each kind it manages is
 * corrupted on a real API server: the credentials' keys, the binding's keys, the identity, a
 * Service's type, a Deployment's pause. Each is put back by one write (one sync) and the next
 * sync writes nothing; the tenant stays Ready throughout, and its guardrails are reconciled
 * meanwhile. One tenant using everything an app can, set up once.
 */
@WithCluster(workloads = true)
class ManagedDriftIT {

  private static final Duration CONVERGE = Duration.ofSeconds(90);
  private static final Duration REPAIR = Duration.ofSeconds(30);
  private static OperatorHarness harness;
  private static KubernetesClient client;
  private static String name;
  private static String ns;

  @BeforeAll
  static void start(TestCluster cluster, KubernetesClient kubernetesClient) throws Exception {
    client = kubernetesClient;
    // Its own template namespace: other test classes leave their templates in the default one.
    harness = new OperatorHarness(cluster, OperatorConfig.defaults().with("templateNamespace: tenantry-templates-drift"));
    harness.putWorkingTemplates();
    name = uniqueName("drift");
    ns = "tenant-" + name;
    client.resources(Tenant.class).resource(OperatorHarness.workingTenant(name)).create();
    awaitPhase(client, name, TenantPhase.Ready, CONVERGE);
  }

  @AfterAll
  static void stop() {
    harness.close();
  }

  /** A JSON patch of a Secret, as {@code kubectl patch secret --type=json} sends it. */
  private static Runnable patchSecret(String secret, String patch) {
    return () -> client.secrets().inNamespace(ns).withName(secret).patch(PatchContext.of(PatchType.JSON), patch);
  }

  private static Runnable patchConfigMap(String configMap, String patch) {
    return () -> client.configMaps().inNamespace(ns).withName(configMap).patch(PatchContext.of(PatchType.JSON), patch);
  }

  private static Map<String, String> quota() {
    return client.resourceQuotas().inNamespace(ns).withName("tenant-quota").get().getSpec().getHard().entrySet().stream()
        .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().toString()));
  }

  private static Secret secret(String secret) {
    return client.secrets().inNamespace(ns).withName(secret).get();
  }

  /** The writes (not reads) the operator sent since request {@code from}, as "METHOD uri". */
  private static List<String> writesSince(int from) {
    List<String> all = harness.requests.all();
    return all.subList(from, all.size()).stream().filter(r -> !r.startsWith("GET ")).toList();
  }

  /**
   * Corrupts with {@code corrupt}, waits until {@code observed} is as it was again, then checks:
   * the operator put it back with one write to {@code path}, never wrote the tenant's status (it
   * stayed Ready), and a requeue of the converged tenant sends no request.
   */
  private static void putBackInOneSync(Runnable corrupt, Supplier<Object> observed, String path) {
    Object good = observed.get();
    harness.awaitIdle();
    int from = harness.requests.all().size();
    corrupt.run();
    await().atMost(REPAIR).pollInterval(Duration.ofMillis(200)).until(() -> Objects.equals(observed.get(), good));
    settle();
    List<String> writes = writesSince(from);
    assertThat(writes.stream().filter(w -> w.contains(path + "?") || w.endsWith(path)))
        .as("writes putting %s back; all writes: %s", path, writes).hasSize(1);
    assertThat(writes).as("the tenant stayed Ready: no status write").noneMatch(w -> w.contains("/tenants/" + name + "/status"));
    assertReady();
    assertNextSyncWritesNothing();
  }

  /** Lets the repair's own watch events be synced before counting anything. */
  private static void settle() {
    harness.awaitIdle();
    await().pollDelay(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3)).until(() -> true);
    harness.awaitIdle();
  }

  private static void assertReady() {
    Tenant tenant = client.resources(Tenant.class).withName(name).get();
    assertThat(tenant.getStatus().getPhase()).isEqualTo(TenantPhase.Ready);
    Condition ready = Conditions.find(tenant.getStatus().getConditions(), Conditions.READY).orElseThrow();
    assertThat(ready.getReason()).isEqualTo("Converged");
    assertThat(Conditions.find(tenant.getStatus().getConditions(), Conditions.SECRETS_SYNCED).orElseThrow().getStatus())
        .isEqualTo("True");
  }

  private static void assertNextSyncWritesNothing() {
    double syncs = syncCount();
    long before = harness.requests.count();
    harness.parts.queue().add(name);
    await().atMost(Duration.ofSeconds(30)).until(() -> syncCount() > syncs);
    harness.awaitIdle();
    assertThat(harness.requests.count() - before).as("requests of the next sync; recent: %s", harness.requests.recent()).isZero();
  }

  private static double syncCount() {
    return harness.parts.registry().get("tenantry.sync").tag("queue", "tenants").tag("result", "success").timer().count();
  }

  @Test
  void theCredentialsWithTheirPasswordRemovedArePutBackFromTheStoreAndTheGuardrailsMeanwhile() {
    putBackInOneSync(patchSecret("db-main-credentials", "[{\"op\":\"remove\",\"path\":\"/data/password\"}]"),
        () -> secret("db-main-credentials").getData(), "/secrets/db-main-credentials");

    // The same, with the guardrails tampered with at once: all of it comes back in the same sync.
    Map<String, String> quota = quota();
    harness.awaitIdle();
    int from = harness.requests.all().size();
    patchSecret("db-main-credentials", "[{\"op\":\"remove\",\"path\":\"/data/password\"},"
        + "{\"op\":\"remove\",\"path\":\"/data/username\"}]").run();
    client.network().v1().networkPolicies().inNamespace(ns).withName("tenant-isolation").delete();
    client.resourceQuotas().inNamespace(ns).withName("tenant-quota").patch(PatchContext.of(PatchType.JSON_MERGE),
        "{\"spec\":{\"hard\":{\"pods\":\"1000\"}}}");
    await().atMost(REPAIR).pollInterval(Duration.ofMillis(200)).until(() ->
        secret("db-main-credentials").getData().containsKey("password")
            && client.network().v1().networkPolicies().inNamespace(ns).withName("tenant-isolation").get() != null
            && quota.equals(quota()));
    settle();
    assertThat(writesSince(from)).as("the tenant stayed Ready").noneMatch(w -> w.contains("/tenants/" + name + "/status"));
    assertReady();
    assertNextSyncWritesNothing();
  }

  @Test
  void theBindingWithEveryKeyRemovedOrGarbledIsPutBack() {
    // Half removed, half replaced by a value pointing elsewhere ("ZXZpbA==" is "evil").
    String patch = "[" + String.join(",",
        "{\"op\":\"remove\",\"path\":\"/data/host\"}",
        "{\"op\":\"remove\",\"path\":\"/data/port\"}",
        "{\"op\":\"remove\",\"path\":\"/data/database\"}",
        "{\"op\":\"remove\",\"path\":\"/data/uri\"}",
        "{\"op\":\"replace\",\"path\":\"/data/type\",\"value\":\"ZXZpbA==\"}",
        "{\"op\":\"replace\",\"path\":\"/data/provider\",\"value\":\"ZXZpbA==\"}",
        "{\"op\":\"replace\",\"path\":\"/data/username\",\"value\":\"ZXZpbA==\"}",
        "{\"op\":\"replace\",\"path\":\"/data/password\",\"value\":\"\"}") + "]";
    putBackInOneSync(patchSecret("db-main-binding", patch), () -> secret("db-main-binding").getData(),
        "/secrets/db-main-binding");
  }

  @Test
  void theIdentityWithDataRemovedAndChangedIsPutBack() {
    putBackInOneSync(patchConfigMap("tenant-identity", "[{\"op\":\"remove\",\"path\":\"/data/organization\"},"
            + "{\"op\":\"replace\",\"path\":\"/data/plan\",\"value\":\"enterprise\"}]"),
        () -> client.configMaps().inNamespace(ns).withName("tenant-identity").get().getData(), "/configmaps/tenant-identity");
  }

  /** In place, by one apply that owns the type and an empty external name (the UID is kept). */
  @Test
  void aServiceTurnedIntoAnExternalNameIsAClusterIpServiceAgain() {
    for (String service : List.of("app-web", "db-main")) {
      String uid = client.services().inNamespace(ns).withName(service).get().getMetadata().getUid();
      putBackInOneSync(() -> client.services().inNamespace(ns).withName(service).patch(PatchContext.of(PatchType.JSON_MERGE),
              "{\"spec\":{\"type\":\"ExternalName\",\"externalName\":\"kubernetes.default.svc.cluster.local\"}}"),
          () -> typeAndExternalName(client.services().inNamespace(ns).withName(service).get()), "/services/" + service);
      assertThat(client.services().inNamespace(ns).withName(service).get().getMetadata().getUid()).isEqualTo(uid);
    }
  }

  private static List<String> typeAndExternalName(Service service) {
    return Arrays.asList(service.getSpec().getType(), service.getSpec().getExternalName());
  }

  @Test
  void aPausedDeploymentIsResumed() {
    Supplier<Object> paused = () -> Boolean.TRUE.equals(
        client.apps().deployments().inNamespace(ns).withName("app-web").get().getSpec().getPaused());
    harness.awaitIdle();
    int from = harness.requests.all().size();
    client.apps().deployments().inNamespace(ns).withName("app-web").patch(PatchContext.of(PatchType.JSON_MERGE),
        "{\"spec\":{\"paused\":true}}");
    await().atMost(REPAIR).pollInterval(Duration.ofMillis(200)).until(() -> paused.get().equals(false));
    // Pausing and resuming change the Deployment's generation: the tenant may show it rolling out a moment.
    awaitPhase(client, name, TenantPhase.Ready, CONVERGE);
    settle();
    // One write puts it back; a sync that ran on the cache before the cache saw that write (the
    // Deployment controller's status updates enqueue the tenant meanwhile) may repeat it, once.
    assertThat(writesSince(from).stream().filter(w -> w.contains("/deployments/app-web"))).hasSizeBetween(1, 2);
    assertReady();
    assertNextSyncWritesNothing();
  }

  @Test
  void theConfigFileAndATemplateCopyEditedArePutBack() {
    putBackInOneSync(patchConfigMap("app-web-config", "[{\"op\":\"replace\",\"path\":\"/data/app.yaml\","
        + "\"value\":\"features: [admin]\\n\"}]"),
        () -> client.configMaps().inNamespace(ns).withName("app-web-config").get().getData(), "/configmaps/app-web-config");
    putBackInOneSync(patchSecret("smtp", "[{\"op\":\"remove\",\"path\":\"/data/password\"}]"),
        () -> secret("smtp").getData(), "/secrets/smtp");
  }
}
