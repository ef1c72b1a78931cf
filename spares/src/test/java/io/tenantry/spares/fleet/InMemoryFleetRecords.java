package io.tenantry.spares.fleet;

import com.google.cloud.datastore.DatastoreException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@link FleetRecords} in memory, for unit tests: the same guarantees, validations and refusals as
 * {@link DatastoreFleetRecords}, with every method atomic under one lock. It can be made
 * unavailable, when every call throws the {@link DatastoreException} an outage would, and it
 * counts the allocation lookups, which the signup path should make only when it must.
 */
public final class InMemoryFleetRecords implements FleetRecords {

  /** Where a tenant is placed and, once allocated, the request id that holds it. */
  private record Placement(String cluster, String requestId) {
  }

  private final Map<String, Cluster> clusters = new TreeMap<>();
  private final Map<String, Placement> placements = new TreeMap<>();
  private final Map<String, Allocation> allocations = new HashMap<>();
  /** By hostname, so a tenant's claims come out sorted. */
  private final Map<String, HostnameClaim> hostnames = new TreeMap<>();
  private final AtomicInteger allocationLookups = new AtomicInteger();
  private volatile boolean available = true;

  /** Makes every later call fail as during a Datastore outage ({@code false}), or work again. */
  public void setAvailable(boolean available) {
    this.available = available;
  }

  /** How many times {@link #findAllocation} was called. */
  public int allocationLookups() {
    return allocationLookups.get();
  }

  @Override
  public synchronized Cluster registerCluster(Cluster cluster) {
    requireNonNull("cluster", cluster);
    requireAvailable();
    Cluster existing = clusters.get(cluster.name());
    // Re-registering updates how to reach the cluster, not when it joined the fleet.
    Cluster stored = existing == null ? cluster
        : new Cluster(cluster.name(), cluster.context(), cluster.labels(), existing.registeredAt());
    clusters.put(stored.name(), stored);
    return stored;
  }

  @Override
  public synchronized List<Cluster> listClusters() {
    requireAvailable();
    return List.copyOf(clusters.values());
  }

  @Override
  public synchronized Optional<Cluster> getCluster(String name) {
    FleetNames.requireDnsLabel("cluster", name);
    requireAvailable();
    return Optional.ofNullable(clusters.get(name));
  }

  @Override
  public synchronized boolean removeCluster(String name) {
    FleetNames.requireDnsLabel("cluster", name);
    List<String> placed = tenantsOn(name);
    if (!placed.isEmpty()) {
      throw new FleetConflictException("cluster", "cluster " + name + " still holds " + placed.size()
          + " tenant(s), such as " + placed.get(0) + "; move or purge them first");
    }
    return clusters.remove(name) != null;
  }

  @Override
  public synchronized void placeTenant(String tenant, String cluster) {
    FleetNames.requireDnsLabel("tenant", tenant);
    FleetNames.requireDnsLabel("cluster", cluster);
    requireAvailable();
    requireRegistered(cluster);
    Placement existing = placements.get(tenant);
    // A move keeps the request id: the tenant is still that signup's tenant.
    placements.put(tenant, new Placement(cluster, existing == null ? null : existing.requestId()));
  }

  @Override
  public synchronized Optional<String> placement(String tenant) {
    FleetNames.requireDnsLabel("tenant", tenant);
    requireAvailable();
    return Optional.ofNullable(placements.get(tenant)).map(Placement::cluster);
  }

  @Override
  public synchronized List<String> tenantsOn(String cluster) {
    FleetNames.requireDnsLabel("cluster", cluster);
    requireAvailable();
    List<String> tenants = new ArrayList<>();
    placements.forEach((tenant, placement) -> {
      if (placement.cluster().equals(cluster)) {
        tenants.add(tenant);
      }
    });
    return tenants;
  }

  @Override
  public synchronized Optional<Allocation> findAllocation(String requestId) {
    FleetNames.requireRequestId(requestId);
    allocationLookups.incrementAndGet();
    requireAvailable();
    return Optional.ofNullable(allocations.get(requestId));
  }

