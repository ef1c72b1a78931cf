package io.tenantry.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A simulated cluster's control plane is looked after as a real one's is (SimulatedCluster,
 * tools/kwok-cluster.sh): a kube-apiserver that dies is started again with its data, its logs kept;
 * one a test stops stays down until started; and a cluster left by a killed run is replaced without
 * killing the processes that have since been given its old pids.
 */
class SupervisedApiServerIT {

  private static final String NAME = "supervised-" + ProcessHandle.current().pid();
  private static final Path CACHE = TestBinaries.locate().cacheDir();
  private static final Path DIRECTORY = CACHE.resolve("kwok/clusters/" + NAME);
  private static Process bystander;
  private static TestCluster cluster;
  private static KubernetesClient client;

  @BeforeAll
  static void startOverTheFilesOfAKilledRun() throws IOException {
    // What a run killed before its cluster's down leaves: files whose pids now name other processes.
    bystander = new ProcessBuilder("sleep", "600").start();
    Files.createDirectories(DIRECTORY.resolve("pids"));
    Files.writeString(DIRECTORY.resolve("kubeconfig.yaml"), "apiVersion: v1\nkind: Config\n");
    for (String component : new String[] {"etcd", "kube-apiserver", "kwok-controller"}) {
      Files.writeString(DIRECTORY.resolve("pids/" + component + ".pid"), Long.toString(bystander.pid()));
    }
    cluster = TestClusters.start(ClusterKind.SIMULATED, NAME, 0);
    client = cluster.newClient();
  }

  @AfterAll
  static void stop() {
    if (client != null) {
      client.close();
    }
    if (cluster != null) {
      cluster.close();
    }
    bystander.destroyForcibly();
  }

  @Test
  void aClusterLeftByAKilledRunIsReplacedAndTheProcessesGivenItsOldPidsKeepRunning() {
    assertThat(bystander.isAlive()).isTrue();
    assertThat(client.namespaces().withName("default").get()).isNotNull();
  }

  @Test
  void anApiServerThatDiesIsStartedAgainWithItsDataAndItsLogsKept() throws IOException {
    client.configMaps().inNamespace("default").resource(new ConfigMapBuilder()
        .withNewMetadata().withName("kept").endMetadata().withData(Map.of("k", "v")).build()).create();
    ProcessHandle apiServer = apiServer();

    apiServer.destroyForcibly();

    await().atMost(Duration.ofSeconds(90)).ignoreExceptions().untilAsserted(() -> {
      ConfigMap kept = client.configMaps().inNamespace("default").withName("kept").get();
      assertThat(kept.getData()).containsEntry("k", "v");
    });
    assertThat(apiServer().pid()).isNotEqualTo(apiServer.pid());
    try (Stream<Path> crashed = Files.list(CACHE.resolve("crashed"))) {
      assertThat(crashed.filter(dir -> dir.getFileName().toString().startsWith(NAME + "-")))
          .anySatisfy(dir -> assertThat(dir.resolve("kube-apiserver.log")).isNotEmptyFile());
    }
  }

  @Test
  void anApiServerStoppedOnPurposeStaysDownUntilStarted() {
    SimulatedCluster.stopApiServer(NAME);
    try {
      // Several supervision periods: long enough for a supervisor that ignored the stop to have started it.
      await().during(Duration.ofSeconds(5)).atMost(Duration.ofSeconds(6))
          .until(() -> !Files.exists(DIRECTORY.resolve("pids/kube-apiserver.pid")));
      assertThatThrownBy(() -> client.namespaces().withName("default").get()).isInstanceOf(KubernetesClientException.class);
    } finally {
      SimulatedCluster.startApiServer(NAME);
    }
    assertThat(client.namespaces().withName("default").get()).isNotNull();
  }

  @Test
  void anApiServerStoppedAndStartedAtOnceIsLeftRunning() throws IOException {
    ProcessHandle before = apiServer();
    // Running for two supervision periods: the supervisor holds a handle on it by then.
    await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3)).until(before::isAlive);
    // Within one supervision period, as ApiServerFaultsIT's compaction does: the supervisor's handle on
    // the old process, dead now, must not make it take the new one for dead.
    SimulatedCluster.stopApiServer(NAME);
    SimulatedCluster.startApiServer(NAME);
    ProcessHandle started = apiServer();

    assertThat(started.pid()).isNotEqualTo(before.pid());
    await().during(Duration.ofSeconds(4)).atMost(Duration.ofSeconds(5))
        .until(() -> started.isAlive() && apiServer().pid() == started.pid());
  }

  private static ProcessHandle apiServer() throws IOException {
    long pid = Long.parseLong(Files.readString(DIRECTORY.resolve("pids/kube-apiserver.pid")).strip());
    return ProcessHandle.of(pid).orElseThrow(() -> new AssertionError("no process " + pid));
  }
}
