package io.tenantry.backup.agent;

import io.tenantry.backup.BackupFormat;
import io.tenantry.backup.BackupHeader;
import io.tenantry.backup.CipherWarmUp;
import io.tenantry.backup.DataKey;
import io.tenantry.backup.transfer.TransferHandler;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

/**
 * The agent of a backup or restore Job: the operator's image beside the database's, sharing a work
 * directory with the engine's script ({@code io.tenantry.backup.postgres.PostgresCommands}).
 *
 * <ul>
 *   <li>{@code backup}: opens a repeatable-read transaction, exports its snapshot for pg_dump and
 *       counts each table's rows in it; streams the dump from the FIFO through encryption to its
 *       one upload target, and completes the upload only if pg_dump exited 0 (otherwise the upload
 *       is cut short, which stores nothing).
 *   <li>{@code restore}: streams its one object from the download target through decryption into
 *       the FIFO pg_restore reads; then counts the restored rows and compares them with the
 *       backup's header. A corrupt object fails it even when pg_restore accepted a part. With
 *       {@code --replace DB --keep-as NAME}, the restored database (PGDATABASE, a side database)
 *       then takes DB's name, and DB is kept as NAME.
 * </ul>
 *
 * Both start by warming the cipher up ({@link CipherWarmUp}) on a thread of its own, and wait for it
 * before their stream: the agent's JVM lives for one stream, which otherwise ran mostly on AES-GCM
 * that C2 had not compiled yet.
 *
 * <p>Arguments are {@code --name value} pairs; the password is libpq's {@code PGPASSWORD}, the server
 * {@code PGHOST}, {@code PGPORT}, {@code PGDATABASE}, {@code PGUSER}. It ends with 0 only on
 * success, always after writing its {@link AgentReport} to {@code --report} (the container's
 * termination message, for people) and, for a backup, beside the object in the store (for the
 * operator). It never prints a key, a token or a password.
 */
public final class BackupAgent {

  private static final Duration SCRIPT_TIMEOUT = Duration.ofMinutes(5);
  private static final int BUFFER = 1 << 20;
  /**
   * 16 MiB read ahead between the FIFO and the transfer, both ways: pg_dump keeps writing while the
   * agent encrypts and sends a segment, and pg_restore keeps reading while it receives and decrypts one.
   */
  private static final int READ_AHEAD_CHUNK = 256 << 10;
  private static final int READ_AHEAD_CHUNKS = 64;
  private final Map<String, String> options;
  private final Map<String, String> env;

  BackupAgent(Map<String, String> options, Map<String, String> env) {
    this.options = options;
    this.env = env;
  }

  public static void main(String[] args) {
    System.exit(run(args, System.getenv()));
  }

  /** Runs one command; the exit code. */
  public static int run(String[] args, Map<String, String> env) {
    if (args.length == 0 || args.length % 2 == 0) {
      System.err.println("usage: backup-agent backup|restore --work DIR --key FILE --target FILE "
          + "--object-path PATH --report FILE");
      return 2;
    }
    Map<String, String> options = new HashMap<>();
    for (int i = 1; i < args.length; i += 2) {
      if (!args[i].startsWith("--")) {
        System.err.println("expected an option, got '" + args[i] + "'");
        return 2;
      }
      options.put(args[i].substring(2), args[i + 1]);
    }
    BackupAgent agent = new BackupAgent(options, env);
    AgentReport report = switch (args[0]) {
      case "backup" -> agent.backup();
      case "restore" -> agent.restore();
      default -> AgentReport.failed("usage", "unknown command '" + args[0] + "'");
    };
    try {
      Files.writeString(Path.of(agent.option("report")), report.toJson(), StandardCharsets.UTF_8);
    } catch (IOException | RuntimeException e) {
      System.err.println("cannot write the report: " + e.getMessage());
    }
    agent.send(report);
    System.err.println("backup-agent " + args[0] + ": " + report.outcome()
        + (report.error() == null ? "" : ": " + report.error()));
    return report.succeeded() ? 0 : 1;
  }

