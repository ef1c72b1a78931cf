package io.tenantry.backup.bench;

import com.sun.net.httpserver.HttpServer;
import io.tenantry.backup.BackupId;
import io.tenantry.backup.BackupLocation;
import io.tenantry.backup.DataKey;
import io.tenantry.backup.JobContainers;
import io.tenantry.backup.JobContainers.Ended;
import io.tenantry.backup.postgres.PostgresCommands;
import io.tenantry.backup.store.LocalBackupStore;
import io.tenantry.backup.transfer.TransferHandler;
import io.tenantry.backup.transfer.TransferTokens;
import io.tenantry.backup.transfer.TransferTokens.Access;
import io.tenantry.secretstore.LocalKeyset;
import io.tenantry.testsupport.RealPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.ToDoubleFunction;
import java.util.stream.Stream;

/**
 * Backup and restore of one PostgreSQL database through Tenantry against the plain tools, side by
 * side in one run. A real PostgreSQL 15 ({@link RealPostgres}) is filled with SIZE_MIB of tables
 * resembling a tenant's: a third narrow rows ({@code items}: an integer id and a short text, with
 * its primary key), the rest rows of 8 KiB of random bytes ({@code blobs}), all made server-side by
 * {@code INSERT ... SELECT ... generate_series}. Then, ROUNDS times (default 3):
 *
 * <ul>
 *   <li>Tenantry backup: the backup Job's dump script ({@link PostgresCommands#dumpScript()}) and
 *       agent, the agent as a JVM of its own as in the Job ({@link JobContainers#runInOwnJvm}, with
 *       {@link #AGENT_JVM}), through the transfer endpoint (a JDK HttpServer with
 *       {@link TransferHandler}, in this JVM as in the operator) into a {@link LocalBackupStore};
 *       against {@code pg_dump -Fc > FILE} of the same database to a local file.
 *   <li>Tenantry restore: the restore Job's script ({@link PostgresCommands#restoreScript()}) and
 *       agent, from the store through the endpoint into a fresh database of a second server; against
 *       {@code pg_restore --single-transaction -d DB FILE} from that file into another fresh database.
 * </ul>
 *
 * Odd rounds run Tenantry's side first, even rounds the plain side first. Each run is timed with
 * {@link System#nanoTime()} from the start of its processes (the agent's JVM included) to the end
 * of all of them; printed: wall times, MiB/s of the tables' size on disk, the ratios Tenantry /
 * plain per round and their median with the targets (not asserted), and where the CPU went. It
 * fails if a backup or a restore fails or a restored database's row counts differ from the source's.
 *
 * <p>Run with {@code tools/bench-backup.sh [SIZE_MIB] [ROUNDS]} (default 1024 and 3).
 */
public final class BackupBenchmark {

