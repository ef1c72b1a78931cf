package io.tenantry.controller.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.fakes.InMemorySecretStore;
import io.tenantry.controller.lifecycle.TenantCleanup;
import io.tenantry.controller.operator.Operator;
import io.tenantry.secretstore.Scope;
import org.junit.jupiter.api.Test;

/** The fleet metrics as Operator.wire composes them: present from the start, the stores' calls timed, the replica not leading yet. */
@EnableKubernetesMockClient(crud = true)
class WiredMetricsTest {

  static KubernetesClient client;

  @Test
  void aWiredOperatorServesTheFleetMetricsBeforeItLeads() throws Exception {
    OperatorConfig config = OperatorConfig.defaults().with("{httpPort: 0, probePort: 0}");
    InMemorySecretStore store = new InMemorySecretStore();
    Operator.Parts parts = Operator.wire(client, config, "test", store, TenantCleanup.NONE, null, null);
    try (Operator operator = new Operator(client, config, "test", () -> { }, parts)) {
      parts.templates().refresh(); // lists the store's templates: one call, timed

      Scrape scrape = new Scrape(parts.registry().scrape());

      assertThat(scrape.value("tenantry_leader")).as("not started: not leading").isZero();
      assertThat(scrape.value("tenantry_sync_failures_total", "reason", "StoreUnavailable")).isZero();
      assertThat(scrape.value("tenantry_tenant_first_ready_seconds_count")).isZero();
      assertThat(scrape.value("tenantry_store_request_duration_seconds_count", "operation", "list", "outcome", "success",
          "store", "secrets")).isEqualTo(1);
      assertThat(scrape.names()).as("the informers have not synced: no fleet figures").noneMatch(n -> n.startsWith("tenantry_tenants"));
      assertThat(store.list(Scope.template())).isEmpty();
    }
  }
}
