package io.tenantry.controller.metrics;

import com.google.cloud.datastore.DatastoreException;
import io.micrometer.core.instrument.MeterRegistry;
import io.tenantry.controller.metrics.StoreCalls.Outcome;
import io.tenantry.spares.fleet.Allocation;
import io.tenantry.spares.fleet.Cluster;
import io.tenantry.spares.fleet.FleetConflictException;
import io.tenantry.spares.fleet.FleetInputException;
import io.tenantry.spares.fleet.FleetRecords;
import io.tenantry.spares.fleet.HostnameClaim;
import io.tenantry.spares.fleet.TenantRef;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * The fleet records, each call timed under {@code store="datastore"} ({@link StoreCalls}): a
 * {@code DatastoreException} is the store unavailable, a refused input or a conflict is the
 * records' answer. Keeps every guarantee of {@link FleetRecords}: each call goes to the records it
 * wraps, once.
 */
public final class MeasuredFleetRecords implements FleetRecords {

  private final FleetRecords records;
  private final StoreCalls calls;

  public MeasuredFleetRecords(FleetRecords records, MeterRegistry registry) {
    this.records = records;
    this.calls = new StoreCalls(registry, StoreCalls.DATASTORE);
  }

  static Outcome outcome(RuntimeException failure) {
    if (failure instanceof DatastoreException) {
      return Outcome.UNAVAILABLE;
    }
    if (failure instanceof FleetConflictException) {
      return Outcome.CONFLICT;
    }
    return failure instanceof FleetInputException ? Outcome.INVALID : Outcome.ERROR;
  }

  @Override
  public Cluster registerCluster(Cluster cluster) {
    return calls.time("registerCluster", () -> records.registerCluster(cluster), MeasuredFleetRecords::outcome);
  }

  @Override
  public List<Cluster> listClusters() {
    return calls.time("listClusters", records::listClusters, MeasuredFleetRecords::outcome);
  }

  @Override
  public Optional<Cluster> getCluster(String name) {
    return calls.time("getCluster", () -> records.getCluster(name), MeasuredFleetRecords::outcome);
  }

  @Override
  public boolean removeCluster(String name) {
    return calls.time("removeCluster", () -> records.removeCluster(name), MeasuredFleetRecords::outcome);
  }

  @Override
  public void placeTenant(String tenant, String cluster) {
    calls.time("placeTenant", () -> {
      records.placeTenant(tenant, cluster);
      return null;
    }, MeasuredFleetRecords::outcome);
  }

  @Override
  public boolean reserveName(String tenant, String cluster) {
    return calls.time("reserveName", () -> records.reserveName(tenant, cluster), MeasuredFleetRecords::outcome);
  }

  @Override
  public Optional<String> placement(String tenant) {
    return calls.time("placement", () -> records.placement(tenant), MeasuredFleetRecords::outcome);
  }

  @Override
  public List<String> tenantsOn(String cluster) {
    return calls.time("tenantsOn", () -> records.tenantsOn(cluster), MeasuredFleetRecords::outcome);
  }

  @Override
  public Optional<Allocation> findAllocation(String requestId) {
    return calls.time("findAllocation", () -> records.findAllocation(requestId), MeasuredFleetRecords::outcome);
  }

  @Override
  public Allocation recordAllocation(Allocation allocation) {
    return calls.time("recordAllocation", () -> records.recordAllocation(allocation), MeasuredFleetRecords::outcome);
  }

  @Override
  public Optional<Allocation> findAllocationByTenant(String tenant) {
    return calls.time("findAllocationByTenant", () -> records.findAllocationByTenant(tenant), MeasuredFleetRecords::outcome);
  }

  @Override
  public int adopt(TenantRef tenant) {
    return calls.time("adopt", () -> records.adopt(tenant), MeasuredFleetRecords::outcome);
  }

  @Override
  public boolean purgeTenant(TenantRef tenant) {
    return calls.time("purgeTenant", () -> records.purgeTenant(tenant), MeasuredFleetRecords::outcome);
  }

  @Override
  public HostnameClaim claimHostname(String hostname, TenantRef tenant) {
    return calls.time("claimHostname", () -> records.claimHostname(hostname, tenant), MeasuredFleetRecords::outcome);
  }

  @Override
  public List<HostnameClaim> hostnamesOf(TenantRef tenant) {
    return calls.time("hostnamesOf", () -> records.hostnamesOf(tenant), MeasuredFleetRecords::outcome);
  }

  @Override
  public Optional<HostnameClaim> hostnameHolder(String hostname) {
    return calls.time("hostnameHolder", () -> records.hostnameHolder(hostname), MeasuredFleetRecords::outcome);
  }

  @Override
  public int releaseHostnames(TenantRef tenant, Collection<String> keep) {
    return calls.time("releaseHostnames", () -> records.releaseHostnames(tenant, keep), MeasuredFleetRecords::outcome);
  }
}
