package io.tenantry.controller.operator;

import static io.tenantry.controller.operator.OperatorHarness.awaitPhase;
import static io.tenantry.controller.operator.OperatorHarness.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.resources.AppPod;
import io.tenantry.controller.resources.Labels;
import io.tenantry.secretstore.Scope;
import io.tenantry.testsupport.RealPostgres;
import io.tenantry.testsupport.TestCluster;
import io.tenantry.testsupport.WithCluster;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A tenant is a working application: its apps find their databases through Service Binding
 * directories a real PostgreSQL client connects with, their template secrets, the customer they
 * serve and their configuration; a new version migrates before it rolls, and a failed migration
 * leaves the previous version serving.
 */
@WithCluster(workloads = true)
class WorkingAppIT {

  /** Every character a URI or a shell would choke on. */
  private static final String AWKWARD_PASSWORD = "p@ss:w/rd %?#&=+ü";
  private static OperatorHarness harness;
  private static KubernetesClient client;

  @BeforeAll
  static void startOperator(TestCluster cluster, KubernetesClient kubernetesClient) throws Exception {
    client = kubernetesClient;
    harness = new OperatorHarness(cluster, OperatorConfig.defaults().with("{rolloutDeadlineSeconds: 120}"));
    harness.putWorkingTemplates();
  }

  @AfterAll
  static void stopOperator() {
    harness.close();
  }

  @Test
  void eachBindingMatchesItsCredentialsAndServiceAndARealClientConnectsWithIt() throws Exception {
    String name = uniqueName("bound");
    String ns = "tenant-" + name;
    // Credentials already in the store are the tenant's: here, a password that needs encoding.
    harness.store.create(Scope.tenant(name), "db-main-credentials",
        Map.of("username", bytes("tenant"), "password", bytes(AWKWARD_PASSWORD)));
    client.resources(Tenant.class).resource(OperatorHarness.workingTenant(name)).create();
    awaitPhase(client, name, TenantPhase.Ready, Duration.ofMinutes(3));

    for (String db : List.of("main", "cache")) {
      Map<String, String> binding = files(client.secrets().inNamespace(ns).withName("db-" + db + "-binding").get());
      Map<String, String> credentials = files(client.secrets().inNamespace(ns).withName("db-" + db + "-credentials").get());
      Service service = client.services().inNamespace(ns).withName("db-" + db).get();
      assertThat(binding).containsEntry("provider", "tenantry")
          .containsEntry("type", db.equals("main") ? "postgresql" : "redis")
          .containsEntry("host", "db-" + db + "." + ns + ".svc.cluster.local")
          .containsEntry("port", service.getSpec().getPorts().get(0).getPort().toString())
          .containsEntry("username", credentials.get("username"))
          .containsEntry("password", credentials.get("password"));
      URI uri = URI.create(binding.get("uri"));
      assertThat(uri.getHost()).isEqualTo(binding.get("host"));
      assertThat(uri.getPort()).isEqualTo(Integer.parseInt(binding.get("port")));
      assertThat(decode(uri.getRawUserInfo().split(":", 2)[1])).isEqualTo(credentials.get("password"));
    }
    assertThat(files(client.secrets().inNamespace(ns).withName("db-main-binding").get()))
        .containsEntry("password", AWKWARD_PASSWORD).containsEntry("database", "tenant");

    await().atMost(Duration.ofMinutes(1)).until(() -> !webPods(ns).isEmpty());
    for (Pod pod : webPods(ns)) {
      PodSpec spec = pod.getSpec();
      Container web = spec.getContainers().get(0);
      assertThat(web.getEnv()).anySatisfy(e -> assertThat(e.getName() + "=" + e.getValue()).isEqualTo("SERVICE_BINDING_ROOT=/bindings"));
      assertThat(web.getVolumeMounts()).extracting(m -> m.getMountPath())
          .contains("/bindings/main", "/bindings/cache", "/etc/tenantry/secrets/smtp", "/etc/tenantry/tenant", "/etc/tenantry/config");
      assertThat(spec.getVolumes()).extracting(v -> v.getSecret() == null ? "" : v.getSecret().getSecretName())
          .contains("db-main-binding", "db-cache-binding", "smtp");
      assertThat(web.getEnvFrom()).extracting(e -> e.getSecretRef().getName()).containsExactly("stripe");
    }

    Map<String, String> binding = files(client.secrets().inNamespace(ns).withName("db-main-binding").get());
    try (RealPostgres postgres = RealPostgres.start(binding.get("username"), binding.get("password"), binding.get("database"))) {
      // The binding's files as a Service Binding library reads them; only host and port point at the local server.
      Properties properties = new Properties();
      properties.setProperty("user", binding.get("username"));
      properties.setProperty("password", binding.get("password"));
      assertThat(whoAmI("jdbc:postgresql://" + postgres.host() + ":" + postgres.port() + "/" + binding.get("database"), properties))
          .isEqualTo("tenant@tenant");
      // And through the URI alone, as a <DATABASE>_URL reader would.
      URI uri = URI.create(binding.get("uri"));
      String[] userInfo = uri.getRawUserInfo().split(":", 2);
      Properties fromUri = new Properties();
      fromUri.setProperty("user", decode(userInfo[0]));
      fromUri.setProperty("password", decode(userInfo[1]));
      assertThat(whoAmI("jdbc:postgresql://" + postgres.host() + ":" + postgres.port() + uri.getRawPath(), fromUri))
          .isEqualTo("tenant@tenant");
    }
  }

