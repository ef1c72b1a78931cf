package io.tenantry.spares.fleet;

import com.google.cloud.Timestamp;
import com.google.cloud.datastore.Datastore;
import com.google.cloud.datastore.DatastoreException;
import com.google.cloud.datastore.Entity;
import com.google.cloud.datastore.EntityValue;
import com.google.cloud.datastore.FullEntity;
import com.google.cloud.datastore.Key;
import com.google.cloud.datastore.KeyFactory;
import com.google.cloud.datastore.KeyQuery;
import com.google.cloud.datastore.Query;
import com.google.cloud.datastore.QueryResults;
import com.google.cloud.datastore.StringValue;
import com.google.cloud.datastore.StructuredQuery.PropertyFilter;
import com.google.cloud.datastore.TimestampValue;
import com.google.cloud.datastore.Transaction;
import com.google.cloud.datastore.Value;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;

/**
 * {@link FleetRecords} in Google Cloud Datastore, every entity in one Datastore namespace so that
 * tests and clusters can share a project. Entity kinds, each keyed by name so that reads on the
 * signup path are lookups by key, never queries:
 * <ul>
 *   <li>{@code Cluster}, key name = cluster name: {@code context} (kubeconfig context name, never
 *       credentials), {@code labels} (list of {key, value} entities, unindexed), {@code registeredAt}.</li>
 *   <li>{@code Placement}, key name = tenant name, so the key itself reserves a spare's name across
 *       the fleet: {@code cluster} (indexed: {@link #tenantsOn} is a single-property query, served by
 *       Datastore's built-in indexes), {@code tenantUid} (absent until the Tenant adopts it),
 *       {@code requestId} (the request that holds the tenant, absent when placed by hand or reserved),
 *       {@code placedAt}.</li>
 *   <li>{@code Allocation}, key name = request id: {@code organization}, {@code email}, {@code tenant},
 *       {@code tenantUid} (absent in records written before UIDs were kept), {@code cluster},
 *       {@code namespace}, {@code allocatedAt}, {@code subdomain} (absent when the signup asked none);
 *       all unindexed, because the tenant → request id link lives in the tenant's {@code Placement}.</li>
 *   <li>{@code Hostname}, key name = hostname, so the key itself makes a hostname's claim unique:
 *       {@code tenant} (indexed: {@link #hostnamesOf} is a single-property query), {@code tenantUid}
 *       (absent in claims written before UIDs were kept), {@code cluster}, {@code claimedAt}.</li>
 * </ul>
 * Records written before UIDs were kept are read as they are (a missing {@code tenantUid} is null)
 * and belong to the tenant of their name on their cluster until {@link #adopt} writes its UID.
 *
 * <p>Writes that read first run in Datastore transactions, retried when Datastore aborts one for
 * contention; a retried transaction reads again, so concurrent writers of one request id all end on
 * the one record that committed. Datastore failures other than contention surface as
 * {@link DatastoreException}. {@link #listClusters} and {@link #tenantsOn} are queries, which are
 * eventually consistent on legacy Datastore and strongly consistent on Firestore in Datastore mode.
 * So is the query that finds a tenant's hostname claims for {@link #hostnamesOf},
 * {@link #releaseHostnames} and {@link #purgeTenant}; each then reads the claims it found by key and
 * acts only on those the tenant still holds, so a lagging index can hide a claim but never hand back,
 * or delete, another tenant's. The query runs before the transaction, because legacy Datastore allows
 * only ancestor queries inside one.
 */
public final class DatastoreFleetRecords implements FleetRecords {

  static final String CLUSTER = "Cluster";
  static final String PLACEMENT = "Placement";
  static final String ALLOCATION = "Allocation";
  static final String HOSTNAME = "Hostname";

  /** Enough for dozens of writers of one key; each retry backs off with jitter so they spread out. */
  private static final int MAX_ATTEMPTS = 20;
  private static final long BASE_BACKOFF_MILLIS = 10;
  private static final long MAX_BACKOFF_MILLIS = 500;
  /**
   * Legacy Datastore, and so the emulator, refuses a transaction that reads or writes more than 25
   * entity groups; every entity here is its own group, so every claim counts as one.
   */
  private static final int MAX_GROUPS_PER_TRANSACTION = 25;

  private final Datastore datastore;
  private final String datastoreNamespace;
  private final KeyFactory clusters;
  private final KeyFactory placements;
  private final KeyFactory allocations;
  private final KeyFactory hostnames;

