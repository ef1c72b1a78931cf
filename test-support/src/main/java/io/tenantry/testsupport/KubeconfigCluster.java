package io.tenantry.testsupport;

import io.fabric8.kubernetes.client.Config;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The user's own cluster, named by KUBECONFIG (or ~/.kube/config). It is never stopped by the tests. */
final class KubeconfigCluster implements TestCluster {

  private final Config config = Config.autoConfigure(null);
  private final String kubeconfig;

  KubeconfigCluster() {
    String env = System.getenv("KUBECONFIG");
    Path file = env != null && !env.isBlank()
        ? Path.of(env.split(java.io.File.pathSeparator)[0])
        : Path.of(System.getProperty("user.home"), ".kube", "config");
    try {
      kubeconfig = Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException("tenantry.cluster=kubeconfig: cannot read " + file, e);
    }
  }

  @Override
  public ClusterKind kind() {
    return ClusterKind.KUBECONFIG;
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
    // Not ours to stop.
  }
}
