package io.tenantry.controller.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.datastore.DatastoreException;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.tenantry.controller.fakes.InMemorySecretStore;
import io.tenantry.controller.metrics.StoreCalls.Outcome;
import io.tenantry.secretstore.CorruptSecretException;
import io.tenantry.secretstore.InvalidInputException;
import io.tenantry.secretstore.KeyUnavailableException;
import io.tenantry.secretstore.Scope;
import io.tenantry.secretstore.SecretConflictException;
import io.tenantry.secretstore.StoreUnavailableException;
import io.tenantry.spares.fleet.Cluster;
import io.tenantry.spares.fleet.FleetConflictException;
import io.tenantry.spares.fleet.FleetInputException;
import io.tenantry.spares.fleet.InMemoryFleetRecords;
import io.tenantry.spares.fleet.TenantRef;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Calls to the secret store and the fleet records → tenantry_store_request_duration_seconds by store, operation and outcome. */
class StoreCallsTest {

  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

  private double calls(String store, String operation, String outcome) {
    return new Scrape(registry.scrape()).value("tenantry_store_request_duration_seconds_count", "operation", operation,
        "outcome", outcome, "store", store);
  }

  @Test
  void secretStoreCallsAreTimedByOperationAndAnOutageCountsAsUnavailable() {
    InMemorySecretStore backing = new InMemorySecretStore();
    MeasuredSecretStore store = new MeasuredSecretStore(backing, registry);

    store.put(Scope.template(), "smtp", Map.of("password", "p".getBytes(StandardCharsets.UTF_8)));
    assertThat(store.get(Scope.template(), "smtp")).isPresent();
    backing.setUnavailable(true);
    assertThatThrownBy(() -> store.list(Scope.template())).isInstanceOf(StoreUnavailableException.class);

    assertThat(calls("secrets", "put", "success")).isEqualTo(1);
    assertThat(calls("secrets", "get", "success")).isEqualTo(1);
    assertThat(calls("secrets", "list", "unavailable")).isEqualTo(1);
    assertThat(store.location()).isEqualTo(backing.location());
  }

  @Test
  void eachFailureOfTheSecretStoreHasItsOutcome() {
    assertThat(MeasuredSecretStore.outcome(new StoreUnavailableException("bucket unreachable", null))).isEqualTo(Outcome.UNAVAILABLE);
    assertThat(MeasuredSecretStore.outcome(new KeyUnavailableException("key disabled", null))).isEqualTo(Outcome.KEY_UNAVAILABLE);
    assertThat(MeasuredSecretStore.outcome(new CorruptSecretException("t/x", null))).isEqualTo(Outcome.CORRUPT);
    assertThat(MeasuredSecretStore.outcome(new SecretConflictException("t/x", "exists", null))).isEqualTo(Outcome.CONFLICT);
    assertThat(MeasuredSecretStore.outcome(new InvalidInputException("name", "bad"))).isEqualTo(Outcome.INVALID);
    assertThat(MeasuredSecretStore.outcome(new IllegalStateException("bug"))).isEqualTo(Outcome.ERROR);
  }

  @Test
  void fleetRecordCallsAreTimedAndADatastoreOutageCountsAsUnavailable() {
    InMemoryFleetRecords backing = new InMemoryFleetRecords();
    MeasuredFleetRecords records = new MeasuredFleetRecords(backing, registry);

    records.registerCluster(new Cluster("east", "kind-east", Map.of(), Instant.parse("2026-03-01T10:00:00Z")));
    assertThatThrownBy(() -> records.placeTenant("acme", "west")).isInstanceOf(FleetInputException.class);
    assertThat(records.reserveName("default-x7k2p", "east")).isTrue();
    assertThat(records.adopt(new TenantRef("east", "default-x7k2p", "uid-1"))).isEqualTo(1);
    assertThat(backing.placementUid("default-x7k2p")).contains("uid-1");
    backing.setAvailable(false);
    assertThatThrownBy(records::listClusters).isInstanceOf(DatastoreException.class);

    assertThat(calls("datastore", "registerCluster", "success")).isEqualTo(1);
    assertThat(calls("datastore", "placeTenant", "invalid")).isEqualTo(1);
    assertThat(calls("datastore", "reserveName", "success")).isEqualTo(1);
    assertThat(calls("datastore", "adopt", "success")).isEqualTo(1);
    assertThat(calls("datastore", "listClusters", "unavailable")).isEqualTo(1);
    assertThat(MeasuredFleetRecords.outcome(new FleetConflictException("tenant", "held by another request"))).isEqualTo(Outcome.CONFLICT);
  }

  @Test
  void latencyIsAHistogramInSeconds() {
    new StoreCalls(registry, StoreCalls.SECRETS).record("get", Outcome.SUCCESS, 30_000_000);

    Scrape scrape = new Scrape(registry.scrape());
    assertThat(scrape.value("tenantry_store_request_duration_seconds_bucket", "le", "0.025", "operation", "get", "outcome", "success",
        "store", "secrets")).isZero();
    assertThat(scrape.value("tenantry_store_request_duration_seconds_bucket", "le", "0.05", "operation", "get", "outcome", "success",
        "store", "secrets")).isEqualTo(1);
    assertThat(scrape.value("tenantry_store_request_duration_seconds_sum", "operation", "get", "outcome", "success", "store", "secrets"))
        .isEqualTo(0.03);
  }
}
