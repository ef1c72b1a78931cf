package io.tenantry.deploy.rollout;

import java.time.Instant;
import java.util.List;

/**
 * The rollout record: what was asked, the planned waves with each tenant's progress, the pools
 * that follow, and where it stands. Stored by {@link RolloutRecords}, so that a rollout survives
 * the tenantctl that ran it.
 *
 * @param clusters the clusters in rollout order; their waves and pools come in this order
 * @param runner the tenantctl running it now ({@link Runner#id()}), or null
 * @param heartbeatAt when that runner last said it is alive
 */
public record Rollout(String id, RolloutRequest request, RolloutState state, List<String> clusters, List<Wave> waves,
    List<PoolProgress> pools, Instant createdAt, Instant updatedAt, String message, String runner,
    Instant heartbeatAt) {

  public Rollout {
    clusters = List.copyOf(clusters);
    waves = List.copyOf(waves);
    pools = List.copyOf(pools);
  }

  public long tenants() {
    return waves.stream().mapToLong(w -> w.tenants().size()).sum();
  }

  public long count(TenantProgress.Step step) {
    return waves.stream().mapToLong(w -> w.count(step)).sum();
  }

  public long failures() {
    return count(TenantProgress.Step.FAILED);
  }

  /** The first wave not done, or null when every wave is. */
  public Wave currentWave() {
    return waves.stream().filter(w -> !w.done()).findFirst().orElse(null);
  }

  public Rollout withWave(Wave wave) {
    return new Rollout(id, request, state, clusters, waves.stream().map(w -> w.index() == wave.index() ? wave : w).toList(),
        pools, createdAt, updatedAt, message, runner, heartbeatAt);
  }

  public Rollout withPool(PoolProgress pool) {
    return new Rollout(id, request, state, clusters, waves, pools.stream()
        .map(p -> p.cluster().equals(pool.cluster()) && p.pool().equals(pool.pool()) ? pool : p).toList(),
        createdAt, updatedAt, message, runner, heartbeatAt);
  }
}
