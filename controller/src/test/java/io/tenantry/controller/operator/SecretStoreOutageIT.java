package io.tenantry.controller.operator;

import static io.tenantry.controller.operator.OperatorHarness.awaitPhase;
import static io.tenantry.controller.operator.OperatorHarness.setState;
import static io.tenantry.controller.operator.OperatorHarness.tenant;
import static io.tenantry.controller.operator.OperatorHarness.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.cloud.storage.Blob;
import com.google.cloud.storage.BucketInfo;
import com.google.cloud.storage.Storage.BlobListOption;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.metrics.Scrape;
import io.tenantry.secretstore.FakeGcsServer;
import io.tenantry.secretstore.FakeKms;
import io.tenantry.secretstore.GcsSecretStore;
import io.tenantry.secretstore.Scope;
import io.tenantry.testsupport.TestCluster;
import io.tenantry.testsupport.WithCluster;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The operator on the Google store (fake-gcs-server over real HTTP, an in-process gRPC Cloud KMS
 * fake): when KMS or the bucket is unavailable, tenants keep running, SecretsSynced=False names
 * the cause, nothing in the cluster is deleted, and everything recovers by itself. A purge while
 * the store is down stays Purging, keeps the Tenant and its finalizer, and finishes deleting the
 * tenant's secrets from the bucket once it returns (without KMS: deleting needs no key).
 */
@WithCluster(workloads = true)
class SecretStoreOutageIT {

  private static final String BUCKET = "tenantry-secrets";
  private static final String KEY = "projects/test/locations/global/keyRings/tenantry/cryptoKeys/secrets";
  private static FakeGcsServer gcs;
  private static FakeKms kms;
  private static Path gcsRoot;
  private static OperatorHarness harness;
  private static KubernetesClient client;

  @BeforeAll
  static void start(TestCluster cluster, KubernetesClient kubernetesClient) throws Exception {
    client = kubernetesClient;
    gcsRoot = Files.createTempDirectory("fake-gcs-");
    gcs = FakeGcsServer.start(FakeGcsServer.freePort(), gcsRoot);
    gcs.storage().create(BucketInfo.of(BUCKET));
    kms = FakeKms.start();
    kms.addKey(KEY);
    OperatorConfig config = OperatorConfig.defaults();
    config = config.with("templateNamespace: tenantry-templates-outage");
    GcsSecretStore store = new GcsSecretStore(gcs.storage(), BUCKET, kms.client(), KEY);
    store.put(Scope.template(), "smtp", Map.of("password", "smtp-secret".getBytes(StandardCharsets.UTF_8)));
    harness = new OperatorHarness(cluster, config, store);
    harness.parts.templates().refresh();
  }

  @AfterAll
  static void stop() throws Exception {
    kms.setUnavailable(false);
    harness.close();
    gcs.close();
    kms.close();
  }