  /**
   * @param datastore the client, whose project holds the records
   * @param datastoreNamespace the Datastore namespace of every entity; empty for the default namespace
   */
  public DatastoreFleetRecords(Datastore datastore, String datastoreNamespace) {
    if (datastore == null) {
      throw new FleetInputException("datastore", "must not be null");
    }
    this.datastore = datastore;
    this.datastoreNamespace = FleetNames.requireDatastoreNamespace(datastoreNamespace);
    this.clusters = keyFactory(CLUSTER);
    this.placements = keyFactory(PLACEMENT);
    this.allocations = keyFactory(ALLOCATION);
    this.hostnames = keyFactory(HOSTNAME);
  }

  @Override
  public Cluster registerCluster(Cluster cluster) {
    requireNonNull("cluster", cluster);
    Key key = clusters.newKey(cluster.name());
    return inTransaction(txn -> {
      Entity existing = txn.get(key);
      // Re-registering updates how to reach the cluster, not when it joined the fleet.
      Instant registeredAt = existing == null ? cluster.registeredAt() : instant(existing, "registeredAt");
      Cluster stored = new Cluster(cluster.name(), cluster.context(), cluster.labels(), registeredAt);
      txn.put(clusterEntity(key, stored));
      return stored;
    });
  }

  @Override
  public List<Cluster> listClusters() {
    Query<Entity> query = Query.newEntityQueryBuilder()
        .setNamespace(datastoreNamespace)
        .setKind(CLUSTER)
        .build();
    List<Cluster> result = new ArrayList<>();
    QueryResults<Entity> entities = datastore.run(query);
    entities.forEachRemaining(entity -> result.add(cluster(entity)));
    result.sort((a, b) -> a.name().compareTo(b.name()));
    return result;
  }

  @Override
  public Optional<Cluster> getCluster(String name) {
    FleetNames.requireDnsLabel("cluster", name);
    return Optional.ofNullable(datastore.get(clusters.newKey(name))).map(DatastoreFleetRecords::cluster);
  }

  @Override
  public boolean removeCluster(String name) {
    FleetNames.requireDnsLabel("cluster", name);
    List<String> placed = tenantsOn(name);
    if (!placed.isEmpty()) {
      throw new FleetConflictException("cluster", "cluster " + name + " still holds " + placed.size()
          + " tenant(s), such as " + placed.get(0) + "; move or purge them first");
    }
    Key key = clusters.newKey(name);
    return inTransaction(txn -> {
      if (txn.get(key) == null) {
        return false;
      }
      txn.delete(key);
      return true;
    });
  }

  @Override
  public void placeTenant(String tenant, String cluster) {
    FleetNames.requireDnsLabel("tenant", tenant);
    FleetNames.requireDnsLabel("cluster", cluster);
    Key placementKey = placements.newKey(tenant);
    Key clusterKey = clusters.newKey(cluster);
    inTransaction(txn -> {
      Map<Key, Entity> found = getAll(txn, placementKey, clusterKey);
      requireRegistered(found.get(clusterKey), cluster);
      Entity existing = found.get(placementKey);
      if (existing != null && cluster.equals(existing.getString("cluster"))) {
        return null;
      }
      // A move keeps the request id (the tenant is still that signup's tenant), not the UID of the Tenant left behind.
      String requestId = existing == null ? null : optionalString(existing, "requestId");
      txn.put(placementEntity(placementKey, cluster, null, requestId, Instant.now()));
      return null;
    });
  }

  @Override
  public boolean reserveName(String tenant, String cluster) {
    FleetNames.requireDnsLabel("tenant", tenant);
    FleetNames.requireDnsLabel("cluster", cluster);
    Key key = placements.newKey(tenant);
    return inTransaction(txn -> {
      if (txn.get(key) != null) {
        return false;
      }
      txn.put(placementEntity(key, cluster, null, null, Instant.now()));
      return true;
    });
  }

  @Override
  public Optional<String> placement(String tenant) {
    FleetNames.requireDnsLabel("tenant", tenant);
    return Optional.ofNullable(datastore.get(placements.newKey(tenant))).map(e -> e.getString("cluster"));
  }

