package io.tenantry.controller.backup;

import static io.tenantry.controller.operator.OperatorHarness.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.tenantry.api.v1alpha1.ArchiveStatus;
import io.tenantry.api.v1alpha1.ArchiveStep;
import io.tenantry.api.v1alpha1.BackupRecord;
import io.tenantry.api.v1alpha1.DatabaseEngine;
import io.tenantry.api.v1alpha1.DatabaseSpec;
import io.tenantry.api.v1alpha1.RestoreRecord;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.api.v1alpha1.UpgradeRecord;
import io.tenantry.backup.ArchiveManifest;
import io.tenantry.backup.BackupId;
import io.tenantry.backup.BackupLocation;
import io.tenantry.backup.Manifest;
import io.tenantry.backup.store.LocalBackupStore;
import io.tenantry.backup.store.StoredObject;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.operator.OperatorHarness;
import io.tenantry.controller.resources.Labels;
import io.tenantry.controller.status.Conditions;
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
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Backups on the simulated cluster, proven by the store: the operator makes the backup Job, the
 * test plays its kubelet against a real PostgreSQL holding the tenant's credentials, and only what
 * reaches the store, checked and sealed, counts as a backup.
 */
@WithCluster(workloads = true)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class BackupIT {

  private static final int GRACE = 3;
  /** A finalizer of the test's, holding an object the operator deletes. */
  private static final String HOLD = "test.tenantry.io/hold";

  private static OperatorHarness harness;
  private static KubernetesClient client;
  private static LocalBackupStore store;
  private static Path storeRoot;

  @BeforeAll
  static void start(TestCluster cluster, KubernetesClient kubernetesClient) throws Exception {
    client = kubernetesClient;
    storeRoot = Files.createTempDirectory("tenantry-backups-");
    store = new LocalBackupStore(storeRoot);
    harness = OperatorHarness.withBackups(cluster, OperatorConfig.defaults()
        .with("{templateNamespace: tenantry-templates-backup, backups: {maxConcurrent: 2, keepReplacedFor: 1m},"
            + " plans: {standard: {backup: {keepDaily: 1, keepWeekly: 0, drillEvery: 0, " + OperatorHarness.backupWindowAway() + "}},"
            + " drilled: {backup: {keepDaily: 1, keepWeekly: 0, drillEvery: 1, " + OperatorHarness.backupWindowAway() + "}},"
            + " cramped: {quota: {requests.ephemeral-storage: 100Mi}, defaultRequest: {ephemeral-storage: 1Mi},"
            + " backup: {drillEvery: 1, " + OperatorHarness.backupWindowAway() + "}}}}"), store);
  }

  @AfterAll
  static void stop() {
    if (harness != null) {
      harness.purgeAll(client);
      harness.close();
    }
  }

  @Test
  void aBackupIsProvenByTheStoreAndThenCostsNothing() throws Exception {
    String name = uniqueName("backed");
    Tenant tenant = create(name);
    Job job = awaitBackupJob(name);
    Pod pod = Kubelet.awaitRunningPod(client, namespace(name), job.getMetadata().getName());

    try (RealPostgres postgres = startDatabase(name)) {
      fill(postgres, name);
      List<Kubelet.Ended> ended = Kubelet.run(client, pod, loopback(postgres));
      assertThat(ended).as("%s", ended).allMatch(e -> e.exitCode() == 0);
    }

    Tenant backedUp = awaitBackedUp(name, "True");
    assertThat(condition(backedUp).getReason()).isEqualTo("BackupCurrent");
    BackupRecord last = backedUp.getStatus().getDatabases().get(0).getBackup().getLast();
    assertThat(last.getId()).isEqualTo(job.getMetadata().getAnnotations().get(BackupJob.BACKUP_ID));
    assertThat(last.getBytes()).isPositive();
    assertThat(backedUp.getStatus().getDatabases().get(0).getBackup().getLastAttempt()).isEqualTo(last);
    BackupLocation location = new BackupLocation("local", name, tenant.getMetadata().getUid(), "main");
    BackupId id = BackupId.parse(last.getId());
    assertThat(store.list(location.prefix())).extracting(StoredObject::path)
        .containsExactly(location.objectPath(id), location.manifestPath(id), location.reportPath(id));
    Manifest manifest = Manifest.open(store.read(location.manifestPath(id)), harness.backupRuntime().kek(),
        location.manifestPath(id));
    assertThat(manifest.tables()).containsEntry("public.orders", 1000L);
    assertThat(manifest.objectBytes()).isEqualTo(last.getBytes());
    await().atMost(Duration.ofSeconds(30)).until(() -> backupObjects(name).isEmpty());

    harness.awaitIdle();
    long before = harness.requests.count();
    harness.parts.queue().add(name);
    Thread.sleep(500);
    harness.awaitIdle();
    assertThat(harness.requests.count() - before).as("requests of the next sync; recent: %s", harness.requests.recent())
        .isZero();
  }

  @Test
  void aJobThatEndsWithoutRunningLeavesNoManifestAndSaysSo() throws Exception {
    String name = uniqueName("hollow");
    Tenant tenant = create(name);
    Job job = awaitBackupJob(name);
    Pod pod = Kubelet.awaitRunningPod(client, namespace(name), job.getMetadata().getName());

    // As kwok would: every container "succeeds", and nothing ran.
    Kubelet.terminate(client, pod, List.of(new Kubelet.Ended(BackupJob.DUMP, 0, "", ""),
        new Kubelet.Ended(BackupJob.AGENT, 0, "", "")));

    Tenant failed = awaitBackedUp(name, "False");
    assertThat(condition(failed).getReason()).isEqualTo("BackupNotInStore");
    assertThat(condition(failed).getMessage()).contains("holds no backups/local/" + name);
    assertThat(failed.getStatus().getDatabases().get(0).getBackup().getLast()).isNull();
    assertThat(warnings(name)).contains("BackupNotInStore");
    BackupLocation location = new BackupLocation("local", name, tenant.getMetadata().getUid(), "main");
    assertThat(store.list(location.prefix())).isEmpty();
  }

  @Test
  void aDumpThatFailsIsReportedWithTheServersWords() throws Exception {
    String name = uniqueName("refused");
    create(name);
    Job job = awaitBackupJob(name);
    Pod pod = Kubelet.awaitRunningPod(client, namespace(name), job.getMetadata().getName());

    try (RealPostgres postgres = RealPostgres.start("tenant", "not-the-tenants-password", "tenant")) {
      List<Kubelet.Ended> ended = Kubelet.run(client, pod, loopback(postgres));
      assertThat(ended).anyMatch(e -> e.exitCode() != 0);
    }

    Tenant failed = awaitBackedUp(name, "False");
    assertThat(condition(failed).getReason()).isEqualTo("DumpFailed");
    assertThat(condition(failed).getMessage()).contains("password authentication failed");
    assertThat(warnings(name)).contains("DumpFailed");
  }

  @Test
  void aRequestedBackupPrunesWhatThePlanNoLongerKeepsAndNothingElse() throws Exception {
    String name = uniqueName("pruned");
    Tenant tenant = create(name);
    BackupLocation location = new BackupLocation("local", name, tenant.getMetadata().getUid(), "main");
    try (RealPostgres postgres = startDatabase(name)) {
      fill(postgres, name);
      String first = backUp(name, postgres);
      // A leftover of a backup that never committed, two days old, and a file Tenantry did not write.
      BackupId leftover = BackupId.next("main", java.time.Instant.now().minus(Duration.ofDays(2)));
      store.create(location.objectPath(leftover), new java.io.ByteArrayInputStream(new byte[] {1, 2, 3}));
      store.create(location.prefix() + "notes.txt", new java.io.ByteArrayInputStream(new byte[] {4}));

      client.resources(Tenant.class).withName(name).edit(t -> {
        t.getMetadata().getAnnotations().put(TenantBackups.REQUESTED, java.time.Instant.now().toString());
        return t;
      });
      String second = backUp(name, postgres);

      assertThat(second).isNotEqualTo(first);
      BackupId id = BackupId.parse(second);
      await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(store.list(location.prefix()))
          .extracting(StoredObject::path)
          .containsExactly(location.objectPath(id), location.manifestPath(id), location.reportPath(id),
              location.prefix() + "notes.txt"));
      Manifest manifest = Manifest.open(store.read(location.manifestPath(id)), harness.backupRuntime().kek(),
          location.manifestPath(id));
      assertThat(manifest.kind()).isEqualTo("on-demand");
    }
  }

  @Test
  void noMoreBackupsRunThanTheClusterAllowsAndEachEndAdmitsTheNext() throws Exception {
    List<String> names = List.of(uniqueName("slot"), uniqueName("slot"), uniqueName("slot"));
    for (String name : names) {
      client.resources(Tenant.class).resource(OperatorHarness.tenant(name, 1, true)).create();
    }
    await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(200))
        .until(() -> names.stream().mapToInt(n -> jobs(n).size()).sum() == 2);
    harness.awaitIdle();
    Thread.sleep(1000);
    assertThat(names.stream().mapToInt(n -> jobs(n).size()).sum()).as("backup Jobs at once, maxConcurrent 2").isEqualTo(2);
    String waiting = names.stream().filter(n -> jobs(n).isEmpty()).findFirst().orElseThrow();
    String running = names.stream().filter(n -> !jobs(n).isEmpty()).findFirst().orElseThrow();

    Job job = jobs(running).get(0);
    Pod pod = Kubelet.awaitRunningPod(client, namespace(running), job.getMetadata().getName());
    Kubelet.terminate(client, pod, List.of(new Kubelet.Ended(BackupJob.DUMP, 1, "", ""),
        new Kubelet.Ended(BackupJob.AGENT, 1, "", "")));

    await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(200)).until(() -> jobs(waiting).size() == 1);
    assertThat(names.stream().mapToInt(n -> jobs(n).size()).sum()).isEqualTo(2);
    for (String name : names) {
      for (Job left : jobs(name)) {
        Kubelet.terminate(client, Kubelet.awaitRunningPod(client, namespace(name), left.getMetadata().getName()),
            List.of(new Kubelet.Ended(BackupJob.DUMP, 1, "", ""), new Kubelet.Ended(BackupJob.AGENT, 1, "", "")));
      }
    }
  }

  @Test
  void aStoreDownAtCommitIsUnknownNamingTheStoreAndTheBackupCommitsWhenItReturns() throws Exception {
    String name = uniqueName("outage");
    Tenant tenant = create(name);
    Job job = awaitBackupJob(name);
    Pod pod = Kubelet.awaitRunningPod(client, namespace(name), job.getMetadata().getName());
    BackupLocation location = new BackupLocation("local", name, tenant.getMetadata().getUid(), "main");
    Path moved = storeRoot.resolveSibling(storeRoot.getFileName() + "-away");
    List<Kubelet.Ended> ended;
    try (RealPostgres postgres = startDatabase(name)) {
      fill(postgres, name);
      ended = Kubelet.execute(client, pod, loopback(postgres));
      assertThat(ended).as("%s", ended).allMatch(e -> e.exitCode() == 0);
    }
    Files.move(storeRoot, moved);
    try {
      Kubelet.terminate(client, pod, ended);
      Tenant unknown = awaitBackedUp(name, "Unknown", "StoreUnavailable");
      assertThat(condition(unknown).getMessage()).contains("file:" + storeRoot);
      assertThat(jobs(name)).as("nothing decided: the Job waits for the store").hasSize(1);
    } finally {
      Files.move(moved, storeRoot);
    }

    Tenant backedUp = awaitBackedUp(name, "True");
    BackupId id = BackupId.parse(backedUp.getStatus().getDatabases().get(0).getBackup().getLast().getId());
    assertThat(store.list(location.prefix())).extracting(StoredObject::path)
        .containsExactly(location.objectPath(id), location.manifestPath(id), location.reportPath(id));
  }

  @Test
  @Order(Integer.MAX_VALUE) // last: a tenant created just after the restart once waited for the 2-minute resync to be Ready
  void anOperatorDownWhenTheJobEndsCommitsItOnceOnItsReturn() throws Exception {
    String name = uniqueName("restart");
    Tenant tenant = create(name);
    Job job = awaitBackupJob(name);
    Pod pod = Kubelet.awaitRunningPod(client, namespace(name), job.getMetadata().getName());
    BackupLocation location = new BackupLocation("local", name, tenant.getMetadata().getUid(), "main");
    List<Kubelet.Ended> ended;
    try (RealPostgres postgres = startDatabase(name)) {
      fill(postgres, name);
      ended = Kubelet.execute(client, pod, loopback(postgres));
    }

    harness.operator.close();
    Kubelet.terminate(client, pod, ended);
    harness.restart();

    Tenant backedUp = awaitBackedUp(name, "True");
    BackupId id = BackupId.parse(backedUp.getStatus().getDatabases().get(0).getBackup().getLast().getId());
    assertThat(id.toString()).isEqualTo(job.getMetadata().getAnnotations().get(BackupJob.BACKUP_ID));
    await().atMost(Duration.ofSeconds(30)).until(() -> backupObjects(name).isEmpty());
    assertThat(store.list(location.prefix())).extracting(StoredObject::path).filteredOn(p -> p.endsWith(".manifest"))
        .containsExactly(location.manifestPath(id));
  }

  @Test
  void aProvenBackupIsRestoredInADrillAndItsCountsMatch() throws Exception {
    String name = uniqueName("drilled");
    Tenant tenant = create(name, "drilled");
    String id;
    try (RealPostgres postgres = startDatabase(name)) {
      fill(postgres, name);
      id = backUp(name, postgres);
    }
    // The database's server is gone: the drill restores into a server of its own, in its pod.
    Job drill = awaitJob(name, BackupJob.drillName(id));
    assertThat(drill.getMetadata().getAnnotations()).containsEntry(BackupJob.DRILL_OF, id);
    List<Kubelet.Ended> ended = Kubelet.run(client, Kubelet.awaitRunningPod(client, namespace(name),
        drill.getMetadata().getName()), Map.of("PGPORT", Integer.toString(freePort())));
    assertThat(ended).as("%s", ended).allMatch(e -> e.exitCode() == 0);

    Tenant verified = awaitRestoreVerified(name, "True");
    assertThat(restoreVerified(verified).getReason()).isEqualTo("DrillPassed");
    BackupRecord lastDrill = verified.getStatus().getDatabases().get(0).getBackup().getLastDrill();
    assertThat(lastDrill.getId()).isEqualTo(id);
    assertThat(lastDrill.getFinished()).isNotNull();
    assertThat(lastDrill.getReason()).isNull();
    await().atMost(Duration.ofSeconds(30)).until(() -> backupObjects(name).isEmpty());
    // The drill's report is read and gone; the backup stays as it was.
    BackupLocation location = new BackupLocation("local", name, tenant.getMetadata().getUid(), "main");
    BackupId backup = BackupId.parse(id);
    assertThat(store.list(location.prefix())).extracting(StoredObject::path)
        .containsExactly(location.objectPath(backup), location.manifestPath(backup), location.reportPath(backup));
  }

  @Test
  void aFlippedByteFailsTheDrillAndTheLiveDatabaseIsUntouched() throws Exception {
    String name = uniqueName("flipped");
    Tenant tenant = create(name, "drilled");
    try (RealPostgres postgres = startDatabase(name)) {
      fill(postgres, name);
      String id = backUp(name, postgres);
      Job drill = awaitJob(name, BackupJob.drillName(id));
      BackupLocation location = new BackupLocation("local", name, tenant.getMetadata().getUid(), "main");
      Path object = storeRoot.resolve(location.objectPath(BackupId.parse(id)));
      byte[] bytes = Files.readAllBytes(object);
      bytes[bytes.length / 2] ^= 0x01;
      Files.write(object, bytes);

      List<Kubelet.Ended> ended = Kubelet.run(client, Kubelet.awaitRunningPod(client, namespace(name),
          drill.getMetadata().getName()), Map.of("PGPORT", Integer.toString(freePort())));
      assertThat(ended).as("%s", ended).anyMatch(e -> e.exitCode() != 0);

      Tenant failed = awaitRestoreVerified(name, "False");
      assertThat(restoreVerified(failed).getReason()).isEqualTo("DrillFailed");
      assertThat(restoreVerified(failed).getMessage()).contains("drill of backup " + id + " failed: corrupt");
      assertThat(warnings(name)).contains("DrillFailed");
      assertThat(orders(postgres, name)).isEqualTo(1000);
    }
  }

  @Test
  void aDrillJobThatEndsWithoutRunningIsNotAPassedDrill() throws Exception {
    String name = uniqueName("idle");
    create(name, "drilled");
    String id;
    try (RealPostgres postgres = startDatabase(name)) {
      fill(postgres, name);
      id = backUp(name, postgres);
    }
    Job drill = awaitJob(name, BackupJob.drillName(id));
    // As kwok would: every container "succeeds", and nothing ran.
    Kubelet.terminate(client, Kubelet.awaitRunningPod(client, namespace(name), drill.getMetadata().getName()),
        List.of(new Kubelet.Ended(BackupJob.RESTORE, 0, "", ""), new Kubelet.Ended(BackupJob.AGENT, 0, "", "")));

    Tenant failed = awaitRestoreVerified(name, "False");
    assertThat(restoreVerified(failed).getReason()).isEqualTo("DrillNotRun");
    assertThat(restoreVerified(failed).getMessage()).contains("its agent reported nothing");
  }

  @Test
  void aDrillThatDoesNotFitTheQuotaIsReportedWithItsFiguresAndNoJob() throws Exception {
    String name = uniqueName("cramped");
    create(name, "cramped");
    try (RealPostgres postgres = startDatabase(name)) {
      fill(postgres, name);
      backUp(name, postgres);
    }

    Tenant failed = awaitRestoreVerified(name, "False");
    assertThat(restoreVerified(failed).getReason()).isEqualTo("DrillDoesNotFit");
    assertThat(restoreVerified(failed).getMessage()).containsPattern("the drill needs \\d+Mi of scratch space; the quota's"
        + " requests.ephemeral-storage has \\d+Mi left of 100Mi");
    assertThat(warnings(name)).contains("DrillDoesNotFit");
    assertThat(jobs(name)).isEmpty();
  }

  @Test
  void aFrozenTenantIsRestoredIntoASideDatabaseSwappedInAndTheReplacedDataKept() throws Exception {
    String name = uniqueName("restored");
    create(name);
    try (RealPostgres postgres = startDatabase(name)) {
      fill(postgres, name);
      String id = backUp(name, postgres);
      execute(postgres, name, "tenant", "DELETE FROM orders WHERE id > 10"); // the mistake to undo

      client.resources(Tenant.class).withName(name).edit(t -> {
        t.getSpec().setState(TenantState.Frozen);
        t.getSpec().getDatabases().get(0).setRestoreFrom("latest");
        return t;
      });
      Job job = await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(200)).until(
          () -> jobs(name).stream().filter(j -> j.getMetadata().getName().startsWith("restore-main-")).findFirst().orElse(null),
          j -> j != null);
      // Frozen, but the database runs for its restore; the apps stay at zero.
      assertThat(client.apps().statefulSets().inNamespace(namespace(name)).withName("db-main").get().getSpec().getReplicas())
          .isEqualTo(1);
      List<Kubelet.Ended> ended = Kubelet.run(client, Kubelet.awaitRunningPod(client, namespace(name),
          job.getMetadata().getName()), loopback(postgres));
      assertThat(ended).as("%s", ended).allMatch(e -> e.exitCode() == 0);

      Tenant restored = awaitCondition(name, Conditions.RESTORED, "True");
      RestoreRecord restore = restored.getStatus().getDatabases().get(0).getBackup().getRestore();
      assertThat(restore.getRequested()).isEqualTo("latest");
      assertThat(restore.getBackup()).isEqualTo(id);
      assertThat(restore.getReplaced()).startsWith("tenant_before_");
      assertThat(count(postgres, name, "tenant")).isEqualTo(1000);
      assertThat(count(postgres, name, restore.getReplaced())).as("the replaced data, kept").isEqualTo(10);
      await().atMost(Duration.ofMinutes(1)).until(() -> client.apps().statefulSets().inNamespace(namespace(name))
          .withName("db-main").get().getSpec().getReplicas() == 0);
      assertThat(backupObjects(name)).isEmpty();
    }
  }

  @Test
  void aMajorUpgradeCarriesTheDataThroughABackupTakenWithTheAppsStoppedOntoAFreshVolumeAtTheNewVersion() throws Exception {
    String name = uniqueName("upgraded");
    Job backup = upgradeBackedUp(name, 5);
    assertThat(client.pods().inNamespace(namespace(name)).withLabel(Labels.COMPONENT, Labels.COMPONENT_APP).list().getItems())
        .as("the apps' pods are gone").isEmpty();
    UpgradeRecord asked = client.resources(Tenant.class).withName(name).get().getStatus().getDatabases().get(0).getBackup()
        .getUpgrade();
    assertThat(Duration.between(Instant.parse(asked.getStarted()), Instant.parse(backup.getMetadata().getCreationTimestamp())))
        .as("the backup waits out the apps' termination grace period (%d s; the Job's time has whole seconds)", GRACE)
        .isGreaterThanOrEqualTo(Duration.ofSeconds(GRACE - 1));
    String backupId = backup.getMetadata().getAnnotations().get(BackupJob.BACKUP_ID);
    // Proven: the database is made again at 16.4 on a fresh claim; the old claim stays.
    await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
      var set = client.apps().statefulSets().inNamespace(namespace(name)).withName("db-main").get();
      assertThat(set).isNotNull();
      assertThat(set.getSpec().getVolumeClaimTemplates().get(0).getMetadata().getName()).startsWith("data-16-");
      assertThat(set.getSpec().getTemplate().getSpec().getContainers().get(0).getImage()).endsWith(":16.4");
    });
    try (RealPostgres fresh = RealPostgres.startFrom(Path.of(System.getProperty("tenantry.postgres.next")),
        username(name), password(name), "tenant")) {
      Job restore = await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(200)).until(
          () -> jobs(name).stream().filter(j -> j.getMetadata().getName().startsWith("restore-main-")).findFirst().orElse(null),
          j -> j != null);
      assertThat(restore.getMetadata().getAnnotations()).containsEntry(BackupJob.RESTORE_BACKUP, backupId);
      List<Kubelet.Ended> ended = Kubelet.run(client, Kubelet.awaitRunningPod(client, namespace(name),
          restore.getMetadata().getName()), loopback(fresh));
      assertThat(ended).as("%s", ended).allMatch(e -> e.exitCode() == 0);

      Tenant upgraded = awaitCondition(name, Conditions.MAJOR_UPGRADED, "True");
      assertThat(count(fresh, name, "tenant")).as("every row, the late ones included").isEqualTo(1005);
      assertThat(serverVersion(fresh, name)).startsWith("16.");
      UpgradeRecord record = upgraded.getStatus().getDatabases().get(0).getBackup().getUpgrade();
      assertThat(record.getFrom()).isEqualTo("15.8");
      assertThat(record.getTo()).isEqualTo("16.4");
      assertThat(record.getFromVolume()).isEqualTo("data");
      assertThat(record.getBackup()).isEqualTo(backupId);
      assertThat(record.succeeded()).isTrue();
      assertThat(Conditions.find(upgraded.getStatus().getConditions(), Conditions.MAJOR_UPGRADED).orElseThrow().getMessage())
          .contains("15.8 to 16.4", "the old volume's claim data-db-main-0 is kept");
      OperatorHarness.awaitPhase(client, name, TenantPhase.Ready, Duration.ofMinutes(1));
      assertThat(client.apps().deployments().inNamespace(namespace(name)).withName("app-web").get().getSpec().getReplicas())
          .as("the apps start again").isEqualTo(1);
      assertThat(client.persistentVolumeClaims().inNamespace(namespace(name)).withName("data-db-main-0").get())
          .as("the old volume, kept").isNotNull();
      assertThat(events(name)).contains("Upgrading", "UpgradeDone");

      // backups.keepReplacedFor (1m here) after the upgrade, the old volume goes; the new one stays.
      await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofSeconds(1)).until(() -> client.persistentVolumeClaims()
          .inNamespace(namespace(name)).withName("data-db-main-0").get() == null);
      UpgradeRecord released = client.resources(Tenant.class).withName(name).get().getStatus().getDatabases().get(0)
          .getBackup().getUpgrade();
      assertThat(Duration.between(Instant.parse(released.getFinished()), Instant.parse(released.getReleased())))
          .isGreaterThanOrEqualTo(Duration.ofMinutes(1));
      assertThat(client.persistentVolumeClaims().inNamespace(namespace(name)).withName(record.getVolume() + "-db-main-0").get())
          .as("the volume in use").isNotNull();
    }
  }

  @Test
  void aFailedUpgradeRestoreReturnsTheDatabaseToItsOldVersionOnItsOldVolumeAndIsNotRetriedUntilAskedAgain() throws Exception {
    String name = uniqueName("unupgraded");
    Job backup = upgradeBackedUp(name, 0);
    Job restore = await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(200)).until(
        () -> jobs(name).stream().filter(j -> j.getMetadata().getName().startsWith("restore-main-")).findFirst().orElse(null),
        j -> j != null);
    // The restore's pod ends without running anything: nothing shows the data arrived.
    Kubelet.terminate(client, Kubelet.awaitRunningPod(client, namespace(name), restore.getMetadata().getName()),
        List.of(new Kubelet.Ended(BackupJob.RESTORE, 0, "", ""), new Kubelet.Ended(BackupJob.AGENT, 0, "", "")));

    Tenant failed = awaitCondition(name, Conditions.MAJOR_UPGRADED, "False", "UpgradeFailed");
    assertThat(Conditions.find(failed.getStatus().getConditions(), Conditions.MAJOR_UPGRADED).orElseThrow().getMessage())
        .contains("the restore at 16.4 failed", "running 15.8 on its old volume");
    await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(200))
        .untilAsserted(() -> assertStatefulSet(name, "postgres:15.8", "data"));
    OperatorHarness.awaitPhase(client, name, TenantPhase.Ready, Duration.ofMinutes(1));
    assertThat(client.apps().deployments().inNamespace(namespace(name)).withName("app-web").get().getSpec().getReplicas())
        .as("the apps are back on the old data").isEqualTo(1);
    assertThat(warnings(name)).contains("UpgradeFailed");
    harness.awaitIdle();
    assertThat(jobs(name)).as("not tried again").isEmpty();

    // Asked again (false, seen, then true): a new upgrade, with a new backup.
    client.resources(Tenant.class).withName(name).edit(t -> {
      t.getSpec().getDatabases().get(0).setMajorUpgrade(false);
      return t;
    });
    awaitCondition(name, Conditions.MAJOR_UPGRADED, "False", "UpgradeNotAsked");
    upgradeTo(name, "16.4");
    Job again = awaitUpgradeBackup(name);
    assertThat(again.getMetadata().getName()).isNotEqualTo(backup.getMetadata().getName());
    // This backup's pod ends without running: the upgrade fails before the volume changes.
    Kubelet.terminate(client, Kubelet.awaitRunningPod(client, namespace(name), again.getMetadata().getName()),
        List.of(new Kubelet.Ended(BackupJob.DUMP, 0, "", ""), new Kubelet.Ended(BackupJob.AGENT, 0, "", "")));
    Tenant unproven = awaitCondition(name, Conditions.MAJOR_UPGRADED, "False", "UpgradeFailed");
    assertThat(Conditions.find(unproven.getStatus().getConditions(), Conditions.MAJOR_UPGRADED).orElseThrow().getMessage())
        .contains("the backup before the upgrade failed (BackupNotInStore)");
    assertStatefulSet(name, "postgres:15.8", "data");
  }

  @Test
  void anArchiveIsBackedUpDrilledWrittenAndReadBackBeforeTheVolumesGoAndReactivationRestoresIt() throws Exception {
    String name = uniqueName("archived");
    Tenant tenant = create(name);
    String claimUid = claimUid(name);
    ArchiveTaken taken = archiveBackedUp(name);
    String id = taken.backup();
    assertThat(taken.tables().values().stream().mapToLong(t -> Long.parseLong(t.split(":")[0])).sum()).isEqualTo(10_000);
    assertThat(claimUid(name)).as("no volume goes before the drill").isEqualTo(claimUid);
    drill(name, id, true);

    awaitCondition(name, Conditions.DATA_ARCHIVED, "True");
    OperatorHarness.awaitPhase(client, name, TenantPhase.Archived, Duration.ofMinutes(1));
    await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
      assertThat(client.persistentVolumeClaims().inNamespace(namespace(name)).list().getItems()).isEmpty();
      assertThat(client.apps().statefulSets().inNamespace(namespace(name)).list().getItems()).isEmpty();
      assertThat(client.apps().deployments().inNamespace(namespace(name)).list().getItems()).isEmpty();
    });
    ArchiveStatus archive = client.resources(Tenant.class).withName(name).get().getStatus().getArchive();
    assertThat(archive.getSteps()).extracting(ArchiveStep::getName).containsExactly("AppsStopped", "BackedUp", "Drilled",
        "ManifestWritten", "VolumesReleased");
    assertThat(archive.getDatabases()).singleElement().satisfies(d -> assertThat(d.getBackup()).isEqualTo(id));
    assertThat(store.list(BackupLocation.tenantPrefix("local", name, tenant.getMetadata().getUid()) + "_archives/"))
        .as("exactly one archive manifest").singleElement().satisfies(m -> assertThat(m.path()).isEqualTo(archive.getManifest()));
    ArchiveManifest read = ArchiveManifest.open(store.read(archive.getManifest()), harness.backupRuntime().kek(),
        archive.getManifest());
    assertThat(read.databases()).singleElement().satisfies(d -> assertThat(d.tables())
        .isEqualTo(Map.of("public.orders", 1000L, "public.customers", 4000L, "public.events", 5000L)));

    // Back to Active: a fresh volume, the archive restored into it, then the apps.
    Job restore = reactivate(name, id);
    assertThat(claimUid(name)).as("a fresh volume").isNotNull().isNotEqualTo(claimUid);
    try (RealPostgres fresh = startDatabase(name)) {
      assertThat(Kubelet.run(client, Kubelet.awaitRunningPod(client, namespace(name), restore.getMetadata().getName()),
          loopback(fresh))).allMatch(e -> e.exitCode() == 0);
      Tenant restoredTenant = awaitCondition(name, Conditions.RESTORED, "True");
      assertThat(tables(fresh, name)).as("per table: rows and a hash of their content").isEqualTo(taken.tables());
      OperatorHarness.awaitPhase(client, name, TenantPhase.Ready, Duration.ofMinutes(1));
      var web = client.apps().deployments().inNamespace(namespace(name)).withName("app-web").get();
      assertThat(web.getSpec().getReplicas()).isEqualTo(1);
      assertThat(Instant.parse(web.getMetadata().getCreationTimestamp())).as("the app made once Restored turned true")
          .isAfterOrEqualTo(Instant.parse(Conditions.find(restoredTenant.getStatus().getConditions(), Conditions.RESTORED)
              .orElseThrow().getLastTransitionTime()).truncatedTo(java.time.temporal.ChronoUnit.SECONDS));
    }
    Tenant reactivated = client.resources(Tenant.class).withName(name).get();
    assertThat(reactivated.getStatus().getArchive().getRestored()).isNotNull();
    assertThat(Conditions.find(reactivated.getStatus().getConditions(), Conditions.DATA_ARCHIVED)).isEmpty();
  }

  @Test
  void aFailedArchiveDrillKeepsTheVolumesSaysWhyAndTakesAnotherBackup() throws Exception {
    String name = uniqueName("undrilled");
    create(name);
    String claimUid = claimUid(name);
    String id = archiveBackedUp(name).backup();
    drill(name, id, false); // its pod ends without running: nothing shows the backup restores
    Tenant held = awaitCondition(name, Conditions.DATA_ARCHIVED, "False", "DrillNotRun");
    assertThat(Conditions.find(held.getStatus().getConditions(), Conditions.DATA_ARCHIVED).orElseThrow().getMessage())
        .contains("the volumes are kept");
    Job again = awaitBackupJob(name, "archive");
    assertThat(again.getMetadata().getAnnotations().get(BackupJob.BACKUP_ID)).isNotEqualTo(id);
    assertThat(claimUid(name)).as("the volume, kept").isEqualTo(claimUid);
    assertThat(client.resources(Tenant.class).withName(name).get().getStatus().getPhase()).isEqualTo(TenantPhase.Archiving);
    Kubelet.terminate(client, Kubelet.awaitRunningPod(client, namespace(name), again.getMetadata().getName()),
        List.of(new Kubelet.Ended(BackupJob.DUMP, 0, "", ""), new Kubelet.Ended(BackupJob.AGENT, 0, "", ""))); // frees its slot
  }

  @Test
  void aStoreDownWhileArchivingKeepsTheVolumeSyncAfterSyncUntilItReturns() throws Exception {
    String name = uniqueName("stalled");
    create(name);
    String claimUid = claimUid(name);
    String id = archiveBackedUp(name).backup();
    Job drill = awaitJob(name, BackupJob.drillName(id));
    Pod pod = Kubelet.awaitRunningPod(client, namespace(name), drill.getMetadata().getName());
    assertThat(Kubelet.execute(client, pod, Map.of("PGPORT", Integer.toString(freePort())))).allMatch(e -> e.exitCode() == 0);
    Path moved = storeRoot.resolveSibling(storeRoot.getFileName() + "-away");
    Files.move(storeRoot, moved); // the drill passed, its report is in the store: the store goes before the operator looks
    try {
      Kubelet.terminate(client, pod, List.of(new Kubelet.Ended(BackupJob.RESTORE, 0, "", ""),
          new Kubelet.Ended(BackupJob.AGENT, 0, "", "")));
      awaitBackedUp(name, "Unknown", "StoreUnavailable");
      for (int sync = 0; sync < 3; sync++) {
        harness.parts.queue().add(name);
        Thread.sleep(500);
        harness.awaitIdle();
        assertThat(claimUid(name)).as("the volume after sync %d with the store down", sync + 1).isEqualTo(claimUid);
      }
      assertThat(Conditions.find(client.resources(Tenant.class).withName(name).get().getStatus().getConditions(),
          Conditions.DATA_ARCHIVED).orElseThrow().getStatus()).isEqualTo("False");
    } finally {
      Files.move(moved, storeRoot);
    }
    awaitCondition(name, Conditions.DATA_ARCHIVED, "True");
    assertThat(claimUid(name)).as("released once the archive is read back").isNull();
  }

  @Test
  void aCorruptArchiveAtReactivationStartsNoAppLeavesTheTenantDegradedAndIsKept() throws Exception {
    String name = uniqueName("corrupt");
    Tenant tenant = create(name);
    String id = archiveBackedUp(name).backup();
    drill(name, id, true);
    awaitCondition(name, Conditions.DATA_ARCHIVED, "True");
    ArchiveStatus archive = client.resources(Tenant.class).withName(name).get().getStatus().getArchive();
    Path object = storeRoot.resolve(new BackupLocation("local", name, tenant.getMetadata().getUid(), "main")
        .objectPath(BackupId.parse(id)));
    byte[] bytes = Files.readAllBytes(object);
    bytes[bytes.length / 2] ^= 1;
    Files.write(object, bytes);
    byte[] manifest = Files.readAllBytes(storeRoot.resolve(archive.getManifest()));

    Job restore = reactivate(name, id);
    try (RealPostgres fresh = startDatabase(name)) {
      Kubelet.run(client, Kubelet.awaitRunningPod(client, namespace(name), restore.getMetadata().getName()), loopback(fresh));
    }
    awaitCondition(name, Conditions.RESTORED, "False", "RestoreFailed");
    Tenant failed = OperatorHarness.awaitPhase(client, name, TenantPhase.Degraded, Duration.ofSeconds(30));
    assertThat(Conditions.find(failed.getStatus().getConditions(), Conditions.READY).orElseThrow().getReason())
        .isEqualTo("RestoreFailed");
    harness.awaitIdle();
    assertThat(client.apps().deployments().inNamespace(namespace(name)).withName("app-web").get()).as("no app").isNull();
    failed = client.resources(Tenant.class).withName(name).get();
    assertThat(failed.getStatus().getArchive().getRestored()).isNull();
    assertThat(failed.getStatus().getArchive().getManifest()).isEqualTo(archive.getManifest());
    assertThat(Files.readAllBytes(storeRoot.resolve(archive.getManifest()))).as("the archive, untouched").isEqualTo(manifest);
    assertThat(Files.readAllBytes(object)).isEqualTo(bytes);

    // Archived again: the last good archive stays in force (no new one), the fresh volume goes again.
    OperatorHarness.setState(client, name, TenantState.Archived);
    OperatorHarness.awaitPhase(client, name, TenantPhase.Archived, Duration.ofMinutes(1));
    await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(500)).until(() -> claimUid(name) == null);
    assertThat(client.resources(Tenant.class).withName(name).get().getStatus().getArchive().getManifest())
        .isEqualTo(archive.getManifest());
    assertThat(store.list(BackupLocation.tenantPrefix("local", name, tenant.getMetadata().getUid()) + "_archives/"))
        .singleElement().satisfies(m -> assertThat(m.path()).isEqualTo(archive.getManifest()));
  }

  @Test
  @Order(Integer.MAX_VALUE - 1) // late, as the other restart: tenants created after it are slower to be Ready
  void anOperatorStoppedBetweenTheManifestAndTheVolumesDeletesTheClaimOnceAndWritesNoOtherManifest() throws Exception {
    String name = uniqueName("halted");
    Tenant tenant = create(name);
    String claimUid = claimUid(name);
    String id = archiveBackedUp(name).backup();
    // The test's finalizer holds the StatefulSet the operator deletes once the manifest is read back:
    // its claim waits for it to be gone, so the operator stops with the manifest written and the claim there.
    client.apps().statefulSets().inNamespace(namespace(name)).withName("db-main").edit(set -> {
      set.getMetadata().getFinalizers().add(HOLD);
      return set;
    });
    drill(name, id, true);
    await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(100)).until(() -> {
      ArchiveStatus archive = client.resources(Tenant.class).withName(name).get().getStatus().getArchive();
      var set = client.apps().statefulSets().inNamespace(namespace(name)).withName("db-main").get();
      return archive.getManifest() != null && set.getMetadata().getDeletionTimestamp() != null;
    });
    harness.operator.close();
    ArchiveStatus written = client.resources(Tenant.class).withName(name).get().getStatus().getArchive();
    assertThat(claimUid(name)).as("the claim, while the operator is down").isEqualTo(claimUid);
    assertThat(written.getReleased()).isNull();
    client.apps().statefulSets().inNamespace(namespace(name)).withName("db-main").edit(set -> {
      set.getMetadata().getFinalizers().remove(HOLD);
      return set;
    });
    await().atMost(Duration.ofSeconds(30)).until(
        () -> client.apps().statefulSets().inNamespace(namespace(name)).withName("db-main").get() == null);
    harness.restart();

    awaitCondition(name, Conditions.DATA_ARCHIVED, "True");
    await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(500)).until(() -> claimUid(name) == null);
    ArchiveStatus done = client.resources(Tenant.class).withName(name).get().getStatus().getArchive();
    assertThat(done.getManifest()).isEqualTo(written.getManifest());
    assertThat(done.getSteps()).extracting(ArchiveStep::getName).containsExactly("AppsStopped", "BackedUp", "Drilled",
        "ManifestWritten", "VolumesReleased");
    assertThat(done.getSteps().get(3).getAt()).as("the manifest step, not taken again").isEqualTo(written.getSteps().get(3).getAt());
    assertThat(store.list(BackupLocation.tenantPrefix("local", name, tenant.getMetadata().getUid()) + "_archives/"))
        .as("exactly one archive manifest").singleElement().satisfies(m -> assertThat(m.path()).isEqualTo(written.getManifest()));
    assertThat(harness.requests.all()).as("DELETEs of the claim")
        .filteredOn(r -> r.startsWith("DELETE ") && r.contains("/namespaces/" + namespace(name) + "/persistentvolumeclaims/data-db-main-0"))
        .hasSize(1);
  }

  @Test
  void anArchiveReleasesAnEphemeralDatabaseUnexportedAndKeepsTheVolumeOfAnEngineNotExportedSayingSo() {
    String name = uniqueName("mixed");
    Tenant tenant = OperatorHarness.tenant(name, 1, false);
    tenant.getSpec().getDatabases().add(new DatabaseSpec("ledger", DatabaseEngine.MYSQL, "8.4", "1Gi"));
    DatabaseSpec scratch = new DatabaseSpec("scratch", DatabaseEngine.POSTGRES, "16.4", "1Gi");
    scratch.setEphemeral(true);
    tenant.getSpec().getDatabases().add(scratch);
    client.resources(Tenant.class).resource(tenant).create();
    OperatorHarness.awaitPhase(client, name, TenantPhase.Ready, Duration.ofMinutes(2));
    String ledger = claimUid(name, "ledger");
    String scratchClaim = claimUid(name, "scratch");
    assertThat(ledger).isNotNull();
    assertThat(scratchClaim).isNotNull();

    OperatorHarness.setState(client, name, TenantState.Archived);
    Tenant archived = awaitCondition(name, Conditions.DATA_ARCHIVED, "False", "EngineNotSupported");
    assertThat(Conditions.find(archived.getStatus().getConditions(), Conditions.DATA_ARCHIVED).orElseThrow().getMessage())
        .contains("volumes kept for ledger");
    OperatorHarness.awaitPhase(client, name, TenantPhase.Archived, Duration.ofMinutes(1));
    await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(500)).until(() -> claimUid(name, "scratch") == null);
    assertThat(claimUid(name, "ledger")).as("the MySQL volume, kept").isEqualTo(ledger);
    assertThat(client.apps().statefulSets().inNamespace(namespace(name)).list().getItems()).isEmpty();
    assertThat(jobs(name)).as("nothing exported: no backup").isEmpty();
    ArchiveStatus archive = client.resources(Tenant.class).withName(name).get().getStatus().getArchive();
    assertThat(archive.getKept()).containsExactly("ledger");
    assertThat(archive.getDatabases()).isEmpty();

    OperatorHarness.setState(client, name, TenantState.Active);
    OperatorHarness.awaitPhase(client, name, TenantPhase.Ready, Duration.ofMinutes(2));
    assertThat(claimUid(name, "ledger")).as("MySQL back on its volume").isEqualTo(ledger);
    assertThat(claimUid(name, "scratch")).as("a fresh volume").isNotNull().isNotEqualTo(scratchClaim);
  }

  /** An archive's backup, and the tables of the database it was taken from (see {@link #tables}). */
  private record ArchiveTaken(String backup, Map<String, String> tables) {
  }

  /**
   * A Ready tenant's database filled (10,000 rows: 1000 orders, 4000 customers, 5000 events) and
   * backed up once, then Archived: the archive's backup, taken once the apps' pods are gone, run
   * against that server.
   */
  private static ArchiveTaken archiveBackedUp(String name) throws Exception {
    shortenGrace(name);
    try (RealPostgres postgres = startDatabase(name)) {
      fill(postgres, name);
      execute(postgres, name, "tenant", "CREATE TABLE customers (id int PRIMARY KEY, email text, joined timestamptz);"
          + " INSERT INTO customers SELECT i, 'c' || i || '@example.com', timestamptz '2026-01-01' + i * interval '1 minute'"
          + " FROM generate_series(1, 4000) i;"
          + " CREATE TABLE events (id bigint PRIMARY KEY, customer int, payload jsonb, blob bytea);"
          + " INSERT INTO events SELECT i, i % 4000, jsonb_build_object('n', i, 'kind', 'k' || i % 7), sha256(int8send(i))"
          + " FROM generate_series(1, 5000) i");
      backUp(name, postgres);
      client.resources(Tenant.class).withName(name).edit(t -> {
        t.getSpec().setState(TenantState.Archived);
        return t;
      });
      Job backup = awaitBackupJob(name, "archive");
      OperatorHarness.awaitPhase(client, name, TenantPhase.Archiving, Duration.ofSeconds(30));
      assertThat(client.pods().inNamespace(namespace(name)).withLabel(Labels.COMPONENT, Labels.COMPONENT_APP).list().getItems())
          .as("the apps' pods are gone before the archive's backup").isEmpty();
      List<Kubelet.Ended> ended = Kubelet.run(client, Kubelet.awaitRunningPod(client, namespace(name),
          backup.getMetadata().getName()), loopback(postgres));
      assertThat(ended).as("%s", ended).allMatch(e -> e.exitCode() == 0);
      return new ArchiveTaken(backup.getMetadata().getAnnotations().get(BackupJob.BACKUP_ID), tables(postgres, name));
    }
  }

  /** Each table of the tenant's database: "rows:md5 of its rows as text, in order". */
  private static Map<String, String> tables(RealPostgres postgres, String name) throws Exception {
    Map<String, String> tables = new java.util.TreeMap<>();
    try (Connection db = connect(postgres, name, "tenant"); Statement statement = db.createStatement()) {
      List<String> names = new java.util.ArrayList<>();
      try (java.sql.ResultSet rows = statement.executeQuery(
          "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename")) {
        while (rows.next()) {
          names.add(rows.getString(1));
        }
      }
      for (String table : names) {
        try (java.sql.ResultSet rows = statement.executeQuery("SELECT count(*) || ':' || md5(coalesce(string_agg(t::text, E'\\n'"
            + " ORDER BY t::text), '')) FROM public." + table + " t")) {
          rows.next();
          tables.put(table, rows.getString(1));
        }
      }
    }
    return tables;
  }

  /** The tenant's backup Job of {@code kind} (pre-upgrade, archive), once there is one. */
  private static Job awaitBackupJob(String name, String kind) {
    return await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(200)).until(() -> jobs(name).stream()
        .filter(j -> kind.equals(j.getMetadata().getAnnotations().get(BackupJob.KIND))).findFirst().orElse(null),
        j -> j != null);
  }

  /** Runs the drill of backup {@code id} (its own server in its pod), or ends its pod without running anything. */
  private static void drill(String name, String id, boolean run) throws Exception {
    Job drill = awaitJob(name, BackupJob.drillName(id));
    Pod pod = Kubelet.awaitRunningPod(client, namespace(name), drill.getMetadata().getName());
    if (run) {
      assertThat(Kubelet.run(client, pod, Map.of("PGPORT", Integer.toString(freePort())))).allMatch(e -> e.exitCode() == 0);
    } else {
      Kubelet.terminate(client, pod, List.of(new Kubelet.Ended(BackupJob.RESTORE, 0, "", ""),
          new Kubelet.Ended(BackupJob.AGENT, 0, "", "")));
    }
  }

  /** Sets the tenant Active again: the restore Job of its archive backup {@code id}, once it exists; no app runs yet. */
  private static Job reactivate(String name, String id) {
    client.resources(Tenant.class).withName(name).edit(t -> {
      t.getSpec().setState(TenantState.Active);
      return t;
    });
    Job restore = await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(200)).until(
        () -> jobs(name).stream().filter(j -> j.getMetadata().getName().startsWith("restore-main-")).findFirst().orElse(null),
        j -> j != null);
    assertThat(restore.getMetadata().getAnnotations()).containsEntry(BackupJob.RESTORE_BACKUP, id);
    assertThat(client.apps().deployments().inNamespace(namespace(name)).withName("app-web").get())
        .as("no app Deployment before the restore").isNull();
    return restore;
  }

  /** The UID of the database's volume claim, or null. */
  private static String claimUid(String name) {
    return claimUid(name, "main");
  }

  /** The UID of database {@code database}'s first volume claim, or null. */
  private static String claimUid(String name, String database) {
    var claim = client.persistentVolumeClaims().inNamespace(namespace(name)).withName("data-db-" + database + "-0").get();
    return claim == null ? null : claim.getMetadata().getUid();
  }

  @Test
  void restoreFromIsRefusedOnAnActiveTenantsExistingDatabase() {
    String name = uniqueName("live");
    Tenant tenant = OperatorHarness.tenant(name, 1, true);
    tenant.getSpec().getDatabases().get(0).setEphemeral(true); // no backup Job to hold a slot: the rule is all this shows
    client.resources(Tenant.class).resource(tenant).create();
    OperatorHarness.awaitPhase(client, name, TenantPhase.Ready, Duration.ofMinutes(2));

    assertThatThrownBy(() -> client.resources(Tenant.class).withName(name).edit(t -> {
      t.getSpec().getDatabases().get(0).setRestoreFrom("latest");
      return t;
    })).isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("spec.databases[].restoreFrom can be set or changed only while the tenant is Frozen");
  }

  @Test
  void anotherTenantsBackupIsRefusedUnlessAllowedAndAManifestMovedUnderThisTenantDoesNotOpen() throws Exception {
    String source = uniqueName("source");
    Tenant sourceTenant = create(source);
    String id;
    try (RealPostgres postgres = startDatabase(source)) {
      fill(postgres, source);
      id = backUp(source, postgres);
    }
    String clone = uniqueName("clone");
    Tenant tenant = OperatorHarness.tenant(clone, 1, true);
    tenant.getSpec().getDatabases().get(0).setRestoreFrom(source + "/latest");
    client.resources(Tenant.class).resource(tenant).create();

    Tenant refused = awaitCondition(clone, Conditions.RESTORED, "False");
    assertThat(Conditions.find(refused.getStatus().getConditions(), Conditions.RESTORED).orElseThrow().getReason())
        .isEqualTo("CrossTenantRestoreRefused");
    assertThat(Conditions.find(refused.getStatus().getConditions(), Conditions.READY).orElseThrow().getReason())
        .as("no retry mends it").isEqualTo("CrossTenantRestoreRefused");
    assertThat(refused.getStatus().getPhase()).isEqualTo(TenantPhase.Degraded);
    assertThat(client.apps().deployments().inNamespace(namespace(clone)).withName("app-web").get())
        .as("the apps wait: none is made before its data is restored").isNull();
    assertThat(warnings(clone)).contains("CrossTenantRestoreRefused");

    // The source's backup copied under the clone's own prefix: its path is its manifest's associated data.
    BackupLocation from = new BackupLocation("local", source, sourceTenant.getMetadata().getUid(), "main");
    BackupLocation to = new BackupLocation("local", clone,
        client.resources(Tenant.class).withName(clone).get().getMetadata().getUid(), "main");
    BackupId backup = BackupId.parse(id);
    for (String[] paths : new String[][] {{from.objectPath(backup), to.objectPath(backup)},
        {from.manifestPath(backup), to.manifestPath(backup)}}) {
      Files.createDirectories(storeRoot.resolve(paths[1]).getParent());
      Files.copy(storeRoot.resolve(paths[0]), storeRoot.resolve(paths[1]));
    }
    client.resources(Tenant.class).withName(clone).edit(t -> {
      t.getSpec().setState(TenantState.Frozen);
      t.getSpec().getDatabases().get(0).setRestoreFrom(id);
      return t;
    });
    await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(200)).until(() -> {
      Condition restored = Conditions.find(client.resources(Tenant.class).withName(clone).get().getStatus().getConditions(),
          Conditions.RESTORED).orElseThrow();
      return restored.getReason().equals("RestoreFailed") && restored.getMessage().contains("does not open");
    });
    assertThat(jobs(clone)).isEmpty();
  }

  /** Runs the tenant's next backup Job against {@code postgres}; the id once proven. */
  private static String backUp(String name, RealPostgres postgres) throws Exception {
    Job job = awaitBackupJob(name);
    String id = job.getMetadata().getAnnotations().get(BackupJob.BACKUP_ID);
    Pod pod = Kubelet.awaitRunningPod(client, namespace(name), job.getMetadata().getName());
    List<Kubelet.Ended> ended = Kubelet.run(client, pod, loopback(postgres));
    assertThat(ended).as("%s", ended).allMatch(e -> e.exitCode() == 0);
    await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(200)).until(() -> {
      Tenant t = client.resources(Tenant.class).withName(name).get();
      BackupRecord last = t.getStatus().getDatabases().get(0).getBackup() == null ? null
          : t.getStatus().getDatabases().get(0).getBackup().getLast();
      return last != null && id.equals(last.getId()) && jobs(name).stream().noneMatch(j -> j.getMetadata().getName()
          .equals(job.getMetadata().getName()));
    });
    return id;
  }

  private static Tenant create(String name) {
    return create(name, "standard");
  }

  private static Tenant create(String name, String plan) {
    return create(name, plan, null);
  }

  /** A Ready tenant on {@code plan} whose database is at {@code version} (the harness's when null). */
  private static Tenant create(String name, String plan, String version) {
    Tenant tenant = OperatorHarness.tenant(name, 1, true);
    tenant.getSpec().setPlan(plan);
    if (version != null) {
      tenant.getSpec().getDatabases().get(0).setVersion(version);
    }
    client.resources(Tenant.class).resource(tenant).create();
    OperatorHarness.awaitPhase(client, name, TenantPhase.Ready, Duration.ofMinutes(2));
    return client.resources(Tenant.class).withName(name).get();
  }

  /**
   * A Ready tenant at 15.8 whose database (a real PostgreSQL 15) holds 1000 orders and a first
   * backup, then {@code more} orders more, asked to upgrade to 16.4: the upgrade's backup Job, run
   * against that server while the database still runs 15.8 on its first claim.
   */
  private static Job upgradeBackedUp(String name, int more) throws Exception {
    create(name, "standard", "15.8");
    shortenGrace(name);
    try (RealPostgres old = startDatabase(name)) {
      fill(old, name);
      backUp(name, old); // the first backup, due at once
      if (more > 0) {
        execute(old, name, "tenant", "INSERT INTO orders SELECT i, 'late ' || i FROM generate_series(1001, " + (1000 + more) + ") i");
      }
      upgradeTo(name, "16.4");
      Job backup = awaitUpgradeBackup(name);
      assertStatefulSet(name, "postgres:15.8", "data");
      List<Kubelet.Ended> ended = Kubelet.run(client, Kubelet.awaitRunningPod(client, namespace(name),
          backup.getMetadata().getName()), loopback(old));
      assertThat(ended).as("%s", ended).allMatch(e -> e.exitCode() == 0);
      return backup;
    }
  }

  /**
   * Gives the app's pods a termination grace period of {@value #GRACE} s (a field the operator does
   * not set), which an upgrade's backup waits out once the app has no pods, instead of the default 30.
   */
  private static void shortenGrace(String name) {
    client.apps().deployments().inNamespace(namespace(name)).withName("app-web").edit(d -> {
      d.getSpec().getTemplate().getSpec().setTerminationGracePeriodSeconds((long) GRACE);
      return d;
    });
  }

  private static void upgradeTo(String name, String version) {
    client.resources(Tenant.class).withName(name).edit(t -> {
      t.getSpec().getDatabases().get(0).setVersion(version);
      t.getSpec().getDatabases().get(0).setMajorUpgrade(true);
      return t;
    });
  }

  /** The upgrade's backup Job, once it runs: it is of kind pre-upgrade and the status names it. */
  private static Job awaitUpgradeBackup(String name) {
    Job job = awaitBackupJob(name, "pre-upgrade");
    Tenant tenant = awaitCondition(name, Conditions.MAJOR_UPGRADED, "False", "Upgrading");
    await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(200)).until(() -> {
      UpgradeRecord upgrade = client.resources(Tenant.class).withName(name).get().getStatus().getDatabases().get(0)
          .getBackup().getUpgrade();
      return upgrade != null && job.getMetadata().getAnnotations().get(BackupJob.BACKUP_ID).equals(upgrade.getBackup());
    });
    assertThat(tenant.getStatus().getPhase()).isNotEqualTo(TenantPhase.Ready);
    return job;
  }

  private static void assertStatefulSet(String name, String image, String claim) {
    var set = client.apps().statefulSets().inNamespace(namespace(name)).withName("db-main").get();
    assertThat(set.getSpec().getTemplate().getSpec().getContainers().get(0).getImage()).endsWith(image);
    assertThat(set.getSpec().getVolumeClaimTemplates()).extracting(t -> t.getMetadata().getName()).containsExactly(claim);
  }

  private static String serverVersion(RealPostgres postgres, String name) throws Exception {
    try (Connection db = connect(postgres, name, "tenant"); Statement statement = db.createStatement();
        java.sql.ResultSet rows = statement.executeQuery("SHOW server_version")) {
      rows.next();
      return rows.getString(1);
    }
  }

  /** The reasons of the tenant's Events. */
  private static List<String> events(String name) {
    return client.v1().events().inNamespace("default").list().getItems().stream()
        .filter(e -> name.equals(e.getInvolvedObject().getName())).map(Event::getReason).toList();
  }

  private static String username(String name) {
    return decode(client.secrets().inNamespace(namespace(name)).withName("db-main-credentials").get(), "username");
  }

  private static String password(String name) {
    return decode(client.secrets().inNamespace(namespace(name)).withName("db-main-credentials").get(), "password");
  }

  private static Job awaitBackupJob(String name) {
    await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(200))
        .until(() -> !jobs(name).isEmpty());
    assertThat(jobs(name)).hasSize(1);
    return jobs(name).get(0);
  }

  private static Job awaitJob(String name, String job) {
    await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(200))
        .until(() -> jobs(name).stream().anyMatch(j -> j.getMetadata().getName().equals(job)));
    return jobs(name).stream().filter(j -> j.getMetadata().getName().equals(job)).findFirst().orElseThrow();
  }

  private static List<Job> jobs(String name) {
    return client.batch().v1().jobs().inNamespace(namespace(name)).withLabel(Labels.COMPONENT, Labels.COMPONENT_BACKUP)
        .list().getItems();
  }

  private static List<Object> backupObjects(String name) {
    List<Object> objects = new java.util.ArrayList<>(jobs(name));
    objects.addAll(client.secrets().inNamespace(namespace(name)).withLabel(Labels.COMPONENT, Labels.COMPONENT_BACKUP)
        .list().getItems());
    return objects;
  }

  /** A real PostgreSQL with the credentials the operator gave the tenant's database. */
  private static RealPostgres startDatabase(String name) {
    Secret credentials = client.secrets().inNamespace(namespace(name)).withName("db-main-credentials").get();
    return RealPostgres.start(decode(credentials, "username"), decode(credentials, "password"), "tenant");
  }

  private static void fill(RealPostgres postgres, String name) throws Exception {
    Secret credentials = client.secrets().inNamespace(namespace(name)).withName("db-main-credentials").get();
    try (Connection db = DriverManager.getConnection("jdbc:postgresql://" + postgres.host() + ":" + postgres.port() + "/tenant",
        decode(credentials, "username"), decode(credentials, "password")); Statement statement = db.createStatement()) {
      statement.execute("CREATE TABLE orders (id int PRIMARY KEY, customer text)");
      statement.execute("INSERT INTO orders SELECT i, 'customer ' || i FROM generate_series(1, 1000) i");
    }
  }

  private static long orders(RealPostgres postgres, String name) throws Exception {
    return count(postgres, name, "tenant");
  }

  private static long count(RealPostgres postgres, String name, String database) throws Exception {
    try (Connection db = connect(postgres, name, database); Statement statement = db.createStatement();
        java.sql.ResultSet rows = statement.executeQuery("SELECT count(*) FROM orders")) {
      rows.next();
      return rows.getLong(1);
    }
  }

  private static void execute(RealPostgres postgres, String name, String database, String sql) throws Exception {
    try (Connection db = connect(postgres, name, database); Statement statement = db.createStatement()) {
      statement.execute(sql);
    }
  }

  private static Connection connect(RealPostgres postgres, String name, String database) throws Exception {
    Secret credentials = client.secrets().inNamespace(namespace(name)).withName("db-main-credentials").get();
    return DriverManager.getConnection("jdbc:postgresql://" + postgres.host() + ":" + postgres.port() + "/" + database,
        decode(credentials, "username"), decode(credentials, "password"));
  }

  private static int freePort() throws java.io.IOException {
    try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  private static Map<String, String> loopback(RealPostgres postgres) {
    return Map.of("PGHOST", postgres.host(), "PGPORT", Integer.toString(postgres.port()));
  }

  private static Tenant awaitBackedUp(String name, String status) {
    return awaitBackedUp(name, status, null);
  }

  /** The tenant once its BackedUp condition has {@code status} (and {@code reason}, unless null). */
  private static Tenant awaitBackedUp(String name, String status, String reason) {
    return awaitCondition(name, Conditions.BACKED_UP, status, reason);
  }

  /** The tenant once its RestoreVerified condition has {@code status}. */
  private static Tenant awaitRestoreVerified(String name, String status) {
    return awaitCondition(name, Conditions.RESTORE_VERIFIED, status);
  }

  /** The tenant once its condition {@code type} has {@code status}. */
  private static Tenant awaitCondition(String name, String type, String status) {
    return awaitCondition(name, type, status, null);
  }

  /** The tenant once its condition {@code type} has {@code status} and {@code reason} (any, when null). */
  private static Tenant awaitCondition(String name, String type, String status, String reason) {
    await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(200)).until(() -> {
      Tenant t = client.resources(Tenant.class).withName(name).get();
      return t.getStatus() != null && Conditions.find(t.getStatus().getConditions(), type)
          .filter(c -> status.equals(c.getStatus()) && (reason == null || reason.equals(c.getReason()))).isPresent();
    });
    return client.resources(Tenant.class).withName(name).get();
  }

  private static Condition restoreVerified(Tenant tenant) {
    return Conditions.find(tenant.getStatus().getConditions(), Conditions.RESTORE_VERIFIED).orElseThrow();
  }

  private static Condition condition(Tenant tenant) {
    return Conditions.find(tenant.getStatus().getConditions(), Conditions.BACKED_UP).orElseThrow();
  }

  private static List<String> warnings(String name) {
    return client.v1().events().inNamespace("default").list().getItems().stream()
        .filter(e -> name.equals(e.getInvolvedObject().getName()) && "Warning".equals(e.getType()))
        .map(Event::getReason).toList();
  }

  private static String namespace(String name) {
    return "tenant-" + name;
  }

  private static String decode(Secret secret, String key) {
    return new String(Base64.getDecoder().decode(secret.getData().get(key)), StandardCharsets.UTF_8);
  }
}