  @Test
  void kmsUnavailableAffectsOnlyWhatNeedsItAndRecovers() {
    String running = uniqueName("running");
    client.resources(Tenant.class).resource(tenant(running, 1, true)).create();
    awaitPhase(client, running, TenantPhase.Ready, Duration.ofMinutes(2));
    String runningNs = "tenant-" + running;
    String runningPassword = client.secrets().inNamespace(runningNs).withName("db-main-credentials").get().getData().get("password");

    kms.setUnavailable(true);
    long down = System.nanoTime();
    // A new tenant's database needs credentials encrypted by KMS: it cannot get them, and says so.
    String fresh = uniqueName("fresh");
    client.resources(Tenant.class).resource(tenant(fresh, 1, true)).create();
    await().atMost(Duration.ofMinutes(1)).untilAsserted(() -> assertThat(secretsSynced(fresh)).satisfies(c -> {
      assertThat(c.getStatus()).isEqualTo("False");
      assertThat(c.getMessage()).contains("Cloud KMS unavailable");
    }));
    // A credentials Secret deleted by hand cannot be restored without KMS; nothing else is touched.
    client.secrets().inNamespace(runningNs).withName("db-main-credentials").delete();
    await().atMost(Duration.ofMinutes(1)).untilAsserted(() ->
        assertThat(secretsSynced(running).getStatus()).isEqualTo("False"));
    assertThat(client.apps().statefulSets().inNamespace(runningNs).withName("db-main").get()).isNotNull();
    assertThat(client.apps().deployments().inNamespace(runningNs).withName("app-web").get()).isNotNull();
    assertThat(client.secrets().inNamespace(runningNs).withName("smtp").get()).isNotNull();
    assertThat(client.resources(Tenant.class).withName(running).get().getStatus().getPhase()).isEqualTo(TenantPhase.Ready);

    kms.setUnavailable(false);
    long back = System.nanoTime();
    awaitPhase(client, fresh, TenantPhase.Ready, Duration.ofMinutes(2));
    await().atMost(Duration.ofMinutes(2)).untilAsserted(() -> {
      assertThat(secretsSynced(running).getStatus()).isEqualTo("True");
      assertThat(secretsSynced(fresh).getStatus()).isEqualTo("True");
    });
    System.out.printf("[reliability] KMS down %.1f s: both tenants recovered %.1f s after it returned (retry backoff capped at %d s)%n",
        (back - down) / 1e9, (System.nanoTime() - back) / 1e9, OperatorConfig.defaults().rateLimits().maxDelaySeconds());
    assertThat(client.secrets().inNamespace(runningNs).withName("db-main-credentials").get().getData().get("password"))
        .as("restored from the store, the same bytes").isEqualTo(runningPassword);
  }

  @Test
  void bucketUnavailableKeepsTenantsRunningAndRecovers() throws Exception {
    String name = uniqueName("bucket");
    client.resources(Tenant.class).resource(tenant(name, 1, false)).create();
    awaitPhase(client, name, TenantPhase.Ready, Duration.ofMinutes(2));
    int port = gcs.port();

    gcs.close();
    harness.parts.templates().refresh();
    await().atMost(Duration.ofMinutes(1)).untilAsserted(() -> assertThat(secretsSynced(name)).satisfies(c -> {
      assertThat(c.getStatus()).isEqualTo("False");
      assertThat(c.getReason()).isEqualTo("TemplateSyncFailed");
      assertThat(c.getMessage()).contains(BUCKET);
    }));
    assertThat(client.resources(Tenant.class).withName(name).get().getStatus().getPhase()).isEqualTo(TenantPhase.Ready);
    assertThat(client.secrets().inNamespace("tenant-" + name).withName("smtp").get()).as("nothing is deleted").isNotNull();
    assertThat(client.secrets().inNamespace("tenantry-templates-outage").withName("smtp").get()).isNotNull();

    gcs = FakeGcsServer.start(port, gcsRoot);
    long back = System.nanoTime();
    harness.parts.templates().refresh();
    await().atMost(Duration.ofMinutes(1)).untilAsserted(() -> assertThat(secretsSynced(name).getStatus()).isEqualTo("True"));
    System.out.printf("[reliability] bucket down: the tenant recovered %.1f s after it returned%n", (System.nanoTime() - back) / 1e9);
    assertThat(client.secrets().inNamespace("tenant-" + name).withName("smtp").get()).isNotNull();
  }