  AgentReport backup() {
    CompletableFuture<CipherWarmUp.Done> warmUp = CipherWarmUp.start();
    AgentFiles files = new AgentFiles(Path.of(option("work")));
    String objectPath = option("object-path");
    try (Connection db = connect()) {
      db.setAutoCommit(false);
      db.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
      db.setReadOnly(true);
      String snapshot = single(db, "SELECT pg_export_snapshot()");
      BackupHeader header = new BackupHeader("postgresql", single(db, "SHOW server_version"), TableCounts.count(db),
          Long.parseLong(single(db, "SELECT pg_database_size(current_database())")));
      files.writeAtomically("snapshot", snapshot);
      AgentReport report = upload(files, objectPath, header, warmUp);
      db.commit();
      if (report.succeeded() && options.containsKey("drop-replaced-before")) {
        dropReplaced(Instant.parse(option("drop-replaced-before")));
      }
      return report;
    } catch (SQLException e) {
      files.abort();
      return AgentReport.failed("dumpFailed", "cannot take the snapshot: " + e.getMessage());
    } catch (IOException | GeneralSecurityException | RuntimeException e) {
      files.abort();
      return AgentReport.failed("uploadFailed", e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return AgentReport.failed("uploadFailed", "interrupted");
    }
  }

  private AgentReport upload(AgentFiles files, String objectPath, BackupHeader header,
      Future<CipherWarmUp.Done> warmUp) throws IOException, GeneralSecurityException, InterruptedException {
    DataKey key = DataKey.fromCleartext(Files.readAllBytes(Path.of(option("key"))));
    try (InputStream dump = new ReadAheadInputStream(files.openFifoForReading("dump", SCRIPT_TIMEOUT),
        READ_AHEAD_CHUNK, READ_AHEAD_CHUNKS)) {
      await(warmUp); // pg_dump goes on into the read-ahead meanwhile
      HttpURLConnection upload = open(target());
      upload.setRequestMethod("PUT");
      upload.setDoOutput(true);
      upload.setChunkedStreamingMode(BUFFER);
      upload.setRequestProperty("Content-Type", "application/octet-stream");
      CountingStream sent;
      OutputStream encrypted;
      long plaintext;
      try {
        sent = new CountingStream(upload.getOutputStream());
        encrypted = BackupFormat.encrypting(sent, key, objectPath, header);
        plaintext = dump.transferTo(encrypted);
      } catch (IOException e) {
        dump.transferTo(OutputStream.nullOutputStream()); // pg_dump must not block on a full FIFO
        upload.disconnect();
        throw e;
      }
      OptionalInt exit = files.awaitExit("dump", SCRIPT_TIMEOUT);
      if (exit.isEmpty() || exit.getAsInt() != 0) {
        upload.disconnect(); // before the last chunk: the upload is cut short and stores nothing
        return AgentReport.failed("dumpFailed", exit.isEmpty() ? "pg_dump did not end within " + SCRIPT_TIMEOUT
            : "pg_dump exited with " + exit.getAsInt() + ": " + files.error("dump"));
      }
      encrypted.close();
      int status = upload.getResponseCode();
      if (status != 201) {
        return AgentReport.failed("uploadFailed", "the transfer endpoint answered " + status + ": " + body(upload));
      }
      return new AgentReport("uploaded", null, sent.bytes(), plaintext, sent.sha256(), sent.crc32c());
    }
  }

  /**
   * Sends the report to where its token says (beside a backup's object, or a restore's own), where
   * the operator reads it: it never reads pods. Best effort: without it the operator still judges a
   * backup by the store, only without the error's words, and a restore as one that did not run.
   */
  void send(AgentReport report) {
    try {
      HttpURLConnection put = open(URI.create(target() + TransferHandler.REPORT));
      put.setRequestMethod("PUT");
      put.setDoOutput(true);
      byte[] json = report.toJson().getBytes(StandardCharsets.UTF_8);
      put.setFixedLengthStreamingMode(json.length);
      put.setRequestProperty("Content-Type", "application/json");
      try (OutputStream out = put.getOutputStream()) {
        out.write(json);
      }
      int status = put.getResponseCode();
      if (status != 201) {
        System.err.println("the transfer endpoint refused the report: " + status + " " + body(put));
      }
    } catch (IOException | RuntimeException e) {
      System.err.println("cannot send the report: " + e.getMessage());
    }
  }

  AgentReport restore() {
    CompletableFuture<CipherWarmUp.Done> warmUp = CipherWarmUp.start();
    AgentFiles files = new AgentFiles(Path.of(option("work")));
    try {
      AgentReport report = restore(files, warmUp);
      if (!report.succeeded() && options.containsKey("replace")) {
        dropSideDatabase();
      }
      return report;
    } finally {
      files.done(); // a drill's scratch server may stop now
    }
  }

  /**
   * Drops the databases restores replaced ({@code <PGDATABASE>_before_<yyyymmddhhmmss>}, UTC) before
   * {@code cutoff}: the operator keeps them for {@code backups.keepReplacedFor}, and a backup is
   * when it next reaches the server. Best effort: one that will not drop is tried at the next backup.
   */
  private void dropReplaced(Instant cutoff) {
    String live = env("PGDATABASE");
    DateTimeFormatter stamp = DateTimeFormatter.ofPattern("yyyyMMddHHmmss").withZone(ZoneOffset.UTC);
    try (Connection db = connect(); Statement statement = db.createStatement();
        ResultSet names = statement.executeQuery("SELECT datname FROM pg_database")) {
      List<String> expired = new ArrayList<>();
      while (names.next()) {
        String name = names.getString(1);
        String prefix = live + "_before_";
        if (name.startsWith(prefix) && name.substring(prefix.length()).matches("[0-9]{14}")
            && Instant.from(stamp.parse(name.substring(prefix.length()))).isBefore(cutoff)) {
          expired.add(name);
        }
      }
      for (String name : expired) {
        statement.execute("DROP DATABASE " + quoted(name) + " WITH (FORCE)");
        System.err.println("backup-agent: dropped " + name + ", replaced by a restore before " + cutoff);
      }
    } catch (SQLException | RuntimeException e) {
      System.err.println("cannot drop the databases restores replaced: " + e.getMessage());
    }
  }

  /** Drops what a failed restore left of its side database (PGDATABASE); the live one was never touched. */
  private void dropSideDatabase() {
    try (Connection db = connect("postgres"); Statement statement = db.createStatement()) {
      statement.execute("DROP DATABASE IF EXISTS " + quoted(env("PGDATABASE")) + " WITH (FORCE)");
    } catch (SQLException | RuntimeException e) {
      System.err.println("cannot drop the side database: " + e.getMessage());
    }
  }

  private AgentReport restore(AgentFiles files, Future<CipherWarmUp.Done> warmUp) {
    String objectPath = option("object-path");
    try {
      DataKey key = DataKey.fromCleartext(Files.readAllBytes(Path.of(option("key"))));
      HttpURLConnection download = open(target());
      int status = download.getResponseCode();
      if (status != 200) {
        files.abort();
        return AgentReport.failed("restoreFailed", "the transfer endpoint answered " + status + ": " + body(download));
      }
      await(warmUp);
      CountingStream received = new CountingStream(OutputStream.nullOutputStream());
      InputStream counted = received.reading(download.getInputStream());
      BackupFormat.Opened opened;
      long plaintext;
      try (counted) {
        opened = BackupFormat.open(counted, key, objectPath);
        // Only now may pg_restore open the FIFO: it waits on it for a writer, and one that fails
        // before this point (the header does not decrypt) never comes; the script sees abort instead.
        files.writeAtomically("go", "");
        try (InputStream dump = new ReadAheadInputStream(opened.dump(), READ_AHEAD_CHUNK, READ_AHEAD_CHUNKS);
            OutputStream fifo = files.openFifoForWriting("restore", SCRIPT_TIMEOUT)) {
          plaintext = dump.transferTo(fifo);
        } catch (IOException e) {
          files.abort();
          return AgentReport.failed("corrupt", "the backup does not decrypt to its end: " + e.getMessage());
        }
      } catch (IOException e) {
        files.abort();
        return AgentReport.failed("corrupt", e.getMessage());
      }
      OptionalInt exit = files.awaitExit("restore", SCRIPT_TIMEOUT);
      if (exit.isEmpty() || exit.getAsInt() != 0) {
        return AgentReport.failed("restoreFailed", exit.isEmpty() ? "pg_restore did not end within " + SCRIPT_TIMEOUT
            : "pg_restore exited with " + exit.getAsInt() + ": " + files.error("restore"));
      }
      String differs = compareCounts(opened.header().tables());
      if (differs != null) {
        return AgentReport.failed("countsDiffer", differs);
      }
      if (options.containsKey("replace")) {
        swapIn(option("replace"), option("keep-as"));
      }
      return new AgentReport("restored", null, received.bytes(), plaintext, received.sha256(), received.crc32c());
    } catch (IOException | GeneralSecurityException | SQLException | RuntimeException e) {
      files.abort();
      return AgentReport.failed("restoreFailed", e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return AgentReport.failed("restoreFailed", "interrupted");
    }
  }

  /**
   * Swaps the restored database (PGDATABASE) in for {@code live}, which is renamed {@code keepAs},
   * in one transaction, after ending the sessions still on either (the tenant's apps are at zero).
   */
  private void swapIn(String live, String keepAs) throws SQLException {
    String restored = env("PGDATABASE");
    try (Connection db = connect("postgres")) {
      try (var terminate = db.prepareStatement("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
          + " WHERE datname IN (?, ?) AND pid <> pg_backend_pid()")) {
        terminate.setString(1, live);
        terminate.setString(2, restored);
        terminate.executeQuery().close();
      }
      db.setAutoCommit(false);
      try (Statement statement = db.createStatement()) {
        statement.execute("ALTER DATABASE " + quoted(live) + " RENAME TO " + quoted(keepAs));
        statement.execute("ALTER DATABASE " + quoted(restored) + " RENAME TO " + quoted(live));
      }
      db.commit();
    }
  }

  private static String quoted(String identifier) {
    return "\"" + identifier.replace("\"", "\"\"") + "\"";
  }

  /**
   * Waits for the cipher's warm-up (started when the command started) before the stream's first
   * segment, and logs what it did; it fails the command only if the cipher did not decrypt what it
   * encrypted.
   */
  private static void await(Future<CipherWarmUp.Done> warmUp) throws IOException, InterruptedException {
    try {
      System.err.println("backup-agent: " + warmUp.get());
    } catch (ExecutionException e) {
      throw e.getCause() instanceof IOException io ? io : new IOException("the cipher's warm-up failed", e.getCause());
    }
  }

  /** The first table whose restored row count differs from the backup's, or null. */
  private String compareCounts(Map<String, Long> expected) throws SQLException {
    try (Connection db = connect()) {
      Map<String, Long> restored = TableCounts.count(db);
      for (Map.Entry<String, Long> table : expected.entrySet()) {
        Long count = restored.get(table.getKey());
        if (!table.getValue().equals(count)) {
          return "table " + table.getKey() + " has " + count + " rows restored, " + table.getValue() + " in the backup";
        }
      }
      for (String table : restored.keySet()) {
        if (!expected.containsKey(table)) {
          return "table " + table + " is restored but not in the backup";
        }
      }
      return null;
    }
  }

  private Connection connect() throws SQLException {
    return connect(env("PGDATABASE"));
  }

  private Connection connect(String database) throws SQLException {
    Properties properties = new Properties();
    properties.setProperty("user", env("PGUSER"));
    properties.setProperty("password", env("PGPASSWORD"));
    properties.setProperty("ApplicationName", "tenantry-backup-agent");
    String url = "jdbc:postgresql://" + env("PGHOST") + ":" + env.getOrDefault("PGPORT", "5432") + "/"
        + java.net.URLEncoder.encode(database, StandardCharsets.UTF_8);
    return DriverManager.getConnection(url, properties);
  }

  private static String single(Connection db, String sql) throws SQLException {
    try (Statement statement = db.createStatement(); ResultSet rows = statement.executeQuery(sql)) {
      rows.next();
      return rows.getString(1);
    }
  }

  /**
   * A connection of its own, closed after its one request: a transfer never rides a pooled
   * connection that the endpoint (an operator replica since restarted) has dropped.
   */
  private static HttpURLConnection open(URI uri) throws IOException {
    HttpURLConnection connection = (HttpURLConnection) uri.toURL().openConnection();
    connection.setRequestProperty("Connection", "close");
    return connection;
  }

  private URI target() throws IOException {
    return URI.create(Files.readString(Path.of(option("target")), StandardCharsets.UTF_8).strip());
  }

  private static String body(HttpURLConnection connection) {
    try (InputStream error = connection.getErrorStream()) {
      return error == null ? "" : AgentReport.firstLine(new String(error.readNBytes(512), StandardCharsets.UTF_8));
    } catch (IOException e) {
      return e.toString();
    }
  }

  private String option(String name) {
    return Objects.requireNonNull(options.get(name), "missing option --" + name);
  }

  private String env(String name) {
    return Objects.requireNonNull(env.get(name), "missing environment variable " + name);
  }
}
