package io.tenantry.controller.pooling;

import io.tenantry.api.v1alpha1.PoolerMode;
import io.tenantry.api.v1alpha1.PoolerSpec;
import io.tenantry.controller.binding.ServiceBinding;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The two files PgBouncer reads for one database's pooler: {@link #ini} and {@link #userlist}.
 * A tenant's database has one user, so the userlist holds that user's password in plain text:
 * PgBouncer checks a client's SCRAM exchange against it and logs in to the server with SCRAM
 * itself, with no {@code auth_query} function in the database.
 *
 * <p>The settings target the pinned image, PgBouncer 1.21 or newer; {@link #without} and
 * {@link #LACKED_BY_1_18} give what an older PgBouncer accepts, which refuses to start on a
 * setting it does not know.
 *
 * @param database the logical database clients name, also the server's
 * @param settings the {@code [pgbouncer]} section, in order
 */
public record PgBouncerConfig(String database, String serverHost, int serverPort, Map<String, String> settings,
    String username, String password) {

  /** Where the pooler listens: PostgreSQL's own port, so a client that names the port works the same behind the pooler. */
  public static final int PORT = 5432;
  public static final String DIRECTORY = "/etc/pgbouncer";
  public static final String INI = "pgbouncer.ini";
  public static final String USERLIST = "userlist.txt";
  /** The settings of {@link #of} that PgBouncer 1.18 (Debian 12's package) does not know: protocol-level prepared statements came in 1.21. */
  public static final List<String> LACKED_BY_1_18 = List.of("max_prepared_statements");
  /** Prepared statements PgBouncer 1.21+ keeps per server connection, so drivers' named statements survive transaction pooling. */
  static final int MAX_PREPARED_STATEMENTS = 200;

  public PgBouncerConfig {
    settings = Collections.unmodifiableMap(new LinkedHashMap<>(settings));
    settings.forEach((key, value) -> requireOneLine(key, value));
    requireOneLine("database", database);
    requireOneLine("serverHost", serverHost);
    requireOneLine("username", username);
    requireOneLine("password", password);
  }

  /**
   * The pooler of the database {@code server} reaches (its direct binding: host, port, user,
   * password, logical database), each pod opening at most {@code maxDbConnections} to it.
   */
  public static PgBouncerConfig of(ServiceBinding server, PoolerSpec pooler, int maxDbConnections) {
    Map<String, String> settings = new LinkedHashMap<>();
    // "*": every address, IPv4 and IPv6, as a pod on a single-stack IPv6 cluster has no 0.0.0.0.
    settings.put("listen_addr", "*");
    settings.put("listen_port", Integer.toString(PORT));
    // No Unix socket: nothing local connects, and the root filesystem is read-only.
    settings.put("unix_socket_dir", "");
    settings.put("auth_type", "scram-sha-256");
    settings.put("auth_file", DIRECTORY + "/" + USERLIST);
    settings.put("pool_mode", pooler.getMode().name().toLowerCase(Locale.ROOT));
    settings.put("default_pool_size", Integer.toString(pooler.getDefaultPoolSize()));
    // No reserve pool: a pod never opens more than default_pool_size, the number the budget counts.
    settings.put("reserve_pool_size", "0");
    settings.put("max_client_conn", Integer.toString(pooler.getMaxClientConn()));
    settings.put("max_db_connections", Integer.toString(maxDbConnections));
    // pgjdbc sends extra_float_digits at startup; PgBouncer refuses a client with an unknown startup parameter.
    settings.put("ignore_startup_parameters", "extra_float_digits");
    if (pooler.getMode() == PoolerMode.TRANSACTION) {
      settings.put("max_prepared_statements", Integer.toString(MAX_PREPARED_STATEMENTS));
    }
    return new PgBouncerConfig(server.database(), server.host(), server.port(), settings, server.username(), server.password());
  }

  /** {@code pgbouncer.ini}: the one database, then the settings. It holds no password. */
  public String ini() {
    StringBuilder ini = new StringBuilder();
    ini.append(";; Rendered by the Tenantry operator from spec.databases[].pooler.\n");
    ini.append("[databases]\n");
    ini.append(database).append(" = host=").append(serverHost).append(" port=").append(serverPort)
        .append(" dbname=").append(database).append('\n');
    ini.append("\n[pgbouncer]\n");
    settings.forEach((key, value) -> ini.append(key).append(" = ").append(value).append('\n'));
    return ini.toString();
  }

  /** {@code userlist.txt}: the user and the password, each in double quotes (a quote in them doubled). */
  public String userlist() {
    return quoted(username) + " " + quoted(password) + "\n";
  }

  /** This configuration with {@code key} set to {@code value} (in place when it is there, last otherwise). */
  public PgBouncerConfig with(String key, String value) {
    Map<String, String> changed = new LinkedHashMap<>(settings);
    changed.put(key, value);
    return new PgBouncerConfig(database, serverHost, serverPort, changed, username, password);
  }

  /** This configuration reaching the server at {@code host} and {@code port}. */
  public PgBouncerConfig withServer(String host, int port) {
    return new PgBouncerConfig(database, host, port, settings, username, password);
  }

  /** This configuration without the settings {@code keys} (each then at PgBouncer's default). */
  public PgBouncerConfig without(Collection<String> keys) {
    Map<String, String> kept = new LinkedHashMap<>(settings);
    kept.keySet().removeAll(keys);
    return new PgBouncerConfig(database, serverHost, serverPort, kept, username, password);
  }

  private static String quoted(String value) {
    return "\"" + value.replace("\"", "\"\"") + "\"";
  }

  /** A line break would end the setting and let the rest be read as another. */
  private static void requireOneLine(String what, String value) {
    if (value == null || value.indexOf('\n') >= 0 || value.indexOf('\r') >= 0 || value.indexOf('\0') >= 0) {
      throw new IllegalArgumentException("pgbouncer " + what + ": must be present, on one line, without NUL");
    }
  }

  @Override
  public String toString() {
    return "PgBouncerConfig[database=" + database + ", server=" + serverHost + ":" + serverPort + ", settings=" + settings
        + ", username=" + username + "]"; // never the password
  }
}
