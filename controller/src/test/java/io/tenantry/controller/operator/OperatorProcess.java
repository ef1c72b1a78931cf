package io.tenantry.controller.operator;

import io.tenantry.testsupport.TestCluster;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The operator as a separate process, started by {@link Main} as in production: a configuration
 * file, a kubeconfig and this JVM's class path. A work directory holds the cluster's kubeconfig
 * ({@link #writeKubeconfig}), each process's configuration ({@code <identity>.yaml}) and its
 * output ({@code <identity>.log}).
 */
final class OperatorProcess implements AutoCloseable {

  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private final String identity;
  private final Process process;
  private final Path log;

  private OperatorProcess(String identity, Process process, Path log) {
    this.identity = identity;
    this.process = process;
    this.log = log;
  }

  /** The HTTP status an operator answers at {@code path} of {@code port} on this host; -1 when it does not answer in 5 s. */
  static int httpStatus(int port, String path) {
    try {
      return HTTP.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path)).timeout(Duration.ofSeconds(5)).build(),
          HttpResponse.BodyHandlers.discarding()).statusCode();
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  /** Writes the cluster's kubeconfig into {@code workDir}, for every process started there. */
  static void writeKubeconfig(Path workDir, TestCluster cluster) throws IOException {
    Files.writeString(workDir.resolve("kubeconfig"), cluster.kubeconfigYaml());
  }

  /** Starts an operator as {@code identity} with the configuration {@code config} (YAML); returns at once. */
  static OperatorProcess start(Path workDir, String identity, String config) throws IOException {
    return start(workDir, identity, config, Map.of());
  }

  /** As {@link #start(Path, String, String)}, with {@code environment} added to the process's. */
  static OperatorProcess start(Path workDir, String identity, String config, Map<String, String> environment) throws IOException {
    Path configFile = workDir.resolve(identity + ".yaml");
    Files.writeString(configFile, config);
    Path log = workDir.resolve(identity + ".log");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ProcessBuilder builder = new ProcessBuilder(List.of(java, "-cp", System.getProperty("java.class.path"),
        Main.class.getName(), "--kubeconfig", workDir.resolve("kubeconfig").toString(),
        "--config", configFile.toString(), "--identity", identity))
        .redirectErrorStream(true)
        .redirectOutput(log.toFile());
    builder.environment().putAll(environment);
    return new OperatorProcess(identity, builder.start(), log);
  }

  String identity() {
    return identity;
  }

  /** The process's output (its JSON log lines). */
  Path log() {
    return log;
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** SIGKILL: no shutdown hook runs, no lease is released. Returns once the process is gone. */
  void kill() {
    process.destroyForcibly();
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException(identity + " still runs 30 s after SIGKILL");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while killing " + identity, e);
    }
  }

  /** SIGTERM: the shutdown hook stops the operator (releasing its lease); whether it exited within {@code timeout}. */
  boolean stop(Duration timeout) throws InterruptedException {
    process.destroy();
    return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Kills the process if it still runs. */
  @Override
  public void close() {
    if (process.isAlive()) {
      kill();
    }
  }

  /** A port free now, for a process to listen on. */
  static int freePort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
