package io.tenantry.controller.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tenantry.testsupport.ClusterKind;
import io.tenantry.testsupport.SimulatedCluster;
import io.tenantry.testsupport.TestCluster;
import io.tenantry.testsupport.TestClusters;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * SIGTERM with the API server unreachable: the operator (leading, with leader election on, so with
 * a lease to release) exits within 10 s, well within the chart's 30 s grace period, though its
 * client would retry the lease release for about 19 s. A simulated cluster of its own, whose
 * kube-apiserver is stopped.
 */
class ShutdownIT {

  private static final String CLUSTER = "shutdown-" + Long.toString(ProcessHandle.current().pid() % 10000, 36);
  private static final Duration WITHIN = Duration.ofSeconds(10);

  private static TestCluster cluster;
  private static Path workDir;

  @BeforeAll
  static void start() throws Exception {
    cluster = TestClusters.start(ClusterKind.SIMULATED, CLUSTER, 1);
    OperatorHarness.installCrds(cluster);
    workDir = Files.createTempDirectory("operator-shutdown-");
    OperatorProcess.writeKubeconfig(workDir, cluster);
    OperatorHarness.localStore(workDir.resolve("store"));
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void sigtermWithTheApiServerStoppedExitsWithinTenSeconds() throws Exception {
    int probePort = OperatorProcess.freePort();
    try (OperatorProcess operator = OperatorProcess.start(workDir, "shutdown-leader", """
        httpPort: 0
        probePort: %d
        secretStore:
          location: file:%s
        """.formatted(probePort, workDir.resolve("store")))) {
      await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(200)).until(() -> {
        assertThat(operator.isAlive()).as("the operator, before it was ready (log %s)", operator.log()).isTrue();
        return OperatorProcess.httpStatus(probePort, "/readyz") == 200;
      });

      SimulatedCluster.stopApiServer(CLUSTER);
      try {
        long started = System.nanoTime();
        boolean exited = operator.stop(Duration.ofSeconds(40));
        double seconds = (System.nanoTime() - started) / 1e9;
        System.out.printf("[shutdown] SIGTERM to exit with the API server stopped: %.1f s (log %s)%n", seconds, operator.log());
        assertThat(exited).as("exited at all").isTrue();
        assertThat(seconds).as("exited within %s of SIGTERM", WITHIN).isLessThan(WITHIN.toSeconds());
        assertThat(Files.readString(operator.log())).contains("operator stopped");
      } finally {
        SimulatedCluster.startApiServer(CLUSTER);
      }
    }
  }
}
