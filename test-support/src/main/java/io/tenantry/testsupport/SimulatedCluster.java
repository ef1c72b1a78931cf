package io.tenantry.testsupport;

import io.fabric8.kubernetes.client.Config;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A kwok cluster (real control plane, fake nodes) created through {@code tools/kwok-cluster.sh},
 * the one place that knows kwokctl's flags; the README's run command uses the same script.
 *
 * <p>Its kube-apiserver is supervised, as kubelet supervises a real cluster's static pods: if it
 * exits other than through {@link #stopApiServer}, it is started again within seconds, logged as an
 * error with its last lines, its logs kept (tools/kwok-cluster.sh revive). Without this, a suite's
 * shared cluster that lost its API server failed every later test class, and once another cluster
 * took over the freed port, their clients got "not an SSL/TLS record" from its etcd.
 */
public final class SimulatedCluster implements TestCluster {

  private static final Logger LOG = LoggerFactory.getLogger(SimulatedCluster.class);
  private static final Duration SUPERVISION_PERIOD = Duration.ofSeconds(1);
  /** The clusters this JVM created, by name: {@link #stopApiServer} pauses their supervision. */
  private static final Map<String, SimulatedCluster> CREATED = new ConcurrentHashMap<>();

  private final TestBinaries binaries;
  private final String name;
  private final Path directory;
  private final String kubeconfig;
  private final Config config;
  private final Thread supervisor;
  /** Guarded by this: the API server is down because a test stopped it, or the cluster is closing. */
  private boolean stoppedOnPurpose;
  private boolean closed;

  /** Creates a cluster called {@code name} with {@code nodes} fake nodes. */
  public SimulatedCluster(TestBinaries binaries, String name, int nodes) {
    this.binaries = binaries;
    this.name = name;
    Path path = Path.of(run(binaries, "up", name, Integer.toString(nodes)).strip());
    directory = path.getParent();
    try {
      kubeconfig = Files.readString(path);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the kubeconfig of cluster " + name, e);
    }
    config = Config.fromKubeconfig(kubeconfig);
    CREATED.put(name, this);
    supervisor = new Thread(this::superviseApiServer, "supervise-" + name + "-apiserver");
    supervisor.setDaemon(true);
    supervisor.start();
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
    synchronized (this) {
      closed = true;
    }
    supervisor.interrupt();
    CREATED.remove(name, this);
    run(binaries, "down", name);
  }

  /**
   * Kills the kube-apiserver of the simulated cluster called {@code name}, as a crash would; etcd
   * and the other components keep running, and it stays down until {@link #startApiServer}.
   * (Static: tests hold a cluster through {@link TestClusters}.)
   */
  public static void stopApiServer(String name) {
    runOnApiServer(name, "stop-apiserver", true);
  }

  /**
   * Starts the kube-apiserver {@link #stopApiServer} stopped, with the same flags, and restarts
   * kube-controller-manager and kube-scheduler, as a real cluster's kubelet does once they lose
   * their leader lease in an outage; returns once the API server is ready.
   */
  public static void startApiServer(String name) {
    runOnApiServer(name, "start-apiserver", false);
  }

  /** Runs a fault-injection command under the cluster's lock, so its supervisor sees only the outcome. */
  private static void runOnApiServer(String name, String command, boolean stoppedAfter) {
    SimulatedCluster cluster = CREATED.get(name);
    if (cluster == null) {
      run(TestBinaries.locate(), command, name);
      return;
    }
    synchronized (cluster) {
      run(cluster.binaries, command, name);
      cluster.stoppedOnPurpose = stoppedAfter;
    }
  }

  private void superviseApiServer() {
    ProcessHandle apiServer = null;
    Duration pause = SUPERVISION_PERIOD;
    while (true) {
      try {
        Thread.sleep(pause.toMillis());
      } catch (InterruptedException e) {
        return;
      }
      synchronized (this) {
        if (closed) {
          return;
        }
        if (stoppedOnPurpose) {
          continue;
        }
        // The pid file names the API server started last (by a test's startApiServer, say). The handle
        // is kept while it names the same pid: a handle knows its process's start time, so once that
        // process exits, another given the same pid is not taken for it.
        Optional<ProcessHandle> named = apiServerProcess();
        if (named.isPresent() && (apiServer == null || apiServer.pid() != named.get().pid())) {
          apiServer = named.get();
        }
        if (named.isEmpty() || !apiServer.isAlive()) {
          apiServer = null;
          // Not every second while it cannot start (its port taken, say): each attempt logs an error.
          pause = revive() ? SUPERVISION_PERIOD : SUPERVISION_PERIOD.multipliedBy(30);
        }
      }
    }
  }

  /** The process named by the API server's pid file, if that file is there and the process runs. */
  private Optional<ProcessHandle> apiServerProcess() {
    try {
      return ProcessHandle.of(Long.parseLong(Files.readString(directory.resolve("pids/kube-apiserver.pid")).strip()));
    } catch (IOException | NumberFormatException e) {
      return Optional.empty();
    }
  }

  /** Starts the API server again; whether it is ready. */
  private boolean revive() {
    String lastLines = lastLines(directory.resolve("logs/kube-apiserver.log"), 20);
    try {
      String kept = run(binaries, "revive", name).strip();
      LOG.error("the kube-apiserver of simulated cluster {} exited; started it again, its logs kept in {};"
          + " its last lines:\n{}", name, kept, lastLines);
      return true;
    } catch (RuntimeException e) {
      LOG.error("the kube-apiserver of simulated cluster {} exited and did not start again error={}; its last lines:\n{}",
          name, e.getMessage(), lastLines);
      return false;
    }
  }

  private static String lastLines(Path file, int count) {
    try {
      List<String> lines = Files.readAllLines(file);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - count), lines.size()));
    } catch (IOException | UncheckedIOException e) {
      return "(cannot read " + file + ": " + e.getMessage() + ")";
    }
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
      // The script's own notices (a component found dead, where its logs are kept).
      Files.readAllLines(log).stream().filter(line -> line.startsWith("kwok-cluster:")).forEach(LOG::warn);
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
