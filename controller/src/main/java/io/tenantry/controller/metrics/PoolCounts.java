package io.tenantry.controller.metrics;

import io.tenantry.api.v1alpha1.SparePool;
import io.tenantry.api.v1alpha1.SparePoolStatus;

/**
 * Pure: one SparePool's spares as {@code kubectl get sparepools} shows them: the buffer asked for,
 * and the ready, provisioning and allocated counts of the pool's status (the SparePool controller
 * counts them; taking its figures keeps the metrics and kubectl in agreement). A pool without a
 * status yet has none of each.
 */
public record PoolCounts(String pool, int buffer, int ready, int provisioning, int allocated) {

  public static PoolCounts of(SparePool pool) {
    SparePoolStatus status = pool.getStatus() == null ? new SparePoolStatus() : pool.getStatus();
    int buffer = pool.getSpec() == null ? 0 : orZero(pool.getSpec().getBuffer());
    return new PoolCounts(pool.getMetadata().getName(), buffer, orZero(status.getReady()), orZero(status.getProvisioning()),
        orZero(status.getAllocated()));
  }

  private static int orZero(Integer value) {
    return value == null ? 0 : value;
  }
}