  @Override
  public List<String> tenantsOn(String cluster) {
    FleetNames.requireDnsLabel("cluster", cluster);
    KeyQuery query = Query.newKeyQueryBuilder()
        .setNamespace(datastoreNamespace)
        .setKind(PLACEMENT)
        .setFilter(PropertyFilter.eq("cluster", cluster))
        .build();
    List<String> tenants = new ArrayList<>();
    datastore.run(query).forEachRemaining(key -> tenants.add(key.getName()));
    tenants.sort(String::compareTo);
    return tenants;
  }

  @Override
  public Optional<Allocation> findAllocation(String requestId) {
    FleetNames.requireRequestId(requestId);
    return Optional.ofNullable(datastore.get(allocations.newKey(requestId))).map(DatastoreFleetRecords::allocation);
  }

  @Override
  public Allocation recordAllocation(Allocation allocation) {
    requireNonNull("allocation", allocation);
    FleetNames.requireUid("tenantUid", allocation.tenantUid());
    Key allocationKey = allocations.newKey(allocation.requestId());
    Key placementKey = placements.newKey(allocation.tenant());
    Key clusterKey = clusters.newKey(allocation.cluster());
    return inTransaction(txn -> {
      Map<Key, Entity> found = getAll(txn, allocationKey, placementKey, clusterKey);
      Entity existing = found.get(allocationKey);
      if (existing != null) {
        // A retry of the request: the first record wins, whatever the retry proposed.
        return allocation(existing);
      }
      requireRegistered(found.get(clusterKey), allocation.cluster());
      Entity placement = found.get(placementKey);
      if (placement != null) {
        String holder = optionalString(placement, "requestId");
        if (holder != null) {
          throw new FleetConflictException("tenant", "tenant " + allocation.tenant()
              + " is already allocated to request " + holder);
        }
        requirePlacedFor(placement, allocation);
      }
      txn.put(allocationEntity(allocationKey, allocation), placementEntity(placementKey, allocation.cluster(),
          allocation.tenantUid(), allocation.requestId(), allocation.allocatedAt()));
      return allocation;
    });
  }

  /** Refuses an allocation of a tenant placed on another cluster, or for another Tenant object. */
  private static void requirePlacedFor(Entity placement, Allocation allocation) {
    String placedOn = placement.getString("cluster");
    if (!placedOn.equals(allocation.cluster())) {
      throw new FleetConflictException("cluster", "tenant " + allocation.tenant() + " is placed on cluster "
          + placedOn + ", not " + allocation.cluster());
    }
    String placedUid = optionalString(placement, "tenantUid");
    if (placedUid != null && !placedUid.equals(allocation.tenantUid())) {
      throw new FleetConflictException("tenantUid", "tenant " + allocation.tenant() + " is placed for the Tenant"
          + " with UID " + placedUid + ", not " + allocation.tenantUid());
    }
  }

  @Override
  public Optional<Allocation> findAllocationByTenant(String tenant) {
    FleetNames.requireDnsLabel("tenant", tenant);
    Entity placement = datastore.get(placements.newKey(tenant));
    String requestId = placement == null ? null : optionalString(placement, "requestId");
    if (requestId == null) {
      return Optional.empty();
    }
    return Optional.ofNullable(datastore.get(allocations.newKey(requestId))).map(DatastoreFleetRecords::allocation);
  }

  /**
   * {@inheritDoc}
   *
   * <p>The placement and allocation take two of a transaction's entity groups; claims beyond what the
   * rest holds (more than any tenant has) are released first, in transactions of their own, which
   * leaves the records {@link #releaseHostnames} would. The final transaction is then atomic as
   * documented.
   */
  @Override
  public boolean purgeTenant(TenantRef tenant) {
    requireNonNull("tenant", tenant);
    Key placementKey = placements.newKey(tenant.name());
    List<Key> claimKeys = claimKeysOf(tenant.name());
    int fits = Math.min(claimKeys.size(), MAX_GROUPS_PER_TRANSACTION - 2);
    int released = deleteClaims(tenant, claimKeys.subList(fits, claimKeys.size()));
    boolean deleted = inTransaction(txn -> {
      List<Key> doomed = new ArrayList<>(claimsHeld(txn, tenant, claimKeys.subList(0, fits)));
      Entity placement = txn.get(placementKey);
      if (placement != null && ownsPlacement(tenant, placement)) {
        doomed.add(placementKey);
        String requestId = optionalString(placement, "requestId");
        if (requestId != null) {
          doomed.add(allocations.newKey(requestId));
        }
      }
      txn.delete(doomed.toArray(Key[]::new));
      return !doomed.isEmpty();
    });
    return deleted || released > 0;
  }

