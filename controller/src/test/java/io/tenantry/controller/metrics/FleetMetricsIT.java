package io.tenantry.controller.metrics;

import static io.tenantry.controller.operator.OperatorHarness.awaitPhase;
import static io.tenantry.controller.operator.OperatorHarness.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.tenantry.api.v1alpha1.SparePool;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.operator.AllocationCalls;
import io.tenantry.controller.operator.OperatorHarness;
import io.tenantry.spares.DatastoreEmulator;
import io.tenantry.spares.fleet.DatastoreFleetRecords;
import io.tenantry.spares.fleet.FleetRecords;
import io.tenantry.testsupport.TestBinaries;
import io.tenantry.testsupport.TestCluster;
import io.tenantry.testsupport.WithCluster;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * A running operator's /metrics, as Prometheus scrapes it, on a simulated cluster with the fleet
 * records on the Datastore emulator and the allocation API served: after a tenant, a spare pool
 * and a signup, the fleet gauges count what the cluster holds, and every metric the shipped alert
 * rules and dashboard read is served.
 */
@WithCluster(workloads = true)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FleetMetricsIT {

  private static final String TOKEN = "metrics-allocation-token";
  private static DatastoreEmulator emulator;
  private static OperatorHarness harness;
  private static AllocationCalls api;
  private static KubernetesClient client;

  @BeforeAll
  static void start(TestCluster cluster, KubernetesClient kubernetesClient) throws Exception {
    client = kubernetesClient;
    emulator = DatastoreEmulator.start();
    FleetRecords records = new DatastoreFleetRecords(emulator.datastore(), "fleet-metrics-it");
    harness = new OperatorHarness(cluster, OperatorConfig.defaults().with("{fleet: {clusterName: metrics}}"), records);
    api = harness.serveAllocations(records, TOKEN);
    harness.putWorkingTemplates(); // templates for every tenant to copy: the skew gauge compares them
  }

  @AfterAll
  static void stop() {
    try {
      harness.close();
    } finally {
      emulator.close();
    }
  }

  private static String metrics() throws Exception {
    HttpResponse<String> response = HttpClient.newHttpClient().send(
        HttpRequest.newBuilder(URI.create("http://localhost:" + harness.operator.probePort() + "/metrics")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(200);
    return response.body();
  }

  private static Scrape scrape() throws Exception {
    return new Scrape(metrics());
  }

  private static void awaitPoolStatus(String pool, int ready) {
    await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500)).until(() -> {
      SparePool current = client.resources(SparePool.class).withName(pool).get();
      return current.getStatus() != null && Integer.valueOf(ready).equals(current.getStatus().getReady())
          && Integer.valueOf(0).equals(current.getStatus().getProvisioning());
    });
  }

  @Test
  @Order(1)
  void theFleetGaugesCountTheTenantAndTheSpareThePoolBuilt() throws Exception {
    String tenant = uniqueName("gauged");
    client.resources(Tenant.class).resource(OperatorHarness.tenant(tenant, 1, false)).create();
    String pool = uniqueName("gauges");
    client.resources(SparePool.class).resource(OperatorHarness.sparePool(pool, 1, 1)).create();
    awaitPhase(client, tenant, TenantPhase.Ready, Duration.ofSeconds(120));
    awaitPoolStatus(pool, 1);
    harness.awaitIdle();

    Scrape scrape = scrape();

    assertThat(scrape.value("tenantry_leader")).isEqualTo(1);
    assertThat(scrape.value("tenantry_tenants", "phase", "Ready", "plan", "standard", "state", "Active")).isEqualTo(1);
    assertThat(scrape.value("tenantry_tenants", "phase", "Ready", "plan", "standard", "state", "New")).isEqualTo(1);
    assertThat(scrape.sum("tenantry_tenants")).isEqualTo(2);
    assertThat(scrape.value("tenantry_sparepool_spares", "pool", pool, "status", "ready")).isEqualTo(1);
    assertThat(scrape.value("tenantry_sparepool_spares", "pool", pool, "status", "provisioning")).isZero();
    assertThat(scrape.value("tenantry_sparepool_spares", "pool", pool, "status", "allocated")).isZero();
    assertThat(scrape.value("tenantry_sparepool_buffer", "pool", pool)).isEqualTo(1);
    assertThat(scrape.value("tenantry_tenants_degraded_longest_seconds")).isZero();
    assertThat(scrape.value("tenantry_tenants_template_skew")).as("both copied the templates").isZero();
    assertThat(scrape.value("tenantry_tenant_first_ready_seconds_count")).as("the tenant and the spare").isEqualTo(2);
    assertThat(scrape.sum("tenantry_sync_failures_total")).isZero();
    assertThat(scrape.sum("tenantry_store_request_duration_seconds_count", "store", "secrets", "outcome", "success")).isPositive();
  }

  @Test
  @Order(2)
  void everyMetricTheAlertRulesAndTheDashboardReadIsServed() throws Exception {
    String pool = uniqueName("signups");
    client.resources(SparePool.class).resource(OperatorHarness.sparePool(pool, 1, 1)).create();
    awaitPoolStatus(pool, 1);
    assertThat(api.allocate("metrics-" + pool, "Initech", "ops@initech.example", pool).status()).isEqualTo(200);
    // A GC pause for jvm_gc_pause_seconds, whatever the heap did so far. Micrometer hears of it
    // from a notification thread after the pause, so the scrape waits for it.
    System.gc();
    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
        .until(() -> new Scrape(metrics()).names().contains("jvm_gc_pause_seconds_sum"));

    String metrics = metrics();
    Scrape scrape = new Scrape(metrics);

    assertThat(scrape.value("tenantry_allocations_total", "outcome", "allocated", "pool", pool)).isEqualTo(1);
    assertThat(scrape.sum("tenantry_store_request_duration_seconds_count", "store", "datastore", "outcome", "success")).isPositive();
    Set<String> used = MonitoringAssets.usedMetricNames();
    Set<String> missing = new TreeSet<>(used);
    missing.removeAll(scrape.names());
    assertThat(missing).as("metrics the alert rules and the dashboard read (%s) that /metrics does not serve", used).isEmpty();
    // What LintersIT cannot see (signups, Datastore calls, the fleet gauges of pools) passes promtool's lint too.
    assertThat(promtoolCheckMetrics(metrics)).as("promtool check metrics").isEmpty();
  }

  /** promtool's findings on a scrape (built by tools/build-test-binaries.sh), empty when it is clean. */
  private static String promtoolCheckMetrics(String metrics) throws Exception {
    TestBinaries binaries = TestBinaries.locate();
    Path promtool = binaries.tool("promtool");
    binaries.requireBuilt(List.of(promtool));
    Process process = new ProcessBuilder(promtool.toString(), "check", "metrics").redirectErrorStream(true).start();
    try (OutputStream in = process.getOutputStream()) {
      in.write(metrics.getBytes(StandardCharsets.UTF_8));
    }
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(2, TimeUnit.MINUTES)).isTrue();
    return process.exitValue() == 0 ? output : output + " (exit " + process.exitValue() + ")";
  }
}
