package io.tenantry.testsupport;

import io.fabric8.kubernetes.client.Config;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A kwok cluster (real control plane, fake nodes) created through {@code tools/kwok-cluster.sh},
 * the one place that knows kwokctl's flags; the README's run command uses the same script.
 */
public final class SimulatedCluster implements TestCluster {

  private final TestBinaries binaries;
  private final String name;
  private final String kubeconfig;
  private final Config config;

  /** Creates a cluster called {@code name} with {@code nodes} fake nodes. */
  public SimulatedCluster(TestBinaries binaries, String name, int nodes) {
    this.binaries = binaries;
    this.name = name;
    String path = run(binaries, "up", name, Integer.toString(nodes)).strip();
    try {
      kubeconfig = Files.readString(Path.of(path));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the kubeconfig of cluster " + name, e);
    }
    config = Config.fromKubeconfig(kubeconfig);
  }

  public String name() {
    return name;
  }

  @Override
  public ClusterKind kind() {
    return ClusterKind.SIMULATED;
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
    run(binaries, "down", name);
  }

  /**
   * Kills the kube-apiserver of the simulated cluster called {@code name}, as a crash would; etcd
   * and the other components keep running. (Static: tests hold a cluster through {@link TestClusters}.)
   */
  public static void stopApiServer(String name) {
    run(TestBinaries.locate(), "stop-apiserver", name);
  }

  /**
   * Starts the kube-apiserver {@link #stopApiServer} stopped, with the same flags, and restarts
   * kube-controller-manager and kube-scheduler, as a real cluster's kubelet does once they lose
   * their leader lease in an outage; returns once the API server is ready.
   */
  public static void startApiServer(String name) {
    run(TestBinaries.locate(), "start-apiserver", name);
  }

  /**
   * Compacts the etcd of the simulated cluster called {@code name} to a new revision, past every
   * resourceVersion its API server has handed out, and returns that revision: exact lists from any
   * earlier resourceVersion then get 410 Gone, and so do watches once the API server's watch cache
   * is rebuilt from etcd (stop the API server first, start it after).
   */
  public static long compactEtcd(String name) {
    return Long.parseLong(run(TestBinaries.locate(), "compact", name).strip());
  }

  private static String run(TestBinaries binaries, String... args) {
    List<String> command = new ArrayList<>();
    command.add("bash");
    command.add(binaries.toolsDir().resolve("kwok-cluster.sh").toString());
    command.addAll(List.of(args));
    try {
      Path log = Files.createTempFile("kwok-cluster-", ".log");
      Process process = new ProcessBuilder(command)
          .redirectError(log.toFile())
          .start();
      String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!process.waitFor(5, TimeUnit.MINUTES) || process.exitValue() != 0) {
        process.destroyForcibly();
        throw new IllegalStateException("kwok-cluster.sh " + String.join(" ", args) + " failed:\n"
            + Files.readString(log));
      }
      Files.deleteIfExists(log);
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running kwok-cluster.sh", e);
    }
  }
}