  @Test
  void aPurgeWhileTheStoreIsDownStaysPurgingAndFinishesWhenTheBucketReturns() throws Exception {
    String name = uniqueName("purge");
    String bystander = uniqueName("bystander");
    client.resources(Tenant.class).resource(tenant(name, 1, true)).create();
    client.resources(Tenant.class).resource(tenant(bystander, 1, false)).create();
    awaitPhase(client, name, TenantPhase.Ready, Duration.ofMinutes(2));
    awaitPhase(client, bystander, TenantPhase.Ready, Duration.ofMinutes(2));
    String prefix = Scope.tenant(name).path() + "/";
    assertThat(objects(prefix)).as("the tenant's database credentials, encrypted in the bucket").isNotEmpty();
    int port = gcs.port();
    double failedBefore = failedDeletes();

    // The whole store goes: the bucket and KMS.
    gcs.close();
    kms.setUnavailable(true);
    long down = System.nanoTime();
    setState(client, name, TenantState.Frozen);
    setState(client, name, TenantState.Purged);
    // The namespace goes (that is the purge), but the tenant's secrets cannot: it stays Purging, saying why.
    await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
      Tenant t = client.resources(Tenant.class).withName(name).get();
      assertThat(t.getStatus().getPhase()).isEqualTo(TenantPhase.Purging);
      assertThat(t.getStatus().getConditions().get(0).getMessage()).contains("secret store bucket " + BUCKET);
      assertThat(client.namespaces().withName("tenant-" + name).get()).isNull();
    });
    Tenant purging = client.resources(Tenant.class).withName(name).get();
    Condition ready = purging.getStatus().getConditions().get(0);
    assertThat(purging.getMetadata().getFinalizers()).as("nothing forgotten").contains("tenantry.io/cleanup");
    // Retried with backoff: more than one attempt to delete the tenant's secrets failed.
    await().atMost(Duration.ofMinutes(1)).until(() -> failedDeletes() - failedBefore >= 2);
    assertThat(client.resources(Tenant.class).withName(bystander).get().getStatus().getPhase()).isEqualTo(TenantPhase.Ready);
    assertThat(client.namespaces().withName("tenant-" + bystander).get()).as("another tenant's namespace").isNotNull();
    assertThat(client.secrets().inNamespace("tenantry-templates-outage").withName("smtp").get()).isNotNull();

    // The bucket returns; KMS stays down: deleting secrets needs no key.
    gcs = FakeGcsServer.start(port, gcsRoot);
    long back = System.nanoTime();
    awaitPhase(client, name, TenantPhase.Purged, Duration.ofMinutes(2));
    long purged = System.nanoTime();
    assertThat(objects(prefix)).as("the tenant's secrets are gone from the bucket").isEmpty();
    System.out.printf("[reliability] bucket and KMS down %.1f s during a purge: the tenant stayed Purging (finalizer kept,"
        + " condition %s: \"%s\", %d failed attempts); purged %.1f s after the bucket returned, with KMS still down"
        + " (retry backoff capped at %d s)%n", (back - down) / 1e9, ready.getReason(), ready.getMessage(),
        (int) (failedDeletes() - failedBefore),
        (purged - back) / 1e9, OperatorConfig.defaults().rateLimits().maxDelaySeconds());

    kms.setUnavailable(false);
    harness.parts.templates().refresh(); // Whatever a scheduled refresh found during the outage is refreshed now.
    assertThat(client.resources(Tenant.class).withName(bystander).get().getStatus().getPhase()).isEqualTo(TenantPhase.Ready);
  }

  /** The names of the bucket's objects under {@code prefix}, as Cloud Storage lists them. */
  private static List<String> objects(String prefix) {
    Iterable<Blob> blobs = gcs.storage().list(BUCKET, BlobListOption.prefix(prefix)).iterateAll();
    return StreamSupport.stream(blobs.spliterator(), false).map(Blob::getName).toList();
  }

  /** How many times the operator failed to delete a tenant's secrets, as its /metrics count them. */
  private static double failedDeletes() {
    return new Scrape(harness.parts.registry().scrape()).sum("tenantry_store_request_duration_seconds_count",
        "store", "secrets", "operation", "deleteScope", "outcome", "unavailable");
  }

  private static Condition secretsSynced(String tenant) {
    Tenant t = client.resources(Tenant.class).withName(tenant).get();
    return t.getStatus() == null ? new Condition() : t.getStatus().getConditions().stream()
        .filter(c -> "SecretsSynced".equals(c.getType())).findFirst().orElse(new Condition());
  }
}
