package io.tenantry.controller.pool;

import io.tenantry.spares.fleet.FleetRecords;

/**
 * Reserves a spare's name before its Tenant is created. The API server keeps a name unique within
 * one cluster; across the fleet the fleet records do, so that two clusters never build spares of
 * one name (whose hostname claims, placements and purges would then meet under one name).
 */
@FunctionalInterface
public interface SpareNames {

  /** One cluster alone, without fleet records: its API server refuses a second Tenant of a name. */
  SpareNames CLUSTER_ONLY = name -> true;

  /**
   * Reserves {@code name} for this cluster; false when it is taken, and another name is drawn.
   * Failures (the records unavailable) are thrown, and the pool's sync retries.
   */
  boolean reserve(String name);

  /**
   * Names reserved in the fleet records for {@code cluster} ({@link FleetRecords#reserveName}); a
   * failure names the records, whose own message ("I/O error") does not.
   */
  static SpareNames fleet(FleetRecords records, String cluster) {
    return name -> {
      try {
        return records.reserveName(name, cluster);
      } catch (RuntimeException e) {
        throw new IllegalStateException("spare name " + name + " not reserved in the fleet records (Datastore): "
            + e.getMessage(), e);
      }
    };
  }
}
