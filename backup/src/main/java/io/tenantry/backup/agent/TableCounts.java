package io.tenantry.backup.agent;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Rows per table of a PostgreSQL database, in the connection's current transaction. */
final class TableCounts {

  private static final String TABLES = """
      SELECT quote_ident(n.nspname) || '.' || quote_ident(c.relname)
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind IN ('r', 'p') AND n.nspname <> 'information_schema'
        AND n.nspname NOT LIKE 'pg\\_%'
      ORDER BY 1""";

  private TableCounts() {
  }

  static Map<String, Long> count(Connection connection) throws SQLException {
    Map<String, Long> counts = new TreeMap<>();
    try (Statement statement = connection.createStatement()) {
      List<String> tables = new ArrayList<>();
      try (ResultSet rows = statement.executeQuery(TABLES)) {
        while (rows.next()) {
          tables.add(rows.getString(1));
        }
      }
      for (String table : tables) {
        // The names come from quote_ident: safe to splice.
        try (ResultSet rows = statement.executeQuery("SELECT count(*) FROM " + table)) {
          rows.next();
          counts.put(table, rows.getLong(1));
        }
      }
    }
    return counts;
  }
}
