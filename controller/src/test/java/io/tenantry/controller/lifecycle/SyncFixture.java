package io.tenantry.controller.lifecycle;

import io.fabric8.kubernetes.client.utils.Serialization;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.controller.apply.Converger;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.config.OperatorConfig.RoutingMode;
import io.tenantry.controller.fakes.FakeCluster;
import io.tenantry.controller.fakes.InMemorySecretStore;
import io.tenantry.controller.fakes.Writes;
import io.tenantry.controller.operator.OperatorHarness;
import io.tenantry.controller.queue.SyncResult;
import io.tenantry.controller.rollout.RolloutGate;
import io.tenantry.controller.routing.ClusterHostnameClaims;
import io.tenantry.controller.routing.RoutesInFlight;
import io.tenantry.controller.routing.TenantRouting;
import io.tenantry.controller.secrets.TemplateState;
import io.tenantry.controller.secrets.TenantSecrets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * A {@link TenantReconciler} wired as {@code Operator.wire} wires it, on in-memory collaborators: the
 * cluster it reads, the writes it makes (applied back to that cluster), a secret store, a rollout
 * gate on a hand-driven clock. Builds in microseconds; one per test.
 */
final class SyncFixture {

  /** How long a written bound route may stay out of the cache before its sync writes it. */
  static final Duration BOUND_ROUTE_UNSEEN = Duration.ofMillis(300);

  final FakeCluster cluster;
  final Writes writes;
  final InMemorySecretStore store;
  final OperatorConfig config;
  private final int rolloutSlots;
  private final RoutingMode routingMode;
  final AtomicLong nanos = new AtomicLong();
  final List<String> woken = new ArrayList<>();
  final List<String> purgedRecords = new ArrayList<>();
  /** The UIDs the cleanup was given, one per purge, as {@link #purgedRecords} names the tenants. */
  final List<String> purgedUids = new ArrayList<>();
  final Templates templates = new Templates();
  /** Tenants queued again by the routes the allocation API's binds write ({@link #boundRoutes}). */
  final List<String> requeued = new CopyOnWriteArrayList<>();
  /** The bound tenants whose route a test says is being written from the bind. */
  final RoutesInFlight boundRoutes;
  final RolloutGate gate;
  final TenantReconciler reconciler;
  /** Makes the cleanup of records outside the cluster fail, as an unreachable store would. */
  RuntimeException cleanupFailure;

  /** The template state, settable by a test. */
  static final class Templates implements TemplateState {
    String error;
    long version;

    @Override
    public String error() {
      return error;
    }

    @Override
    public long stateVersion() {
      return version;
    }
  }

  SyncFixture(int rolloutSlots) {
    this(rolloutSlots, "{}", RoutingMode.NONE);
  }

  /** With {@code configYaml} laid over the defaults, and tenants routed by {@code routingMode} (claims within the cluster). */
  SyncFixture(int rolloutSlots, String configYaml, RoutingMode routingMode) {
    this(OperatorConfig.defaults().with("{maxConcurrentRollouts: %d, rolloutDeadlineSeconds: 60}".formatted(rolloutSlots))
        .with(configYaml), rolloutSlots, routingMode, new FakeCluster(), new InMemorySecretStore());
  }

  private SyncFixture(OperatorConfig config, int rolloutSlots, RoutingMode routingMode, FakeCluster cluster,
      InMemorySecretStore store) {
    this.config = config;
    this.rolloutSlots = rolloutSlots;
    this.routingMode = routingMode;
    this.cluster = cluster;
    this.writes = new Writes(cluster);
    this.store = store;
    Clock clock = Clock.fixed(Instant.parse("2026-03-01T10:00:00Z"), ZoneOffset.UTC);
    gate = new RolloutGate(rolloutSlots, Duration.ofSeconds(config.rolloutDeadlineSeconds()), woken::add,
        new SimpleMeterRegistry(), nanos::get);
    TenantSecrets secrets = new TenantSecrets(store, cluster);
    TenantCleanup cleanup = (tenant, tenantUid) -> {
      if (cleanupFailure != null) {
        throw cleanupFailure;
      }
      secrets.purge(tenant);
      purgedRecords.add(tenant);
      purgedUids.add(tenantUid);
    };
    boundRoutes = new RoutesInFlight(cluster, requeued::add, BOUND_ROUTE_UNSEEN);
    Provisioning provisioning = new Provisioning(cluster, new Converger(writes), gate, secrets, templates,
        new TenantRouting(new ClusterHostnameClaims(cluster, config.routing()), routingMode), boundRoutes, clock);
    reconciler = new TenantReconciler(cluster, config, writes, writes, provisioning,
        new PurgedState(cluster, writes, cleanup, clock), templates, new ConvergedTenants(), null, clock);
  }

  SyncFixture() {
    this(10);
  }

  /** The operator restarted: a new reconciler and rollout gate, nothing in memory, over the same cluster and store. */
  SyncFixture restarted() {
    return new SyncFixture(config, rolloutSlots, routingMode, cluster, store);
  }

  /** An Active tenant with one app (web, 2 replicas) and one PostgreSQL database (main), stored in the cluster. */
  Tenant tenant(String name) {
    return cluster.putTenant(OperatorHarness.tenant(name, 2, true));
  }

  SyncResult sync(String name) {
    return reconciler.sync(name);
  }

  /** Syncs until the tenant is Ready: its finalizer, its objects, then (workloads rolled out) its status. */
  Tenant provisioned(String name) {
    tenant(name);
    sync(name); // finalizer
    sync(name); // objects
    cluster.rollOut(name);
    sync(name); // status Ready
    writes.take();
    return cluster.tenant(name);
  }

  /** Changes the stored tenant as a user's edit would. */
  Tenant edit(String name, Consumer<Tenant> change) {
    Tenant tenant = Serialization.clone(cluster.tenant(name));
    change.accept(tenant);
    return cluster.putTenant(tenant);
  }
}
