package io.tenantry.testsupport;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;

/** A running cluster that tests talk to. Shared by every test of a suite; tests isolate themselves by name. */
public interface TestCluster extends AutoCloseable {

  ClusterKind kind();

  /** A client configuration for the cluster's admin. */
  Config config();

  /** The same credentials as a kubeconfig file's content, for processes started by a test. */
  String kubeconfigYaml();

  /** A new client; the caller closes it. */
  default KubernetesClient newClient() {
    return new KubernetesClientBuilder().withConfig(config()).build();
  }

  /** Stops the cluster and removes its files; a cluster the test support does not own is left running. */
  @Override
  void close();
}
