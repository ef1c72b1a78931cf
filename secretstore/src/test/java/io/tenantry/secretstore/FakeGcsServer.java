package io.tenantry.secretstore;

import com.google.api.gax.retrying.RetrySettings;
import com.google.cloud.NoCredentials;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageOptions;
import io.tenantry.testsupport.TestBinaries;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A fake-gcs-server process (built by tools/build-test-binaries.sh) on a free port, in-memory, plain
 * HTTP. Its output goes to target/fake-gcs-server-PORT.log. Stopped by {@link #close()}, or by a
 * shutdown hook if the test JVM exits first.
 */
public final class FakeGcsServer implements AutoCloseable {

  private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(30);

  private final Process process;
  private final int port;
  private final Path log;
  private final Thread shutdownHook;

  private FakeGcsServer(Process process, int port, Path log) {
    this.process = process;
    this.port = port;
    this.log = log;
    this.shutdownHook = new Thread(process::destroyForcibly, "stop-fake-gcs-server-" + port);
    Runtime.getRuntime().addShutdownHook(shutdownHook);
  }

  /** A server keeping its objects in memory, on a free port. */
  public static FakeGcsServer start() throws IOException, InterruptedException {
    return start(freePort(), null);
  }

  /**
   * A server on {@code port} keeping its objects under {@code root} (in memory when null), so that
   * a server started again on the same port and root serves the same objects: an outage, then recovery.
   */
  public static FakeGcsServer start(int port, Path root) throws IOException, InterruptedException {
    TestBinaries binaries = TestBinaries.locate();
    Path binary = binaries.tool("fake-gcs-server");
    binaries.requireBuilt(List.of(binary));
    Path log = Path.of("target", "fake-gcs-server-" + port + ".log").toAbsolutePath();
    Files.createDirectories(log.getParent());
    List<String> backend = root == null ? List.of("-backend", "memory")
        : List.of("-backend", "filesystem", "-filesystem-root", root.toString());
    List<String> command = new java.util.ArrayList<>(List.of(binary.toString(),
        "-scheme", "http", "-host", "127.0.0.1", "-port", Integer.toString(port),
        "-external-url", "http://127.0.0.1:" + port, "-log-level", "warn"));
    command.addAll(backend);
    Process process = new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .start();
    FakeGcsServer server = new FakeGcsServer(process, port, log);
    try {
      server.awaitReady();
    } catch (IOException | InterruptedException | RuntimeException e) {
      server.close();
      throw e;
    }
    return server;
  }

  /** A client of this server; its retries are short so that tests of an unreachable server end quickly. */
  public Storage storage() {
    return StorageOptions.newBuilder()
        .setHost(url())
        .setProjectId("test")
        .setCredentials(NoCredentials.getInstance())
        .setRetrySettings(RetrySettings.newBuilder()
            .setMaxAttempts(2)
            .setInitialRetryDelayDuration(Duration.ofMillis(50))
            .setMaxRetryDelayDuration(Duration.ofMillis(100))
            .setTotalTimeoutDuration(Duration.ofSeconds(10))
            .build())
        .build()
        .getService();
  }

  public int port() {
    return port;
  }

  public String url() {
    return "http://127.0.0.1:" + port;
  }

  private void awaitReady() throws IOException, InterruptedException {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
    HttpRequest buckets = HttpRequest.newBuilder(URI.create(url() + "/storage/v1/b")).timeout(Duration.ofSeconds(2)).build();
    long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("fake-gcs-server exited with " + process.exitValue() + ": " + Files.readString(log));
      }
      try {
        if (http.send(buckets, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
          return;
        }
      } catch (IOException e) {
        // Not listening yet.
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException("fake-gcs-server did not answer on " + url() + " within " + STARTUP_TIMEOUT
        + ": " + Files.readString(log));
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(5, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException e) {
      // The JVM is already shutting down; the hook runs anyway and finds the process gone.
    }
  }

  public static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
