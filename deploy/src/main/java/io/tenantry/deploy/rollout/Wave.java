package io.tenantry.deploy.rollout;

import java.util.List;

/**
 * Tenants of one cluster that roll together: the next wave starts only when each of them has
 * succeeded or failed.
 *
 * @param index 1-based position in the rollout
 */
public record Wave(int index, String cluster, List<TenantProgress> tenants) {

  public Wave {
    tenants = List.copyOf(tenants);
  }

  public boolean done() {
    return tenants.stream().allMatch(t -> t.step().done());
  }

  public boolean started() {
    return tenants.stream().anyMatch(t -> t.step() != TenantProgress.Step.PENDING);
  }

  public long count(TenantProgress.Step step) {
    return tenants.stream().filter(t -> t.step() == step).count();
  }

  public Wave with(TenantProgress progress) {
    return new Wave(index, cluster, tenants.stream()
        .map(t -> t.tenant().equals(progress.tenant()) ? progress : t).toList());
  }
}
