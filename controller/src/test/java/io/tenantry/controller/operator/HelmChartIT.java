package io.tenantry.controller.operator;

import static io.tenantry.controller.operator.OperatorHarness.awaitPhase;
import static io.tenantry.controller.operator.OperatorHarness.tenant;
import static io.tenantry.controller.operator.OperatorHarness.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.resources.RbacModel;
import io.tenantry.testsupport.ImageTarball;
import io.tenantry.testsupport.ImageTarball.ImageConfig;
import io.tenantry.testsupport.RootfsProcess;
import io.tenantry.testsupport.TestCluster;
import io.tenantry.testsupport.WithCluster;
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
import java.util.Base64;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The chart's life in a simulated cluster, in order: {@code helm install} (taking over the CRDs
 * other tests installed, as an install over the plain manifests would); the operator, started from
 * the image's own layers with the chart's rendered configuration, arguments and environment and
 * its ServiceAccount's token, provisions a Tenant to Ready and labels its pod so that the
 * allocation Service reaches it alone; {@code helm upgrade} keeps every Tenant; {@code helm
 * uninstall} leaves the CRDs, every Tenant, its namespace and the tenant roles; installing again
 * adopts what the uninstall kept. The chart's pods are kwok's (they run nothing): the operator
 * process plays one of them.
 */
