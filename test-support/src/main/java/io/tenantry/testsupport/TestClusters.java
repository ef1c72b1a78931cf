package io.tenantry.testsupport;

import io.fabric8.kubernetes.client.Config;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts clusters for tests and benchmarks. A started cluster is stopped exactly once: by its
 * owner's {@code close()}, or by a shutdown hook if the JVM stops first (a killed build must not
 * leave control-plane processes behind).
 */
public final class TestClusters {

  private static final Logger LOG = LoggerFactory.getLogger(TestClusters.class);

  private TestClusters() {
  }

  /** Starts a new cluster; a simulated one is called {@code name} and gets 3 nodes. */
  public static TestCluster start(ClusterKind kind, String name) {
    return start(kind, name, 3);
  }

  public static TestCluster start(ClusterKind kind, String name, int nodes) {
    LOG.info("starting the {} cluster", kind.id());
    long started = System.nanoTime();
    TestBinaries binaries = TestBinaries.locate();
    TestCluster cluster = switch (kind) {
      case API_SERVER -> new ApiServerCluster(binaries);
      case SIMULATED -> new SimulatedCluster(binaries, name, nodes);
      case KUBECONFIG -> new KubeconfigCluster();
      case K3S -> new K3sCluster(binaries);
    };
    LOG.info("{} cluster ready in {} ms", kind.id(), (System.nanoTime() - started) / 1_000_000);
    return new StoppedOnce(cluster);
  }

  private static final class StoppedOnce implements TestCluster {
    private final TestCluster cluster;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Thread hook;

    StoppedOnce(TestCluster cluster) {
      this.cluster = cluster;
      this.hook = new Thread(this::stop, "stop-" + cluster.kind().id() + "-cluster");
      Runtime.getRuntime().addShutdownHook(hook);
    }

    @Override
    public ClusterKind kind() {
      return cluster.kind();
    }

    @Override
    public Config config() {
      return cluster.config();
    }

    @Override
    public String kubeconfigYaml() {
      return cluster.kubeconfigYaml();
    }

    @Override
    public void close() {
      stop();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException alreadyShuttingDown) {
        // The hook is running or has run.
      }
    }

    private void stop() {
      if (closed.compareAndSet(false, true)) {
        LOG.info("stopping the {} cluster", cluster.kind().id());
        cluster.close();
      }
    }
  }
}
