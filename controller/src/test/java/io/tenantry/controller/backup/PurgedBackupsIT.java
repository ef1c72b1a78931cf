package io.tenantry.controller.backup;

import static io.tenantry.controller.operator.OperatorHarness.setState;
import static io.tenantry.controller.operator.OperatorHarness.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.tenantry.api.v1alpha1.BackupRecord;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.backup.BackupLocation;
import io.tenantry.backup.PurgeMarker;
import io.tenantry.backup.store.LocalBackupStore;
import io.tenantry.backup.store.StoredObject;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.operator.OperatorHarness;
import io.tenantry.controller.resources.Labels;
import io.tenantry.testsupport.RealPostgres;
import io.tenantry.testsupport.TestCluster;
import io.tenantry.testsupport.WithCluster;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A purged tenant's backups on the simulated cluster: the purge, through the operator on the real
 * API server, marks them in the store; they stay for {@code backups.purgeDelay} (one minute here),
 * through the Tenant's deletion and an operator restart, and then the sweep deletes them, and
 * nothing of another tenant's.
 */
@WithCluster(workloads = true)
class PurgedBackupsIT {

  private static final Duration DELAY = Duration.ofMinutes(1);
  private static OperatorHarness harness;
  private static KubernetesClient client;
  private static LocalBackupStore store;
  private static Path storeRoot;

  @BeforeAll
  static void start(TestCluster cluster, KubernetesClient kubernetesClient) throws Exception {
    client = kubernetesClient;
    storeRoot = Files.createTempDirectory("tenantry-purged-backups-");
    store = new LocalBackupStore(storeRoot);
    harness = OperatorHarness.withBackups(cluster, OperatorConfig.defaults()
        .with("{templateNamespace: tenantry-templates-purged-backups, backups: {purgeDelay: 1m},"
            + " plans: {standard: {backup: {drillEvery: 0, " + OperatorHarness.backupWindowAway() + "}}}}"), store); // a drill's Job would outlive the backup's
  }

  @AfterAll
  static void stop() {
    if (harness != null) {
      harness.close();
    }
  }

