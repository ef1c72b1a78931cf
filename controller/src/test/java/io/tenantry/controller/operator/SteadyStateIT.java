package io.tenantry.controller.operator;

import static io.tenantry.controller.operator.OperatorHarness.tenant;
import static io.tenantry.controller.operator.OperatorHarness.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.testsupport.TestCluster;
import io.tenantry.testsupport.WithCluster;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The happy path makes zero API calls: once 50 tenants (routed, some with custom hostnames) have
 * converged, re-queueing every one of them sends no request at all, as counted by an interceptor
 * on the operator's client.
 */
@WithCluster(workloads = true)
class SteadyStateIT {

  private static final int TENANTS = 50;
  private static OperatorHarness harness;
  private static KubernetesClient client;
  private static final List<String> names = new ArrayList<>();

  @BeforeAll
  static void convergeFiftyTenants(TestCluster cluster, KubernetesClient kubernetesClient) throws Exception {
    client = kubernetesClient;
    // Routed too: each tenant has an Ingress, and one in five a custom hostname.
    harness = new OperatorHarness(cluster, OperatorConfig.defaults().with("{routing: {mode: ingress, baseDomain: steady.test}}"));
    harness.putWorkingTemplates();
    for (int i = 0; i < TENANTS; i++) {
      String name = uniqueName("steady");
      names.add(name);
      // One in five uses all an app can (bindings, file and env secrets, config, probes, a migration).
      Tenant tenant = i % 5 == 0 ? OperatorHarness.workingTenant(name) : tenant(name, 1, false);
      if (i % 5 == 1) {
        tenant.getSpec().setHostnames(List.of(name + ".customer.example"));
      }
      client.resources(Tenant.class).resource(tenant).create();
    }
    await().atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofSeconds(1)).until(() -> names.stream().allMatch(n -> {
      Tenant t = client.resources(Tenant.class).withName(n).get();
      return t.getStatus() != null && t.getStatus().getPhase() == TenantPhase.Ready;
    }));
  }

  @AfterAll
  static void stopOperator() {
    harness.close();
  }

  @Test
  void requeueingEveryConvergedTenantSendsNoRequest() {
    harness.awaitIdle();
    // Let the last status writes' own watch events be processed before counting.
    await().pollDelay(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3)).until(() -> true);
    harness.awaitIdle();
    double syncsBefore = harness.parts.registry().get("tenantry.sync").tag("queue", "tenants").tag("result", "success").timer().count();
    long before = harness.requests.count();

    names.forEach(harness.parts.queue()::add);
    await().atMost(Duration.ofMinutes(1)).until(() ->
        harness.parts.registry().get("tenantry.sync").tag("queue", "tenants").tag("result", "success").timer().count() >= syncsBefore + TENANTS);
    harness.awaitIdle();

    assertThat(harness.requests.count() - before)
        .as("requests during a full requeue of %d converged tenants; recent: %s", TENANTS, harness.requests.recent())
        .isZero();
  }

  @Test
  void healthReadinessAndQueueMetricsAreServed() throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    String base = "http://localhost:" + harness.operator.probePort();
    assertThat(http.send(HttpRequest.newBuilder(URI.create(base + "/healthz")).build(), BodyHandlers.ofString()).statusCode())
        .isEqualTo(200);
    assertThat(http.send(HttpRequest.newBuilder(URI.create(base + "/readyz")).build(), BodyHandlers.ofString()).statusCode())
        .isEqualTo(200);
    HttpResponse<String> metrics = http.send(HttpRequest.newBuilder(URI.create(base + "/metrics")).build(), BodyHandlers.ofString());
    assertThat(metrics.statusCode()).isEqualTo(200);
    assertThat(metrics.body()).contains(
        "workqueue_depth{name=\"tenants\"}",
        "workqueue_adds_total{name=\"tenants\"}",
        "workqueue_queue_duration_seconds_count{name=\"tenants\"}",
        "workqueue_work_duration_seconds_count{name=\"tenants\"}",
        "workqueue_unfinished_work_seconds{name=\"tenants\"}",
        "workqueue_longest_running_processor_seconds{name=\"tenants\"}",
        "workqueue_retries_total{name=\"tenants\"}",
        "tenantry_sync_seconds_count{queue=\"tenants\",result=\"success\"}");
  }
}
