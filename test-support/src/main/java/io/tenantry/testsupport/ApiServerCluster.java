package io.tenantry.testsupport;

import io.fabric8.kubeapitest.KubeAPIServer;
import io.fabric8.kubeapitest.KubeAPIServerConfigBuilder;
import io.fabric8.kubeapitest.KubeAPITestException;
import io.fabric8.kubernetes.client.Config;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A real kube-apiserver with etcd, started by kube-api-test from the locally built binaries, offline. */
final class ApiServerCluster implements TestCluster {

  private static final Logger LOG = LoggerFactory.getLogger(ApiServerCluster.class);

  private final KubeAPIServer server;
  private final String kubeconfig;
  private final Config config;

  ApiServerCluster(TestBinaries binaries) {
    binaries.requireBuilt(List.of(binaries.kubernetesDir().resolve("kube-apiserver"),
        binaries.kubernetesDir().resolve("etcd"), binaries.kubectl()));
    // Offline mode through the builder: the KUBE_API_TEST_OFFLINE_MODE variable is not honoured
    // reliably across kube-api-test releases, and a download must never be attempted here.
    server = started(binaries);
    kubeconfig = server.getKubeConfigYaml();
    config = Config.fromKubeconfig(kubeconfig);
  }

  /**
   * A started server, asked twice at most: a kube-apiserver that exits at once (seen once in a CI
   * run, 150 ms after its start, likely a port taken between kube-api-test's pick and the bind) is
   * stopped and started again on new ports.
   */
  private static KubeAPIServer started(TestBinaries binaries) {
    for (int attempt = 1; ; attempt++) {
      KubeAPIServer candidate = new KubeAPIServer(KubeAPIServerConfigBuilder.anAPIServerConfig()
          .withTestDir(binaries.cacheDir().toString())
          .withApiServerVersion(binaries.kubernetesVersion())
          .withOfflineMode(true)
          .withStartupTimeout(120_000)
          .build());
      try {
        candidate.start();
        return candidate;
      } catch (KubeAPITestException e) {
        stopQuietly(candidate);
        if (attempt == 2) {
          throw e;
        }
        LOG.warn("kube-apiserver did not start; starting it again error={}", e.getMessage());
      }
    }
  }

  private static void stopQuietly(KubeAPIServer server) {
    try {
      server.stop();
    } catch (RuntimeException e) {
      LOG.warn("could not stop a kube-apiserver that did not start error={}", e.toString());
    }
  }

  @Override
  public ClusterKind kind() {
    return ClusterKind.API_SERVER;
  }

  @Override
  public Config config() {
    return config;
  }

  @Override
  public String kubeconfigYaml() {
    return kubeconfig;
  }

  @Override
  public void close() {
    server.stop();
  }
}
