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
    Integer maxServerConnections) {

  static final int DEFAULT_MAX_SERVER_CONNECTIONS = 40;
  public static final PoolerPolicy DEFAULT = new PoolerPolicy(DEFAULT_MAX_SERVER_CONNECTIONS);

  public PoolerPolicy {
    maxServerConnections = maxServerConnections == null ? Integer.valueOf(DEFAULT_MAX_SERVER_CONNECTIONS) : maxServerConnections;
  }

  void validate(String path, List<String> errors) {
    if (maxServerConnections < 1) {
      errors.add(path + ".maxServerConnections: must be at least 1");
    }
  }
}
