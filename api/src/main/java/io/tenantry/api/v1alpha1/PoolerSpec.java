package io.tenantry.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.Objects;

/**
 * A PgBouncer in front of a PostgreSQL database: the apps' binding points at it, so many client
 * connections share a few server connections. Migration and backup Jobs keep a direct binding.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "self.defaultPoolSize <= self.maxClientConn",
    message = "spec.databases[].pooler.defaultPoolSize must be at most maxClientConn")
public class PoolerSpec {

  @Default("transaction")
  @JsonPropertyDescription("transaction (default): a server connection serves a client for one transaction, so session state"
      + " (SET, advisory locks, LISTEN, WITH HOLD cursors) does not survive it; the binding's jdbc-url then turns off"
      + " server-side prepared statements (prepareThreshold=0). session: for as long as the client stays connected.")
  private PoolerMode mode = PoolerMode.TRANSACTION;

  @Default("10")
  @Min(1)
  @Max(1000)
  @JsonPropertyDescription("Server connections per pooler pod to the database (PgBouncer's default_pool_size), 1 to 1000; default 10."
      + " With every pod's pool together they must fit the plan's pooler.maxServerConnections, or the pooler is refused.")
  private Integer defaultPoolSize = 10;

  @Default("100")
  @Min(1)
  @Max(10000)
  @JsonPropertyDescription("Client connections each pooler pod accepts (PgBouncer's max_client_conn), 1 to 10000; default 100.")
  private Integer maxClientConn = 100;

  @Default("1")
  @Min(1)
  @Max(10)
  @JsonPropertyDescription("Pooler pods, 1 to 10; default 1. The plan's server connection budget is split between them.")
  private Integer replicas = 1;

  public PoolerSpec() {
  }

  public PoolerSpec(PoolerMode mode, Integer defaultPoolSize, Integer maxClientConn, Integer replicas) {
    this.mode = mode;
    this.defaultPoolSize = defaultPoolSize;
    this.maxClientConn = maxClientConn;
    this.replicas = replicas;
  }

  public PoolerMode getMode() {
    return mode;
  }

  public void setMode(PoolerMode mode) {
    this.mode = mode;
  }

  public Integer getDefaultPoolSize() {
    return defaultPoolSize;
  }

  public void setDefaultPoolSize(Integer defaultPoolSize) {
    this.defaultPoolSize = defaultPoolSize;
  }

  public Integer getMaxClientConn() {
    return maxClientConn;
  }

  public void setMaxClientConn(Integer maxClientConn) {
    this.maxClientConn = maxClientConn;
  }

  public Integer getReplicas() {
    return replicas;
  }

  public void setReplicas(Integer replicas) {
    this.replicas = replicas;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PoolerSpec p && mode == p.mode && Objects.equals(defaultPoolSize, p.defaultPoolSize)
        && Objects.equals(maxClientConn, p.maxClientConn) && Objects.equals(replicas, p.replicas);
  }

  @Override
  public int hashCode() {
    return Objects.hash(mode, defaultPoolSize, maxClientConn, replicas);
  }
}