  @Test
  void allocatingASpareShowsTheCustomerToItsAppsWithoutRestartingAPod() {
    String name = uniqueName("spare");
    String ns = "tenant-" + name;
    Tenant spare = OperatorHarness.workingTenant(name);
    spare.getSpec().setState(TenantState.New);
    spare.getSpec().setOrganization(null);
    spare.getSpec().setEmail(null);
    client.resources(Tenant.class).resource(spare).create();
    awaitPhase(client, name, TenantPhase.Ready, Duration.ofMinutes(3));
    assertThat(identity(ns)).containsEntry("organization", "").containsEntry("state", "New");
    await().atMost(Duration.ofMinutes(1)).until(() -> !webPods(ns).isEmpty());
    List<String> podsBefore = webPods(ns).stream().map(p -> p.getMetadata().getUid()).sorted().toList();
    Long generationBefore = client.apps().deployments().inNamespace(ns).withName("app-web").get().getMetadata().getGeneration();

    client.resources(Tenant.class).withName(name).patch(PatchContext.of(PatchType.JSON_MERGE),
        "{\"spec\":{\"state\":\"Active\",\"organization\":\"Globex\",\"email\":\"it@globex.example\"}}");
    await().atMost(Duration.ofMinutes(1)).until(() -> "Globex".equals(identity(ns).get("organization")));
    assertThat(identity(ns)).containsEntry("email", "it@globex.example").containsEntry("state", "Active").containsEntry("name", name);
    awaitPhase(client, name, TenantPhase.Ready, Duration.ofMinutes(1));
    harness.awaitIdle();

    assertThat(client.apps().deployments().inNamespace(ns).withName("app-web").get().getMetadata().getGeneration())
        .as("the Deployment is not touched").isEqualTo(generationBefore);
    assertThat(webPods(ns).stream().map(p -> p.getMetadata().getUid()).sorted().toList()).isEqualTo(podsBefore);
  }

  @Test
  void aNewVersionRunsItsMigrationToCompletionBeforeTheDeploymentChanges() {
    String name = uniqueName("migrate");
    String ns = "tenant-" + name;
    client.resources(Tenant.class).resource(OperatorHarness.workingTenant(name)).create();
    awaitPhase(client, name, TenantPhase.Ready, Duration.ofMinutes(3));
    assertThat(version(client.apps().deployments().inNamespace(ns).withName("app-web").get())).isEqualTo("1.0.0");

    List<String> events = new CopyOnWriteArrayList<>();
    try (Watch jobs = client.batch().v1().jobs().inNamespace(ns).watch(recorder(events, WorkingAppIT::describe));
        Watch deployments = client.apps().deployments().inNamespace(ns).watch(recorder(events, WorkingAppIT::describe))) {
      OperatorHarness.setAppVersion(client, name, "2.0.0");
      await().atMost(Duration.ofMinutes(2)).until(() -> {
        Tenant t = client.resources(Tenant.class).withName(name).get();
        return t.getStatus().getPhase() == TenantPhase.Ready && "web=2.0.0".equals(t.getStatus().getVersions());
      });
      await("the finished Job is cleaned up").atMost(Duration.ofMinutes(1))
          .until(() -> client.batch().v1().jobs().inNamespace(ns).list().getItems().isEmpty());
    }
    // resourceVersions are the API server's one write sequence (etcd's revision): they order writes across kinds.
    long completed = events.stream().filter(e -> e.contains("Job") && e.contains("2.0.0") && e.contains("Complete"))
        .mapToLong(WorkingAppIT::revision).min().orElseThrow();
    long firstV2 = events.stream().filter(e -> e.contains("Deployment") && e.contains("version=2.0.0"))
        .mapToLong(WorkingAppIT::revision).min().orElseThrow();
    assertThat(firstV2).as("the Deployment changes only after the Job succeeded: " + events).isGreaterThan(completed);
    assertThat(events).filteredOn(e -> e.contains("Deployment") && revision(e) < completed)
        .allSatisfy(e -> assertThat(e).contains("version=1.0.0"));
  }

