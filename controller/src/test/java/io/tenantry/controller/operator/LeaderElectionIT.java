package io.tenantry.controller.operator;

import static io.tenantry.controller.operator.OperatorHarness.awaitPhase;
import static io.tenantry.controller.operator.OperatorHarness.tenant;
import static io.tenantry.controller.operator.OperatorHarness.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.testsupport.TestCluster;
import io.tenantry.testsupport.WithCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Two operator processes on one Lease: the second stays standby (not ready, not syncing) while
 * the first leads, and takes over when the first is killed (SIGKILL, no lease release).
 */
@WithCluster(workloads = true)
class LeaderElectionIT {

  private static final int LEASE_SECONDS = 6;
  private static final int RETRY_SECONDS = 1;
  private static Path workDir;
  private static KubernetesClient client;
  private static String leaseName;

  @BeforeAll
  static void setUp(TestCluster cluster, KubernetesClient kubernetesClient) throws IOException {
    client = kubernetesClient;
    OperatorHarness.installCrds(cluster);
    workDir = Files.createDirectories(Path.of("target", "leader-election-it"));
    OperatorProcess.writeKubeconfig(workDir, cluster);
    // The operators open the store; making one is the installer's job (tenantry-secrets init).
    OperatorHarness.localStore(workDir.toAbsolutePath().resolve("store"));
    leaseName = uniqueName("lease");
  }

  @AfterAll
  static void tearDown() {
    client.leases().inNamespace("tenantry-system").withName(leaseName).delete();
  }

  @Test
  void aStandbyTakesOverWhenTheLeaderIsKilled() throws Exception {
    int portA = OperatorProcess.freePort();
    int portB = OperatorProcess.freePort();
    OperatorProcess a = start("operator-a", portA);
    try {
      await().atMost(Duration.ofMinutes(1)).until(() -> "operator-a".equals(holder()));
      await().atMost(Duration.ofMinutes(1)).until(() -> OperatorProcess.httpStatus(portA, "/readyz") == 200);

      OperatorProcess b = start("operator-b", portB);
      try {
        await().atMost(Duration.ofMinutes(1)).until(() -> OperatorProcess.httpStatus(portB, "/healthz") == 200);
        await().pollDelay(Duration.ofSeconds(LEASE_SECONDS)).atMost(Duration.ofSeconds(LEASE_SECONDS + 1)).until(() -> true);
        assertThat(holder()).isEqualTo("operator-a");
        assertThat(OperatorProcess.httpStatus(portB, "/readyz")).as("the standby is not ready").isEqualTo(503);

        String before = uniqueName("led-by-a");
        client.resources(Tenant.class).resource(tenant(before, 1, false)).create();
        awaitPhase(client, before, TenantPhase.Ready, Duration.ofSeconds(90));

        long killed = System.nanoTime();
        a.kill();
        await().atMost(Duration.ofSeconds(LEASE_SECONDS * 3)).pollInterval(Duration.ofMillis(100))
            .until(() -> "operator-b".equals(holder()));
        double seconds = (System.nanoTime() - killed) / 1e9;
        System.out.printf("standby took over %.1f s after the leader was killed (lease %d s, retry %d s)%n",
            seconds, LEASE_SECONDS, RETRY_SECONDS);
        // The lease expires at most LEASE_SECONDS after the last renewal; the standby polls every RETRY_SECONDS (plus jitter).
        assertThat(seconds).as("takeover once the lease expires").isLessThan(LEASE_SECONDS + 5.0 * RETRY_SECONDS);

        String after = uniqueName("led-by-b");
        client.resources(Tenant.class).resource(tenant(after, 1, false)).create();
        awaitPhase(client, after, TenantPhase.Ready, Duration.ofSeconds(90));
        assertThat(OperatorProcess.httpStatus(portB, "/readyz")).isEqualTo(200);
      } finally {
        // SIGTERM: graceful shutdown, releases the lease
        assertThat(b.stop(Duration.ofSeconds(30))).as("operator-b stops on SIGTERM").isTrue();
      }
      Lease released = client.leases().inNamespace("tenantry-system").withName(leaseName).get();
      assertThat(released.getSpec().getHolderIdentity()).as("a graceful stop releases the lease").isNullOrEmpty();
    } finally {
      a.close();
    }
  }

  private static OperatorProcess start(String identity, int port) throws IOException {
    return OperatorProcess.start(workDir, identity, """
        httpPort: 0
        probePort: %d
        secretStore:
          location: file:%s
        leaderElection:
          leaseName: %s
          leaseDurationSeconds: %d
          renewDeadlineSeconds: %d
          retryPeriodSeconds: %d
        """.formatted(port, workDir.toAbsolutePath().resolve("store"), leaseName, LEASE_SECONDS, LEASE_SECONDS - 2, RETRY_SECONDS));
  }

  private static String holder() {
    Lease lease = client.leases().inNamespace("tenantry-system").withName(leaseName).get();
    return lease == null ? null : lease.getSpec().getHolderIdentity();
  }

}
