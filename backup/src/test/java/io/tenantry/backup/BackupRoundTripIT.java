package io.tenantry.backup;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.storage.BucketInfo;
import com.google.crypto.tink.Aead;
import com.sun.net.httpserver.HttpServer;
import io.tenantry.backup.JobContainers.Ended;
import io.tenantry.backup.agent.AgentReport;
import io.tenantry.backup.postgres.PostgresCommands;
import io.tenantry.backup.store.BackupStore;
import io.tenantry.backup.store.GcsBackupStore;
import io.tenantry.backup.store.LocalBackupStore;
import io.tenantry.backup.store.StoredObject;
import io.tenantry.backup.transfer.TransferHandler;
import io.tenantry.backup.transfer.TransferTokens;
import io.tenantry.backup.transfer.TransferTokens.Access;
import io.tenantry.secretstore.FakeGcsServer;
import io.tenantry.secretstore.LocalKeyset;
import io.tenantry.testsupport.RealPostgres;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A real PostgreSQL database backed up by the exact scripts and agent of a backup Job, through the
 * transfer endpoint, into both stores, then restored into a second server: identical rows, and
 * nothing of the data readable in the store. No cluster: the test plays the kubelet.
 */
class BackupRoundTripIT {

  private static final String PASSWORD = "s3cret-pass";
  private static final String CANARY = "CANARY-" + UUID.randomUUID();
  private static final BackupLocation LOCATION =
      new BackupLocation("test-1", "acme", UUID.randomUUID().toString(), "main");
  private static final AtomicInteger RESTORES = new AtomicInteger();

  private static RealPostgres source;
  private static RealPostgres target;
  private static FakeGcsServer gcs;
  private static Path dir;
  private static Aead kek;
  private static TransferTokens tokens;
  private static Map<String, Map<String, String>> sourceContent;

  @BeforeAll
  static void start() throws Exception {
    dir = Files.createTempDirectory("backup-round-trip-");
    kek = LocalKeyset.loadOrCreate(dir.resolve("keyset.json"));
    tokens = new TransferTokens(kek, Clock.systemUTC());
    source = RealPostgres.start("tenant", PASSWORD, "tenant");
    target = RealPostgres.start("tenant", PASSWORD, "postgres");
    gcs = FakeGcsServer.start();
    gcs.storage().create(BucketInfo.of("backups"));
    fill(source);
    sourceContent = content(source, "tenant");
  }

  @AfterAll
  static void stop() throws Exception {
    for (AutoCloseable closeable : new AutoCloseable[] {source, target, gcs}) {
      if (closeable != null) {
        closeable.close();
      }
    }
  }

  static Stream<String> stores() {
    return Stream.of("local", "gcs");
  }

  @ParameterizedTest
  @MethodSource("stores")
  void aBackupRestoresToIdenticalRowsAndTheStoreHoldsNothingReadable(String kind) throws Exception {
    BackupStore store = store(kind);
    try (Endpoint endpoint = new Endpoint(store)) {
      DataKey key = DataKey.generate();
      BackupId id = BackupId.next("main", Instant.now());
      String path = LOCATION.objectPath(id);

      Ended backup = backup(endpoint, key, path);

      assertThat(backup.report().outcome()).as(backup.toString()).isEqualTo("uploaded");
      assertThat(backup.scriptExit()).isZero();
      StoredObject stored = store.stat(path).orElseThrow();
      assertThat(stored.size()).isEqualTo(backup.report().objectBytes());
      assertThat(stored.crc32c()).isEqualTo(backup.report().crc32c());
      assertThat(reportIn(store, path)).as("the report beside the object, for the operator").isEqualTo(backup.report());
      byte[] bytes = store.read(path);
      assertThat(BackupFormatTest.indexOf(bytes, CANARY.getBytes(StandardCharsets.UTF_8))).isNegative();
      assertThat(BackupFormatTest.indexOf(bytes, "PGDMP".getBytes(StandardCharsets.US_ASCII))).isNegative();

      String database = newDatabase();
      Ended restore = restore(endpoint, key, path, database);

      assertThat(restore.report().outcome()).as(restore.toString()).isEqualTo("restored");
      assertThat(restore.report().sha256()).isEqualTo(backup.report().sha256());
      assertThat(AgentReport.fromJson(new String(store.read(LOCATION.restoreReportPath(database.replace('_', '-'))),
          StandardCharsets.UTF_8))).as("the restore's report, where its token says").isEqualTo(restore.report());
      assertThat(content(target, database)).isEqualTo(sourceContent);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"flipped", "truncated"})
  void aDamagedObjectFailsItsRestoreAndLeavesTheDatabaseEmpty(String damage) throws Exception {
    BackupStore store = store("local");
    try (Endpoint endpoint = new Endpoint(store)) {
      DataKey key = DataKey.generate();
      String path = LOCATION.objectPath(BackupId.next("main", Instant.now()));
      assertThat(backup(endpoint, key, path).report().outcome()).isEqualTo("uploaded");
      Path file = dir.resolve("store").resolve(path);
      byte[] bytes = Files.readAllBytes(file);
      if (damage.equals("flipped")) {
        bytes[bytes.length / 2] ^= 0x01;
      } else {
        bytes = java.util.Arrays.copyOf(bytes, bytes.length - 4096);
      }
      Files.write(file, bytes);

      String database = newDatabase();
      Ended restore = restore(endpoint, key, path, database);

      assertThat(restore.report().outcome()).as(restore.toString()).isEqualTo("corrupt");
      assertThat(restore.agentExit()).isEqualTo(1);
      assertThat(tables(target, database)).as("pg_restore's single transaction was rolled back").isZero();
    }
  }

