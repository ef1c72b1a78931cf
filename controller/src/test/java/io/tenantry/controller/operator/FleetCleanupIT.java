package io.tenantry.controller.operator;

import static io.tenantry.controller.operator.OperatorHarness.awaitPhase;
import static io.tenantry.controller.operator.OperatorHarness.setState;
import static io.tenantry.controller.operator.OperatorHarness.tenant;
import static io.tenantry.controller.operator.OperatorHarness.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.lifecycle.TenantCleanup;
import io.tenantry.spares.DatastoreEmulator;
import io.tenantry.spares.fleet.Allocation;
import io.tenantry.spares.fleet.Cluster;
import io.tenantry.spares.fleet.DatastoreFleetRecords;
import io.tenantry.spares.fleet.FleetRecords;
import io.tenantry.testsupport.TestCluster;
import io.tenantry.testsupport.WithCluster;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Purging a tenant deletes its fleet records (placement, allocation) in Cloud Datastore (the emulator). */
@WithCluster(workloads = true)
class FleetCleanupIT {

  private static DatastoreEmulator emulator;
  private static FleetRecords records;
  private static OperatorHarness harness;
  private static KubernetesClient client;

  @BeforeAll
  static void start(TestCluster cluster, KubernetesClient kubernetesClient) throws Exception {
    client = kubernetesClient;
    emulator = DatastoreEmulator.start();
    records = new DatastoreFleetRecords(emulator.datastore(), "fleet-cleanup-it");
    records.registerCluster(new Cluster("local", "kwok-local", Map.of(), Instant.now()));
    harness = new OperatorHarness(cluster, OperatorConfig.defaults(), null, TenantCleanup.fleet(records, "local"));
  }

  @AfterAll
  static void stop() {
    try {
      harness.close();
    } finally {
      emulator.close();
    }
  }

  @Test
  void purgingATenantDeletesItsFleetRecords() {
    String name = uniqueName("fleet");
    String other = uniqueName("kept");
    client.resources(Tenant.class).resource(tenant(name, 1, false)).create();
    awaitPhase(client, name, TenantPhase.Ready, Duration.ofMinutes(2));
    String uid = client.resources(Tenant.class).withName(name).get().getMetadata().getUid();
    records.recordAllocation(new Allocation("req-" + name, "Acme Corp", "ops@acme.example", name, uid, "local",
        "tenant-" + name, Instant.now(), null));
    records.placeTenant(other, "local");
    assertThat(records.placement(name)).contains("local");

    setState(client, name, TenantState.Archived);
    setState(client, name, TenantState.Purged);
    awaitPhase(client, name, TenantPhase.Purged, Duration.ofMinutes(3));

    assertThat(records.placement(name)).isEmpty();
    assertThat(records.findAllocation("req-" + name)).isEmpty();
    assertThat(records.placement(other)).as("another tenant's records").contains("local");
  }
}
