package io.tenantry.spares.allocation;

import java.util.Collection;
import java.util.Optional;

/**
 * The clusters the {@link Allocator} may take spares from. {@link ClusterDirectory} is the
 * implementation that follows the fleet records.
 *
 * <p>Guarantees of every implementation: {@link #clusters()} lists each reachable cluster once,
 * sorted by name, and {@link #cluster} finds exactly those.
 */
public interface SpareSources {

  /** The reachable clusters, sorted by name. */
  Collection<? extends SpareSource> clusters();

  /** The reachable cluster of that name, if any. */
  Optional<? extends SpareSource> cluster(String name);

  /**
   * Whether every cluster registered in the fleet is reachable from here; when not, a request id
   * may have been served from one out of reach, and only the fleet records can tell.
   */
  boolean reachesAll();
}
