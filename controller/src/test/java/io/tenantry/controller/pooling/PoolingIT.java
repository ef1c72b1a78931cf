package io.tenantry.controller.pooling;

import static org.assertj.core.api.Assertions.assertThat;

import io.tenantry.api.v1alpha1.PoolerMode;
import io.tenantry.api.v1alpha1.PoolerSpec;
import io.tenantry.controller.resources.DatabaseCredentials;
import io.tenantry.controller.resources.TenantContext;
import io.tenantry.testsupport.RealPostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The pooler with no cluster: the real PgBouncer started from the files the operator renders for
 * a tenant (listen address, port and userlist path changed for this machine, the server at a real
 * PostgreSQL on loopback), and pgjdbc clients through the app's binding. PgBouncer 1.18 (Debian
 * 12's, the one tools/build-test-binaries.sh installs) refuses to start on settings it does not
 * know: the test drops {@link PgBouncerConfig#LACKED_BY_1_18} (max_prepared_statements) for it,
 * and keeps every setting on 1.21 or newer.
 */
class PoolingIT {

  private static final String PASSWORD = "pooled \"tenant\" pw";
  private static final String SAMPLER_PASSWORD = "sampler-pw";
  private static final int CLIENTS = 50;
  private static final int POOL = 10;
  private static final DatabaseCredentials CREDENTIALS = new DatabaseCredentials("tenant", PASSWORD, "1", "hash-1");

  private static RealPostgres postgres;
  private static boolean tracksPreparedStatements;
  private TenantContext ctx;
  private PgBouncerProcess pgbouncer;

  @BeforeAll
  static void startPostgres() throws Exception {
    int[] version = PgBouncerProcess.version();
    tracksPreparedStatements = version[0] > 1 || version[1] >= 21;
    postgres = RealPostgres.start("tenant", PASSWORD, "tenant");
    try (Connection c = direct("tenant", PASSWORD); Statement s = c.createStatement()) {
      // The sampler has a user of its own, so that it never counts itself among the tenant's connections,
      // allowed to see every backend's type: the tenant's user, the bootstrap superuser as in the
      // database image, also names PostgreSQL's logical replication launcher, which is no connection.
      s.execute("CREATE ROLE sampler LOGIN PASSWORD '" + SAMPLER_PASSWORD + "' IN ROLE pg_read_all_stats");
      s.execute("CREATE TABLE hits (run text NOT NULL, client int NOT NULL, n int NOT NULL)");
    }
  }

  @AfterAll
  static void stopPostgres() {
    if (postgres != null) {
      postgres.close();
    }
  }

  @BeforeEach
  void startPooler() throws Exception {
    PoolerSpec pooler = new PoolerSpec(PoolerMode.TRANSACTION, POOL, 100, 1);
    ctx = PoolerModelTest.context(pooler);
    // The standard plan's budget against PostgreSQL's default max_connections (100), the test server's.
    PoolerBudget.Outcome budget = PoolerBudget.check("spec.databases[0].pooler", pooler,
        ctx.plan().pooler().maxServerConnections(), 100);
    assertThat(budget).isEqualTo(new PoolerBudget.Fits(40));
    PgBouncerConfig config = PoolerModel.config(ctx, PoolerModelTest.main(ctx), CREDENTIALS, 40)
        .withServer(postgres.host(), postgres.port());
    pgbouncer = PgBouncerProcess.start(tracksPreparedStatements ? config : config.without(PgBouncerConfig.LACKED_BY_1_18));
  }

  @AfterEach
  void stopPooler() throws Exception {
    if (pgbouncer != null) {
      pgbouncer.close();
    }
  }

  @Test
  void fiftyClientsThroughTheBindingRunTenThousandTransactionsOnAtMostThePoolsServerConnections() throws Exception {
    Map<String, String> binding = PoolerBinding.entries(ctx, PoolerModelTest.main(ctx), CREDENTIALS);
    assertThat(binding.get("jdbc-url")).endsWith("?prepareThreshold=0");
    AtomicInteger mostSeen = new AtomicInteger();
    AtomicInteger samples = new AtomicInteger();
    AtomicBoolean done = new AtomicBoolean();
    Thread sampler = new Thread(() -> sample(mostSeen, samples, done), "pg_stat_activity-sampler");
    sampler.start();
    Queue<String> errors;
    try {
      errors = run("binding", local(binding.get("jdbc-url")), binding, 200);
    } finally {
      done.set(true);
      sampler.join();
    }
    System.out.printf("PoolingIT: %d transactions, %d errors, at most %d server connections in %d samples%n",
        rows("binding"), errors.size(), mostSeen.get(), samples.get());
    assertThat(errors).as("errors, PgBouncer's log:\n%s", pgbouncer.log()).isEmpty();
    assertThat(rows("binding")).isEqualTo(CLIENTS * 200);
    assertThat(samples.get()).as("samples of pg_stat_activity").isGreaterThan(10);
    assertThat(mostSeen.get()).as("the tenant user's server connections at most, sampled").isBetween(1, POOL);
  }

  @Test
  void theDriversDefaultPreparedStatementsShowWhyTheBindingTurnsThemOff() throws Exception {
    Map<String, String> binding = PoolerBinding.entries(ctx, PoolerModelTest.main(ctx), CREDENTIALS);
    String defaults = local(binding.get("jdbc-url")).replace("?prepareThreshold=0", "");
    assertThat(defaults).doesNotContain("prepareThreshold");
    Queue<String> errors = run("defaults", defaults, binding, 40);
    System.out.printf("PoolingIT: default prepared statements, %d errors (statements and rollbacks) in %d transactions%n",
        errors.size(), CLIENTS * 40);
    if (tracksPreparedStatements) {
      // 1.21+ with max_prepared_statements keeps each client's statements across server connections.
      assertThat(errors).as("errors on PgBouncer with max_prepared_statements").isEmpty();
    } else {
      // pgjdbc names a statement after its 5th use (prepareThreshold=5) on whichever server connection
      // the transaction got; the next transaction may get another, where that name is unknown or taken.
      assertThat(errors).as("errors on PgBouncer 1.18 without prepareThreshold=0")
          .anySatisfy(e -> assertThat(e).containsPattern("prepared statement \"S_\\d+\" (does not exist|already exists)"));
    }
  }

  /**
   * {@code CLIENTS} clients, each with one connection to {@code url} as the binding's user, all
   * connected before any begins, each running {@code transactions} transactions: an insert, then
   * a count that must see it (both on the one server connection the transaction holds).
   */
  private Queue<String> run(String run, String url, Map<String, String> binding, int transactions) throws Exception {
    Queue<String> errors = new ConcurrentLinkedQueue<>();
    CountDownLatch connected = new CountDownLatch(CLIENTS);
    ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
    try {
      List<Future<?>> clients = new ArrayList<>();
      for (int i = 0; i < CLIENTS; i++) {
        int client = i;
        clients.add(pool.submit(() -> {
          try (Connection c = DriverManager.getConnection(url, binding.get("username"), binding.get("password"))) {
            connected.countDown();
            connected.await(1, TimeUnit.MINUTES);
            c.setAutoCommit(false);
            for (int n = 0; n < transactions; n++) {
              transaction(c, run, client, n, errors);
            }
          }
          return null;
        }));
      }
      for (Future<?> client : clients) {
        client.get(3, TimeUnit.MINUTES);
      }
    } finally {
      pool.shutdownNow();
    }
    return errors;
  }

  private static void transaction(Connection c, String run, int client, int n, Queue<String> errors) {
    try (PreparedStatement insert = c.prepareStatement("INSERT INTO hits (run, client, n) VALUES (?, ?, ?)");
        PreparedStatement count = c.prepareStatement("SELECT count(*) FROM hits WHERE run = ? AND client = ? AND n = ?")) {
      insert.setString(1, run);
      insert.setInt(2, client);
      insert.setInt(3, n);
      insert.executeUpdate();
      count.setString(1, run);
      count.setInt(2, client);
      count.setInt(3, n);
      try (ResultSet rs = count.executeQuery()) {
        rs.next();
        if (rs.getInt(1) != 1) {
          errors.add("client " + client + " transaction " + n + " saw " + rs.getInt(1) + " rows of its own insert");
        }
      }
      c.commit();
    } catch (SQLException e) {
      errors.add(e.getMessage());
      rollback(c, errors);
    }
  }

  private static void rollback(Connection c, Queue<String> errors) {
    try {
      c.rollback();
    } catch (SQLException e) {
      errors.add("rollback: " + e.getMessage());
    }
  }

  /** Until {@code done}: the tenant user's connections as the server sees them, through a direct connection of another user. */
  private static void sample(AtomicInteger mostSeen, AtomicInteger samples, AtomicBoolean done) {
    try (Connection c = direct("sampler", SAMPLER_PASSWORD);
        PreparedStatement count = c.prepareStatement(
            "SELECT count(*) FROM pg_stat_activity WHERE usename = 'tenant' AND backend_type = 'client backend'")) {
      while (!done.get()) {
        try (ResultSet rs = count.executeQuery()) {
          rs.next();
          mostSeen.accumulateAndGet(rs.getInt(1), Math::max);
          samples.incrementAndGet();
        }
        Thread.sleep(5);
      }
    } catch (SQLException | InterruptedException e) {
      throw new IllegalStateException("the sampler stopped", e);
    }
  }

  /** The binding's JDBC URL with the pooler's Service replaced by the local PgBouncer; the rest as the binding has it. */
  private String local(String jdbcUrl) {
    String service = "//" + PoolerModel.host(ctx, PoolerModelTest.main(ctx)) + ":" + PgBouncerConfig.PORT + "/";
    assertThat(jdbcUrl).contains(service);
    return jdbcUrl.replace(service, "//" + PgBouncerProcess.HOST + ":" + pgbouncer.port() + "/");
  }

  private static int rows(String run) throws SQLException {
    try (Connection c = direct("tenant", PASSWORD);
        PreparedStatement count = c.prepareStatement("SELECT count(*) FROM hits WHERE run = ?")) {
      count.setString(1, run);
      try (ResultSet rs = count.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }

  private static Connection direct(String user, String password) throws SQLException {
    return DriverManager.getConnection("jdbc:postgresql://" + postgres.host() + ":" + postgres.port() + "/tenant", user, password);
  }
}