@WithCluster(workloads = true)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HelmChartIT {

  private static final String RELEASE = "tenantry";
  private static final String NAMESPACE = "tenantry-helm-it";
  private static final String NAME = "tenantry-operator";
  private static final String SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";
  private static final String STORE_DIR = "/var/lib/tenantry/secret-store";
  private static final Duration CONVERGE = Duration.ofMinutes(3);
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private static TestCluster cluster;
  private static KubernetesClient client;
  private static Path workDir;
  private static Path kubeconfig;
  private static Path rootfs;
  private static ImageConfig image;
  private static RootfsProcess.Mode mode;
  private static int httpPort;
  private static int probePort;
  private static RootfsProcess operator;
  private static String leaderPod;
  private static String tenantName;
  private static final Map<String, String> uids = new HashMap<>();

  @BeforeAll
  static void extractTheImage(TestCluster testCluster, KubernetesClient kubernetesClient) throws Exception {
    cluster = testCluster;
    client = kubernetesClient;
    workDir = Files.createDirectories(Path.of("target", "helm-chart-it").toAbsolutePath());
    kubeconfig = workDir.resolve("kubeconfig");
    Files.writeString(kubeconfig, cluster.kubeconfigYaml());
    rootfs = workDir.resolve("rootfs");
    deleteRecursively(rootfs);
    image = ImageTarball.extract(ImageTarball.operatorImage(), rootfs);
    mode = RootfsProcess.Mode.available();
    System.out.println("HelmChartIT: the operator runs from the image's layers, " + (mode == RootfsProcess.Mode.CHROOT
        ? "chrooted as the image's user" : "with the rootfs's own java and its paths rewritten"));
    // As other test classes of this JVM do; the install then takes the CRDs over.
    OperatorHarness.installCrds(cluster);
    httpPort = freePort();
    probePort = freePort();
  }

  @AfterAll
  static void cleanUp() throws Exception {
    if (operator != null) {
      operator.close();
    }
    helm("uninstall", RELEASE, "--namespace", NAMESPACE, "--wait", "--ignore-not-found");
    // Purges what is left (the uninstall kept it) with an operator of its own, as every test class leaves an empty cluster.
    new OperatorHarness(cluster, OperatorConfig.defaults()).close();
    client.namespaces().withName(NAMESPACE).delete();
  }

  @Test
  @Order(1)
  void theInstalledChartsOperatorProvisionsATenantOnItsServiceAccount() throws Exception {
    List<String> install = new ArrayList<>(List.of("install", RELEASE, Helm.chart().toString(), "--namespace", NAMESPACE,
        "--create-namespace", "--take-ownership", "--wait", "--timeout", "5m"));
    install.addAll(values());
    helm(install.toArray(String[]::new)).ok();
    uids.put("tenants", crd("tenants.tenantry.io").getMetadata().getUid());
    assertThePoliciesTypeCheck();
    List<Pod> pods = operatorPods();
    assertThat(pods).hasSize(2);
    assertThat(pods).extracting(p -> p.getSpec().getNodeName()).as("spread across nodes").doesNotHaveDuplicates();
    leaderPod = pods.get(0).getMetadata().getName();

    operator = startOperatorAs(leaderPod);
    await().atMost(Duration.ofMinutes(2)).until(() -> !operator.isAlive() || status("/readyz") == 200);
    assertThat(operator.isAlive()).as("the operator is running; its log:\n%s", log()).isTrue();

    tenantName = uniqueName("helm");
    client.resources(Tenant.class).resource(tenant(tenantName, 1, true)).create();
    Tenant ready = awaitPhase(client, tenantName, TenantPhase.Ready, CONVERGE);
    assertThat(ready.getStatus().getConditions()).allSatisfy(c -> assertThat(c.getStatus()).isEqualTo("True"));
    String ns = "tenant-" + tenantName;
    uids.put("namespace", client.namespaces().withName(ns).get().getMetadata().getUid());
    assertThat(client.rbac().roleBindings().inNamespace(ns).list().getItems())
        .extracting(b -> b.getRoleRef().getKind() + "/" + b.getRoleRef().getName())
        .containsExactlyInAnyOrder("ClusterRole/tenantry-tenant-admin", "ClusterRole/tenantry-tenant-operator",
            "ClusterRole/tenantry-tenant-viewer");
    assertThat(client.rbac().roles().inNamespace(ns).list().getItems()).isEmpty();
  }

  @Test
  @Order(2)
  void theAllocationServiceReachesTheLeadersPodAloneUntilTheLeaderStops() throws Exception {
    await().atMost(Duration.ofMinutes(1)).untilAsserted(() -> {
      assertThat(client.pods().inNamespace(NAMESPACE).withName(leaderPod).get().getMetadata().getLabels())
          .containsEntry(LeaderPod.LABEL, "true");
      assertThat(serviceEndpoints()).as("the Service's endpoints").containsExactly(leaderPod);
    });
    assertThat(operatorPods()).filteredOn(p -> "true".equals(p.getMetadata().getLabels().get(LeaderPod.LABEL))).hasSize(1);

    assertThat(operator.stop(Duration.ofSeconds(30))).as("the operator stops on SIGTERM; its log:\n%s", log()).isPresent();
    assertThat(client.pods().inNamespace(NAMESPACE).withName(leaderPod).get().getMetadata().getLabels())
        .as("a leader that stops clears its label").containsEntry(LeaderPod.LABEL, "false");
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(serviceEndpoints()).isEmpty());
  }

  @Test
  @Order(3)
  void anUpgradeKeepsEveryTenant() {
    List<String> upgrade = new ArrayList<>(List.of("upgrade", RELEASE, Helm.chart().toString(), "--namespace", NAMESPACE,
        "--wait", "--timeout", "5m"));
    upgrade.addAll(values());
    upgrade.addAll(List.of("--set", "config.workers=2"));
    helm(upgrade.toArray(String[]::new)).ok();
    Deployment deployment = client.apps().deployments().inNamespace(NAMESPACE).withName(NAME).get();
    assertThat(deployment.getStatus().getObservedGeneration()).isEqualTo(deployment.getMetadata().getGeneration());
    assertThat(deployment.getStatus().getUpdatedReplicas()).as("the configuration change rolled the pods").isEqualTo(2);
    assertThat(operatorPods()).extracting(p -> p.getMetadata().getName()).doesNotContain(leaderPod);
    assertThat(crd("tenants.tenantry.io").getMetadata().getUid()).isEqualTo(uids.get("tenants"));
    assertThat(client.resources(Tenant.class).withName(tenantName).get().getStatus().getPhase()).isEqualTo(TenantPhase.Ready);
  }

  @Test
  @Order(4)
  void anUninstallLeavesTheCrdsEveryTenantItsNamespaceAndTheTenantRoles() {
    helm("uninstall", RELEASE, "--namespace", NAMESPACE, "--wait").ok();

    assertThat(client.apps().deployments().inNamespace(NAMESPACE).withName(NAME).get()).isNull();
    assertThat(client.rbac().clusterRoles().withName(NAME).get()).as("the operator's own role goes").isNull();
    assertThat(crd("tenants.tenantry.io").getMetadata().getUid()).isEqualTo(uids.get("tenants"));
    assertThat(crd("sparepools.tenantry.io")).isNotNull();
    assertThat(client.resources(Tenant.class).withName(tenantName).get()).isNotNull();
    String ns = "tenant-" + tenantName;
    assertThat(client.namespaces().withName(ns).get().getMetadata().getUid()).isEqualTo(uids.get("namespace"));
    assertThat(client.namespaces().withName(ns).get().getMetadata().getDeletionTimestamp()).isNull();
    for (String level : RbacModel.ACCESS_LEVELS) {
      ClusterRole role = client.rbac().clusterRoles().withName(RbacModel.clusterRole(level)).get();
      assertThat(role).as("tenant role %s", level).isNotNull();
    }
  }

  @Test
  @Order(5)
  void installingAgainAdoptsWhatTheUninstallKept() {
    List<String> install = new ArrayList<>(List.of("install", RELEASE, Helm.chart().toString(), "--namespace", NAMESPACE,
        "--wait", "--timeout", "5m"));
    install.addAll(values());
    helm(install.toArray(String[]::new)).ok();
    assertThat(crd("tenants.tenantry.io").getMetadata().getUid()).isEqualTo(uids.get("tenants"));
    assertThat(client.resources(Tenant.class).withName(tenantName).get()).isNotNull();
    helm("uninstall", RELEASE, "--namespace", NAMESPACE, "--wait").ok();
  }

  /** The controller manager type-checks each admission policy's expressions against the schemas they read: no warning. */
  private static void assertThePoliciesTypeCheck() {
    var policies = client.genericKubernetesResources("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicy");
    List<String> names = policies.withLabel("app.kubernetes.io/instance", RELEASE).list().getItems().stream()
        .map(p -> p.getMetadata().getName()).toList();
    assertThat(names).hasSize(10);
    for (String name : names) {
      GenericKubernetesResource checked = await().atMost(Duration.ofSeconds(60)).until(() -> policies.withName(name).get(),
          p -> p.get("status") instanceof Map<?, ?> status && status.get("typeChecking") != null
              && p.getMetadata().getGeneration().equals(((Number) status.get("observedGeneration")).longValue()));
      Map<?, ?> typeChecking = (Map<?, ?>) ((Map<?, ?>) checked.get("status")).get("typeChecking");
      assertThat(typeChecking.get("expressionWarnings")).as("type-checking warnings of policy %s", name).isNull();
    }
  }

  /**
   * The values of this test: the operator runs on this machine's network (free ports) rather than in
   * the pod, and from no volume (its store is in the extracted rootfs; where paths are rewritten,
   * the configuration names the store by its machine path). Backups off: they live on a volume too
   * (HelmChartTest renders them, BackupIT runs them).
   */
  private static List<String> values() {
    List<String> values = new ArrayList<>(List.of("--set", "secretStore.existingClaim=", "--set", "config.backups.enabled=false",
        "--set", "config.httpPort=" + httpPort, "--set", "config.probePort=" + probePort));
    if (mode != RootfsProcess.Mode.CHROOT) {
      values.addAll(List.of("--set", "config.secretStore.location=file:" + inRootfs(STORE_DIR)));
    }
    return values;
  }

  /**
   * Starts the image's entrypoint as the pod {@code pod} would: the chart's configuration file and
   * container arguments, the downward API's POD_NAME and POD_NAMESPACE, and its ServiceAccount's
   * token and CA where a pod has them.
   */
  private static RootfsProcess startOperatorAs(String pod) throws Exception {
    String token = client.serviceAccounts().inNamespace(NAMESPACE).withName(NAME)
        .tokenRequest(new TokenRequestBuilder().withNewSpec().withExpirationSeconds(3600L).endSpec().build())
        .getStatus().getToken();
    Config admin = cluster.config();
    String ca = admin.getCaCertData() != null
        ? new String(Base64.getDecoder().decode(admin.getCaCertData()), StandardCharsets.UTF_8)
        : Files.readString(Path.of(admin.getCaCertFile()));
    Path accountDir = Files.createDirectories(inRootfs(SERVICE_ACCOUNT_DIR));
    Files.writeString(accountDir.resolve("token"), token);
    Files.writeString(accountDir.resolve("ca.crt"), ca);
    Files.writeString(accountDir.resolve("namespace"), NAMESPACE);
    Path etc = Files.createDirectories(inRootfs("/etc/tenantry"));
    Files.writeString(etc.resolve("operator.yaml"),
        client.configMaps().inNamespace(NAMESPACE).withName(NAME).get().getData().get("operator.yaml"));
    Files.writeString(etc.resolve("kubeconfig"), """
        apiVersion: v1
        kind: Config
        clusters: [{name: c, cluster: {server: "%s", certificate-authority-data: %s}}]
        users: [{name: u, user: {token: %s}}]
        contexts: [{name: c, context: {cluster: c, user: u}}]
        current-context: c
        """.formatted(admin.getMasterUrl(), Base64.getEncoder().encodeToString(ca.getBytes(StandardCharsets.UTF_8)), token));
    // The installer's to make (tenantry-secrets init), on a volume mounted in a directory the image's user may enter.
    Files.createDirectories(inRootfs(STORE_DIR).getParent());
    OperatorHarness.localStore(inRootfs(STORE_DIR));
    if (mode == RootfsProcess.Mode.CHROOT) {
      chownToImageUser(inRootfs(STORE_DIR));
    }
    List<String> args = new ArrayList<>(client.apps().deployments().inNamespace(NAMESPACE).withName(NAME).get()
        .getSpec().getTemplate().getSpec().getContainers().get(0).getArgs().stream()
        .map(a -> a.replace("$(POD_NAME)", pod)).toList());
    if (mode != RootfsProcess.Mode.CHROOT) {
      args.addAll(List.of("--kubeconfig", "/etc/tenantry/kubeconfig")); // Java finds no service account files here.
    }
    URI server = URI.create(admin.getMasterUrl());
    Map<String, String> env = Map.of("POD_NAME", pod, "POD_NAMESPACE", NAMESPACE,
        "KUBERNETES_SERVICE_HOST", server.getHost(), "KUBERNETES_SERVICE_PORT", Integer.toString(server.getPort()));
    return RootfsProcess.start(mode, rootfs, image, args, env, workDir.resolve("operator.log"));
  }

  private static List<Pod> operatorPods() {
    return client.pods().inNamespace(NAMESPACE).withLabel("app.kubernetes.io/component", "operator").list().getItems().stream()
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
        .sorted(Comparator.comparing(p -> p.getMetadata().getName())).toList();
  }

  /** The pods the Service's EndpointSlices name as ready endpoints. */
  private static List<String> serviceEndpoints() {
    return client.discovery().v1().endpointSlices().inNamespace(NAMESPACE).withLabel("kubernetes.io/service-name", NAME)
        .list().getItems().stream()
        .flatMap(s -> s.getEndpoints() == null ? Stream.<Endpoint>empty() : s.getEndpoints().stream())
        .filter(e -> e.getConditions() == null || !Boolean.FALSE.equals(e.getConditions().getReady()))
        .map(e -> e.getTargetRef().getName()).toList();
  }

  private static CustomResourceDefinition crd(String name) {
    return client.apiextensions().v1().customResourceDefinitions().withName(name).get();
  }

  private static Helm.Result helm(String... args) {
    Helm.Result result = Helm.run(kubeconfig, List.of(args));
    System.out.printf("helm %s: exit %d%n%s%s", args[0], result.exit(), result.out(), result.err());
    return result;
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

  private static int status(String path) {
    try {
      return HTTP.send(HttpRequest.newBuilder(URI.create("http://localhost:" + probePort + path)).timeout(Duration.ofSeconds(5))
          .build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  private static String log() {
    try {
      return Files.readString(workDir.resolve("operator.log"));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
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
