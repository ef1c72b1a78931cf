package io.tenantry.deploy.rollout;

/**
 * A SparePool whose template follows the rollout once its cluster's waves are done, so new spares
 * (and, through the operator, unallocated ones) run the new version.
 *
 * @param updated whether the pool's template now names the new version
 */
public record PoolProgress(String cluster, String pool, boolean updated) {

  public PoolProgress done() {
    return new PoolProgress(cluster, pool, true);
  }
}