  /**
   * {@inheritDoc}
   *
   * <p>The records are read outside a transaction first, so a tenant with nothing to adopt, the usual
   * case, costs a query and a lookup; what is found is then read again and written in transactions
   * of at most {@value #MAX_GROUPS_PER_TRANSACTION} entity groups.
   */
  @Override
  public int adopt(TenantRef tenant) {
    requireNonNull("tenant", tenant);
    List<Key> keys = new ArrayList<>(claimKeysOf(tenant.name()));
    keys.add(placements.newKey(tenant.name()));
    List<Key> unadopted = new ArrayList<>();
    datastore.get(keys).forEachRemaining(entity -> {
      if (unadopted(tenant, entity)) {
        unadopted.add(entity.getKey());
      }
    });
    int adopted = 0;
    // One group of each transaction is left for the allocation a placement points at.
    int batchSize = MAX_GROUPS_PER_TRANSACTION - 1;
    for (int from = 0; from < unadopted.size(); from += batchSize) {
      List<Key> batch = unadopted.subList(from, Math.min(unadopted.size(), from + batchSize));
      adopted += inTransaction(txn -> adoptIn(txn, tenant, batch));
    }
    return adopted;
  }

  /** Writes the tenant's UID into those of {@code keys} still unadopted, and into the allocation of its placement. */
  private int adoptIn(Transaction txn, TenantRef tenant, List<Key> keys) {
    List<Entity> found = new ArrayList<>();
    txn.get(keys.toArray(Key[]::new)).forEachRemaining(found::add);
    List<Entity> writes = new ArrayList<>();
    for (Entity entity : found) {
      if (!unadopted(tenant, entity)) {
        continue;
      }
      writes.add(withUid(entity, tenant.uid()));
      String requestId = PLACEMENT.equals(entity.getKey().getKind()) ? optionalString(entity, "requestId") : null;
      Entity allocation = requestId == null ? null : txn.get(allocations.newKey(requestId));
      if (allocation != null && !allocation.contains("tenantUid")) {
        writes.add(withUid(allocation, tenant.uid()));
      }
    }
    txn.put(writes.toArray(Entity[]::new));
    return writes.size();
  }

  /** Whether the entity, a placement or a claim, is the tenant's and carries no UID yet. */
  private static boolean unadopted(TenantRef tenant, Entity entity) {
    if (entity.contains("tenantUid")) {
      return false;
    }
    String name = PLACEMENT.equals(entity.getKey().getKind()) ? entity.getKey().getName() : entity.getString("tenant");
    return tenant.owns(entity.getString("cluster"), name, null);
  }

  private static boolean ownsPlacement(TenantRef tenant, Entity placement) {
    return tenant.owns(placement.getString("cluster"), placement.getKey().getName(), optionalString(placement, "tenantUid"));
  }

  private static Entity withUid(Entity entity, String uid) {
    return Entity.newBuilder(entity).set("tenantUid", unindexed(uid)).build();
  }

  @Override
  public HostnameClaim claimHostname(String hostname, TenantRef tenant) {
    FleetNames.requireHostname("hostname", hostname);
    requireNonNull("tenant", tenant);
    Key key = hostnames.newKey(hostname);
    return inTransaction(txn -> {
      Entity existing = txn.get(key);
      if (existing != null) {
        // Held already, by this tenant or another: the stored claim stands either way.
        return claim(existing);
      }
      HostnameClaim claim = new HostnameClaim(hostname, tenant.name(), tenant.uid(), tenant.cluster(), Instant.now());
      txn.put(claimEntity(key, claim));
      return claim;
    });
  }

  @Override
  public List<HostnameClaim> hostnamesOf(TenantRef tenant) {
    requireNonNull("tenant", tenant);
    List<Key> keys = claimKeysOf(tenant.name());
    List<HostnameClaim> claims = new ArrayList<>();
    if (!keys.isEmpty()) {
      datastore.get(keys).forEachRemaining(entity -> {
        HostnameClaim claim = claim(entity);
        if (claim.heldBy(tenant)) {
          claims.add(claim);
        }
      });
    }
    claims.sort(Comparator.comparing(HostnameClaim::hostname));
    return claims;
  }

  @Override
  public Optional<HostnameClaim> hostnameHolder(String hostname) {
    FleetNames.requireHostname("hostname", hostname);
    return Optional.ofNullable(datastore.get(hostnames.newKey(hostname))).map(DatastoreFleetRecords::claim);
  }

