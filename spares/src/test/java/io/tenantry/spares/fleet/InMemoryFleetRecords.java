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

  /**
   * Where a tenant is placed, the UID of its Tenant (null until adopted) and, once allocated, the
   * request id that holds it.
   */
  private record Placement(String cluster, String tenantUid, String requestId) {
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

  /**
   * Stores records as the code before UIDs wrote them, to test their adoption: a placement, with the
   * allocation it points at when {@code allocation} is not null, and hostname claims, none with a UID.
   */
  public synchronized void putUnadopted(String tenant, String cluster, Allocation allocation, String... hostnames) {
    placements.put(tenant, new Placement(cluster, null, allocation == null ? null : allocation.requestId()));
    if (allocation != null) {
      allocations.put(allocation.requestId(), withUid(allocation, null));
    }
    for (String hostname : hostnames) {
      this.hostnames.put(hostname, new HostnameClaim(hostname, tenant, null, cluster, Instant.now()));
    }
  }

  /** The UID the tenant's placement carries; empty when it is not placed or carries none. */
  public synchronized Optional<String> placementUid(String tenant) {
    return Optional.ofNullable(placements.get(tenant)).map(Placement::tenantUid);
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
    if (existing != null && existing.cluster().equals(cluster)) {
      return;
    }
    // A move keeps the request id (the tenant is still that signup's tenant), not the UID of the Tenant left behind.
    placements.put(tenant, new Placement(cluster, null, existing == null ? null : existing.requestId()));
  }

  @Override
  public synchronized boolean reserveName(String tenant, String cluster) {
    FleetNames.requireDnsLabel("tenant", tenant);
    FleetNames.requireDnsLabel("cluster", cluster);
    requireAvailable();
    return placements.putIfAbsent(tenant, new Placement(cluster, null, null)) == null;
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
    FleetNames.requireUid("tenantUid", allocation.tenantUid());
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
    if (placement != null && placement.tenantUid() != null && !placement.tenantUid().equals(allocation.tenantUid())) {
      throw new FleetConflictException("tenantUid", "tenant " + allocation.tenant() + " is placed for the Tenant with UID "
          + placement.tenantUid() + ", not " + allocation.tenantUid());
    }
    allocations.put(allocation.requestId(), allocation);
    placements.put(allocation.tenant(), new Placement(allocation.cluster(), allocation.tenantUid(), allocation.requestId()));
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
  public synchronized int adopt(TenantRef tenant) {
    requireNonNull("tenant", tenant);
    requireAvailable();
    int adopted = 0;
    Placement placement = placements.get(tenant.name());
    if (placement != null && placement.tenantUid() == null && tenant.owns(placement.cluster(), tenant.name(), null)) {
      placements.put(tenant.name(), new Placement(placement.cluster(), tenant.uid(), placement.requestId()));
      adopted++;
      Allocation allocation = placement.requestId() == null ? null : allocations.get(placement.requestId());
      if (allocation != null && allocation.tenantUid() == null) {
        allocations.put(allocation.requestId(), withUid(allocation, tenant.uid()));
        adopted++;
      }
    }
    for (HostnameClaim claim : List.copyOf(hostnames.values())) {
      if (claim.tenantUid() == null && claim.heldBy(tenant)) {
        hostnames.put(claim.hostname(), new HostnameClaim(claim.hostname(), claim.tenant(), tenant.uid(), claim.cluster(),
            claim.claimedAt()));
        adopted++;
      }
    }
    return adopted;
  }

  @Override
  public synchronized boolean purgeTenant(TenantRef tenant) {
    requireNonNull("tenant", tenant);
    requireAvailable();
    boolean claimsRemoved = hostnames.values().removeIf(claim -> claim.heldBy(tenant));
    Placement placement = placements.get(tenant.name());
    if (placement == null || !tenant.owns(placement.cluster(), tenant.name(), placement.tenantUid())) {
      return claimsRemoved;
    }
    placements.remove(tenant.name());
    if (placement.requestId() != null) {
      allocations.remove(placement.requestId());
    }
    return true;
  }

  @Override
  public synchronized HostnameClaim claimHostname(String hostname, TenantRef tenant) {
    FleetNames.requireHostname("hostname", hostname);
    requireNonNull("tenant", tenant);
    requireAvailable();
    // Held already, by this tenant or another: the stored claim stands either way.
    return hostnames.computeIfAbsent(hostname,
        name -> new HostnameClaim(name, tenant.name(), tenant.uid(), tenant.cluster(), Instant.now()));
  }

  @Override
  public synchronized List<HostnameClaim> hostnamesOf(TenantRef tenant) {
    requireNonNull("tenant", tenant);
    requireAvailable();
    return hostnames.values().stream().filter(claim -> claim.heldBy(tenant)).toList();
  }

  @Override
  public synchronized Optional<HostnameClaim> hostnameHolder(String hostname) {
    FleetNames.requireHostname("hostname", hostname);
    requireAvailable();
    return Optional.ofNullable(hostnames.get(hostname));
  }

  @Override
  public synchronized int releaseHostnames(TenantRef tenant, Collection<String> keep) {
    requireNonNull("tenant", tenant);
    Set<String> kept = FleetNames.requireHostnames("keep", keep);
    requireAvailable();
    int before = hostnames.size();
    hostnames.values().removeIf(claim -> claim.heldBy(tenant) && !kept.contains(claim.hostname()));
    return before - hostnames.size();
  }

  private static Allocation withUid(Allocation allocation, String tenantUid) {
    return new Allocation(allocation.requestId(), allocation.organization(), allocation.email(), allocation.tenant(),
        tenantUid, allocation.cluster(), allocation.namespace(), allocation.allocatedAt(), allocation.subdomain());
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
