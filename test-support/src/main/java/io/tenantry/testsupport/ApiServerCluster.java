package io.tenantry.testsupport;

import io.fabric8.kubeapitest.KubeAPIServer;
import io.fabric8.kubeapitest.KubeAPIServerConfigBuilder;
import io.fabric8.kubernetes.client.Config;
import java.util.List;

/** A real kube-apiserver with etcd, started by kube-api-test from the locally built binaries, offline. */
final class ApiServerCluster implements TestCluster {

  private final KubeAPIServer server;
  private final String kubeconfig;
  private final Config config;

  ApiServerCluster(TestBinaries binaries) {
    binaries.requireBuilt(List.of(binaries.kubernetesDir().resolve("kube-apiserver"),
        binaries.kubernetesDir().resolve("etcd"), binaries.kubectl()));
    // Offline mode through the builder: the KUBE_API_TEST_OFFLINE_MODE variable is not honoured
    // reliably across kube-api-test releases, and a download must never be attempted here.
    server = new KubeAPIServer(KubeAPIServerConfigBuilder.anAPIServerConfig()
        .withTestDir(binaries.cacheDir().toString())
        .withApiServerVersion(binaries.kubernetesVersion())
        .withOfflineMode(true)
        .withStartupTimeout(120_000)
        .build());
    server.start();
    kubeconfig = server.getKubeConfigYaml();
    config = Config.fromKubeconfig(kubeconfig);
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