  @Override
  public int releaseHostnames(TenantRef tenant, Collection<String> keep) {
    requireNonNull("tenant", tenant);
    Set<String> kept = FleetNames.requireHostnames("keep", keep);
    return deleteClaims(tenant, claimKeysOf(tenant.name()).stream().filter(key -> !kept.contains(key.getName())).toList());
  }

  /**
   * The keys of the claims of tenants of this name, on any cluster, from the index on {@code tenant},
   * which may lag behind writes; callers keep those the tenant holds.
   */
  private List<Key> claimKeysOf(String tenant) {
    KeyQuery query = Query.newKeyQueryBuilder()
        .setNamespace(datastoreNamespace)
        .setKind(HOSTNAME)
        .setFilter(PropertyFilter.eq("tenant", tenant))
        .build();
    List<Key> keys = new ArrayList<>();
    datastore.run(query).forEachRemaining(keys::add);
    return keys;
  }

  /**
   * Deletes the claims of {@code keys} the tenant still holds, as many per transaction as one may
   * touch; returns how many were deleted. Each transaction stands alone: released is released.
   */
  private int deleteClaims(TenantRef tenant, List<Key> keys) {
    int deleted = 0;
    for (int from = 0; from < keys.size(); from += MAX_GROUPS_PER_TRANSACTION) {
      List<Key> batch = keys.subList(from, Math.min(keys.size(), from + MAX_GROUPS_PER_TRANSACTION));
      deleted += inTransaction(txn -> {
        List<Key> held = claimsHeld(txn, tenant, batch);
        txn.delete(held.toArray(Key[]::new));
        return held.size();
      });
    }
    return deleted;
  }

  /**
   * Of {@code keys}, those whose claim the tenant holds now, read in the transaction: a claim the
   * query found may since have been released and taken by another tenant, and must stay theirs.
   */
  private static List<Key> claimsHeld(Transaction txn, TenantRef tenant, List<Key> keys) {
    List<Key> held = new ArrayList<>();
    if (!keys.isEmpty()) {
      txn.get(keys.toArray(Key[]::new)).forEachRemaining(entity -> {
        if (claim(entity).heldBy(tenant)) {
          held.add(entity.getKey());
        }
      });
    }
    return held;
  }

