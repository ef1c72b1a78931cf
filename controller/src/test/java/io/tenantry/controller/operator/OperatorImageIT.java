package io.tenantry.controller.operator;

import static io.tenantry.controller.operator.OperatorHarness.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.tenantry.testsupport.ImageTarball;
import io.tenantry.testsupport.ImageTarball.ImageConfig;
import io.tenantry.testsupport.RootfsProcess;
import io.tenantry.testsupport.TestCluster;
import io.tenantry.testsupport.WithCluster;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The operator image {@code mvn package} writes (target/tenantry-operator-image.tar), unpacked into
 * a root filesystem and run from it the way a pod runs it: a non-root user, the operator's Main as
 * entrypoint, in-cluster configuration from its ServiceAccount's token with the shipped RBAC, and
 * nothing written outside /tmp (its secret-store volume aside). How it runs depends on the machine
 * ({@link RootfsProcess.Mode}); the test prints which: chrooted as the image's user where the test
 * runs as root, else the image's own java on the image's own libraries with its paths rewritten
 * (then with a kubeconfig instead of the pod's in-cluster files, which sit at fixed absolute paths,
 * and without the check of what it wrote, which only the image's user makes meaningful).
 */
@WithCluster(workloads = true)
class OperatorImageIT {

  private static final String SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";
  private static final String STORE_DIR = "/var/lib/tenantry/secret-store";

  private static Path workDir;
  private static Path rootfs;
  private static ImageConfig image;

  @BeforeAll
  static void extractTheImage() throws IOException {
    workDir = Files.createDirectories(Path.of("target", "operator-image-it").toAbsolutePath());
    rootfs = workDir.resolve("rootfs");
    deleteRecursively(rootfs);
    image = ImageTarball.extract(ImageTarball.operatorImage(), rootfs);
  }

  @Test
  void theImageRunsTheOperatorAsANonRootUser() throws IOException {
    assertThat(image.user()).isEqualTo("65532:65532");
    assertThat(Files.readString(rootfs.resolve("etc/passwd"))).contains("nonroot:x:65532:65532:");
    assertThat(image.entrypoint()).first().isEqualTo("java");
    assertThat(image.entrypoint()).contains("-XX:+ExitOnOutOfMemoryError", "-XX:MaxRAMPercentage=75",
        "-XX:+UseG1GC", "-XX:+UseStringDeduplication", "-Djava.io.tmpdir=/tmp").last().isEqualTo(Main.class.getName());
    assertThat(image.cmd()).isEmpty();
    assertThat(image.env()).containsEntry("JAVA_HOME", "/opt/java/openjdk").containsEntry("LANG", "C.UTF-8");
    assertThat(image.env().get("PATH")).startsWith("/opt/java/openjdk/bin:");
    assertThat(image.exposedPorts()).containsExactlyInAnyOrder("8080/tcp", "8081/tcp");
    assertThat(rootfs.resolve("opt/java/openjdk/bin/java")).isExecutable();
    assertThat(rootfs.resolve("etc/ssl/certs/ca-certificates.crt")).isNotEmptyFile();
    assertThat((int) Files.getAttribute(rootfs.resolve("tmp"), "unix:mode") & 07777).as("/tmp is rwxrwxrwt").isEqualTo(01777);
  }

  @Test
  void theOperatorStartsFromTheImageInClusterAndWritesOnlyToTmp(TestCluster cluster, KubernetesClient client)
      throws Exception {
    RootfsProcess.Mode mode = RootfsProcess.Mode.available();
    System.out.println("OperatorImageIT: running the image's entrypoint " + (mode == RootfsProcess.Mode.CHROOT
        ? "chrooted into the extracted rootfs as its user (private mount and PID namespaces)"
        : "with the rootfs's own java and libraries, its paths rewritten (not root, or no unshare/chroot)"));
    OperatorHarness.installCrds(cluster);
    String identity = uniqueName("image");
    String leaseName = uniqueName("image-lease");
    int probePort = freePort();
    Map<String, String> env = podFiles(cluster, client, mode, probePort, leaseName);
    List<String> args = mode == RootfsProcess.Mode.CHROOT
        ? List.of("--config", "/etc/tenantry/operator.yaml", "--identity", identity)
        : List.of("--config", "/etc/tenantry/operator.yaml", "--identity", identity, "--kubeconfig", "/etc/tenantry/kubeconfig");
    Map<String, FileTime> before = snapshot();
    Path log = workDir.resolve("operator.log");

    try (RootfsProcess operator = RootfsProcess.start(mode, rootfs, image, args, env, log)) {
      try {
        await().atMost(Duration.ofMinutes(2)).until(() -> !operator.isAlive() || OperatorProcess.httpStatus(probePort, "/readyz") == 200);
        assertThat(operator.isAlive()).as("the operator is running; its log:\n%s", readLog(log)).isTrue();
        assertThat(OperatorProcess.httpStatus(probePort, "/healthz")).isEqualTo(200);
        Lease lease = client.leases().inNamespace("tenantry-system").withName(leaseName).get();
        assertThat(lease.getSpec().getHolderIdentity()).isEqualTo(identity);
      } finally {
        Optional<Integer> exit = operator.stop(Duration.ofSeconds(30));
        assertThat(exit).as("the operator stops on SIGTERM; its log:\n%s", readLog(log)).isPresent();
      }
    }
    if (mode == RootfsProcess.Mode.CHROOT) {
      assertThat(writtenSince(before)).as("files the operator wrote outside /tmp and its store").isEmpty();
      assertThat(Files.readString(log)).as("JSON log lines on stdout").contains("\"level\":\"INFO\"");
    }
  }

  /**
   * What the pod would have: the ServiceAccount token and CA (with KUBERNETES_SERVICE_HOST/PORT),
   * the configuration file, and the secret store volume, owned by the image's user. Returns the
   * environment to add.
   */
  private static Map<String, String> podFiles(TestCluster cluster, KubernetesClient client, RootfsProcess.Mode mode,
      int probePort, String leaseName) throws Exception {
    OperatorHarness.installOperatorAccount(client);
    String token = client.serviceAccounts().inNamespace("tenantry-system").withName("tenantry-operator")
        .tokenRequest(new TokenRequestBuilder().withNewSpec().withExpirationSeconds(3600L).endSpec().build())
        .getStatus().getToken();
    Config admin = cluster.config();
    String ca = admin.getCaCertData() != null
        ? new String(Base64.getDecoder().decode(admin.getCaCertData()))
        : Files.readString(Path.of(admin.getCaCertFile()));
    Path accountDir = Files.createDirectories(inRootfs(SERVICE_ACCOUNT_DIR));
    Files.writeString(accountDir.resolve("token"), token);
    Files.writeString(accountDir.resolve("ca.crt"), ca);
    Files.writeString(accountDir.resolve("namespace"), "tenantry-system");
    URI server = URI.create(admin.getMasterUrl());
    Path etc = Files.createDirectories(inRootfs("/etc/tenantry"));
    Files.writeString(etc.resolve("kubeconfig"), """
        apiVersion: v1
        kind: Config
        clusters: [{name: c, cluster: {server: "%s", certificate-authority-data: %s}}]
        users: [{name: u, user: {token: %s}}]
        contexts: [{name: c, context: {cluster: c, user: u}}]
        current-context: c
        """.formatted(admin.getMasterUrl(), Base64.getEncoder().encodeToString(ca.getBytes()), token));
    String store = mode == RootfsProcess.Mode.CHROOT ? STORE_DIR : inRootfs(STORE_DIR).toString();
    Files.writeString(etc.resolve("operator.yaml"), """
        httpPort: 0
        probePort: %d
        secretStore:
          location: file:%s
        leaderElection:
          leaseName: %s
        """.formatted(probePort, store, leaseName));
    // The store is the installer's to make (tenantry-secrets init); the pod mounts it writable for its user.
    // Its mount point is the image user's to traverse (init would make missing parents 0700).
    Files.createDirectories(inRootfs(STORE_DIR).getParent());
    OperatorHarness.localStore(inRootfs(STORE_DIR));
    if (mode == RootfsProcess.Mode.CHROOT) {
      chownToImageUser(inRootfs(STORE_DIR));
    }
    return Map.of("KUBERNETES_SERVICE_HOST", server.getHost(), "KUBERNETES_SERVICE_PORT", Integer.toString(server.getPort()));
  }

  private static Path inRootfs(String absolutePath) {
    return rootfs.resolve(absolutePath.substring(1));
  }

  private static void chownToImageUser(Path dir) throws IOException {
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : walk.toList()) {
        Files.setAttribute(p, "unix:uid", 65532);
        Files.setAttribute(p, "unix:gid", 65532);
      }
    }
  }

  /** Every path of the rootfs with its modification time, but for /tmp, the store and what a container runtime provides. */
  private static Map<String, FileTime> snapshot() throws IOException {
    List<String> excluded = List.of("tmp", "proc", "dev", STORE_DIR.substring(1), "etc/hosts", "etc/resolv.conf");
    Map<String, FileTime> times = new TreeMap<>();
    try (Stream<Path> walk = Files.walk(rootfs)) {
      for (Path p : walk.filter(p -> !p.equals(rootfs)).toList()) {
        String relative = rootfs.relativize(p).toString();
        if (excluded.stream().noneMatch(e -> relative.equals(e) || relative.startsWith(e + "/"))) {
          times.put(relative, Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)
              ? FileTime.fromMillis(0) : Files.getLastModifiedTime(p, LinkOption.NOFOLLOW_LINKS));
        }
      }
    }
    return times;
  }

  /** Paths made since the snapshot, and files changed (a directory's time only says something below it changed). */
  private static List<String> writtenSince(Map<String, FileTime> before) throws IOException {
    Map<String, FileTime> after = snapshot();
    return after.keySet().stream().filter(p -> !after.get(p).equals(before.get(p))).toList();
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  private static String readLog(Path log) {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  private static void deleteRecursively(Path path) throws IOException {
    if (Files.exists(path)) {
      try (Stream<Path> walk = Files.walk(path)) {
        for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    }
  }
}
