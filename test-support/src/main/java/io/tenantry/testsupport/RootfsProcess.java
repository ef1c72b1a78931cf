package io.tenantry.testsupport;

import com.sun.security.auth.module.UnixSystem;
import io.tenantry.testsupport.ImageTarball.ImageConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * An image's command run from its extracted root filesystem ({@link ImageTarball#extract}) on this
 * machine, as close to a container as a machine without a container runtime allows, in one of two
 * {@link Mode}s. Either way the network is the machine's (a server on localhost is reachable), the
 * environment is the image's and the caller's only, and the rootfs gets the /etc/hosts and
 * /etc/resolv.conf a runtime would mount. Stopped by {@link #stop} (SIGTERM, as a kubelet does) or
 * {@link #close} (SIGKILL), and from a shutdown hook if the JVM ends first.
 */
public final class RootfsProcess implements AutoCloseable {

  /** How the command runs. */
  public enum Mode {
    /**
     * Running as root with {@code unshare} and {@code chroot}: in private mount and PID namespaces
     * (the command is PID 1, as in a container), with /proc and the /dev nodes a JVM opens mounted
     * into the rootfs, chrooted into it as the image's user. Nothing outside the rootfs is
     * reachable, and that user can write only where the image lets it.
     */
    CHROOT,
    /**
     * Otherwise: the rootfs's own dynamic loader runs the rootfs's own binary on the rootfs's own
     * libraries, as the current user; every argument naming a file of the image (alone, after
     * {@code @}, or in a {@code :}-separated list) is rewritten to its path in the rootfs, also
     * inside {@code @}argument files. Absolute paths the program computes itself are the machine's.
     */
    REWRITTEN_PATHS;

    /** CHROOT where it works, else REWRITTEN_PATHS; the system property tenantry.rootfs.mode forces one. */
    public static Mode available() {
      String forced = System.getProperty("tenantry.rootfs.mode", "");
      if (!forced.isBlank()) {
        return Mode.valueOf(forced.strip().toUpperCase(Locale.ROOT));
      }
      if (new UnixSystem().getUid() != 0) {
        return REWRITTEN_PATHS;
      }
      try {
        Process probe = new ProcessBuilder("unshare", "--mount", "--pid", "--fork", "chroot", "/", "true")
            .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        return probe.waitFor(30, TimeUnit.SECONDS) && probe.exitValue() == 0 ? CHROOT : REWRITTEN_PATHS;
      } catch (IOException e) {
        return REWRITTEN_PATHS;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return REWRITTEN_PATHS;
      }
    }
  }

  /** Mounts what a container has and the rootfs lacks, then becomes the command as the image's user. */
  private static final String CHROOT_SCRIPT = """
      set -e
      root=$1 user=$2; shift 2
      mkdir -p "$root/proc" "$root/dev"
      for node in null zero random urandom; do
        [ -e "$root/dev/$node" ] || : >"$root/dev/$node"
        mount --bind "/dev/$node" "$root/dev/$node"
      done
      mount -t proc proc "$root/proc"
      exec chroot --userspec="$user" "$root" "$@"
      """;

  private static final Pattern PATH_LIST = Pattern.compile("/[^:\\s]*(:/[^:\\s]*)*");

  private final Mode mode;
  private final Process process;
  private final Thread hook;

  private RootfsProcess(Mode mode, Process process) {
    this.mode = mode;
    this.process = process;
    this.hook = new Thread(this::kill, "kill-rootfs-process");
    Runtime.getRuntime().addShutdownHook(hook);
  }

  /**
   * Starts the image's command with {@code args} (they replace its cmd, like Kubernetes' args),
   * {@code extraEnv} added to the image's environment, output (both streams) to {@code log}.
   */
  public static RootfsProcess start(Mode mode, Path rootfs, ImageConfig config, List<String> args,
      Map<String, String> extraEnv, Path log) throws IOException {
    Path root = rootfs.toAbsolutePath();
    provideRuntimeFiles(root);
    List<String> command = config.command(args);
    List<String> line = new ArrayList<>();
    if (mode == Mode.CHROOT) {
      line.addAll(List.of("unshare", "--mount", "--pid", "--fork", "sh", "-c", CHROOT_SCRIPT, "sh", root.toString(),
          userSpec(root, config.user())));
      line.addAll(command);
    } else {
      line.addAll(rewritten(root, command, config.env().getOrDefault("PATH", "/usr/bin:/bin")));
    }
    ProcessBuilder builder = new ProcessBuilder(line).redirectErrorStream(true).redirectOutput(log.toFile());
    builder.environment().clear();
    builder.environment().putAll(config.env());
    // unshare, sh, mount and chroot themselves run from the machine.
    builder.environment().merge("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", (a, b) -> a + ":" + b);
    builder.environment().putAll(extraEnv);
    if (mode == Mode.REWRITTEN_PATHS && !config.workingDir().isBlank()) {
      builder.directory(root.resolve(config.workingDir().substring(1)).toFile());
    }
    return new RootfsProcess(mode, builder.start());
  }

  public Mode mode() {
    return mode;
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  /** SIGTERM to the command, then waits up to {@code timeout}; its exit status, or empty if it did not stop. */
  public Optional<Integer> stop(Duration timeout) throws InterruptedException {
    if (mode == Mode.CHROOT) {
      // The command is unshare's child (PID 1 of its namespace): signal it, not unshare.
      process.children().forEach(ProcessHandle::destroy);
    } else {
      process.destroy();
    }
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      return Optional.empty();
    }
    return Optional.of(process.exitValue());
  }

  /** SIGKILL to whatever is left. */
  @Override
  public void close() {
    kill();
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException alreadyShuttingDown) {
      // The hook is running or has run.
    }
  }

  private void kill() {
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
  }

  /** What a container runtime mounts into every container. */
  private static void provideRuntimeFiles(Path root) throws IOException {
    Files.createDirectories(root.resolve("etc"));
    String hostname = InetAddress.getLocalHost().getHostName();
    Files.writeString(root.resolve("etc/hosts"), "127.0.0.1\tlocalhost " + hostname + "\n::1\tlocalhost\n");
    Path resolv = Path.of("/etc/resolv.conf");
    Files.writeString(root.resolve("etc/resolv.conf"), Files.isReadable(resolv) ? Files.readString(resolv) : "");
  }

  /** "uid:gid" for chroot, from numbers or names in the image's /etc/passwd and /etc/group; root when unset. */
  static String userSpec(Path root, String user) {
    if (user == null || user.isBlank()) {
      return "0:0";
    }
    String[] parts = user.split(":", 2);
    String uid = numeric(parts[0]) ? parts[0] : lookup(root.resolve("etc/passwd"), parts[0], 2);
    String gid = parts.length > 1
        ? (numeric(parts[1]) ? parts[1] : lookup(root.resolve("etc/group"), parts[1], 2))
        : numeric(parts[0]) ? uid : lookup(root.resolve("etc/passwd"), parts[0], 3);
    return uid + ":" + gid;
  }

  private static boolean numeric(String s) {
    return !s.isEmpty() && s.chars().allMatch(Character::isDigit);
  }

  private static String lookup(Path file, String name, int field) {
    try {
      return Files.readAllLines(file).stream().map(l -> l.split(":")).filter(f -> f.length > field && f[0].equals(name))
          .map(f -> f[field]).findFirst()
          .orElseThrow(() -> new IllegalStateException("the image's " + file.getFileName() + " has no " + name));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the image's " + file, e);
    }
  }

  /** The command for REWRITTEN_PATHS: loader, library path, binary and arguments in the rootfs. */
  private static List<String> rewritten(Path root, List<String> command, String imagePath) throws IOException {
    String program = command.get(0);
    Path binary = null;
    for (String dir : program.contains("/") ? List.of("") : List.of(imagePath.split(":"))) {
      Path candidate = root.resolve((dir.isEmpty() ? program : dir + "/" + program).substring(1));
      if (Files.isExecutable(candidate)) {
        binary = candidate;
        break;
      }
    }
    if (binary == null) {
      throw new IOException(program + " is not in the image (PATH " + imagePath + ")");
    }
    List<String> libraries = new ArrayList<>();
    for (String dir : List.of("lib/x86_64-linux-gnu", "usr/lib/x86_64-linux-gnu", "lib64", "lib", "usr/lib")) {
      if (Files.isDirectory(root.resolve(dir))) {
        libraries.add(root.resolve(dir).toString());
      }
    }
    List<String> line = new ArrayList<>(List.of(root.resolve("lib64/ld-linux-x86-64.so.2").toString(),
        "--library-path", String.join(":", libraries), binary.toString()));
    for (String arg : command.subList(1, command.size())) {
      line.add(arg.startsWith("@/") ? "@" + rewrittenArgFile(root, arg.substring(1)) : rewrite(root, arg));
    }
    return line;
  }

  private static String rewrittenArgFile(Path root, String file) throws IOException {
    Path copy = Files.createTempFile("rootfs-argfile-", "");
    List<String> lines = new ArrayList<>();
    for (String l : Files.readAllLines(root.resolve(file.substring(1)))) {
      lines.add(rewrite(root, l.strip()));
    }
    Files.write(copy, lines);
    copy.toFile().deleteOnExit();
    return copy.toString();
  }

  /** An argument that is one absolute path of the image, or a {@code :}-list of them, in the rootfs; others as they are. */
  private static String rewrite(Path root, String arg) {
    if (!PATH_LIST.matcher(arg).matches()) {
      return arg;
    }
    List<String> parts = new ArrayList<>();
    for (String p : arg.split(":")) {
      Path inRoot = root.resolve(p.substring(1));
      String parent = inRoot.getParent() == null ? null : inRoot.getParent().toString();
      boolean ofTheImage = Files.exists(inRoot) || p.endsWith("/*") && parent != null && Files.isDirectory(Path.of(parent));
      parts.add(ofTheImage ? inRoot.toString() : p);
    }
    return String.join(":", parts);
  }
}