  @Test
  void aFailedMigrationKeepsThePreviousVersionServingAndSaysWhy() {
    String name = uniqueName("broken");
    String ns = "tenant-" + name;
    client.resources(Tenant.class).resource(OperatorHarness.workingTenant(name)).create();
    awaitPhase(client, name, TenantPhase.Ready, Duration.ofMinutes(3));

    // kwok fails a Job pod whose command is `false`, as a node would.
    client.resources(Tenant.class).withName(name).patch(PatchContext.of(PatchType.JSON),
        "[{\"op\":\"replace\",\"path\":\"/spec/apps/0/migrate/command\",\"value\":[\"false\"]},"
            + "{\"op\":\"replace\",\"path\":\"/spec/apps/0/version\",\"value\":\"3.0.0\"}]");
    Tenant degraded = awaitPhase(client, name, TenantPhase.Degraded, Duration.ofMinutes(2));

    assertThat(degraded.getStatus().getConditions().get(0)).satisfies(ready -> {
      assertThat(ready.getReason()).isEqualTo("MigrationFailed");
      assertThat(ready.getMessage()).contains("app web: migration to 3.0.0 failed", "BackoffLimitExceeded");
    });
    Deployment web = client.apps().deployments().inNamespace(ns).withName("app-web").get();
    assertThat(version(web)).as("the previous version keeps serving").isEqualTo("1.0.0");
    assertThat(client.batch().v1().jobs().inNamespace(ns).list().getItems()).as("the failed Job stays for its logs")
        .singleElement().satisfies(job -> assertThat(job.getMetadata().getLabels()).containsEntry(Labels.VERSION, "3.0.0"));
  }

  @Test
  void aChangedFileSecretIsOneWritePerTenantAndAChangedEnvSecretOneRollPerTenant() {
    List<String> names = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      names.add(uniqueName("rotate"));
      client.resources(Tenant.class).resource(OperatorHarness.workingTenant(names.get(i))).create();
    }
    for (String name : names) {
      awaitPhase(client, name, TenantPhase.Ready, Duration.ofMinutes(3));
    }
    harness.awaitIdle();
    Map<String, String> hashes = restartHashes(names);
    Map<String, Long> revisions = revisions(names);
    long secretWrites = writes(names, "/secrets/");
    long deploymentWrites = writes(names, "/deployments/");

    harness.store.put(Scope.template(), "smtp", Map.of("password", bytes("smtp-2")));
    harness.parts.templates().refresh();
    await().atMost(Duration.ofMinutes(1)).until(() -> names.stream().allMatch(n ->
        "smtp-2".equals(files(client.secrets().inNamespace("tenant-" + n).withName("smtp").get()).get("password"))));
    harness.awaitIdle();
    assertThat(writes(names, "/secrets/") - secretWrites).as("one copy per tenant").isEqualTo(names.size());
    assertThat(writes(names, "/deployments/") - deploymentWrites).as("a file secret restarts nothing").isZero();
    assertThat(restartHashes(names)).isEqualTo(hashes);

