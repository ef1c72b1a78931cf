package io.tenantry.spares;

import com.google.api.gax.retrying.RetrySettings;
import com.google.cloud.NoCredentials;
import com.google.cloud.datastore.Datastore;
import com.google.cloud.datastore.DatastoreOptions;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The Cloud Datastore emulator of the installed Google Cloud SDK, as a process on a free port,
 * in memory and strongly consistent ({@code --consistency=1.0}). Its output goes to
 * target/datastore-emulator-PORT.log. It is stopped, with the java process its launcher script
 * starts, by {@link #close()}, or by a shutdown hook if the test JVM exits first.
 *
 * <p>For outages, {@link #start(Path)} keeps the entities in a directory instead: {@link #stop()}
 * ends the process (which writes them out as it stops) and {@link #restart()} serves them again on
 * the same port, so clients configured for that port see Datastore go away and come back.
 *
 * <p>Requires {@code gcloud} on PATH with the {@code cloud-datastore-emulator} component; without
 * them {@link #start()} fails saying what to install.
 */
public final class DatastoreEmulator implements AutoCloseable {

  public static final String PROJECT_ID = "tenantry-test";
  private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(60);
  private static final String INSTALL_HINT = "install the Google Cloud SDK (https://cloud.google.com/sdk/docs/install)"
      + " and its Datastore emulator: `gcloud components install cloud-datastore-emulator`, or the"
      + " google-cloud-cli-datastore-emulator package where the SDK came from apt";

  private final int port;
  private final Path log;
  /** Where the entities are kept between {@link #stop()} and {@link #restart()}; null: in memory. */
  private final Path dataDirectory;
  private final Duration startup;
  private final Thread shutdownHook;
  /** The running emulator; null while {@link #stop() stopped}. */
  private volatile Process process;

  private DatastoreEmulator(Process process, int port, Path log, Path dataDirectory, Duration startup) {
    this.process = process;
    this.port = port;
    this.log = log;
    this.dataDirectory = dataDirectory;
    this.startup = startup;
    // Not through stop(): the hook must not wait for a restart() holding the lock.
    this.shutdownHook = new Thread(() -> {
      Process running = this.process;
      if (running != null) {
        stop(running);
      }
    }, "stop-datastore-emulator-" + port);
    Runtime.getRuntime().addShutdownHook(shutdownHook);
  }

  /** Starts an emulator on a free port, in memory, and waits until it answers. */
  public static DatastoreEmulator start() throws IOException, InterruptedException {
    return start(freePort(), null);
  }

  /**
   * Starts an emulator on a free port keeping its entities in {@code dataDirectory} (a new or
   * empty directory), so that {@link #stop()} then {@link #restart()} is an outage that loses nothing.
   */
  public static DatastoreEmulator start(Path dataDirectory) throws IOException, InterruptedException {
    Files.createDirectories(dataDirectory);
    return start(freePort(), dataDirectory);
  }

  private static DatastoreEmulator start(int port, Path dataDirectory) throws IOException, InterruptedException {
    Path log = Path.of("target", "datastore-emulator-" + port + ".log").toAbsolutePath();
    Files.createDirectories(log.getParent());
    long begin = System.nanoTime();
    Process process = launch(port, log, dataDirectory);
    return new DatastoreEmulator(process, port, log, dataDirectory, Duration.ofNanos(System.nanoTime() - begin));
  }

  /** Starts the emulator process and waits until it answers; stops it again if it does not. */
  private static Process launch(int port, Path log, Path dataDirectory) throws IOException, InterruptedException {
    Path binary = emulatorBinary();
    // Started directly rather than through `gcloud beta emulators datastore start`, which wraps the
    // same binary in a Python launcher: faster, and one process tree less to clean up.
    List<String> command = new ArrayList<>(List.of(binary.toString(), "start",
        "--host=localhost", "--port=" + port, "--store_on_disk=" + (dataDirectory != null), "--consistency=1.0",
        "--store_index_configuration_on_disk=false"));
    if (dataDirectory != null) {
      // The project directory: the emulator writes its entities to WEB-INF/appengine-generated/ there when it stops.
      command.add(dataDirectory.toString());
    }
    ProcessBuilder builder = new ProcessBuilder(command)
        // Without a project directory the emulator writes WEB-INF/index.yaml into its working
        // directory; the flag above stops that, and target/ catches anything else it writes.
        .directory(log.getParent().toFile())
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    // The launcher runs $JAVA (default: java on PATH); the test JVM's own java is known to work.
    builder.environment().put("JAVA", Path.of(System.getProperty("java.home"), "bin", "java").toString());
    Process process = builder.start();
    boolean ready = false;
    try {
      awaitReady(process, port, log);
      ready = true;
      return process;
    } finally {
      if (!ready) {
        stop(process);
      }
    }
  }

  /**
   * Stops the emulator: its port refuses connections until {@link #restart()}. An emulator started
   * with a data directory writes its entities there first. Harmless when already stopped.
   */
  public synchronized void stop() {
    Process running = process;
    process = null;
    if (running != null) {
      stop(running);
    }
  }

  /**
   * Starts the emulator again on the same port and waits until it answers: with the entities it
   * had when stopped if it was started with a data directory, empty otherwise.
   */
  public synchronized void restart() throws IOException, InterruptedException {
    if (process != null) {
      throw new IllegalStateException("the Datastore emulator on port " + port + " is running; stop() it first");
    }
    process = launch(port, log, dataDirectory);
  }

  /** Whether the emulator is serving: false between {@link #stop()} and {@link #restart()}. */
  public boolean isRunning() {
    return process != null;
  }

  /** A client of this emulator; short retries, so a test against a stopped emulator ends quickly. */
  public Datastore datastore() {
    return DatastoreOptions.newBuilder()
        .setHost("localhost:" + port)
        .setProjectId(PROJECT_ID)
        .setCredentials(NoCredentials.getInstance())
        .setRetrySettings(RetrySettings.newBuilder()
            .setMaxAttempts(3)
            .setInitialRetryDelayDuration(Duration.ofMillis(50))
            .setMaxRetryDelayDuration(Duration.ofMillis(200))
            .setTotalTimeoutDuration(Duration.ofSeconds(20))
            .build())
        .build()
        .getService();
  }

  public int port() {
    return port;
  }

  /** How long the emulator took from process start to answering its health check. */
  public Duration startupTime() {
    return startup;
  }

  public Path log() {
    return log;
  }

  @Override
  public void close() {
    stop();
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException e) {
      // The JVM is already shutting down; the hook runs anyway and finds the processes gone.
    }
  }

  /** The launcher is a shell script that starts java as its child; both have to go (SIGTERM, so it saves what it keeps on disk). */
  private static void stop(Process process) {
    List<ProcessHandle> tree = process.descendants().toList();
    tree.forEach(ProcessHandle::destroy);
    process.destroy();
    try {
      // Generous: the emulator writes its entities out as it stops, on a machine that may be busy.
      for (ProcessHandle handle : tree) {
        handle.onExit().get(15, TimeUnit.SECONDS);
      }
      process.waitFor(15, TimeUnit.SECONDS);
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
    } finally {
      tree.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
      if (process.isAlive()) {
        process.destroyForcibly();
      }
    }
  }

  private static Path emulatorBinary() throws IOException, InterruptedException {
    Path sdk = sdkRoot();
    Path binary = sdk.resolve("platform/cloud-datastore-emulator/cloud_datastore_emulator");
    if (!Files.isExecutable(binary)) {
      throw new IllegalStateException("The Cloud Datastore emulator is not installed in the Google Cloud SDK at "
          + sdk + " (no " + binary + "): " + INSTALL_HINT);
    }
    return binary;
  }

  private static Path sdkRoot() throws IOException, InterruptedException {
    Process gcloud;
    try {
      gcloud = new ProcessBuilder("gcloud", "info", "--format=value(installation.sdk_root)")
          .redirectErrorStream(true)
          .start();
    } catch (IOException e) {
      throw new IllegalStateException("gcloud is not on PATH: " + INSTALL_HINT, e);
    }
    String output = new String(gcloud.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    if (!gcloud.waitFor(60, TimeUnit.SECONDS) || gcloud.exitValue() != 0 || output.isEmpty()) {
      gcloud.destroyForcibly();
      throw new IllegalStateException("`gcloud info` did not report the SDK root (" + output + "): " + INSTALL_HINT);
    }
    return Path.of(output.lines().reduce((first, last) -> last).orElseThrow());
  }

  private static void awaitReady(Process process, int port, Path log) throws IOException, InterruptedException {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
    HttpRequest health = HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/"))
        .timeout(Duration.ofSeconds(2))
        .build();
    long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("The Datastore emulator exited with " + process.exitValue()
            + " (it needs Java 11 or newer): " + Files.readString(log));
      }
      try {
        if (http.send(health, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
          return;
        }
      } catch (IOException e) {
        // Not listening yet.
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException("The Datastore emulator did not answer on port " + port + " within "
        + STARTUP_TIMEOUT + ": " + Files.readString(log));
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
