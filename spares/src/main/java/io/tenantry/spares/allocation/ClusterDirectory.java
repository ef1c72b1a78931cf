package io.tenantry.spares.allocation;

import static net.logstash.logback.argument.StructuredArguments.kv;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.tenantry.spares.fleet.Cluster;
import io.tenantry.spares.fleet.FleetRecords;
import io.tenantry.spares.fleet.KubeContexts;
import java.time.Clock;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Map.Entry;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fleet's clusters this process can allocate from: every cluster registered in the fleet
 * records whose kubeconfig context it knows, plus its own cluster (registered on first refresh
 * when missing). Clusters registered later are picked up by {@link #refresh()}; clusters removed
 * from the records are dropped.
 */
public final class ClusterDirectory implements SpareSources, AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ClusterDirectory.class);

  private final FleetRecords records;
  private final Cluster local;
  private final KubernetesClient localClient;
  private final KubeContexts contexts;
  private final BindListener onLocalBind;
  private final Map<String, SpareCluster> clusters = new ConcurrentSkipListMap<>();
  /** Registered clusters this process cannot reach, reported once each. */
  private final Map<String, String> unreachable = new java.util.concurrent.ConcurrentHashMap<>();

  /**
   * @param local this process's own cluster as it should be registered when it is not yet
   * @param localClient the client of that cluster (not closed by this directory)
   * @param contexts how to reach the other registered clusters
   * @param onLocalBind told of every spare of this process's own cluster it binds ({@link SpareCluster}):
   *     the operator writes the tenant's route from there; another cluster's operator routes its own
   */
  public ClusterDirectory(FleetRecords records, Cluster local, KubernetesClient localClient, KubeContexts contexts,
      BindListener onLocalBind) {
    this.records = records;
    this.local = local;
    this.localClient = localClient;
    this.contexts = contexts;
    this.onLocalBind = onLocalBind;
  }

  /** The record this process registers for its own cluster when the fleet lacks it. */
  public static Cluster localCluster(String name, String context, Clock clock) {
    return new Cluster(name, context, Map.of(), clock.instant());
  }

  /** Brings the set of clusters in line with the fleet records. */
  public synchronized void refresh() {
    List<Cluster> registered = records.listClusters();
    if (registered.stream().noneMatch(c -> c.name().equals(local.name()))) {
      registered = new java.util.ArrayList<>(registered);
      registered.add(records.registerCluster(local));
      LOG.info("registered this cluster in the fleet {} {}", kv("cluster", local.name()), kv("context", local.context()));
    }
    Set<String> names = registered.stream().map(Cluster::name).collect(Collectors.toSet());
    unreachable.keySet().retainAll(names);
    for (Entry<String, SpareCluster> entry : Map.copyOf(clusters).entrySet()) {
      if (!names.contains(entry.getKey())) {
        clusters.remove(entry.getKey()).close();
        LOG.info("cluster left the fleet {}", kv("cluster", entry.getKey()));
      }
    }
    for (Cluster cluster : registered) {
      if (clusters.containsKey(cluster.name())) {
        continue;
      }
      if (cluster.name().equals(local.name())) {
        clusters.put(cluster.name(), new SpareCluster(cluster.name(), localClient, false, onLocalBind));
      } else if (contexts.has(cluster.context())) {
        clusters.put(cluster.name(), new SpareCluster(cluster.name(), contexts.connect(cluster), true, BindListener.NONE));
        unreachable.remove(cluster.name());
        LOG.info("allocating from fleet cluster {} {}", kv("cluster", cluster.name()), kv("context", cluster.context()));
      } else if (!cluster.context().equals(unreachable.put(cluster.name(), cluster.context()))) {
        LOG.warn("fleet cluster has no kubeconfig context here; not allocating from it {} {}",
            kv("cluster", cluster.name()), kv("context", cluster.context()));
      }
    }
  }

  /** Whether every registered cluster is reachable from here (as of the last refresh). */
  @Override
  public boolean reachesAll() {
    return unreachable.isEmpty();
  }

  /** The reachable clusters, sorted by name. */
  @Override
  public Collection<SpareCluster> clusters() {
    return clusters.values();
  }

  @Override
  public Optional<SpareCluster> cluster(String name) {
    return Optional.ofNullable(clusters.get(name));
  }

  @Override
  public synchronized void close() {
    clusters.values().forEach(SpareCluster::close);
    clusters.clear();
  }
}