    harness.store.put(Scope.template(), "stripe", Map.of("STRIPE_KEY", bytes("sk-2")));
    harness.parts.templates().refresh();
    await().atMost(Duration.ofMinutes(2)).until(() -> names.stream().allMatch(n -> !restartHashes(List.of(n)).equals(
        Map.of(n, hashes.get(n)))));
    for (String name : names) {
      awaitPhase(client, name, TenantPhase.Ready, Duration.ofMinutes(2));
    }
    harness.awaitIdle();
    // A roll is one new revision. Counting Deployment writes instead failed once: a second event's
    // sync read the cache before it showed the first write and applied the same template again.
    Map<String, Long> rolled = new HashMap<>(revisions);
    rolled.replaceAll((name, revision) -> revision + 1);
    assertThat(revisions(names)).as("one roll per tenant").isEqualTo(rolled);
  }

  @Test
  void anAppNamingAMissingTemplateSecretKeepsItsLastGoodSpecAndTheConditionNamesIt() {
    String name = uniqueName("missing");
    String ns = "tenant-" + name;
    client.resources(Tenant.class).resource(OperatorHarness.workingTenant(name)).create();
    awaitPhase(client, name, TenantPhase.Ready, Duration.ofMinutes(3));
    Deployment before = client.apps().deployments().inNamespace(ns).withName("app-web").get();

    client.resources(Tenant.class).withName(name).patch(PatchContext.of(PatchType.JSON),
        "[{\"op\":\"add\",\"path\":\"/spec/apps/0/secrets/-\",\"value\":{\"name\":\"no-such-secret\"}},"
            + "{\"op\":\"replace\",\"path\":\"/spec/apps/0/version\",\"value\":\"9.9.9\"}]");
    await().atMost(Duration.ofMinutes(1)).until(() -> client.resources(Tenant.class).withName(name).get().getStatus()
        .getConditions().stream().anyMatch(c -> "SecretsSynced".equals(c.getType()) && "TemplateSecretMissing".equals(c.getReason())
            && c.getMessage().contains("app web: template secret no-such-secret does not exist")));
    harness.awaitIdle();
    Deployment after = client.apps().deployments().inNamespace(ns).withName("app-web").get();
    assertThat(after.getMetadata().getGeneration()).isEqualTo(before.getMetadata().getGeneration());
    assertThat(version(after)).isEqualTo("1.0.0");
    assertThat(client.batch().v1().jobs().inNamespace(ns).list().getItems()).as("no migration for a spec that cannot run").isEmpty();
  }

  private static List<Pod> webPods(String ns) {
    return client.pods().inNamespace(ns).withLabel(Labels.COMPONENT, Labels.COMPONENT_APP).withLabel(Labels.NAME, "web")
        .list().getItems().stream().filter(p -> p.getMetadata().getDeletionTimestamp() == null).toList();
  }

  private static Map<String, String> identity(String ns) {
    ConfigMap identity = client.configMaps().inNamespace(ns).withName("tenant-identity").get();
    return identity == null ? Map.of() : identity.getData();
  }

  private static Map<String, String> restartHashes(List<String> names) {
    return names.stream().collect(Collectors.toMap(n -> n, n -> client.apps().deployments().inNamespace("tenant-" + n)
        .withName("app-web").get().getSpec().getTemplate().getMetadata().getAnnotations().get(AppPod.RESTART_HASH)));
  }

  /** Each tenant's app Deployment revision, as the deployment controller counts its rolls. */
  private static Map<String, Long> revisions(List<String> names) {
    return names.stream().collect(Collectors.toMap(n -> n, n -> Long.parseLong(client.apps().deployments()
        .inNamespace("tenant-" + n).withName("app-web").get().getMetadata().getAnnotations()
        .get("deployment.kubernetes.io/revision"))));
  }

  private static long writes(List<String> names, String resource) {
    return harness.requests.all().stream().filter(r -> !r.startsWith("GET") && r.contains(resource)
        && names.stream().anyMatch(n -> r.contains("/namespaces/tenant-" + n + "/"))).count();
  }

  private static String version(Deployment deployment) {
    return deployment.getSpec().getTemplate().getMetadata().getLabels().get(Labels.VERSION);
  }

  private static String describe(Object object) {
    if (object instanceof Job job) {
      String conditions = job.getStatus() == null || job.getStatus().getConditions() == null ? ""
          : job.getStatus().getConditions().stream().filter(c -> "True".equals(c.getStatus())).map(c -> c.getType())
              .collect(Collectors.joining(","));
      return "Job " + job.getMetadata().getLabels().get(Labels.VERSION) + " [" + conditions + "] @" + job.getMetadata().getResourceVersion();
    }
    Deployment deployment = (Deployment) object;
    return "Deployment version=" + version(deployment) + " @" + deployment.getMetadata().getResourceVersion();
  }

  private static long revision(String event) {
    return Long.parseLong(event.substring(event.lastIndexOf('@') + 1));
  }

  private static <T> Watcher<T> recorder(List<String> events, java.util.function.Function<Object, String> describe) {
    return new Watcher<>() {
      @Override
      public void eventReceived(Action action, T resource) {
        events.add(action + " " + describe.apply(resource));
      }

      @Override
      public void onClose(WatcherException cause) {
      }
    };
  }

  private static String whoAmI(String url, Properties properties) throws Exception {
    try (Connection connection = DriverManager.getConnection(url, properties);
        ResultSet result = connection.createStatement().executeQuery("select current_user, current_database()")) {
      result.next();
      return result.getString(1) + "@" + result.getString(2);
    }
  }

  private static Map<String, String> files(Secret secret) {
    return secret.getData().entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey,
        e -> new String(Base64.getDecoder().decode(e.getValue()), StandardCharsets.UTF_8)));
  }

  private static String decode(String percentEncoded) {
    // URLDecoder would turn '+' into a space; the encoder never leaves a '+' unencoded, so this is exact.
    return URLDecoder.decode(percentEncoded.replace("+", "%2B"), StandardCharsets.UTF_8);
  }

  private static byte[] bytes(String value) {
    return value.getBytes(StandardCharsets.UTF_8);
  }
}