  /**
   * Runs {@code work} in a transaction and commits it, again from the start when Datastore aborts it
   * because another transaction touched the same entities: the next attempt sees what that one wrote.
   */
  private <T> T inTransaction(Function<Transaction, T> work) {
    DatastoreException contention = null;
    for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      Transaction txn = datastore.newTransaction();
      try {
        T result = work.apply(txn);
        txn.commit();
        return result;
      } catch (DatastoreException e) {
        if (!isContention(e)) {
          throw e;
        }
        contention = e;
      } finally {
        rollbackIfActive(txn);
      }
      backOff(attempt);
    }
    throw contention;
  }

  /** ABORTED is gRPC's code for a lost optimistic-concurrency race; over HTTP it arrives as 409. */
  private static boolean isContention(DatastoreException e) {
    return "ABORTED".equals(e.getReason()) || e.getCode() == 10 || e.getCode() == 409;
  }

  private static void rollbackIfActive(Transaction txn) {
    try {
      if (txn.isActive()) {
        txn.rollback();
      }
    } catch (DatastoreException e) {
      // The transaction is abandoned either way; Datastore expires it.
    }
  }

  private static void backOff(int attempt) {
    long ceiling = Math.min(MAX_BACKOFF_MILLIS, BASE_BACKOFF_MILLIS << Math.min(attempt, 10));
    try {
      Thread.sleep(ThreadLocalRandom.current().nextLong(1, ceiling + 1));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while retrying a Datastore transaction", e);
    }
  }

  private static Map<Key, Entity> getAll(Transaction txn, Key... keys) {
    Map<Key, Entity> found = new LinkedHashMap<>();
    txn.get(keys).forEachRemaining(entity -> found.put(entity.getKey(), entity));
    return found;
  }

  private static void requireRegistered(Entity cluster, String name) {
    if (cluster == null) {
      throw new FleetInputException("cluster", "cluster " + name + " is not registered in the fleet");
    }
  }

  private KeyFactory keyFactory(String kind) {
    return datastore.newKeyFactory().setNamespace(datastoreNamespace).setKind(kind);
  }

  private static Entity clusterEntity(Key key, Cluster cluster) {
    List<EntityValue> labels = new ArrayList<>();
    cluster.labels().forEach((name, value) -> labels.add(EntityValue.of(FullEntity.newBuilder()
        .set("key", name)
        .set("value", value)
        .build())));
    return Entity.newBuilder(key)
        .set("context", StringValue.newBuilder(cluster.context()).setExcludeFromIndexes(true).build())
        .set("labels", unindexedList(labels))
        .set("registeredAt", timestamp(cluster.registeredAt()))
        .build();
  }

  private static Cluster cluster(Entity entity) {
    Map<String, String> labels = new LinkedHashMap<>();
    List<EntityValue> values = entity.getList("labels");
    for (EntityValue value : values) {
      FullEntity<?> label = value.get();
      labels.put(label.getString("key"), label.getString("value"));
    }
    return new Cluster(entity.getKey().getName(), entity.getString("context"), labels,
        instant(entity, "registeredAt"));
  }

  private static Entity placementEntity(Key key, String cluster, String tenantUid, String requestId, Instant placedAt) {
    Entity.Builder builder = Entity.newBuilder(key)
        .set("cluster", cluster)
        .set("placedAt", timestamp(placedAt));
    if (tenantUid != null) {
      builder.set("tenantUid", unindexed(tenantUid));
    }
    if (requestId != null) {
      builder.set("requestId", StringValue.newBuilder(requestId).setExcludeFromIndexes(true).build());
    }
    return builder.build();
  }

  private static Entity allocationEntity(Key key, Allocation allocation) {
    Entity.Builder builder = Entity.newBuilder(key)
        .set("organization", unindexed(allocation.organization()))
        .set("email", unindexed(allocation.email()))
        .set("tenant", unindexed(allocation.tenant()))
        .set("tenantUid", unindexed(allocation.tenantUid()))
        .set("cluster", unindexed(allocation.cluster()))
        .set("namespace", unindexed(allocation.namespace()))
        .set("allocatedAt", timestamp(allocation.allocatedAt()));
    if (allocation.subdomain() != null) {
      builder.set("subdomain", unindexed(allocation.subdomain()));
    }
    return builder.build();
  }

  private static Allocation allocation(Entity entity) {
    return new Allocation(entity.getKey().getName(), entity.getString("organization"), entity.getString("email"),
        entity.getString("tenant"), optionalString(entity, "tenantUid"), entity.getString("cluster"), entity.getString("namespace"),
        instant(entity, "allocatedAt"), optionalString(entity, "subdomain"));
  }

  /** Only {@code tenant} is indexed: nothing queries claims by UID, cluster or time. */
  private static Entity claimEntity(Key key, HostnameClaim claim) {
    return Entity.newBuilder(key)
        .set("tenant", claim.tenant())
        .set("tenantUid", unindexed(claim.tenantUid()))
        .set("cluster", unindexed(claim.cluster()))
        .set("claimedAt", TimestampValue.newBuilder(timestamp(claim.claimedAt())).setExcludeFromIndexes(true).build())
        .build();
  }

  private static HostnameClaim claim(Entity entity) {
    return new HostnameClaim(entity.getKey().getName(), entity.getString("tenant"), optionalString(entity, "tenantUid"),
        entity.getString("cluster"), instant(entity, "claimedAt"));
  }

  private static StringValue unindexed(String value) {
    return StringValue.newBuilder(value).setExcludeFromIndexes(true).build();
  }

  private static Value<?> unindexedList(List<EntityValue> values) {
    com.google.cloud.datastore.ListValue.Builder list = com.google.cloud.datastore.ListValue.newBuilder();
    for (EntityValue value : values) {
      list.addValue(EntityValue.newBuilder(value.get()).setExcludeFromIndexes(true).build());
    }
    return list.build();
  }

  private static Timestamp timestamp(Instant instant) {
    return Timestamp.ofTimeSecondsAndNanos(instant.getEpochSecond(), instant.getNano());
  }

  private static Instant instant(Entity entity, String property) {
    Timestamp timestamp = entity.getTimestamp(property);
    return Instant.ofEpochSecond(timestamp.getSeconds(), timestamp.getNanos());
  }

  private static String optionalString(Entity entity, String property) {
    return entity.contains(property) ? entity.getString(property) : null;
  }

  private static void requireNonNull(String field, Object value) {
    if (value == null) {
      throw new FleetInputException(field, "must not be null");
    }
  }
}
