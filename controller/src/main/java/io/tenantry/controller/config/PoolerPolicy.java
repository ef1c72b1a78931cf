package io.tenantry.controller.config;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.List;

/**
 * What a plan lets the poolers of one database (spec.databases[].pooler) open on its server: all
 * their pods together at most {@code maxServerConnections}, split evenly between them. Immutable.
 */
public record PoolerPolicy(
    @JsonPropertyDescription("Server connections all pooler pods of one database may open together, split evenly between"
        + " them (each pod's max_db_connections); a pooler whose pool does not fit its share is refused. Default 40.")
    Integer maxServerConnections,
    @JsonPropertyDescription("max_connections of the plan's PostgreSQL servers, set on each (-c max_connections; a change restarts"
        + " them); absent: none is set and the servers keep PostgreSQL's default, 100. The poolers' budget is checked against it.")
    Integer serverMaxConnections) {

  static final int DEFAULT_MAX_SERVER_CONNECTIONS = 40;
  /** PostgreSQL's own max_connections, which a server runs with when the plan sets none. */
  public static final int POSTGRES_DEFAULT_MAX_CONNECTIONS = 100;
  public static final PoolerPolicy DEFAULT = new PoolerPolicy(DEFAULT_MAX_SERVER_CONNECTIONS, null);

  public PoolerPolicy {
    maxServerConnections = maxServerConnections == null ? Integer.valueOf(DEFAULT_MAX_SERVER_CONNECTIONS) : maxServerConnections;
  }

  /** The max_connections the plan's servers run with: the plan's, else PostgreSQL's default. */
  public int serverConnections() {
    return serverMaxConnections == null ? POSTGRES_DEFAULT_MAX_CONNECTIONS : serverMaxConnections;
  }

  void validate(String path, List<String> errors) {
    if (maxServerConnections < 1) {
      errors.add(path + ".maxServerConnections: must be at least 1");
    }
    if (serverMaxConnections != null && (serverMaxConnections < 20 || serverMaxConnections > 10_000)) {
      errors.add(path + ".serverMaxConnections: must be between 20 and 10000");
    }
  }
}