  @org.junit.jupiter.api.Test
  void aDumpCutShortStoresNothing() throws Exception {
    BackupStore store = store("local");
    try (Endpoint endpoint = new Endpoint(store)) {
      String path = LOCATION.objectPath(BackupId.next("main", Instant.now()));
      CompletableFuture<Ended> backup = CompletableFuture.supplyAsync(() -> {
        try {
          return backup(endpoint, DataKey.generate(), path);
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
      // The server ends pg_dump's session while it streams, as a server stopping would.
      terminateWhenRunning("pg_dump");
      Ended ended = backup.get(2, TimeUnit.MINUTES);

      assertThat(ended.report().outcome()).as(ended.toString()).isEqualTo("dumpFailed");
      assertThat(ended.report().error()).startsWith("pg_dump exited with 1: pg_dump: error:");
      assertThat(store.stat(path)).isEmpty();
      assertThat(reportIn(store, path)).isEqualTo(ended.report());
      assertThat(store.list(LOCATION.prefix())).noneMatch(object -> object.path().equals(path));
    }
  }

  @org.junit.jupiter.api.Test
  void aWrongPasswordFailsTheBackupWithTheServersWords() throws Exception {
    BackupStore store = store("local");
    try (Endpoint endpoint = new Endpoint(store)) {
      String path = LOCATION.objectPath(BackupId.next("main", Instant.now()));
      Map<String, String> env = new java.util.HashMap<>(libpq(source, "tenant"));
      env.put("PGPASSWORD", "wrong");
      Path work = Files.createTempDirectory(dir, "backup-");
      Path keyFile = Files.write(work.resolveSibling(work.getFileName() + ".key"), DataKey.generate().cleartext());
      Path target = Files.writeString(work.resolveSibling(work.getFileName() + ".target"),
          endpoint.url(tokens.issue(Access.UPLOAD, path, Duration.ofMinutes(10))));

      Ended ended = JobContainers.run(work, PostgresCommands.dumpScript(), env,
          List.of("backup", "--key", keyFile.toString(), "--target", target.toString(), "--object-path", path));

      assertThat(ended.report().outcome()).isEqualTo("dumpFailed");
      assertThat(ended.report().error()).contains("password authentication failed");
      assertThat(ended.scriptExit()).as("the script gave up waiting").isEqualTo(1);
      assertThat(store.stat(path)).isEmpty();
    }
  }

  @org.junit.jupiter.api.Test
  void aBackupDropsTheDataRestoresReplacedOnceItsKeepIsOverAndNothingElse() throws Exception {
    try (Connection db = connect(source, "postgres"); Statement statement = db.createStatement()) {
      for (String name : new String[] {"tenant_before_20200101000000", "tenant_before_20991231000000", "tenant_before_x"}) {
        statement.execute("CREATE DATABASE " + name);
      }
    }
    try (Endpoint endpoint = new Endpoint(store("local"))) {
      Ended ended = backup(endpoint, DataKey.generate(), LOCATION.objectPath(BackupId.next("main", Instant.now())),
          "--drop-replaced-before", Instant.now().toString());
      assertThat(ended.report().outcome()).as(ended.toString()).isEqualTo("uploaded");
    }
    try (Connection db = connect(source, "postgres"); Statement statement = db.createStatement();
        ResultSet rows = statement.executeQuery("SELECT datname FROM pg_database WHERE datname LIKE 'tenant%' ORDER BY 1")) {
      List<String> left = new java.util.ArrayList<>();
      while (rows.next()) {
        left.add(rows.getString(1));
      }
      assertThat(left).containsExactly("tenant", "tenant_before_20991231000000", "tenant_before_x");
    }
  }

  private static Ended backup(Endpoint endpoint, DataKey key, String path, String... options) throws Exception {
    Path work = Files.createTempDirectory(dir, "backup-");
    Path keyFile = Files.write(work.resolveSibling(work.getFileName() + ".key"), key.cleartext());
    Path target = Files.writeString(work.resolveSibling(work.getFileName() + ".target"),
        endpoint.url(tokens.issue(Access.UPLOAD, path, Duration.ofMinutes(10))));
    List<String> args = new java.util.ArrayList<>(
        List.of("backup", "--key", keyFile.toString(), "--target", target.toString(), "--object-path", path));
    args.addAll(List.of(options));
    return JobContainers.run(work, PostgresCommands.dumpScript(), libpq(source, "tenant"), args);
  }

  private static Ended restore(Endpoint endpoint, DataKey key, String path, String database) throws Exception {
    Path work = Files.createTempDirectory(dir, "restore-");
    Path keyFile = Files.write(work.resolveSibling(work.getFileName() + ".key"), key.cleartext());
    Path source = Files.writeString(work.resolveSibling(work.getFileName() + ".target"),
        endpoint.url(tokens.issue(Access.DOWNLOAD, path, LOCATION.restoreReportPath(database.replace('_', '-')),
            Duration.ofMinutes(10))));
    return JobContainers.run(work, PostgresCommands.restoreScript(), libpq(target, database),
        List.of("restore", "--key", keyFile.toString(), "--target", source.toString(), "--object-path", path));
  }

  private static BackupStore store(String kind) throws IOException {
    if (kind.equals("gcs")) {
      return new GcsBackupStore(gcs.storage(), "backups");
    }
    Path root = Files.createDirectories(dir.resolve("store"));
    return new LocalBackupStore(root);
  }

  /** The transfer endpoint, as the operator serves it. */
  static final class Endpoint implements AutoCloseable {
    private final HttpServer server;

    Endpoint(BackupStore store) throws IOException {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
      server.createContext(TransferHandler.PATH, new TransferHandler(tokens, store));
      server.setExecutor(java.util.concurrent.Executors.newFixedThreadPool(4));
      server.start();
    }

    String url(String token) {
      return "http://127.0.0.1:" + server.getAddress().getPort() + TransferHandler.PATH + token;
    }

    @Override
    public void close() {
      server.stop(0);
    }
  }

  private static Map<String, String> libpq(RealPostgres server, String database) {
    return Map.of("PGHOST", server.host(), "PGPORT", Integer.toString(server.port()), "PGUSER", "tenant",
        "PGPASSWORD", PASSWORD, "PGDATABASE", database);
  }

  private static String newDatabase() throws SQLException {
    String name = "restore_" + RESTORES.incrementAndGet();
    try (Connection db = connect(target, "postgres"); Statement statement = db.createStatement()) {
      statement.execute("CREATE DATABASE " + name);
    }
    return name;
  }

  /** 3 tables: 10,000 rows, 64 MiB of random bytea, and a canary string. */
  private static void fill(RealPostgres server) throws SQLException {
    try (Connection db = connect(server, "tenant"); Statement statement = db.createStatement()) {
      statement.execute("CREATE TABLE items (id int PRIMARY KEY, name text NOT NULL)");
      statement.execute("INSERT INTO items SELECT i, 'item ' || i FROM generate_series(1, 10000) i");
      statement.execute("CREATE TABLE blobs (id int PRIMARY KEY, data bytea NOT NULL)");
      statement.execute("CREATE TABLE notes (id int PRIMARY KEY, body text NOT NULL)");
      statement.execute("INSERT INTO notes VALUES (1, '" + CANARY + "')");
      SecureRandom random = new SecureRandom();
      try (PreparedStatement insert = db.prepareStatement("INSERT INTO blobs VALUES (?, ?)")) {
        for (int i = 1; i <= 64; i++) {
          byte[] data = new byte[1 << 20];
          random.nextBytes(data);
          insert.setInt(1, i);
          insert.setBytes(2, data);
          insert.executeUpdate();
        }
      }
    }
  }

  /** Per table: its row count and a hash of its content. */
  private static Map<String, Map<String, String>> content(RealPostgres server, String database) throws SQLException {
    Map<String, Map<String, String>> content = new TreeMap<>();
    try (Connection db = connect(server, database); Statement statement = db.createStatement()) {
      for (String table : List.of("items", "blobs", "notes")) {
        try (ResultSet rows = statement.executeQuery("SELECT count(*), md5(string_agg(md5(t::text), '' ORDER BY t.id)) FROM "
            + table + " t")) {
          rows.next();
          content.put(table, Map.of("rows", rows.getString(1), "hash", rows.getString(2)));
        }
      }
    }
    return content;
  }

  private static io.tenantry.backup.agent.AgentReport reportIn(BackupStore store, String objectPath) {
    return io.tenantry.backup.agent.AgentReport.fromJson(
        new String(store.read(BackupLocation.reportPathOf(objectPath)), StandardCharsets.UTF_8));
  }

  private static void terminateWhenRunning(String application) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
    try (Connection db = connect(source, "tenant"); Statement statement = db.createStatement()) {
      while (System.nanoTime() < deadline) {
        try (ResultSet rows = statement.executeQuery("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            + " WHERE application_name = '" + application + "' AND state = 'active'")) {
          if (rows.next()) {
            return;
          }
        }
        Thread.sleep(20);
      }
    }
    throw new IllegalStateException(application + " never ran");
  }

  private static int tables(RealPostgres server, String database) throws SQLException {
    try (Connection db = connect(server, database); Statement statement = db.createStatement();
        ResultSet rows = statement.executeQuery("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")) {
      rows.next();
      return rows.getInt(1);
    }
  }

  private static Connection connect(RealPostgres server, String database) throws SQLException {
    return DriverManager.getConnection("jdbc:postgresql://" + server.host() + ":" + server.port() + "/" + database,
        "tenant", PASSWORD);
  }
}
