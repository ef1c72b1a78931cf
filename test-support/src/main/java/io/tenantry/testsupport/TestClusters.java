package io.tenantry.testsupport;

/** Starts a cluster of a given kind; the JUnit extension and the benchmarks share this. */
public final class TestClusters {

  private TestClusters() {
  }

  /** Starts a new cluster; the caller closes it. A simulated one is named after {@code name}. */
  public static TestCluster start(ClusterKind kind, String name) {
    TestBinaries binaries = TestBinaries.locate();
    return switch (kind) {
      case API_SERVER -> new ApiServerCluster(binaries);
      case SIMULATED -> new SimulatedCluster(binaries, name, 3);
      case KUBECONFIG -> new KubeconfigCluster();
      case K3S -> new K3sCluster(binaries);
    };
  }
}
