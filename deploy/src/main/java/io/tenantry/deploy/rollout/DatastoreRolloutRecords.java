package io.tenantry.deploy.rollout;

import com.google.cloud.Timestamp;
import com.google.cloud.datastore.BooleanValue;
import com.google.cloud.datastore.Datastore;
import com.google.cloud.datastore.DatastoreException;
import com.google.cloud.datastore.DoubleValue;
import com.google.cloud.datastore.Entity;
import com.google.cloud.datastore.EntityValue;
import com.google.cloud.datastore.FullEntity;
import com.google.cloud.datastore.IncompleteKey;
import com.google.cloud.datastore.Key;
import com.google.cloud.datastore.KeyFactory;
import com.google.cloud.datastore.ListValue;
import com.google.cloud.datastore.LongValue;
import com.google.cloud.datastore.Query;
import com.google.cloud.datastore.StringValue;
import com.google.cloud.datastore.StructuredQuery.PropertyFilter;
import com.google.cloud.datastore.TimestampValue;
import com.google.cloud.datastore.DatastoreReaderWriter;
import com.google.cloud.datastore.Value;
import io.tenantry.spares.fleet.FleetNames;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * {@link RolloutRecords} in Cloud Datastore, in the fleet records' Datastore namespace (next to
 * {@code Cluster} and {@code Placement}, see {@code DatastoreFleetRecords}). Kinds:
 * <ul>
 *   <li>{@code Rollout}, key name = rollout id: the request ({@code app} indexed, for
 *       {@link #unfinished}; {@code version}, {@code selection}, {@code clusters}, {@code waveSize},
 *       {@code maxFailures} and {@code maxFailureRatio}, each absent when it does not apply; records
 *       written before the ratio existed have {@code maxFailures} only, and load as such;
 *       {@code tenantTimeoutSeconds}), {@code state}, the counts
 *       ({@code tenants}, {@code succeeded}, {@code failed}), {@code pools} (list of
 *       {cluster, pool, updated}), {@code runner}, {@code heartbeatAt}, {@code createdAt},
 *       {@code updatedAt}, {@code message}.</li>
 *   <li>{@code RolloutWave}, child of its Rollout, key id = wave index: {@code cluster} and
 *       {@code tenants} (list of {tenant, step, fromVersion, generation, appliedAt, detail}). One
 *       entity per wave keeps each progress write small, whatever the size of the fleet.</li>
 * </ul>
 * Every write that depends on what is stored runs in a Datastore transaction (retried by the client
 * when Datastore aborts it for contention); reading a rollout's waves is an ancestor query, which
 * is strongly consistent.
 */
public final class DatastoreRolloutRecords implements RolloutRecords {

  static final String ROLLOUT = "Rollout";
  static final String WAVE = "RolloutWave";

  private final Datastore datastore;
  private final String namespace;
  private final KeyFactory rollouts;

  /** @param datastoreNamespace the fleet records' namespace; empty for the default namespace */
  public DatastoreRolloutRecords(Datastore datastore, String datastoreNamespace) {
    this.datastore = datastore;
    this.namespace = FleetNames.requireDatastoreNamespace(datastoreNamespace);
    this.rollouts = datastore.newKeyFactory().setNamespace(namespace).setKind(ROLLOUT);
  }

  /** Datastore's limit of entities written by one commit. */
  private static final int MAX_PER_COMMIT = 500;

  @Override
  public void create(Rollout rollout) {
    Key key = rollouts.newKey(rollout.id());
    if (datastore.get(key) != null) {
      throw new RolloutConflictException("a rollout with id " + rollout.id() + " exists");
    }
    // The waves first, in commits of at most 500, then the header, which makes the rollout exist:
    // a rollout is never seen without its waves. (Waves left by a crash in between have no header
    // and are never read.)
    List<FullEntity<?>> waves = rollout.waves().stream().<FullEntity<?>>map(w -> wave(key, w)).toList();
    for (int from = 0; from < waves.size(); from += MAX_PER_COMMIT) {
      datastore.put(waves.subList(from, Math.min(waves.size(), from + MAX_PER_COMMIT)).toArray(new FullEntity<?>[0]));
    }
    inTransaction(txn -> {
      if (txn.get(key) != null) {
        throw new RolloutConflictException("a rollout with id " + rollout.id() + " exists");
      }
      txn.put(header(key, rollout));
      return null;
    });
  }

  @Override
  public Optional<Rollout> get(String id) {
    Entity header = datastore.get(rollouts.newKey(id));
    if (header == null) {
      return Optional.empty();
    }
    List<Wave> waves = new ArrayList<>();
    datastore.run(Query.newEntityQueryBuilder().setNamespace(namespace).setKind(WAVE)
        .setFilter(PropertyFilter.hasAncestor(header.getKey())).build())
        .forEachRemaining(e -> waves.add(wave(e)));
    waves.sort(Comparator.comparingInt(Wave::index));
    return Optional.of(rollout(header, waves));
  }

  @Override
  public List<RolloutSummary> list() {
    return summaries(Query.newEntityQueryBuilder().setNamespace(namespace).setKind(ROLLOUT).build());
  }

  @Override
  public List<RolloutSummary> unfinished(String app) {
    return summaries(Query.newEntityQueryBuilder().setNamespace(namespace).setKind(ROLLOUT)
        .setFilter(PropertyFilter.eq("app", app)).build()).stream()
        .filter(s -> !s.state().finished()).toList();
  }

  private List<RolloutSummary> summaries(Query<Entity> query) {
    List<RolloutSummary> result = new ArrayList<>();
    datastore.run(query).forEachRemaining(e -> result.add(new RolloutSummary(e.getKey().getName(), e.getString("app"),
        e.getString("version"), e.getString("selection"), RolloutState.valueOf(e.getString("state")),
        e.getLong("tenants"), e.getLong("succeeded"), e.getLong("failed"), instant(e, "createdAt"),
        instant(e, "updatedAt"), optionalString(e, "message"))));
    result.sort(Comparator.comparing(RolloutSummary::createdAt).reversed());
    return result;
  }

  @Override
  public Rollout claim(String id, Runner runner, Instant now) {
    Entity stored = updateHeader(id, (txn, header, b) -> {
      RolloutState state = RolloutState.valueOf(header.getString("state"));
      if (state.finished()) {
        throw new RolloutConflictException("rollout " + id + " is " + state + " and cannot be resumed");
      }
      String holder = optionalString(header, "runner");
      if (!runner.mayTakeOver(holder, optionalInstant(header, "heartbeatAt"), now)) {
        throw new RolloutConflictException("rollout " + id + " is being run by tenantctl " + holder
            + " (last heartbeat " + optionalInstant(header, "heartbeatAt") + "); it can be taken over once that"
            + " process is gone or " + Runner.STALE_AFTER.toSeconds() + "s after its last heartbeat");
      }
      b.set("state", RolloutState.RUNNING.name()).set("runner", runner.id()).set("heartbeatAt", timestamp(now));
    }, now);
    return get(stored.getKey().getName()).orElseThrow();
  }

  @Override
  public RolloutState saveWave(Rollout rollout, Wave wave, Runner runner, Instant now) {
    return progress(rollout, runner, now, (txn, b) -> txn.put(wave(rollouts.newKey(rollout.id()), wave)));
  }

  @Override
  public RolloutState savePool(Rollout rollout, PoolProgress pool, Runner runner, Instant now) {
    return progress(rollout, runner, now, (txn, b) -> b.set("pools", pools(rollout.pools())));
  }

  @Override
  public RolloutState heartbeat(String id, Runner runner, Instant now) {
    Entity stored = updateHeader(id, (txn, header, b) -> {
      requireRunner(header, runner);
      b.set("heartbeatAt", timestamp(now));
    }, now);
    return RolloutState.valueOf(stored.getString("state"));
  }

  /** A progress write by the runner: {@code write} adds what changed, the counts and heartbeat come along. */
  private RolloutState progress(Rollout rollout, Runner runner, Instant now, ProgressWrite write) {
    Entity stored = updateHeader(rollout.id(), (txn, header, b) -> {
      requireRunner(header, runner);
      b.set("succeeded", rollout.count(TenantProgress.Step.SUCCEEDED))
          .set("failed", rollout.count(TenantProgress.Step.FAILED))
          .set("heartbeatAt", timestamp(now));
      write.apply(txn, b);
    }, now);
    return RolloutState.valueOf(stored.getString("state"));
  }

  @Override
  public Rollout release(String id, Runner runner, RolloutState state, String message, Instant now) {
    updateHeader(id, (txn, header, b) -> {
      if (runner.id().equals(optionalString(header, "runner"))) {
        b.remove("runner");
      }
      if (state != null && RolloutState.valueOf(header.getString("state")) == RolloutState.RUNNING) {
        b.set("state", state.name()).set("message", unindexed(message));
      }
    }, now);
    return get(id).orElseThrow();
  }

  @Override
  public Rollout stop(String id, RolloutState target, Instant now) {
    updateHeader(id, (txn, header, b) -> {
      RolloutState state = RolloutState.valueOf(header.getString("state"));
      boolean allowed = target == RolloutState.PAUSED ? state == RolloutState.RUNNING
          : target == RolloutState.ABORTED && (state == RolloutState.RUNNING || state == RolloutState.PAUSED);
      if (!allowed) {
        throw new RolloutConflictException("rollout " + id + " is " + state + "; only a "
            + (target == RolloutState.PAUSED ? "RUNNING" : "RUNNING or PAUSED") + " rollout can be "
            + (target == RolloutState.PAUSED ? "paused" : "aborted"));
      }
      b.set("state", target.name()).set("message", unindexed((target == RolloutState.PAUSED ? "paused" : "aborted")
          + " at " + now));
    }, now);
    return get(id).orElseThrow();
  }

  private interface ProgressWrite {
    void apply(DatastoreReaderWriter txn, Entity.Builder header);
  }

  private interface HeaderChange {
    /** Edits {@code builder} (a copy of {@code header}), may write more in {@code txn}, or throws to refuse. */
    void apply(DatastoreReaderWriter txn, Entity header, Entity.Builder builder);
  }

  /** Reads the header in a transaction, applies {@code change}, stamps {@code updatedAt} and commits. */
  private Entity updateHeader(String id, HeaderChange change, Instant now) {
    Key key = rollouts.newKey(id);
    return inTransaction(txn -> {
      Entity header = txn.get(key);
      if (header == null) {
        throw new RolloutConflictException("no rollout with id " + id);
      }
      Entity.Builder builder = Entity.newBuilder(header).set("updatedAt", timestamp(now));
      change.apply(txn, header, builder);
      Entity updated = builder.build();
      txn.put(updated);
      return updated;
    });
  }

  /**
   * Runs {@code work} in a transaction, retried by the client when Datastore aborts it for
   * contention. The client wraps what {@code work} throws; a refusal is given back as thrown.
   */
  private <T> T inTransaction(Datastore.TransactionCallable<T> work) {
    try {
      return datastore.runInTransaction(work);
    } catch (DatastoreException e) {
      if (e.getCause() instanceof RolloutConflictException refused) {
        throw refused;
      }
      throw e;
    }
  }

  private static void requireRunner(Entity header, Runner runner) {
    if (!runner.id().equals(optionalString(header, "runner"))) {
      throw new RolloutConflictException("rollout " + header.getKey().getName() + " was taken over by "
          + optionalString(header, "runner") + "; this tenantctl stops");
    }
  }

  private static FullEntity<?> header(Key key, Rollout r) {
    RolloutRequest q = r.request();
    Entity.Builder b = Entity.newBuilder(key)
        .set("app", q.app())
        .set("version", unindexed(q.version()))
        .set("selection", unindexed(r.request().selection().describe()))
        .set("clusters", ListValue.of(r.clusters().stream().map(c -> (Value<?>) unindexed(c)).toList()))
        .set("waveSize", q.waveSize())
        .set("tenantTimeoutSeconds", q.tenantTimeout().toSeconds())
        .set("state", r.state().name())
        .set("tenants", r.tenants())
        .set("succeeded", r.count(TenantProgress.Step.SUCCEEDED))
        .set("failed", r.count(TenantProgress.Step.FAILED))
        .set("pools", pools(r.pools()))
        .set("createdAt", timestamp(r.createdAt()))
        .set("updatedAt", timestamp(r.updatedAt()));
    FailureLimits limits = q.failureLimits();
    if (limits.maxFailures() != null) {
      b.set("maxFailures", limits.maxFailures());
    }
    if (limits.maxFailureRatio() != null) {
      b.set("maxFailureRatio", DoubleValue.newBuilder(limits.maxFailureRatio()).setExcludeFromIndexes(true).build());
    }
    if (r.message() != null) {
      b.set("message", unindexed(r.message()));
    }
    return b.build();
  }

  private static Rollout rollout(Entity e, List<Wave> waves) {
    List<String> clusters = e.<StringValue>getList("clusters").stream().map(Value::get).toList();
    RolloutRequest request = new RolloutRequest(e.getString("app"), e.getString("version"),
        Selection.parse(e.getString("selection")), clusters, (int) e.getLong("waveSize"), failureLimits(e),
        Duration.ofSeconds(e.getLong("tenantTimeoutSeconds")));
    List<PoolProgress> pools = e.<EntityValue>getList("pools").stream().map(v -> {
      FullEntity<?> p = v.get();
      return new PoolProgress(p.getString("cluster"), p.getString("pool"), p.getBoolean("updated"));
    }).toList();
    return new Rollout(e.getKey().getName(), request, RolloutState.valueOf(e.getString("state")), clusters, waves, pools,
        instant(e, "createdAt"), instant(e, "updatedAt"), optionalString(e, "message"), optionalString(e, "runner"),
        optionalInstant(e, "heartbeatAt"));
  }

  /** As stored; a record from before the ratio has {@code maxFailures} alone, which stays its only bound. */
  private static FailureLimits failureLimits(FullEntity<?> e) {
    return new FailureLimits(e.contains("maxFailures") ? Math.toIntExact(e.getLong("maxFailures")) : null,
        e.contains("maxFailureRatio") ? e.getDouble("maxFailureRatio") : null);
  }

  private static ListValue pools(List<PoolProgress> pools) {
    ListValue.Builder list = ListValue.newBuilder();
    for (PoolProgress p : pools) {
      list.addValue(EntityValue.newBuilder(FullEntity.newBuilder()
          .set("cluster", p.cluster()).set("pool", p.pool()).set("updated", BooleanValue.of(p.updated())).build())
          .setExcludeFromIndexes(true).build());
    }
    return list.build();
  }

  private static FullEntity<?> wave(Key rollout, Wave wave) {
    Key key = Key.newBuilder(rollout, WAVE, wave.index()).build();
    ListValue.Builder tenants = ListValue.newBuilder();
    for (TenantProgress t : wave.tenants()) {
      FullEntity.Builder<IncompleteKey> p = FullEntity.newBuilder()
          .set("tenant", t.tenant()).set("step", t.step().name()).set("generation", LongValue.of(t.generation()));
      if (t.fromVersion() != null) {
        p.set("fromVersion", t.fromVersion());
      }
      if (t.appliedAt() != null) {
        p.set("appliedAt", timestamp(t.appliedAt()));
      }
      if (t.detail() != null) {
        p.set("detail", t.detail());
      }
      tenants.addValue(EntityValue.newBuilder(p.build()).setExcludeFromIndexes(true).build());
    }
    return Entity.newBuilder(key).set("cluster", unindexed(wave.cluster())).set("tenants", tenants.build()).build();
  }

  private static Wave wave(Entity e) {
    List<TenantProgress> tenants = e.<EntityValue>getList("tenants").stream().map(v -> {
      FullEntity<?> p = v.get();
      return new TenantProgress(p.getString("tenant"), TenantProgress.Step.valueOf(p.getString("step")),
          p.contains("fromVersion") ? p.getString("fromVersion") : null, p.getLong("generation"),
          p.contains("appliedAt") ? instant(p, "appliedAt") : null, p.contains("detail") ? p.getString("detail") : null);
    }).toList();
    return new Wave((int) e.getKey().getId().longValue(), e.getString("cluster"), tenants);
  }

  private static StringValue unindexed(String value) {
    return StringValue.newBuilder(value).setExcludeFromIndexes(true).build();
  }

  private static TimestampValue timestamp(Instant instant) {
    return TimestampValue.newBuilder(Timestamp.ofTimeSecondsAndNanos(instant.getEpochSecond(), instant.getNano()))
        .setExcludeFromIndexes(true).build();
  }

  private static Instant instant(FullEntity<?> entity, String property) {
    Timestamp t = entity.getTimestamp(property);
    return Instant.ofEpochSecond(t.getSeconds(), t.getNanos());
  }

  private static Instant optionalInstant(FullEntity<?> entity, String property) {
    return entity.contains(property) ? instant(entity, property) : null;
  }

  private static String optionalString(FullEntity<?> entity, String property) {
    return entity.contains(property) ? entity.getString(property) : null;
  }
}
