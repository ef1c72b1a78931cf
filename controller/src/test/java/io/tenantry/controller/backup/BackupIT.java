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
import io.tenantry.api.v1alpha1.BackupRecord;
import io.tenantry.api.v1alpha1.RestoreRecord;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.api.v1alpha1.TenantState;
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
        .with("{templateNamespace: tenantry-templates-backup, backups: {maxConcurrent: 2},"
            + " plans: {standard: {backup: {keepDaily: 1, keepWeekly: 0, drillEvery: 0}},"
            + " drilled: {backup: {keepDaily: 1, keepWeekly: 0, drillEvery: 1}},"
            + " cramped: {quota: {requests.ephemeral-storage: 100Mi}, defaultRequest: {ephemeral-storage: 1Mi},"
            + " backup: {drillEvery: 1}}}}"), store);
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
        .isEqualTo("Restoring");
    assertThat(client.apps().deployments().inNamespace(namespace(clone)).withName("app-web").get().getSpec().getReplicas())
        .as("the apps wait").isZero();
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
    Tenant tenant = OperatorHarness.tenant(name, 1, true);
    tenant.getSpec().setPlan(plan);
    client.resources(Tenant.class).resource(tenant).create();
    OperatorHarness.awaitPhase(client, name, TenantPhase.Ready, Duration.ofMinutes(2));
    return client.resources(Tenant.class).withName(name).get();
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
    await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(200)).until(() -> {
      Tenant t = client.resources(Tenant.class).withName(name).get();
      return t.getStatus() != null && Conditions.find(t.getStatus().getConditions(), Conditions.BACKED_UP)
          .filter(c -> status.equals(c.getStatus()) && (reason == null || reason.equals(c.getReason()))).isPresent();
    });
    return client.resources(Tenant.class).withName(name).get();
  }

  /** The tenant once its RestoreVerified condition has {@code status}. */
  private static Tenant awaitRestoreVerified(String name, String status) {
    return awaitCondition(name, Conditions.RESTORE_VERIFIED, status);
  }

  /** The tenant once its condition {@code type} has {@code status}. */
  private static Tenant awaitCondition(String name, String type, String status) {
    await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(200)).until(() -> {
      Tenant t = client.resources(Tenant.class).withName(name).get();
      return t.getStatus() != null && Conditions.find(t.getStatus().getConditions(), type)
          .filter(c -> status.equals(c.getStatus())).isPresent();
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
