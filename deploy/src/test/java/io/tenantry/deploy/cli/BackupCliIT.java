package io.tenantry.deploy.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.crypto.tink.Aead;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.tenantry.api.v1alpha1.BackupRecord;
import io.tenantry.api.v1alpha1.BackupStatus;
import io.tenantry.api.v1alpha1.DatabaseEngine;
import io.tenantry.api.v1alpha1.DatabaseSpec;
import io.tenantry.api.v1alpha1.DatabaseStatus;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.api.v1alpha1.TenantStatus;
import io.tenantry.backup.BackupFormat;
import io.tenantry.backup.BackupHeader;
import io.tenantry.backup.BackupId;
import io.tenantry.backup.BackupLocation;
import io.tenantry.backup.DataKey;
import io.tenantry.backup.Manifest;
import io.tenantry.backup.store.BackupStore;
import io.tenantry.backup.store.LocalBackupStore;
import io.tenantry.controller.backup.TenantBackups;
import io.tenantry.controller.operator.OperatorHarness;
import io.tenantry.secretstore.LocalKeyset;
import io.tenantry.spares.DatastoreEmulator;
import io.tenantry.testsupport.TestCluster;
import io.tenantry.testsupport.WithCluster;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code tenantctl backup} and {@code backups list} against a real API server, registered in the
 * Datastore emulator as "local" (the default configuration's fleet.clusterName). No operator runs:
 * the tests write the Tenant's status as the operator would, and the store's objects as its backup
 * Jobs and commits would.
 */
@WithCluster
class BackupCliIT {

  private static final BackupHeader HEADER = new BackupHeader("postgresql", "16.4",
      Map.of("public.items", 10_000L, "public.orders", 250L), 8_000_000);

  private static DatastoreEmulator emulator;
  private static KubernetesClient client;
  private static Map<String, String> env;
  private static Path dir;

  @BeforeAll
  static void start(TestCluster cluster, KubernetesClient kubernetesClient) throws Exception {
    client = kubernetesClient;
    emulator = DatastoreEmulator.start();
    OperatorHarness.installCrds(cluster);
    dir = Files.createTempDirectory("backup-cli-it-");
    Path kubeconfig = Files.writeString(dir.resolve("kubeconfig.yaml"), cluster.kubeconfigYaml());
    env = Map.of("DATASTORE_EMULATOR_HOST", "localhost:" + emulator.port(),
        "TENANTRY_DATASTORE_PROJECT", DatastoreEmulator.PROJECT_ID,
        "TENANTRY_DATASTORE_NAMESPACE", "backup-cli-it",
        "KUBECONFIG", kubeconfig.toString());
    CliRun register = tenantctl("clusters", "register", "local", "--context",
        client.getConfiguration().getCurrentContext().getName());
    assertThat(register.status()).as(register.err()).isZero();
  }

  @AfterAll
  static void stop() {
    emulator.close();
  }

  private static CliRun tenantctl(String... args) throws InterruptedException {
    return CliRun.run(env, args);
  }

  // --- backup ----------------------------------------------------------------------------------

  @Test
  void backupSetsTheAnnotationToNowAndOwnsNothingElse() throws Exception {
    String name = OperatorHarness.uniqueName("bk-request");
    Tenant tenant = tenant(name, TenantState.Active, database("main"), cache());
    tenant.getMetadata().setAnnotations(Map.of("example.com/owner", "ops"));
    client.resources(Tenant.class).resource(tenant).create();

    Instant before = Instant.now();
    CliRun run = tenantctl("backup", name);
    Instant after = Instant.now();

    assertThat(run.status()).as(run.err()).isZero();
    Tenant read = client.resources(Tenant.class).withName(name).get();
    String requested = read.getMetadata().getAnnotations().get(TenantBackups.REQUESTED);
    assertThat(Instant.parse(requested)).isBetween(before, after);
    assertThat(run.out()).isEqualTo("backup of tenant " + name + " (cluster local) requested at " + requested + ": main\n");
    // A merge patch of the one annotation: the others stay, and tenantctl's managed fields are that key alone.
    assertThat(read.getMetadata().getAnnotations()).containsEntry("example.com/owner", "ops");
    ManagedFieldsEntry owned = read.getMetadata().getManagedFields().stream()
        .filter(m -> "tenantctl".equals(m.getManager())).findFirst().orElseThrow();
    assertThat(owned.getFieldsV1().getAdditionalProperties()).isEqualTo(
        Map.of("f:metadata", Map.of("f:annotations", Map.of("f:" + TenantBackups.REQUESTED, Map.of()))));

    // Asked again later: a later time, so the operator answers it with another backup.
    CliRun again = tenantctl("backup", name, "--cluster", "local");
    assertThat(again.status()).as(again.err()).isZero();
    String second = client.resources(Tenant.class).withName(name).get().getMetadata().getAnnotations()
        .get(TenantBackups.REQUESTED);
    assertThat(Instant.parse(second)).isAfter(Instant.parse(requested));
  }

  @Test
  void waitPrintsEachOutcomeAndExitsSixWhenOneFailed() throws Exception {
    String name = OperatorHarness.uniqueName("bk-fail");
    client.resources(Tenant.class).resource(tenant(name, TenantState.Active, database("main"), database("events"))).create();

    CompletableFuture<CliRun> run = runAsync("backup", name, "--wait", "1m");
    Instant requested = awaitRequest(name);
    writeStatus(name, Map.of(
        "main", new BackupRecord("main-20261126-101500-a1b2c3", requested.toString(), requested.plusSeconds(20).toString(),
            5120L, null, null),
        "events", new BackupRecord("events-20261126-101500-d4e5f6", requested.plusMillis(5).toString(),
            requested.plusSeconds(9).toString(), null, "DumpFailed", "pg_dump: error: connection refused")));

    CliRun done = run.get(1, TimeUnit.MINUTES);
    assertThat(done.status()).as(done.out() + done.err()).isEqualTo(6);
    assertThat(done.out()).startsWith("backup of tenant " + name + " (cluster local) requested at " + requested
        + ": main, events\n");
    assertThat(rows(afterFirstLine(done.out()))).containsExactly(
        List.of("DATABASE", "BACKUP", "BYTES", "RESULT"),
        List.of("main", "main-20261126-101500-a1b2c3", "5120", "succeeded"),
        List.of("events", "events-20261126-101500-d4e5f6", "<none>", "failed: DumpFailed: pg_dump: error: connection refused"));
  }

  @Test
  void waitIgnoresAttemptsBeforeTheRequestAndRunningOnesThenExitsZero() throws Exception {
    String name = OperatorHarness.uniqueName("bk-ok");
    client.resources(Tenant.class).resource(tenant(name, TenantState.Active, database("main"))).create();
    // The scheduled backup of last night, finished: it does not answer a request made now.
    writeStatus(name, Map.of("main", new BackupRecord("main-20261125-020000-000001", "2026-11-25T02:00:00Z",
        "2026-11-25T02:01:00Z", 100L, null, null)));

    CompletableFuture<CliRun> run = runAsync("backup", name, "--wait", "1m");
    Instant requested = awaitRequest(name);
    Thread.sleep(2_000);
    assertThat(run).as("done on an attempt older than the request").isNotDone();
    // Started by the request, still running.
    writeStatus(name, Map.of("main", new BackupRecord("main-20261126-101500-a1b2c3", requested.plusMillis(1).toString(),
        null, null, null, null)));
    Thread.sleep(2_000);
    assertThat(run).as("done on an attempt not finished").isNotDone();
    writeStatus(name, Map.of("main", new BackupRecord("main-20261126-101500-a1b2c3", requested.plusMillis(1).toString(),
        requested.plusSeconds(30).toString(), 7340032L, null, null)));

    CliRun done = run.get(1, TimeUnit.MINUTES);
    assertThat(done.status()).as(done.out() + done.err()).isZero();
    assertThat(rows(afterFirstLine(done.out()))).containsExactly(
        List.of("DATABASE", "BACKUP", "BYTES", "RESULT"),
        List.of("main", "main-20261126-101500-a1b2c3", "7340032", "succeeded"));
  }

  @Test
  void waitRunningOutOfTimeSaysWhatIsMissingAndExitsOne() throws Exception {
    String name = OperatorHarness.uniqueName("bk-slow");
    client.resources(Tenant.class).resource(tenant(name, TenantState.Active, database("main"))).create();

    CliRun run = tenantctl("backup", name, "--wait", "2s");

    assertThat(run.status()).as(run.out() + run.err()).isEqualTo(1);
    assertThat(rows(afterFirstLine(run.out()))).containsExactly(List.of("DATABASE", "BACKUP", "BYTES", "RESULT"),
        List.of("main", "<none>", "<none>", "not started"));
    assertThat(run.err()).contains("tenantctl: backup: not finished within 2s: main (a backup starts once its database is"
        + " ready, with backups.enabled", "the request stands");
    assertThat(client.resources(Tenant.class).withName(name).get().getMetadata().getAnnotations())
        .containsKey(TenantBackups.REQUESTED);
  }

  @Test
  void waitEndsWhenTheTenantLeavesActiveBeforeItsBackupStarted() throws Exception {
    String name = OperatorHarness.uniqueName("bk-freeze");
    client.resources(Tenant.class).resource(tenant(name, TenantState.Active, database("main"))).create();

    CompletableFuture<CliRun> run = runAsync("backup", name, "--wait", "1m");
    awaitRequest(name);
    OperatorHarness.setState(client, name, TenantState.Frozen);

    CliRun done = run.get(30, TimeUnit.SECONDS);
    assertThat(done.status()).as(done.out() + done.err()).isEqualTo(1);
    assertThat(done.err()).contains("tenantctl: backup: tenant " + name + " is now Frozen; backups run for Active tenants"
        + " only, so main will not be backed up");
  }

  @Test
  void refusalsNameTheProblemAndRequestNothing() throws Exception {
    String frozen = OperatorHarness.uniqueName("bk-frozen");
    client.resources(Tenant.class).resource(tenant(frozen, TenantState.Frozen, database("main"))).create();
    String cacheOnly = OperatorHarness.uniqueName("bk-cache");
    client.resources(Tenant.class).resource(tenant(cacheOnly, TenantState.Active, cache())).create();
    String mysqlOnly = OperatorHarness.uniqueName("bk-mysql");
    DatabaseSpec mysql = new DatabaseSpec("shop", DatabaseEngine.MYSQL, "8.4", "1Gi");
    client.resources(Tenant.class).resource(tenant(mysqlOnly, TenantState.Active, mysql, cache())).create();

    assertRefused(tenantctl("backup", "nobody-here"), 2,
        "tenantctl: backup: no tenant named nobody-here on any registered cluster (local)");
    assertRefused(tenantctl("backup", frozen), 2,
        "tenantctl: backup: tenant " + frozen + " is Frozen; backups run for Active tenants only");
    assertRefused(tenantctl("backup", cacheOnly), 2,
        "tenantctl: backup: tenant " + cacheOnly + " has no database to back up (ephemeral: cache)");
    assertRefused(tenantctl("backup", mysqlOnly), 2, "tenantctl: backup: tenant " + mysqlOnly
        + " has no database to back up (ephemeral: cache; engine not backed up by this version: shop (mysql))");
    assertRefused(tenantctl("backup", frozen, "--cluster", "elsewhere"), 2,
        "tenantctl: --cluster: unknown cluster elsewhere; registered: local");
    assertRefused(tenantctl("backup", frozen, "--database", "main"), 2, "tenantctl: unknown option --database for backup");
    for (String name : List.of(frozen, cacheOnly, mysqlOnly)) {
      Map<String, String> annotations = client.resources(Tenant.class).withName(name).get().getMetadata().getAnnotations();
      assertThat(annotations == null ? Map.of() : annotations).as(name).doesNotContainKey(TenantBackups.REQUESTED);
    }
  }

  // --- backups list ----------------------------------------------------------------------------

  @Test
  void listShowsTheStoresBackupsFromTheirManifests() throws Exception {
    String name = OperatorHarness.uniqueName("bk-list");
    client.resources(Tenant.class).resource(tenant(name, TenantState.Active, database("main"))).create();
    String uid = client.resources(Tenant.class).withName(name).get().getMetadata().getUid();
    Store store = store("list");
    BackupLocation main = new BackupLocation("local", name, uid, "main");
    BackupLocation legacy = new BackupLocation("local", name, uid, "legacy");

    BackupId committed = BackupId.parse("main-20261126-020000-a1b2c3");
    long committedBytes = commit(store, store.kek(), main, committed, "on-demand");
    BackupId uncommitted = BackupId.parse("main-20261126-030000-d4e5f6");
    store.backups().create(main.objectPath(uncommitted), new ByteArrayInputStream(new byte[1234]));
    // Sealed by another key: shown, not believed, and the listing goes on.
    BackupId foreign = BackupId.parse("main-20261127-020000-0f0f0f");
    Aead otherKey = LocalKeyset.loadOrCreate(dir.resolve("other-keyset-" + name + ".json"));
    commit(store, otherKey, main, foreign, "scheduled");
    long foreignBytes = Files.size(store.root().resolve(main.objectPath(foreign)));
    // A database since removed from the spec: its backups are still the tenant's.
    BackupId old = BackupId.parse("legacy-20261120-020000-aaaaaa");
    long oldBytes = commit(store, store.kek(), legacy, old, "scheduled");
    store.backups().create(main.prefix() + "notes.txt", new ByteArrayInputStream("hand-made".getBytes(StandardCharsets.UTF_8)));
    // An earlier tenant of the same name (another UID): not this tenant's.
    BackupLocation earlier = new BackupLocation("local", name, "00000000-0000-0000-0000-000000000000", "main");
    commit(store, store.kek(), earlier, BackupId.parse("main-20261001-020000-bbbbbb"), "scheduled");

    CliRun run = tenantctl("backups", "list", name, "--config", store.config().toString());

    assertThat(run.status()).as(run.err()).isZero();
    List<List<String>> rows = rows(run.out().substring(0, run.out().indexOf("\n\n") + 1));
    assertThat(rows).hasSize(5);
    assertThat(rows.subList(0, 4)).containsExactly(
        List.of("DATABASE", "BACKUP", "STARTED", "KIND", "BYTES", "TABLES", "ROWS", "STATE"),
        List.of("legacy", old.toString(), "2026-11-20T02:00:00Z", "scheduled", Long.toString(oldBytes), "2", "10250",
            "committed"),
        List.of("main", committed.toString(), "2026-11-26T02:00:00Z", "on-demand", Long.toString(committedBytes), "2",
            "10250", "committed"),
        List.of("main", uncommitted.toString(), "2026-11-26T03:00:00Z", "<none>", "1234", "<none>", "<none>",
            "uncommitted"));
    assertThat(rows.get(4)).startsWith("main", foreign.toString(), "2026-11-27T02:00:00Z", "<none>",
        Long.toString(foreignBytes), "<none>", "<none>");
    assertThat(rows.get(4).get(7)).startsWith("unreadable: ");
    String prefix = BackupLocation.tenantPrefix("local", name, uid);
    assertThat(run.out().substring(run.out().indexOf("\n\n") + 2)).isEqualTo(
        "unknown objects under " + prefix + " (neither a backup nor its manifest; never pruned):\n"
            + "  " + prefix + "main/notes.txt\n");
  }

  @Test
  void listOfATenantWithoutBackupsSaysWhereItLooked() throws Exception {
    String name = OperatorHarness.uniqueName("bk-none");
    client.resources(Tenant.class).resource(tenant(name, TenantState.Active, database("main"))).create();
    String uid = client.resources(Tenant.class).withName(name).get().getMetadata().getUid();
    Store store = store("none");

    CliRun run = tenantctl("backups", "list", name, "--config", store.config().toString());

    assertThat(run.status()).as(run.err()).isZero();
    assertThat(run.out()).isEqualTo("no backups of tenant " + name + " in " + store.backups().describe() + " under "
        + BackupLocation.tenantPrefix("local", name, uid) + "\n");
  }

  @Test
  void listRefusalsNameTheProblem() throws Exception {
    String name = OperatorHarness.uniqueName("bk-list-err");
    client.resources(Tenant.class).resource(tenant(name, TenantState.Active, database("main"))).create();
    Store store = store("errors");
    Path otherCluster = Files.writeString(dir.resolve("eu.yaml"), Files.readString(store.config())
        .replace("clusterName: local", "clusterName: eu-1"));
    Path noKeyset = Files.writeString(dir.resolve("no-keyset.yaml"), Files.readString(store.config())
        .replace(store.root().getParent().resolve("secrets").toString(), dir.resolve("no-secrets").toString()));

    assertRefused(tenantctl("backups", "list", "nobody-here", "--config", store.config().toString()), 2,
        "tenantctl: backups list: no tenant named nobody-here on cluster local (fleet.clusterName of " + store.config() + ")");
    assertRefused(tenantctl("backups", "list", name, "--config", otherCluster.toString()), 2,
        "tenantctl: backups list: cluster eu-1 (fleet.clusterName of " + otherCluster + ") is not registered");
    assertRefused(tenantctl("backups", "list", name, "--config", noKeyset.toString()), 1,
        "tenantctl: backups list: cannot open the secret store's key (secretStore of " + noKeyset + "): keyset file "
            + dir.resolve("no-secrets").resolve("keyset.json") + " does not exist");
  }

  // ---------------------------------------------------------------------------------------------

  /** A backup store in a directory of its own, the secret store's keyset, and an operator configuration naming both. */
  private record Store(Path root, BackupStore backups, Aead kek, Path config) {
  }

  private static Store store(String name) throws Exception {
    Path base = Files.createDirectories(dir.resolve(name));
    Path root = Files.createDirectories(base.resolve("backups"));
    Aead kek = LocalKeyset.loadOrCreate(base.resolve("secrets").resolve("keyset.json"));
    Path config = Files.writeString(base.resolve("operator.yaml"), """
        fleet:
          clusterName: local
        secretStore:
          location: "file:%s"
        backups:
          location: "file:%s"
        """.formatted(base.resolve("secrets"), root));
    return new Store(root, new LocalBackupStore(root), kek, config);
  }

  /** A committed backup as the operator leaves it: the encrypted object, then its manifest sealed by {@code kek}. */
  private static long commit(Store store, Aead kek, BackupLocation location, BackupId id, String kind) throws Exception {
    DataKey key = DataKey.generate();
    ByteArrayOutputStream object = new ByteArrayOutputStream();
    try (OutputStream out = BackupFormat.encrypting(object, key, location.objectPath(id), HEADER)) {
      out.write("PGDMP and the rest of the dump".getBytes(StandardCharsets.UTF_8));
    }
    long bytes = store.backups().create(location.objectPath(id), new ByteArrayInputStream(object.toByteArray())).size();
    Manifest manifest = new Manifest(Manifest.FORMAT, id.toString(), location.cluster(), location.tenant(),
        location.tenantUid(), location.database(), kind, HEADER.engine(), HEADER.serverVersion(), id.started(),
        id.started().plusSeconds(60), 30, bytes, "ab", "AAAAAA==",
        Base64.getEncoder().encodeToString(key.wrap(kek, location.objectPath(id))), HEADER.tables(),
        HEADER.databaseBytes());
    store.backups().create(location.manifestPath(id), new ByteArrayInputStream(manifest.seal(kek)));
    return bytes;
  }

  private static Tenant tenant(String name, TenantState state, DatabaseSpec... databases) {
    Tenant tenant = OperatorHarness.tenant(name, 1, false);
    tenant.getSpec().setState(state);
    tenant.getSpec().getDatabases().addAll(List.of(databases));
    return tenant;
  }

  private static DatabaseSpec database(String name) {
    return new DatabaseSpec(name, DatabaseEngine.POSTGRES, "16.4", "1Gi");
  }

  private static DatabaseSpec cache() {
    DatabaseSpec cache = new DatabaseSpec("cache", DatabaseEngine.REDIS, "7.2", "1Gi");
    cache.setEphemeral(true);
    return cache;
  }

  private static CompletableFuture<CliRun> runAsync(String... args) {
    return CompletableFuture.supplyAsync(() -> {
      try {
        return tenantctl(args);
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    });
  }

  /** The time tenantctl wrote into the annotation, once it did. */
  private static Instant awaitRequest(String name) {
    return Instant.parse(await().atMost(Duration.ofSeconds(30)).until(() -> {
      Map<String, String> annotations = client.resources(Tenant.class).withName(name).get().getMetadata().getAnnotations();
      return annotations == null ? null : annotations.get(TenantBackups.REQUESTED);
    }, value -> value != null));
  }

  /** Writes each database's last attempt into the status, as the operator reports it. */
  private static void writeStatus(String name, Map<String, BackupRecord> attempts) {
    client.resources(Tenant.class).withName(name).editStatus(tenant -> {
      TenantStatus status = tenant.getStatus() == null ? new TenantStatus() : tenant.getStatus();
      status.getDatabases().clear();
      attempts.forEach((db, attempt) -> status.getDatabases().add(new DatabaseStatus(db, true)
          .withBackup(new BackupStatus(attempt.getReason() == null && attempt.getFinished() != null ? attempt : null, attempt))));
      tenant.setStatus(status);
      return tenant;
    });
  }

  private static String afterFirstLine(String out) {
    return out.substring(out.indexOf('\n') + 1);
  }

  /** The columns of each line of a Table (separated by three spaces or more). */
  private static List<List<String>> rows(String out) {
    return out.lines().map(line -> List.of(line.split(" {3,}"))).toList();
  }

  private static void assertRefused(CliRun run, int status, String message) {
    assertThat(run.status()).as(run.out() + run.err()).isEqualTo(status);
    assertThat(run.err()).startsWith(message);
    assertThat(run.out()).isEmpty();
  }
}
