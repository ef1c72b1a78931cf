package io.tenantry.controller.pooling;

import io.tenantry.api.v1alpha1.PoolerSpec;

/**
 * Whether a pooler fits its database's connections. The plan gives every database's poolers
 * together {@code maxServerConnections}, split evenly between the pods: each may open
 * {@code floor(maxServerConnections / replicas)} ({@code max_db_connections}), and its pool must
 * fit that. All pods' pools together must also leave the server {@link #RESERVED} connections of
 * its {@code max_connections}: migrations and backups reach the database directly, and PostgreSQL
 * keeps some for its superuser. A pooler that does not fit is refused, never shrunk: a smaller pool
 * than asked for would show up as latency, not as an error.
 */
public final class PoolerBudget {

  /** Server connections left to what bypasses the pooler: migration Jobs, backups and drills, PostgreSQL's superuser. */
  public static final int RESERVED = 10;

  private PoolerBudget() {
  }

  /** What {@link #check} found. */
  public sealed interface Outcome {
  }

  /** The pooler fits; each pod gets {@code maxDbConnections}. */
  public record Fits(int maxDbConnections) implements Outcome {
  }

  /** The pooler does not fit; {@code field} is the spec field to change, {@code message} says why in numbers. */
  public record Refused(String field, String message) implements Outcome {
  }

  /**
   * @param path the pooler's path in the spec, for example {@code spec.databases[0].pooler}
   * @param maxServerConnections what the plan gives this database's poolers together
   * @param serverMaxConnections the database's {@code max_connections}
   */
  public static Outcome check(String path, PoolerSpec pooler, int maxServerConnections, int serverMaxConnections) {
    int replicas = pooler.getReplicas();
    int pool = pooler.getDefaultPoolSize();
    int perPod = maxServerConnections / replicas;
    if (perPod < 1) {
      return new Refused(path + ".replicas", replicas + " pooler pods cannot share the plan's " + maxServerConnections
          + " server connections (pooler.maxServerConnections): at most " + maxServerConnections + " pods");
    }
    if (pool > perPod) {
      return new Refused(path + ".defaultPoolSize", "a pool of " + pool + " is larger than the " + perPod
          + " server connections each of " + replicas + " pooler pods may open (the plan's pooler.maxServerConnections "
          + maxServerConnections + " split between them)");
    }
    int available = serverMaxConnections - RESERVED;
    if ((long) pool * replicas > available) {
      return new Refused(path + ".defaultPoolSize", replicas + " pooler pods with a pool of " + pool + " would open "
          + (long) pool * replicas + " server connections, more than the database's max_connections " + serverMaxConnections
          + " minus " + RESERVED + " kept for migrations, backups and the superuser");
    }
    return new Fits(perPod);
  }
}
