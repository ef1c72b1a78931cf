package io.tenantry.spares.allocation;

import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;

/** {@link SpareSources} in memory, for unit tests: the clusters given, sorted by name. */
final class InMemorySpareSources implements SpareSources {

  private final Map<String, InMemorySpareCluster> clusters = new ConcurrentSkipListMap<>();
  private volatile boolean reachesAll = true;

  /** Adds a reachable cluster and returns it. */
  InMemorySpareCluster add(InMemorySpareCluster cluster) {
    clusters.put(cluster.name(), cluster);
    return cluster;
  }

  /** Whether some registered cluster is out of reach ({@code false}), as {@link ClusterDirectory} reports it. */
  void setReachesAll(boolean reachesAll) {
    this.reachesAll = reachesAll;
  }

  @Override
  public Collection<InMemorySpareCluster> clusters() {
    return clusters.values();
  }

  @Override
  public Optional<InMemorySpareCluster> cluster(String name) {
    return Optional.ofNullable(clusters.get(name));
  }

  @Override
  public boolean reachesAll() {
    return reachesAll;
  }
}
