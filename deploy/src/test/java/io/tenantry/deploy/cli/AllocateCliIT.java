package io.tenantry.deploy.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.tenantry.api.WellKnown;
import io.tenantry.api.v1alpha1.SparePool;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.operator.OperatorHarness;
import io.tenantry.spares.DatastoreEmulator;
import io.tenantry.spares.fleet.DatastoreFleetRecords;
import io.tenantry.testsupport.TestCluster;
import io.tenantry.testsupport.WithCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@code tenantctl allocate} against the allocation API of an operator on a simulated cluster. */
@WithCluster(workloads = true)
class AllocateCliIT {

  private static DatastoreEmulator emulator;
  private static OperatorHarness operator;
  private static KubernetesClient client;
  private static String url;
  private static Path tokenFile;

  @BeforeAll
  static void start(TestCluster cluster, KubernetesClient kubernetesClient) throws Exception {
    client = kubernetesClient;
    emulator = DatastoreEmulator.start();
    DatastoreFleetRecords records = new DatastoreFleetRecords(emulator.datastore(), "allocate-cli-it");
    // Routed, with hostname claims in the fleet records: an allocation answers its URL.
    operator = new OperatorHarness(cluster, OperatorConfig.defaults().with("{routing: {mode: ingress, baseDomain: cli.test}}"), records);
    operator.serveAllocations(records, "cli-token");
    url = "http://localhost:" + operator.operator.httpPort();
    tokenFile = Files.createTempFile("allocation-token-", "");
    Files.writeString(tokenFile, "cli-token\n");
  }

  @AfterAll
  static void stop() {
    try {
      operator.close();
    } finally {
      emulator.close();
    }
  }

  private static CliRun allocate(String... args) throws InterruptedException {
    String[] argv = new String[args.length + 5];
    argv[0] = "allocate";
    argv[1] = "--url";
    argv[2] = url;
    argv[3] = "--token-file";
    argv[4] = tokenFile.toString();
    System.arraycopy(args, 0, argv, 5, args.length);
    return CliRun.run(Map.of(), argv);
  }

  @Test
  void allocatesPrintsTheTenantAndARepeatedRequestIdGetsTheSameOne() throws Exception {
    client.resources(SparePool.class).resource(OperatorHarness.sparePool("cli", 1, 1)).create();
    await().atMost(Duration.ofMinutes(2)).until(() -> !OperatorHarness.readySpares(client, "cli").isEmpty());

    CliRun first = allocate("--organization", "Initech", "--email", "ops@initech.example", "--pool", "cli",
        "--request-id", "cli-signup-1", "--subdomain", "initech");

    assertThat(first.status()).as(first.err()).isZero();
    assertThat(first.out()).startsWith("request id: cli-signup-1\n").contains("TENANT", "NAMESPACE", "CLUSTER", "Initech", "URL",
        "https://initech.cli.test/");
    Tenant bound = client.resources(Tenant.class).withLabel(WellKnown.SPARE_POOL, "cli").list().getItems().stream()
        .filter(t -> t.getSpec().getState() == TenantState.Active).findFirst().orElseThrow();
    assertThat(first.out()).contains(bound.getMetadata().getName(), "tenant-" + bound.getMetadata().getName(), "local");
    assertThat(bound.getMetadata().getAnnotations()).containsEntry(WellKnown.ALLOCATION_REQUEST, "cli-signup-1");

    CliRun again = allocate("--organization", "Initech", "--email", "ops@initech.example", "--pool", "cli",
        "--request-id", "cli-signup-1", "--subdomain", "initech");
    assertThat(again.status()).isZero();
    assertThat(again.out()).isEqualTo(first.out());

    // Another signup asking for the taken subdomain is refused, naming the flag; nothing is bound.
    CliRun taken = allocate("--organization", "Initrode", "--email", "ops@initrode.example", "--pool", "cli",
        "--subdomain", "initech");
    assertThat(taken.status()).isEqualTo(2);
    assertThat(taken.err()).contains("409", "--subdomain: ");

    // A pool with no Ready spare: a clear refusal, exit 1. (Not the drained "cli": its replacement
    // may be Ready by now.)
    client.resources(SparePool.class).resource(OperatorHarness.sparePool("cli-empty", 0, 1)).create();
    // Until the allocation API's cache shows the new pool it answers 400 (no such pool), binding nothing.
    CliRun none = await().atMost(Duration.ofMinutes(1)).until(
        () -> allocate("--organization", "Globex", "--email", "ops@globex.example", "--pool", "cli-empty"), r -> r.status() != 2);
    assertThat(none.status()).isEqualTo(1);
    assertThat(none.out()).startsWith("request id: tenantctl-");
    assertThat(none.err()).contains("no Ready spare in pool cli-empty", "--wait");
  }

  @Test
  void refusalsNameTheFlag() throws Exception {
    CliRun badEmail = allocate("--organization", "Initech", "--email", "nobody");
    assertThat(badEmail.status()).isEqualTo(2);
    assertThat(badEmail.err()).startsWith("tenantctl: --email: ");

    CliRun missing = allocate("--email", "ops@initech.example");
    assertThat(missing.status()).isEqualTo(2);
    assertThat(missing.err()).startsWith("tenantctl: allocate: --organization is required");

    Path wrong = Files.createTempFile("wrong-token-", "");
    Files.writeString(wrong, "not-the-token");
    CliRun unauthorized = CliRun.run(Map.of(), "allocate", "--url", url, "--token-file", wrong.toString(),
        "--organization", "Initech", "--email", "ops@initech.example");
    assertThat(unauthorized.status()).isEqualTo(2);
    assertThat(unauthorized.err()).contains("401", "invalid bearer token");

    CliRun unknownPool = allocate("--organization", "Initech", "--email", "ops@initech.example", "--pool", "nope");
    assertThat(unknownPool.status()).isEqualTo(2);
    assertThat(unknownPool.err()).contains("400", "--pool: no SparePool named nope");
  }
}
