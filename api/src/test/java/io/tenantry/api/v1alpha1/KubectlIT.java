package io.tenantry.api.v1alpha1;

import static io.tenantry.api.v1alpha1.ApiFixtures.activeTenant;
import static io.tenantry.api.v1alpha1.ApiFixtures.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.tenantry.testsupport.TestBinaries;
import io.tenantry.testsupport.TestCluster;
import io.tenantry.testsupport.WithCluster;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** What an SRE sees with kubectl: printer columns, the short name and field documentation. */
@WithCluster
class KubectlIT {

  private static KubernetesClient client;
  private static Path kubeconfig;

  @BeforeAll
  static void setUp(KubernetesClient kubernetesClient, TestCluster cluster) throws IOException {
    client = kubernetesClient;
    ApiFixtures.installCrds(client);
    kubeconfig = Files.createTempFile("kubectl-it-", ".kubeconfig");
    Files.writeString(kubeconfig, cluster.kubeconfigYaml());
  }

  @AfterAll
  static void tearDown() throws IOException {
    Files.deleteIfExists(kubeconfig);
  }

  @Test
  void getTenantsShowsStatePhasePlanVersionsReadyThenAge() throws Exception {
    String name = readyTenant("columns");

    List<String> lines = kubectl("get", "tn", name).lines().toList();
    assertThat(lines.get(0).split("\\s+")).containsExactly("NAME", "STATE", "PHASE", "PLAN", "VERSIONS", "READY", "AGE");
    assertThat(lines.get(1).split("\\s+")).hasSize(7)
        .startsWith(name, "Active", "Ready", "standard", "web=1.4.2,worker=1.4.2", "True");
  }

  @Test
  void getTenantsWideAddsOrganizationNamespaceReplicasUrlAndBackupsAfterAge() throws Exception {
    String name = readyTenant("wide");

    // Columns by the header's offsets: the organization holds a space.
    List<String> lines = kubectl("get", "tn", name, "-o", "wide").lines().toList();
    Map<String, String> row = columns(lines.get(0), lines.get(1));
    assertThat(row.keySet()).containsExactly("NAME", "STATE", "PHASE", "PLAN", "VERSIONS", "READY", "AGE",
        "ORGANIZATION", "NAMESPACE", "REPLICAS", "URL", "BACKEDUP", "LASTBACKUP");
    assertThat(row).containsEntry("NAME", name).containsEntry("STATE", "Active").containsEntry("READY", "True")
        .containsEntry("ORGANIZATION", "Acme Corp").containsEntry("NAMESPACE", "tenant-" + name)
        .containsEntry("REPLICAS", "web=5 (2-10),worker=1")
        .containsEntry("URL", "https://acme-corp.tenants.example.com/")
        .containsEntry("BACKEDUP", "True").containsEntry("LASTBACKUP", "3h");
  }

  @Test
  void getSparePoolsShowsTheBufferAndCountsThenAge() throws Exception {
    String name = uniqueName("pool");
    SparePool pool = new SparePool();
    pool.getMetadata().setName(name);
    pool.setSpec(new SparePoolSpec(7, 2, new TenantTemplate()));
    client.resources(SparePool.class).resource(pool).create();

    String header = kubectl("get", "sp", name).lines().findFirst().orElseThrow();
    assertThat(header.split("\\s+")).containsExactly("NAME", "BUFFER", "READY", "PROVISIONING", "ALLOCATED", "AGE");
  }

  @Test
  void explainDocumentsTheFields() throws Exception {
    // The API server publishes a new CRD's OpenAPI a moment after it is established.
    Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofSeconds(1)).untilAsserted(() -> {
      String apps = kubectl("explain", "tenant.spec.apps");
      assertThat(apps).contains("The tenant's applications, each a Deployment with a Service.");
      assertThat(apps).contains("version", "Version of the app, used as the image tag.");
    });
    assertThat(kubectl("explain", "tenant.spec.state")).contains("Purged (everything deleted, terminal)", "New→Active|Purged");
    assertThat(kubectl("explain", "sparepool.spec.buffer")).contains("Number of Ready, unallocated spares to keep");
  }

  /** An Active tenant with the status the operator writes once it is Ready and routed; its name. */
  private static String readyTenant(String prefix) {
    String name = uniqueName(prefix);
    Tenant tenant = client.resources(Tenant.class).resource(activeTenant(name)).create();
    TenantStatus status = new TenantStatus();
    status.setPhase(TenantPhase.Ready);
    status.setNamespace("tenant-" + name);
    status.setVersions("web=1.4.2,worker=1.4.2");
    status.setReplicas("web=5 (2-10),worker=1");
    status.setUrls(new ArrayList<>(List.of("https://acme-corp.tenants.example.com/", "https://app.acme.example/")));
    Condition ready = new ConditionBuilder().withType("Ready").withStatus("True").withReason("Converged")
        .withMessage("all apps and databases are ready").withLastTransitionTime("2026-11-21T00:00:00Z").build();
    status.getConditions().add(ready);
    status.getConditions().add(new ConditionBuilder().withType("BackedUp").withStatus("True").withReason("BackupCurrent")
        .withMessage("newest proven backups: main").withLastTransitionTime("2026-11-21T00:00:00Z").build());
    String proven = java.time.Instant.now().minus(java.time.Duration.ofHours(3)).toString();
    status.setDatabases(List.of(new DatabaseStatus("main", true).withBackup(new BackupStatus(
        new BackupRecord("main-20261121-000000-a1b2c3", proven, proven, 1024L, null, null), null))));
    tenant.setStatus(status);
    client.resources(Tenant.class).resource(tenant).updateStatus();
    return name;
  }

  /** A table row cut at its header's column offsets (kubectl left-aligns every column), by column name. */
  private static Map<String, String> columns(String header, String row) {
    List<String> names = new ArrayList<>();
    List<Integer> starts = new ArrayList<>();
    Matcher name = Pattern.compile("\\S+").matcher(header);
    while (name.find()) {
      names.add(name.group());
      starts.add(name.start());
    }
    starts.add(Integer.MAX_VALUE);
    Map<String, String> cells = new LinkedHashMap<>();
    for (int i = 0; i < names.size(); i++) {
      int start = Math.min(starts.get(i), row.length());
      cells.put(names.get(i), row.substring(start, Math.min(starts.get(i + 1), row.length())).strip());
    }
    return cells;
  }

  private static String kubectl(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(TestBinaries.locate().kubectl().toString());
    command.add("--kubeconfig=" + kubeconfig);
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as("kubectl %s: %s", String.join(" ", args), out).isZero();
    return out;
  }
}
