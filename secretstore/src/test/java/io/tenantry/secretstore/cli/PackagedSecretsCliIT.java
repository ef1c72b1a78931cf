package io.tenantry.secretstore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.tenantry.testsupport.TestCluster;
import io.tenantry.testsupport.WithCluster;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tenantry-secrets that {@code mvn package} ships (target/tenantry-secrets: bin/, lib/), run as
 * its own process the way a user runs it outside a checkout: a clean environment whose PATH holds
 * a java and nothing else (no Maven), on a local store in a temporary directory.
 */
@WithCluster
class PackagedSecretsCliIT {

  private static final Path DIST = Path.of("target", "tenantry-secrets").toAbsolutePath();
  private static final String VALUE = "s3cr3t-smtp-password";

  @TempDir
  Path tmp;
  private Path javaOnly;

  @BeforeEach
  void javaOnlyPath() throws IOException {
    assertThat(DIST.resolve("bin/tenantry-secrets")).as("made by mvn package").isExecutable();
    javaOnly = Files.createDirectories(tmp.resolve("bin"));
    Files.createSymbolicLink(javaOnly.resolve("java"), Path.of(System.getProperty("java.home"), "bin", "java"));
    assertThat(Stream.of(javaOnly.toString().split(File.pathSeparator)).anyMatch(d -> Files.exists(Path.of(d, "mvn"))))
        .as("mvn on the PATH").isFalse();
  }

  @Test
  void helpExitsZeroWithTheUsage() throws Exception {
    Run help = run("--help");

    assertThat(help.status()).as(help.err()).isZero();
    assertThat(help.out()).startsWith("Usage: tenantry-secrets").contains("sync-templates");
  }

  @Test
  void initPushListShowAndSyncTemplatesOnALocalStore(TestCluster cluster, KubernetesClient client) throws Exception {
    String store = "file:" + tmp.resolve("store");
    Path kubeconfig = Files.writeString(tmp.resolve("kubeconfig.yaml"), cluster.kubeconfigYaml());
    String namespace = "packaged-cli-" + ProcessHandle.current().pid();

    assertThat(run("--store", store, "init").status()).isZero();
    Run push = run("--store", store, "push", "template", "smtp", "--from-literal", "password=" + VALUE);
    assertThat(push.status()).as(push.err()).isZero();
    assertThat(push.out()).startsWith("pushed smtp to template, version ");
    Run list = run("--store", store, "list", "template");
    assertThat(list.out()).startsWith("NAME").contains("smtp");
    Run show = run("--store", store, "show", "template", "smtp");
    assertThat(show.status()).as(show.err()).isZero();
    assertThat(show.out()).contains("password");
    Run sync = run("--store", store, "sync-templates", "--kubeconfig", kubeconfig.toString(), "--namespace", namespace);
    assertThat(sync.status()).as(sync.err()).isZero();
    assertThat(sync.out()).endsWith(": 1 created, 0 updated, 0 deleted, 0 unchanged\n");

    for (Run run : List.of(push, list, show, sync)) {
      assertThat(run.out() + run.err()).doesNotContain(VALUE);
    }
    Secret copied = client.secrets().inNamespace(namespace).withName("smtp").get();
    assertThat(new String(Base64.getDecoder().decode(copied.getData().get("password")), StandardCharsets.UTF_8))
        .isEqualTo(VALUE);
  }

  private record Run(int status, String out, String err) {
  }

  /** The packaged launcher with {@code args}, in a clean environment: PATH (a java alone) and HOME. */
  private Run run(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(DIST.resolve("bin/tenantry-secrets").toString()));
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().clear();
    builder.environment().putAll(Map.of("PATH", javaOnly.toString(), "HOME", tmp.toString()));
    Path err = Files.createTempFile(tmp, "err-", ".txt");
    Process process = builder.redirectError(err.toFile()).start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(2, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new AssertionError(String.join(" ", command) + " did not finish within 2 minutes");
    }
    return new Run(process.exitValue(), out, Files.readString(err));
  }
}
