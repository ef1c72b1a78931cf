package io.tenantry.controller.operator;

import static io.tenantry.controller.operator.OperatorHarness.awaitPhase;
import static io.tenantry.controller.operator.OperatorHarness.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.tenantry.api.v1alpha1.AutoscalingSpec;
import io.tenantry.api.v1alpha1.DatabaseEngine;
import io.tenantry.api.v1alpha1.DatabaseSpec;
import io.tenantry.api.v1alpha1.PoolerMode;
import io.tenantry.api.v1alpha1.PoolerSpec;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.testsupport.TestBinaries;
import io.tenantry.testsupport.TestCluster;
import io.tenantry.testsupport.WithCluster;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The field's own linters, run as a new user would on what the operator makes: kube-score on every
 * object in a working tenant's namespace, promtool on the operator's /metrics. Both are built from
 * their pinned Go modules by tools/build-test-binaries.sh.
 */
@WithCluster(workloads = true)
class LintersIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  /** kube-score's grades: 1 critical, 5 warning, 7 almost OK, 10 OK. */
  private static final int WARNING = 5;

  private static TestBinaries binaries;
  private static TestCluster cluster;
  private static OperatorHarness harness;
  private static KubernetesClient client;

  @BeforeAll
  static void startOperator(TestCluster testCluster, KubernetesClient kubernetesClient) throws Exception {
    binaries = TestBinaries.locate();
    binaries.requireBuilt(List.of(binaries.tool("kube-score"), binaries.tool("promtool"), binaries.kubectl()));
    cluster = testCluster;
    client = kubernetesClient;
    harness = new OperatorHarness(cluster, OperatorConfig.defaults());
    harness.putWorkingTemplates();
  }

  @AfterAll
  static void stopOperator() {
    harness.close();
  }

  @Test
  void kubeScoreFindsNothingOutsideTheAllowList() throws Exception {
    String name = uniqueName("score");
    Tenant tenant = OperatorHarness.workingTenant(name);
    tenant.getSpec().getDatabases().add(new DatabaseSpec("reports", DatabaseEngine.MYSQL, "8.4", "1Gi"));
    tenant.getSpec().getApps().get(0).setReplicas(null);
    tenant.getSpec().getApps().get(0).setAutoscaling(new AutoscalingSpec(2, 4, 80)); // an HPA, and a PDB above a floor of 1
    tenant.getSpec().getDatabases().get(0).setPooler(new PoolerSpec(PoolerMode.TRANSACTION, 10, 100, 2)); // and a PgBouncer
    client.resources(Tenant.class).resource(tenant).create();
    // Ready on the simulated cluster: the namespace enforces Pod Security "restricted", so every generated pod was admitted.
    awaitPhase(client, name, TenantPhase.Ready, Duration.ofSeconds(120));

    String objects = namespaceObjects("tenant-" + name);
    Path manifests = Files.createDirectories(Path.of("target", "kube-score")).resolve(name + ".yaml");
    Files.writeString(manifests, objects);
    Run score = run(objects, binaries.tool("kube-score").toString(), "score", "--output-format", "json",
        "--kubernetes-version", "v" + binaries.kubernetesVersion().replaceAll("\\.\\d+$", ""), "--enable-optional-test", "container-seccomp-profile", "-");
    List<KubeScoreAllowList.Finding> findings = findings(score.stdout());

    KubeScoreAllowList allowList = KubeScoreAllowList.load();
    System.out.println(allowList.report(findings));
    assertThat(findings).as("kube-score read the tenant's workloads (%s)", manifests)
        .anyMatch(f -> f.kind().equals("Deployment")).anyMatch(f -> f.kind().equals("StatefulSet"));
    assertThat(allowList.unexplained(findings)).as("kube-score findings not in %s (objects in %s)", KubeScoreAllowList.FILE, manifests)
        .isEmpty();
    assertThat(allowList.unused(findings)).as("allow-list entries no finding needs any more: remove them from %s", KubeScoreAllowList.FILE)
        .isEmpty();
  }

  @Test
  void promtoolChecksTheOperatorsMetricsClean() throws Exception {
    String name = uniqueName("metrics");
    client.resources(Tenant.class).resource(OperatorHarness.tenant(name, 1, false)).create();
    awaitPhase(client, name, TenantPhase.Ready, Duration.ofSeconds(90));

    HttpResponse<String> scrape = HttpClient.newHttpClient().send(
        HttpRequest.newBuilder(URI.create("http://localhost:" + harness.operator.probePort() + "/metrics")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(scrape.statusCode()).isEqualTo(200);
    assertThat(scrape.body()).contains("jvm_memory_used_bytes{", "process_cpu_usage ", "tenantry_sync_seconds_count{");

    Run check = run(scrape.body(), binaries.tool("promtool").toString(), "check", "metrics");
    assertThat(check.stdout() + check.stderr()).as("promtool check metrics").isEmpty();
    assertThat(check.exitCode()).isZero();
  }

  /** Every object in {@code namespace}, read back from the API server as kubectl would, as YAML documents. */
  private static String namespaceObjects(String namespace) throws Exception {
    Path kubeconfig = Files.createTempFile("kubeconfig-", ".yaml");
    try {
      Files.writeString(kubeconfig, cluster.kubeconfigYaml());
      String kubectl = binaries.kubectl().toString();
      Run kinds = run("", kubectl, "--kubeconfig", kubeconfig.toString(), "api-resources", "--namespaced", "--verbs=list", "-o", "name");
      String wanted = String.join(",", Arrays.stream(kinds.stdout().split("\n"))
          .filter(kind -> !kind.isBlank() && !kind.startsWith("events")).toList());
      Run get = run("", kubectl, "--kubeconfig", kubeconfig.toString(), "get", wanted, "-n", namespace, "-o", "json");
      StringBuilder documents = new StringBuilder();
      for (JsonNode item : JSON.readTree(get.stdout()).path("items")) {
        if (item.path("kind").asText().equals("Secret")) {
          ((ObjectNode) item).remove(List.of("data", "stringData")); // nothing kube-score reads; kept out of target/
        }
        documents.append(Serialization.asYaml(item));
      }
      return documents.toString();
    } finally {
      Files.delete(kubeconfig);
    }
  }

  /** kube-score's critical and warning findings, from its JSON output (format v2). */
  private static List<KubeScoreAllowList.Finding> findings(String json) throws IOException {
    List<KubeScoreAllowList.Finding> findings = new ArrayList<>();
    for (JsonNode object : JSON.readTree(json)) {
      String kind = object.path("type_meta").path("kind").asText();
      String objectName = object.path("object_meta").path("name").asText();
      for (JsonNode check : object.path("checks")) {
        if (!check.path("skipped").asBoolean() && check.path("grade").asInt() <= WARNING) {
          List<String> comments = new ArrayList<>();
          for (JsonNode comment : check.path("comments")) {
            comments.add(comment.path("path").asText() + ": " + comment.path("summary").asText());
          }
          findings.add(new KubeScoreAllowList.Finding(check.path("check").path("id").asText(), kind, objectName,
              check.path("grade").asInt() == 1 ? "CRITICAL" : "WARNING", String.join("; ", comments)));
        }
      }
    }
    return findings;
  }

  private record Run(int exitCode, String stdout, String stderr) {
  }

  private static Run run(String stdin, String... command) throws Exception {
    Process process = new ProcessBuilder(command).start();
    try (var in = process.getOutputStream()) {
      in.write(stdin.getBytes(StandardCharsets.UTF_8));
    }
    var stdout = readAsync(process.getInputStream());
    var stderr = readAsync(process.getErrorStream());
    assertThat(process.waitFor(2, TimeUnit.MINUTES)).as("%s finished", command[0]).isTrue();
    return new Run(process.exitValue(), stdout.get(), stderr.get());
  }

  private static java.util.concurrent.CompletableFuture<String> readAsync(InputStream stream) {
    return java.util.concurrent.CompletableFuture.supplyAsync(() -> {
      try {
        return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    });
  }
}
