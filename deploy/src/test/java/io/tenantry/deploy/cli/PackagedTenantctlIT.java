package io.tenantry.deploy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.controller.operator.OperatorHarness;
import io.tenantry.spares.DatastoreEmulator;
import io.tenantry.testsupport.TestBinaries;
import io.tenantry.testsupport.TestCluster;
import io.tenantry.testsupport.WithCluster;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The tenantctl that {@code mvn package} ships (target/tenantctl: bin/tenantctl, lib/), run as its
 * own process the way a user runs it outside a checkout: a clean environment whose PATH holds a
 * java and nothing else (no Maven), against a simulated cluster registered in the Datastore emulator.
 */
@WithCluster(workloads = true)
class PackagedTenantctlIT {

  private static final Path DIST = Path.of("target", "tenantctl").toAbsolutePath();

  private static DatastoreEmulator emulator;
  private static Path home;
  private static Path javaOnly;
  private static Map<String, String> fleetEnv;
  private static String context;

  @BeforeAll
  static void start(TestCluster cluster, KubernetesClient client) throws Exception {
    assertThat(DIST.resolve("bin/tenantctl")).as("made by mvn package").isExecutable();
    emulator = DatastoreEmulator.start();
    OperatorHarness.installCrds(cluster);
    home = Files.createTempDirectory("tenantctl-home-");
    // PATH: a directory holding a link to this JVM's java, and nothing else.
    javaOnly = Files.createDirectories(home.resolve("bin"));
    Files.createSymbolicLink(javaOnly.resolve("java"), Path.of(System.getProperty("java.home"), "bin", "java"));
    Path kubeconfig = Files.writeString(home.resolve("kubeconfig.yaml"), cluster.kubeconfigYaml());
    context = client.getConfiguration().getCurrentContext().getName();
    fleetEnv = Map.of("DATASTORE_EMULATOR_HOST", "localhost:" + emulator.port(),
        "TENANTRY_DATASTORE_PROJECT", DatastoreEmulator.PROJECT_ID,
        "TENANTRY_DATASTORE_NAMESPACE", "packaged-cli-it",
        "KUBECONFIG", kubeconfig.toString());
  }

  @AfterAll
  static void stop() {
    emulator.close();
  }

  @Test
  void helpExitsZeroWithTheUsageAndNoMavenOnThePath() throws Exception {
    assertThat(onPath("mvn", javaOnly.toString())).as("mvn on the PATH").isFalse();

    Run help = run(List.of(DIST.resolve("bin/tenantctl").toString(), "--help"), Map.of("PATH", javaOnly.toString()));

    assertThat(help.status()).as(help.err()).isZero();
    assertThat(help.out()).startsWith("Usage: tenantctl COMMAND").contains("get tenants", "deploy --app APP");
  }

  @Test
  void javaHomeIsEnoughWithAnEmptyPath() throws Exception {
    Path empty = Files.createDirectories(home.resolve("empty"));

    Run help = run(List.of(DIST.resolve("bin/tenantctl").toString(), "--help"),
        Map.of("PATH", empty.toString(), "JAVA_HOME", System.getProperty("java.home")));

    assertThat(help.status()).as(help.err()).isZero();
    assertThat(help.out()).startsWith("Usage: tenantctl COMMAND");
  }

  @Test
  void getTenantsListsTheTenantsOfTheRegisteredCluster(KubernetesClient client) throws Exception {
    String name = OperatorHarness.uniqueName("packaged");
    client.resources(Tenant.class).resource(OperatorHarness.tenant(name, 1, false)).create();
    String tenantctl = DIST.resolve("bin/tenantctl").toString();
    Map<String, String> env = env(javaOnly.toString());

    Run register = run(List.of(tenantctl, "clusters", "register", "local", "--context", context), env);
    assertThat(register.status()).as(register.err()).isZero();
    Run get = run(List.of(tenantctl, "get", "tenants"), env);

    assertThat(get.status()).as(get.err()).isZero();
    assertThat(get.out()).startsWith("CLUSTER").contains("TENANT", "STATE");
    assertThat(get.out().lines().filter(l -> l.contains(name)).findFirst()).hasValueSatisfying(row ->
        assertThat(row.split("\\s+")).startsWith("local", name, "Active"));
  }

  @Test
  void asAKubectlPluginThroughASymbolicLink(KubernetesClient client) throws Exception {
    String name = OperatorHarness.uniqueName("plugin");
    client.resources(Tenant.class).resource(OperatorHarness.tenant(name, 1, false)).create();
    // What a user does: link the launcher into a directory on the PATH under the plugin's name.
    // Through a link, the launcher needs readlink (to find its lib/); still no Maven on the PATH.
    Path plugins = Files.createDirectories(home.resolve("plugins"));
    Files.createSymbolicLink(plugins.resolve("kubectl-tenantctl"), DIST.resolve("bin/kubectl-tenantctl"));
    Files.createSymbolicLink(plugins.resolve("kubectl"), TestBinaries.locate().kubectl());
    Files.createSymbolicLink(plugins.resolve("readlink"), Path.of("/usr/bin/readlink"));
    String path = plugins + File.pathSeparator + javaOnly;
    assertThat(onPath("mvn", path)).as("mvn on the PATH").isFalse();
    Map<String, String> env = env(path);
    run(List.of("kubectl", "tenantctl", "clusters", "register", "local", "--context", context), env);

    Run get = run(List.of("kubectl", "tenantctl", "get", "tenants"), env);

    assertThat(get.status()).as(get.err()).isZero();
    assertThat(get.out()).startsWith("CLUSTER").contains(name);
  }

  private static Map<String, String> env(String path) {
    Map<String, String> env = new HashMap<>(fleetEnv);
    env.put("PATH", path);
    env.put("HOME", home.toString());
    return env;
  }

  private static boolean onPath(String command, String path) {
    return Stream.of(path.split(File.pathSeparator)).anyMatch(dir -> Files.exists(Path.of(dir, command)));
  }

  private record Run(int status, String out, String err) {
  }

  /** Runs a command in a clean environment: only {@code env}; its PATH is also where the command is looked up. */
  private static Run run(List<String> command, Map<String, String> env) throws IOException, InterruptedException {
    List<String> line = command;
    if (!command.get(0).contains("/")) {
      String dir = Stream.of(env.get("PATH").split(File.pathSeparator))
          .filter(d -> Files.isExecutable(Path.of(d, command.get(0)))).findFirst().orElseThrow();
      line = Stream.concat(Stream.of(Path.of(dir, command.get(0)).toString()), command.stream().skip(1)).toList();
    }
    ProcessBuilder builder = new ProcessBuilder(line);
    builder.environment().clear();
    builder.environment().putAll(env);
    Path err = Files.createTempFile(home, "err-", ".txt");
    Process process = builder.redirectError(err.toFile()).start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(2, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new AssertionError(String.join(" ", command) + " did not finish within 2 minutes");
    }
    return new Run(process.exitValue(), out, Files.readString(err));
  }
}