  @Test
  void aPurgedTenantsBackupsStayForTheDelayThenGoAndNoOtherTenantsDo() throws Exception {
    String gone = uniqueName("gone");
    String kept = uniqueName("kept");
    String goneUid = create(gone).getMetadata().getUid();
    String keptUid = create(kept).getMetadata().getUid();
    backUp(gone);
    backUp(kept);
    String gonePrefix = BackupLocation.tenantPrefix("local", gone, goneUid);
    String keptPrefix = BackupLocation.tenantPrefix("local", kept, keptUid);
    List<String> goneBackups = paths(gonePrefix);
    List<String> keptBackups = paths(keptPrefix);
    assertThat(goneBackups).as("a committed backup").anyMatch(p -> p.endsWith(".manifest"));
    assertThat(keptBackups).as("a committed backup").anyMatch(p -> p.endsWith(".manifest"));

    Instant before = Instant.now();
    setState(client, gone, TenantState.Frozen);
    setState(client, gone, TenantState.Purged);
    OperatorHarness.awaitPhase(client, gone, TenantPhase.Purged, Duration.ofMinutes(2));

    String markerPath = PurgeMarker.path("local", gone, goneUid);
    PurgeMarker marker = PurgeMarker.open(store.read(markerPath), harness.backupRuntime().kek(), markerPath);
    assertThat(marker.purged()).isBetween(before, Instant.now());
    assertThat(paths(gonePrefix)).as("the backups stay for the delay").containsAll(goneBackups).contains(markerPath);
    PurgedBackups.Sweep early = harness.parts.purgedBackups().sweep();
    assertThat(Instant.now()).as("the sweep ran within the delay").isBefore(marker.purged().plus(DELAY));
    assertThat(early.kept()).contains(gonePrefix);
    assertThat(paths(gonePrefix)).containsAll(goneBackups).contains(markerPath);

    // Its user deletes the Purged Tenant, and the operator restarts once the delay is over: the delay
    // lived in the store, and the sweep at the operator's start deletes the backups.
    client.resources(Tenant.class).withName(gone).delete();
    await().atMost(Duration.ofMinutes(1)).until(() -> client.resources(Tenant.class).withName(gone).get() == null);
    await().atMost(DELAY.plusSeconds(30)).pollInterval(Duration.ofSeconds(1))
        .until(() -> Instant.now().isAfter(marker.purged().plus(DELAY)));
    harness.restart();

    await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(200)).until(() -> paths(gonePrefix).isEmpty());
    assertThat(paths(keptPrefix)).as("another tenant's backups").isEqualTo(keptBackups);
  }

  @Test
  void aPurgeWhileTheBackupStoreIsDownStaysPurgingNamingItAndFinishesWhenItReturns() throws Exception {
    String name = uniqueName("outage");
    Tenant tenant = OperatorHarness.tenant(name, 1, false);
    client.resources(Tenant.class).resource(tenant).create();
    String uid = OperatorHarness.awaitPhase(client, name, TenantPhase.Ready, Duration.ofMinutes(2)).getMetadata().getUid();
    setState(client, name, TenantState.Frozen);
    OperatorHarness.awaitPhase(client, name, TenantPhase.Frozen, Duration.ofMinutes(2));

    Path moved = storeRoot.resolveSibling(storeRoot.getFileName() + "-away");
    Files.move(storeRoot, moved);
    try {
      setState(client, name, TenantState.Purged);
      await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
        Tenant t = client.resources(Tenant.class).withName(name).get();
        assertThat(t.getStatus().getPhase()).isEqualTo(TenantPhase.Purging);
        assertThat(t.getStatus().getConditions().get(0).getMessage()).contains("file:" + storeRoot);
      });
      await().atMost(Duration.ofMinutes(1)).until(() -> harness.parts.queue().numRequeues(name) >= 2);
    } finally {
      Files.move(moved, storeRoot);
    }

    OperatorHarness.awaitPhase(client, name, TenantPhase.Purged, Duration.ofMinutes(2));
    String markerPath = PurgeMarker.path("local", name, uid);
    assertThat(PurgeMarker.open(store.read(markerPath), harness.backupRuntime().kek(), markerPath).tenantUid()).isEqualTo(uid);
  }

  private static Tenant create(String name) {
    client.resources(Tenant.class).resource(OperatorHarness.tenant(name, 1, true)).create();
    return OperatorHarness.awaitPhase(client, name, TenantPhase.Ready, Duration.ofMinutes(2));
  }

  /** Plays the kubelet for the tenant's first backup Job against a real PostgreSQL, until it is committed. */
  private static void backUp(String name) throws Exception {
    await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(200)).until(() -> !jobs(name).isEmpty());
    Job job = jobs(name).get(0);
    String id = job.getMetadata().getAnnotations().get(BackupJob.BACKUP_ID);
    Pod pod = Kubelet.awaitRunningPod(client, namespace(name), job.getMetadata().getName());
    Secret credentials = client.secrets().inNamespace(namespace(name)).withName("db-main-credentials").get();
    String user = decode(credentials, "username");
    String password = decode(credentials, "password");
    try (RealPostgres postgres = RealPostgres.start(user, password, "tenant")) {
      try (Connection db = DriverManager.getConnection("jdbc:postgresql://" + postgres.host() + ":" + postgres.port()
          + "/tenant", user, password); Statement statement = db.createStatement()) {
        statement.execute("CREATE TABLE orders (id int PRIMARY KEY)");
        statement.execute("INSERT INTO orders SELECT i FROM generate_series(1, 100) i");
      }
      List<Kubelet.Ended> ended = Kubelet.run(client, pod, Map.of("PGHOST", postgres.host(),
          "PGPORT", Integer.toString(postgres.port())));
      assertThat(ended).as("%s", ended).allMatch(e -> e.exitCode() == 0);
    }
    await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(200)).until(() -> {
      Tenant t = client.resources(Tenant.class).withName(name).get();
      BackupRecord last = t.getStatus().getDatabases().get(0).getBackup() == null ? null
          : t.getStatus().getDatabases().get(0).getBackup().getLast();
      return last != null && id.equals(last.getId()) && jobs(name).isEmpty();
    });
  }

  private static List<Job> jobs(String name) {
    return client.batch().v1().jobs().inNamespace(namespace(name)).withLabel(Labels.COMPONENT, Labels.COMPONENT_BACKUP)
        .list().getItems();
  }

  private static List<String> paths(String prefix) {
    return store.list(prefix).stream().map(StoredObject::path).toList();
  }

  private static String namespace(String name) {
    return "tenant-" + name;
  }

  private static String decode(Secret secret, String key) {
    return new String(Base64.getDecoder().decode(secret.getData().get(key)), StandardCharsets.UTF_8);
  }
}