  private static final String USER = "tenant";
  private static final String PASSWORD = "bench-" + UUID.randomUUID();
  private static final int BLOB_BYTES = 8192;
  private static final int BLOB_ROWS_PER_INSERT = 2000;
  private static final double TARGET = 1.3;
  private static final double MIB = 1 << 20;
  /**
   * The agent's JVM options: the Job's ({@code -XX:MaxRAMPercentage=60}, controller BackupJob), and
   * what that JVM sees in the agent container under its 384 MiB memory limit: 384 MiB of memory, so
   * a heap of at most 230 MiB, and the serial collector (a JVM picks it by itself below 1792 MiB).
   * The system property {@code tenantry.bench.agentJvm} adds options (space-separated).
   */
  private static final List<String> AGENT_JVM = agentJvm();
  private static final com.sun.management.OperatingSystemMXBean OS =
      (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

  /** 16 random bytes per md5 of random(), as hex: 512 of them make one 8 KiB value. */
  private static final String RANDOM_BLOB = "(SELECT decode(string_agg(md5(random()::text), ''), 'hex')"
      + " FROM generate_series(1, " + BLOB_BYTES / 16 + ") WHERE i > 0)"; // i: re-run for every row

  static {
    // As the operator's HTTP endpoints (HttpEndpoints): read once, when the first server is created.
    if (System.getProperty("sun.net.httpserver.nodelay") == null) {
      System.setProperty("sun.net.httpserver.nodelay", "true");
    }
  }

  private BackupBenchmark() {
  }

  /** What the source database holds. */
  private record Data(long itemsRows, long itemsBytes, long blobsRows, long blobsBytes, long databaseBytes,
      double fillSeconds) {
    double tablesMib() {
      return (itemsBytes + blobsBytes) / MIB;
    }
  }

  /**
   * One timed run: wall time and CPU (this JVM: the endpoint and store; the child processes it
   * reaped: the agent's JVM, sh, pg_dump or pg_restore; the whole machine).
   */
  private record Run(String name, double seconds, double jvmCpu, double childCpu, double machineCpu, long bytes) {
    double restCpu() {
      return Math.max(0, machineCpu - jvmCpu - childCpu);
    }
  }

  /** One round's four runs. */
  private record Round(int number, boolean tenantryFirst, Run tenantryBackup, Run plainBackup, Run plainRestore,
      Run tenantryRestore) {
    double backupRatio() {
      return tenantryBackup.seconds() / plainBackup.seconds();
    }

    double restoreRatio() {
      return tenantryRestore.seconds() / plainRestore.seconds();
    }
  }

  /** Row count and bytes per table, to compare a restored database with the source. */
  private record Content(Map<String, String> tables) {
  }

  public static void main(String[] args) throws Exception {
    int sizeMib = args.length > 0 ? Integer.parseInt(args[0]) : 1024;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    if (sizeMib < 8) {
      throw new IllegalArgumentException("SIZE_MIB must be at least 8");
    }
    if (rounds < 1) {
      throw new IllegalArgumentException("ROUNDS must be at least 1");
    }
    Path dir = Files.createTempDirectory("bench-backup-");
    try (RealPostgres source = RealPostgres.start(USER, PASSWORD, "tenant");
        RealPostgres target = RealPostgres.start(USER, PASSWORD, "postgres")) {
      Data data = fill(source, sizeMib);
      printSetup(sizeMib, rounds, data);
      Content expected = content(source, "tenant");
      new Sides(dir, source, target, data, expected).run(rounds);
    } finally {
      deleteTree(dir);
    }
  }

  private static List<String> agentJvm() {
    List<String> options = new ArrayList<>(List.of("-XX:MaxRAMPercentage=60", "-XX:MaxRAM=384m", "-XX:+UseSerialGC"));
    String more = System.getProperty("tenantry.bench.agentJvm", "").strip();
    if (!more.isEmpty()) {
      options.addAll(List.of(more.split("\\s+")));
    }
    return List.copyOf(options);
  }

  /** The rounds, sharing one endpoint and store. */
  private static final class Sides {
    private final Path dir;
    private final RealPostgres source;
    private final RealPostgres target;
    private final Data data;
    private final Content expected;
    private final TransferTokens tokens;

    Sides(Path dir, RealPostgres source, RealPostgres target, Data data, Content expected) {
      this.dir = dir;
      this.source = source;
      this.target = target;
      this.data = data;
      this.expected = expected;
      this.tokens = new TransferTokens(LocalKeyset.loadOrCreate(dir.resolve("keyset.json")), Clock.systemUTC());
    }

    void run(int rounds) throws Exception {
      Path storeRoot = Files.createDirectories(dir.resolve("store"));
      ExecutorService handlers = Executors.newFixedThreadPool(4);
      HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
      server.createContext(TransferHandler.PATH, new TransferHandler(tokens, new LocalBackupStore(storeRoot)));
      server.setExecutor(handlers);
      server.start();
      try {
        String endpoint = "http://127.0.0.1:" + server.getAddress().getPort() + TransferHandler.PATH;
        List<Round> results = new ArrayList<>();
        for (int number = 1; number <= rounds; number++) {
          results.add(round(endpoint, number, number % 2 == 1));
        }
        printResults(results);
      } finally {
        server.stop(0);
        handlers.shutdownNow();
      }
    }

    /** Both backups, then both restores, each pair in the given order; checks and drops the restored databases. */
    private Round round(String endpoint, int number, boolean tenantryFirst) throws Exception {
      System.err.println("[bench] round " + number + " of the four runs, " + (tenantryFirst ? "Tenantry" : "plain")
          + " first");
      DataKey key = DataKey.generate(); // fresh for every backup, as the operator does
      String objectPath = new BackupLocation("bench", "acme", UUID.randomUUID().toString(), "main")
          .objectPath(BackupId.next("main", Instant.now()));
      Path dumpFile = dir.resolve("plain.dump");
      Files.deleteIfExists(dumpFile);
      String plainDb = "restore_plain_" + number;
      String tenantryDb = "restore_tenantry_" + number;
      Run tenantryBackup;
      Run plainBackup;
      if (tenantryFirst) {
        tenantryBackup = tenantryBackup(endpoint, key, objectPath);
        plainBackup = plainBackup(dumpFile);
      } else {
        plainBackup = plainBackup(dumpFile);
        tenantryBackup = tenantryBackup(endpoint, key, objectPath);
      }
      Run plainRestore;
      Run tenantryRestore;
      if (tenantryFirst) {
        tenantryRestore = tenantryRestore(endpoint, key, objectPath, tenantryDb);
        plainRestore = plainRestore(dumpFile, plainDb);
      } else {
        plainRestore = plainRestore(dumpFile, plainDb);
        tenantryRestore = tenantryRestore(endpoint, key, objectPath, tenantryDb);
      }
      check("the plain restore", content(target, plainDb));
      check("Tenantry's restore", content(target, tenantryDb));
      dropDatabase(plainDb);
      dropDatabase(tenantryDb);
      Round round = new Round(number, tenantryFirst, tenantryBackup, plainBackup, plainRestore, tenantryRestore);
      System.err.printf(Locale.ROOT, "[bench] round %d: backup %.1f s / %.1f s = %.2f, restore %.1f s / %.1f s = %.2f%n",
          number, tenantryBackup.seconds(), plainBackup.seconds(), round.backupRatio(), tenantryRestore.seconds(),
          plainRestore.seconds(), round.restoreRatio());
      return round;
    }

    private Run tenantryBackup(String endpoint, DataKey key, String objectPath) throws Exception {
      Path work = fresh(dir.resolve("backup"));
      Path keyFile = Files.write(dir.resolve("backup.key"), key.cleartext());
      Path targetFile = Files.writeString(dir.resolve("backup.target"),
          endpoint + tokens.issue(Access.UPLOAD, objectPath, Duration.ofHours(2)));
      Ended[] ended = new Ended[1];
      Run run = measure("Tenantry backup", () -> ended[0] = JobContainers.runInOwnJvm(work,
          PostgresCommands.dumpScript(), libpq(source, "tenant"), List.of("backup", "--key", keyFile.toString(),
              "--target", targetFile.toString(), "--object-path", objectPath), AGENT_JVM));
      if (!"uploaded".equals(ended[0].report().outcome()) || ended[0].scriptExit() != 0 || ended[0].agentExit() != 0) {
        throw new IllegalStateException("Tenantry's backup failed: " + ended[0]);
      }
      logAgent(ended[0]);
      return withBytes(run, ended[0].report().objectBytes());
    }

    /**
     * As the issue states it: {@code pg_dump -Fc > FILE}, which does not fsync the file ({@code -f
     * FILE} would, unlike Tenantry's {@code pg_dump --no-sync} into its FIFO).
     */
    private Run plainBackup(Path file) throws Exception {
      Run run = measure("pg_dump -Fc > FILE", () -> tool(libpq(source, "tenant"),
          "sh", "-c", "exec pg_dump -Fc > \"$1\"", "sh", file.toString()));
      return withBytes(run, Files.size(file));
    }

    private Run plainRestore(Path file, String database) throws Exception {
      createDatabase(database);
      return measure("pg_restore --single-transaction -d DB FILE", () -> tool(libpq(target, database),
          "pg_restore", "--single-transaction", "-d", database, file.toString()));
    }

    private Run tenantryRestore(String endpoint, DataKey key, String objectPath, String database) throws Exception {
      createDatabase(database);
      Path work = fresh(dir.resolve("restore"));
      Path keyFile = Files.write(dir.resolve("restore.key"), key.cleartext());
      Path sourceFile = Files.writeString(dir.resolve("restore.target"),
          endpoint + tokens.issue(Access.DOWNLOAD, objectPath, Duration.ofHours(2)));
      Ended[] ended = new Ended[1];
      Run run = measure("Tenantry restore", () -> ended[0] = JobContainers.runInOwnJvm(work,
          PostgresCommands.restoreScript(), libpq(target, database), List.of("restore", "--key", keyFile.toString(),
              "--target", sourceFile.toString(), "--object-path", objectPath), AGENT_JVM));
      if (!"restored".equals(ended[0].report().outcome()) || ended[0].scriptExit() != 0 || ended[0].agentExit() != 0) {
        throw new IllegalStateException("Tenantry's restore failed: " + ended[0]);
      }
      logAgent(ended[0]);
      return withBytes(run, ended[0].report().objectBytes());
    }

    private Run measure(String name, Step step) throws Exception {
      return BackupBenchmark.measure(name, List.of(source, target), step);
    }

    private void createDatabase(String database) throws SQLException {
      try (Connection db = connect(target, "postgres"); Statement statement = db.createStatement()) {
        statement.execute("CREATE DATABASE " + database);
      }
    }

    private void dropDatabase(String database) throws SQLException {
      try (Connection db = connect(target, "postgres"); Statement statement = db.createStatement()) {
        statement.execute("DROP DATABASE " + database);
      }
    }

    private void check(String what, Content restored) {
      if (!restored.equals(expected)) {
        throw new IllegalStateException(what + " differs from the source: " + restored.tables() + ", source "
            + expected.tables());
      }
    }

    private void printResults(List<Round> rounds) {
      double mib = data.tablesMib();
      System.out.println();
      System.out.println("| round (first side) | backup: Tenantry | pg_dump -Fc > FILE | ratio | restore: Tenantry"
          + " | pg_restore | ratio |");
      System.out.println("|---|---|---|---|---|---|---|");
      for (Round round : rounds) {
        System.out.printf(Locale.ROOT, "| %d (%s) | %.1f s, %.1f MiB/s | %.1f s, %.1f MiB/s | %.2f"
            + " | %.1f s, %.1f MiB/s | %.1f s, %.1f MiB/s | %.2f |%n", round.number(),
            round.tenantryFirst() ? "Tenantry" : "plain", round.tenantryBackup().seconds(),
            mib / round.tenantryBackup().seconds(), round.plainBackup().seconds(), mib / round.plainBackup().seconds(),
            round.backupRatio(), round.tenantryRestore().seconds(), mib / round.tenantryRestore().seconds(),
            round.plainRestore().seconds(), mib / round.plainRestore().seconds(), round.restoreRatio());
      }
      System.out.printf(Locale.ROOT, "| **median** | %.1f s | %.1f s | **%.2f** (target ≤ %.1f) | %.1f s | %.1f s"
          + " | **%.2f** (target ≤ %.1f) |%n",
          median(rounds, r -> r.tenantryBackup().seconds()), median(rounds, r -> r.plainBackup().seconds()),
          median(rounds, Round::backupRatio), TARGET, median(rounds, r -> r.tenantryRestore().seconds()),
          median(rounds, r -> r.plainRestore().seconds()), median(rounds, Round::restoreRatio), TARGET);
      System.out.println();
      Round last = rounds.get(rounds.size() - 1);
      System.out.printf(Locale.ROOT, "MiB/s: of the tables' %.1f MiB on disk. Dump: %.1f MiB (pg_dump's custom"
          + " format, default compression); Tenantry's encrypted object: %.1f MiB. Ratios: Tenantry's wall time"
          + " over the plain tool's in the same round; median: of the rounds' ratios.%n", mib,
          last.plainBackup().bytes() / MIB, last.tenantryBackup().bytes() / MIB);
      System.out.println("Row counts and bytes per table of every restored database equal the source's.");
      System.out.println();
      System.out.println("| round | run | wall | CPU: this JVM (endpoint, store) | child processes (agent JVM, sh,"
          + " pg_dump / pg_restore) | rest of the machine (PostgreSQL servers, anything else) |");
      System.out.println("|---|---|---|---|---|---|");
      for (Round round : rounds) {
        for (Run run : List.of(round.tenantryBackup(), round.plainBackup(), round.plainRestore(),
            round.tenantryRestore())) {
          System.out.printf(Locale.ROOT, "| %d | %s | %.1f s | %.1f s | %.1f s | %.1f s |%n", round.number(),
              run.name(), run.seconds(), run.jvmCpu(), run.childCpu(), run.restCpu());
        }
      }
    }
  }

  private static double median(List<Round> rounds, ToDoubleFunction<Round> value) {
    double[] values = rounds.stream().mapToDouble(value).sorted().toArray();
    int middle = values.length / 2;
    return values.length % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
  }

  /** The agent's own lines (the cipher's warm-up, its outcome), to the benchmark's log. */
  private static void logAgent(Ended ended) {
    ended.agentOutput().lines().forEach(line -> System.err.println("[bench]   agent: " + line));
  }

  private static Path fresh(Path work) throws IOException {
    if (Files.exists(work)) {
      deleteTree(work);
    }
    return Files.createDirectories(work);
  }

  private interface Step {
    void run() throws Exception;
  }

  /**
   * Times one run, after writing out what the runs before left in memory: the servers' dirty
   * buffers (CHECKPOINT) and the kernel's dirty pages (sync; with fsync off, a checkpoint only
   * moves them there). Otherwise a run pays for the writeback of the fill or of the run before.
   */
  private static Run measure(String name, List<RealPostgres> servers, Step step) throws Exception {
    for (RealPostgres server : servers) {
      try (Connection db = connect(server, "postgres"); Statement statement = db.createStatement()) {
        statement.execute("CHECKPOINT");
      }
    }
    tool(Map.of(), "sync");
    System.err.println("[bench] " + name);
    long jvm = OS.getProcessCpuTime();
    long children = childCpuNanos();
    long machine = machineCpuNanos();
    long start = System.nanoTime();
    step.run();
    double seconds = (System.nanoTime() - start) / 1e9;
    return new Run(name, seconds, (OS.getProcessCpuTime() - jvm) / 1e9, (childCpuNanos() - children) / 1e9,
        (machineCpuNanos() - machine) / 1e9, 0);
  }

  private static Run withBytes(Run run, long bytes) {
    return new Run(run.name(), run.seconds(), run.jvmCpu(), run.childCpu(), run.machineCpu(), bytes);
  }

  /** Runs a PostgreSQL client tool to its end; fails unless it exits with 0. */
  private static void tool(Map<String, String> env, String... command) throws IOException, InterruptedException {
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().putAll(env);
    Process process = builder.start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    int exit = process.waitFor();
    if (exit != 0) {
      throw new IllegalStateException(String.join(" ", command) + " exited with " + exit + ": " + output);
    }
  }

  /**
   * Fills the source's database: {@code items} (narrow rows and their primary key) to a third of
   * {@code sizeMib}, {@code blobs} (8 KiB of random bytes a row) to the rest, then freezes and
   * analyzes them and checkpoints, so that no run sets hint bits or writes what the fill left.
   */
  private static Data fill(RealPostgres server, int sizeMib) throws Exception {
    System.err.println("[bench] filling " + sizeMib + " MiB");
    long start = System.nanoTime();
    long total = (long) sizeMib << 20;
    try (Connection db = connect(server, "tenant"); Statement statement = db.createStatement()) {
      statement.execute("CREATE TABLE items (id int PRIMARY KEY, name text NOT NULL)");
      statement.execute("CREATE TABLE blobs (id int PRIMARY KEY, data bytea NOT NULL)");
      long items = fillItems(statement, total / 3);
      long itemsBytes = size(statement, "items");
      long blobs = fillBlobs(server, statement, total - itemsBytes);
      statement.execute("VACUUM (FREEZE, ANALYZE)");
      statement.execute("CHECKPOINT");
      return new Data(items, size(statement, "items"), blobs, size(statement, "blobs"),
          single(statement, "SELECT pg_database_size(current_database())"), (System.nanoTime() - start) / 1e9);
    }
  }

  /**
   * Rows of {@code (id, 'item-<id>-<8 hex digits>')}: a sample, then 90 % of the rows the sample's
   * bytes a row say are missing, then the rest by the new measure.
   */
  private static long fillItems(Statement statement, long bytes) throws SQLException {
    long rows = Math.min(100_000, Math.max(1000, bytes / 100));
    insertItems(statement, 1, rows);
    for (double share : new double[] {0.9, 1.0}) {
      long size = size(statement, "items");
      long more = (long) ((bytes - size) / ((double) size / rows) * share);
      if (more > 0) {
        insertItems(statement, rows + 1, rows + more);
        rows += more;
      }
    }
    return rows;
  }

  private static void insertItems(Statement statement, long from, long to) throws SQLException {
    statement.execute("INSERT INTO items SELECT i, 'item-' || i || '-' || left(md5(i::text), 8)"
        + " FROM generate_series(" + from + ", " + to + ") i");
  }

  /** Rows of 8 KiB of random bytes: a sample, then the rest from two connections (two cores) at once. */
  private static long fillBlobs(RealPostgres server, Statement statement, long bytes) throws Exception {
    long sample = Math.max(1, Math.min(1000, bytes / BLOB_BYTES / 10));
    insertBlobs(statement, 1, sample);
    double perRow = (double) size(statement, "blobs") / sample;
    long rows = Math.max(sample, Math.round(bytes / perRow));
    ExecutorService fillers = Executors.newFixedThreadPool(2);
    try {
      List<Future<?>> inserts = new ArrayList<>();
      for (long from = sample + 1; from <= rows; from += BLOB_ROWS_PER_INSERT) {
        long first = from;
        long last = Math.min(rows, from + BLOB_ROWS_PER_INSERT - 1);
        inserts.add(fillers.submit(() -> {
          try (Connection db = connect(server, "tenant"); Statement own = db.createStatement()) {
            insertBlobs(own, first, last);
          }
          return null;
        }));
      }
      for (Future<?> insert : inserts) {
        insert.get();
      }
    } finally {
      fillers.shutdownNow();
    }
    return rows;
  }

  private static void insertBlobs(Statement statement, long from, long to) throws SQLException {
    statement.execute("INSERT INTO blobs SELECT i, " + RANDOM_BLOB + " FROM generate_series(" + from + ", " + to + ") i");
  }

  private static long size(Statement statement, String table) throws SQLException {
    return single(statement, "SELECT pg_total_relation_size('" + table + "')");
  }

  private static long single(Statement statement, String sql) throws SQLException {
    try (ResultSet rows = statement.executeQuery(sql)) {
      rows.next();
      return rows.getLong(1);
    }
  }

  private static void printSetup(int sizeMib, int rounds, Data data) {
    System.out.printf(Locale.ROOT, "Backup benchmark: a PostgreSQL 15.8 database with %.1f MiB of tables"
        + " (SIZE_MIB %d; the database %.1f MiB with its catalog), filled in %.1f s; pg_dump and pg_restore: %s%n",
        data.tablesMib(), sizeMib, data.databaseBytes() / MIB, data.fillSeconds(), toolVersion());
    System.out.printf(Locale.ROOT, "- items: %,d narrow rows (int id, text like 'item-123-1a2b3c4d'), %.1f MiB"
        + " with the primary key: INSERT ... SELECT i, 'item-' || i || '-' || left(md5(i::text), 8)"
        + " FROM generate_series(...) i%n", data.itemsRows(), data.itemsBytes() / MIB);
    System.out.printf(Locale.ROOT, "- blobs: %,d rows of %d random bytes (int id, bytea), %.1f MiB: INSERT ..."
        + " SELECT i, (SELECT decode(string_agg(md5(random()::text), ''), 'hex') FROM generate_series(1, %d))"
        + " FROM generate_series(...) i, on two connections%n", data.blobsRows(), BLOB_BYTES, data.blobsBytes() / MIB,
        BLOB_BYTES / 16);
    System.out.println("then VACUUM (FREEZE, ANALYZE) and CHECKPOINT. Both servers: fsync off, defaults otherwise.");
    System.out.printf(Locale.ROOT, "%d round(s); the agent: its own JVM (%s), %s%n", rounds,
        String.join(" ", AGENT_JVM), System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
  }

  private static String toolVersion() {
    try {
      Process process = new ProcessBuilder("pg_dump", "--version").redirectErrorStream(true).start();
      String version = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      process.waitFor();
      return version;
    } catch (IOException e) {
      return "(pg_dump --version failed: " + e.getMessage() + ")";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "(interrupted)";
    }
  }

  /** Per table: rows, sum of ids, bytes of its second column. */
  private static Content content(RealPostgres server, String database) throws SQLException {
    Map<String, String> tables = new LinkedHashMap<>();
    try (Connection db = connect(server, database); Statement statement = db.createStatement()) {
      for (String[] table : new String[][] {{"items", "name"}, {"blobs", "data"}}) {
        try (ResultSet rows = statement.executeQuery("SELECT count(*) || ' rows, ids ' || coalesce(sum(id), 0)"
            + " || ', ' || coalesce(sum(octet_length(" + table[1] + ")), 0) || ' bytes' FROM " + table[0])) {
          rows.next();
          tables.put(table[0], rows.getString(1));
        }
      }
    }
    return new Content(tables);
  }

  private static Map<String, String> libpq(RealPostgres server, String database) {
    Map<String, String> env = new HashMap<>();
    env.put("PGHOST", server.host());
    env.put("PGPORT", Integer.toString(server.port()));
    env.put("PGUSER", USER);
    env.put("PGPASSWORD", PASSWORD);
    env.put("PGDATABASE", database);
    return env;
  }

  private static Connection connect(RealPostgres server, String database) throws SQLException {
    return DriverManager.getConnection("jdbc:postgresql://" + server.host() + ":" + server.port() + "/" + database,
        USER, PASSWORD);
  }

  /** CPU of the child processes this JVM has reaped (/proc/self/stat's cutime and cstime). */
  private static long childCpuNanos() {
    try {
      String stat = Files.readString(Path.of("/proc/self/stat"));
      String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      // After the command: state is field 3, so cutime (16) and cstime (17) are at 13 and 14.
      return (Long.parseLong(fields[13]) + Long.parseLong(fields[14])) * 10_000_000L; // USER_HZ is 100
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The CPU time all processes have used (the first line of /proc/stat, without idle, iowait and guest). */
  private static long machineCpuNanos() {
    try {
      String[] ticks = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
      long busy = 0;
      for (int i = 1; i < Math.min(ticks.length, 9); i++) {
        if (i != 4 && i != 5) {
          busy += Long.parseLong(ticks[i]);
        }
      }
      return busy * 10_000_000L;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    }
  }
}
