package io.tenantry.testsupport;

import io.fabric8.kubernetes.client.Config;
import org.testcontainers.k3s.K3sContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * K3s in Testcontainers, for machines with a Docker engine and access to an image registry
 * ({@code mvn verify -Pk3s}). The Tenantry build machines have neither, so CI never selects it.
 */
final class K3sCluster implements TestCluster {

  private final K3sContainer container;
  private final String kubeconfig;
  private final Config config;

  K3sCluster(TestBinaries binaries) {
    String image = "rancher/k3s:v" + binaries.kubernetesVersion() + "-k3s1";
    container = new K3sContainer(DockerImageName.parse(image));
    container.start();
    kubeconfig = container.getKubeConfigYaml();
    config = Config.fromKubeconfig(kubeconfig);
  }

  @Override
  public ClusterKind kind() {
    return ClusterKind.K3S;
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
    container.stop();
  }
}
