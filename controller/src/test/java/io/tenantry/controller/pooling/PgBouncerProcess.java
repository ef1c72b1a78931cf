package io.tenantry.controller.pooling;

import io.tenantry.testsupport.RealPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The machine's real PgBouncer (Debian's package, tools/build-test-binaries.sh), run as a pooler
 * pod runs it: one process reading the ini and userlist a {@link PgBouncerConfig} renders. When
 * the JVM is root it runs as nobody, as PgBouncer refuses root, and owns the userlist, readable by
 * it alone as in the pod.
 */
final class PgBouncerProcess implements AutoCloseable {

  static final Path BINARY = Path.of("/usr/sbin/pgbouncer");
  static final String HOST = "127.0.0.1";
  private static final int NOBODY = 65534;
  private static final Duration STARTUP = Duration.ofSeconds(20);

  private final Path dir;
  private final Process process;
  private final int port;

  private PgBouncerProcess(Path dir, Process process, int port) {
    this.dir = dir;
    this.process = process;
    this.port = port;
  }

  /** {@code PgBouncer 1.18.0} → [1, 18]. */
  static int[] version() throws IOException, InterruptedException {
    if (!Files.isExecutable(BINARY)) {
      throw new IllegalStateException(BINARY + " is missing: run tools/build-test-binaries.sh (it installs Debian's pgbouncer)");
    }
    Process p = new ProcessBuilder(BINARY.toString(), "--version").redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    p.waitFor(10, TimeUnit.SECONDS);
    Matcher m = Pattern.compile("PgBouncer (\\d+)\\.(\\d+)").matcher(out);
    if (!m.find()) {
      throw new IllegalStateException("cannot read PgBouncer's version from: " + out);
    }
    return new int[] {Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2))};
  }

  /**
   * Starts PgBouncer on {@code config}, where only what a pod's environment fixes and this
   * machine's differs is changed: it listens on loopback on a free port, and reads its userlist
   * from its own directory instead of the pod's mount point. Returns once it accepts connections.
   */
  static PgBouncerProcess start(PgBouncerConfig config) throws IOException, InterruptedException {
    Path dir = Files.createTempDirectory(Path.of("/tmp"), "tenantry-pgbouncer-");
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
    int port = freePort();
    Path userlist = dir.resolve(PgBouncerConfig.USERLIST);
    PgBouncerConfig local = config.with("listen_addr", HOST).with("listen_port", Integer.toString(port))
        .with("auth_file", userlist.toString());
    Path ini = dir.resolve(PgBouncerConfig.INI);
    Files.writeString(ini, local.ini(), StandardCharsets.UTF_8);
    Files.writeString(userlist, local.userlist(), StandardCharsets.UTF_8);
    Files.setPosixFilePermissions(userlist, PosixFilePermissions.fromString("rw-------"));
    if (isRoot()) {
      Files.setAttribute(userlist, "unix:uid", NOBODY);
    }
    Process process = new ProcessBuilder(RealPostgres.asServerUser(List.of(BINARY.toString(), ini.toString())))
        .directory(dir.toFile()).redirectErrorStream(true).redirectOutput(dir.resolve("pgbouncer.log").toFile()).start();
    PgBouncerProcess started = new PgBouncerProcess(dir, process, port);
    started.awaitListening();
    return started;
  }

  int port() {
    return port;
  }

  /** What PgBouncer logged (never a password: it logs none). */
  String log() {
    try {
      return Files.readString(dir.resolve("pgbouncer.log"), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "(cannot read the log: " + e.getMessage() + ")";
    }
  }

  private void awaitListening() throws InterruptedException {
    long deadline = System.nanoTime() + STARTUP.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("pgbouncer exited with " + process.exitValue() + ":\n" + log());
      }
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress(HOST, port), 200);
        return;
      } catch (IOException notYet) {
        Thread.sleep(50);
      }
    }
    throw new IllegalStateException("pgbouncer did not listen within " + STARTUP + ":\n" + log());
  }

  @Override
  public void close() throws IOException, InterruptedException {
    process.destroy();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    }
  }

  private static boolean isRoot() throws IOException {
    return ((Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid")) == 0;
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot find a free port", e);
    }
  }
}