  @Override
  public synchronized Allocation recordAllocation(Allocation allocation) {
    requireNonNull("allocation", allocation);
    requireAvailable();
    Allocation existing = allocations.get(allocation.requestId());
    if (existing != null) {
      // A retry of the request: the first record wins, whatever the retry proposed.
      return existing;
    }
    requireRegistered(allocation.cluster());
    Placement placement = placements.get(allocation.tenant());
    if (placement != null && placement.requestId() != null) {
      throw new FleetConflictException("tenant", "tenant " + allocation.tenant()
          + " is already allocated to request " + placement.requestId());
    }
    if (placement != null && !placement.cluster().equals(allocation.cluster())) {
      throw new FleetConflictException("cluster", "tenant " + allocation.tenant() + " is placed on cluster "
          + placement.cluster() + ", not " + allocation.cluster());
    }
    allocations.put(allocation.requestId(), allocation);
    placements.put(allocation.tenant(), new Placement(allocation.cluster(), allocation.requestId()));
    return allocation;
  }

  @Override
  public synchronized Optional<Allocation> findAllocationByTenant(String tenant) {
    FleetNames.requireDnsLabel("tenant", tenant);
    requireAvailable();
    Placement placement = placements.get(tenant);
    return placement == null || placement.requestId() == null ? Optional.empty()
        : Optional.ofNullable(allocations.get(placement.requestId()));
  }

  @Override
  public synchronized boolean purgeTenant(String tenant) {
    FleetNames.requireDnsLabel("tenant", tenant);
    requireAvailable();
    boolean claimsRemoved = hostnames.values().removeIf(claim -> claim.tenant().equals(tenant));
    Placement placement = placements.remove(tenant);
    if (placement != null && placement.requestId() != null) {
      allocations.remove(placement.requestId());
    }
    return claimsRemoved || placement != null;
  }

  @Override
  public synchronized HostnameClaim claimHostname(String hostname, String tenant, String cluster) {
    FleetNames.requireHostname("hostname", hostname);
    FleetNames.requireDnsLabel("tenant", tenant);
    FleetNames.requireDnsLabel("cluster", cluster);
    requireAvailable();
    // Held already, by this tenant or another: the stored claim stands either way.
    return hostnames.computeIfAbsent(hostname, name -> new HostnameClaim(name, tenant, cluster, Instant.now()));
  }

  @Override
  public synchronized List<HostnameClaim> hostnamesOf(String tenant) {
    FleetNames.requireDnsLabel("tenant", tenant);
    requireAvailable();
    return hostnames.values().stream().filter(claim -> claim.tenant().equals(tenant)).toList();
  }

  @Override
  public synchronized Optional<HostnameClaim> hostnameHolder(String hostname) {
    FleetNames.requireHostname("hostname", hostname);
    requireAvailable();
    return Optional.ofNullable(hostnames.get(hostname));
  }

  @Override
  public synchronized int releaseHostnames(String tenant, Collection<String> keep) {
    FleetNames.requireDnsLabel("tenant", tenant);
    Set<String> kept = FleetNames.requireHostnames("keep", keep);
    requireAvailable();
    int before = hostnames.size();
    hostnames.values().removeIf(claim -> claim.tenant().equals(tenant) && !kept.contains(claim.hostname()));
    return before - hostnames.size();
  }

  private void requireAvailable() {
    if (!available) {
      throw new DatastoreException(14, "Datastore is unavailable (InMemoryFleetRecords set unavailable)", "UNAVAILABLE");
    }
  }

  private void requireRegistered(String cluster) {
    if (!clusters.containsKey(cluster)) {
      throw new FleetInputException("cluster", "cluster " + cluster + " is not registered in the fleet");
    }
  }

  private static void requireNonNull(String field, Object value) {
    if (value == null) {
      throw new FleetInputException(field, "must not be null");
    }
  }
}
