package io.tenantry.controller.operator;

import static net.logstash.logback.argument.StructuredArguments.kv;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.gatewayapi.v1.HTTPRoute;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElector;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.tenantry.backup.transfer.TransferHandler;
import io.tenantry.backup.transfer.TransferServer;
import io.tenantry.controller.apply.Applier;
import io.tenantry.controller.apply.Conflicts;
import io.tenantry.controller.apply.Converger;
import io.tenantry.controller.apply.KubeTenantWriter;
import io.tenantry.controller.backup.BackupRuntime;
import io.tenantry.controller.backup.BackupSlots;
import io.tenantry.controller.backup.PurgedBackups;
import io.tenantry.controller.backup.TenantBackups;
import io.tenantry.controller.cache.InformerCache;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.config.OperatorConfig.RoutingMode;
import io.tenantry.controller.events.KubeEventRecorder;
import io.tenantry.controller.lifecycle.ConvergedTenants;
import io.tenantry.controller.lifecycle.Provisioning;
import io.tenantry.controller.lifecycle.PurgedState;
import io.tenantry.controller.lifecycle.TenantCleanup;
import io.tenantry.controller.lifecycle.TenantReconciler;
import io.tenantry.controller.metrics.BackupOutcomes;
import io.tenantry.controller.metrics.FleetGauges;
import io.tenantry.controller.metrics.LeaderGauge;
import io.tenantry.controller.metrics.MeasuredFleetRecords;
import io.tenantry.controller.metrics.MeasuredSecretStore;
import io.tenantry.controller.metrics.MeasuredTenantWriter;
import io.tenantry.controller.pool.KubeSpareWriter;
import io.tenantry.controller.pool.SpareNames;
import io.tenantry.controller.pool.SparePoolReconciler;
import io.tenantry.controller.queue.BucketRateLimiter;
import io.tenantry.controller.queue.ItemExponentialFailureRateLimiter;
import io.tenantry.controller.queue.MaxOfRateLimiter;
import io.tenantry.controller.queue.RateLimitingQueue;
import io.tenantry.controller.queue.Ticker;
import io.tenantry.controller.queue.Workers;
import io.tenantry.controller.rollout.RolloutGate;
import io.tenantry.controller.routing.BoundRoutes;
import io.tenantry.controller.routing.ClusterHostnameClaims;
import io.tenantry.controller.routing.EdgeGate;
import io.tenantry.controller.routing.EdgeGateEndpoint;
import io.tenantry.controller.routing.FleetHostnameClaims;
import io.tenantry.controller.routing.RoutesInFlight;
import io.tenantry.controller.routing.TenantRouting;
import io.tenantry.controller.routing.TraefikMiddleware;
import io.tenantry.controller.secrets.TemplateDistribution;
import io.tenantry.controller.secrets.TenantSecrets;
import io.tenantry.controller.server.HttpEndpoints;
import io.tenantry.controller.server.Tls;
import io.tenantry.secretstore.SecretStore;
import io.tenantry.secretstore.sync.TemplateSync;
import io.tenantry.spares.fleet.FleetRecords;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jetty.server.Handler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The composition root: {@link #wire} builds every collaborator of the controller loop once, and the
 * operator runs them. Informers feed tenant keys into the rate-limited queue, workers sync them
 * with the reconciler. Only the leader (a Lease) runs informers and workers; a standby only
 * answers health checks until it wins the lease. Closing drains the queue: syncs in progress
 * finish, then the informers stop and the lease is released.
 */
public final class Operator implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(Operator.class);
  /** How long a bound tenant's sync leaves its written route to the watch (ms, normally). */
  private static final Duration BOUND_ROUTE_UNSEEN = Duration.ofSeconds(5);

  /**
   * The collaborators of a running operator, as {@link #wire} built them. Tests and benchmarks
   * that run an operator hold the same parts to watch it (queue length, metrics, caches).
   */
  public record Parts(PrometheusMeterRegistry registry, InformerCache cache, RateLimitingQueue<String> queue,
      RateLimitingQueue<String> poolQueue, TemplateDistribution templates, ConvergedTenants converged,
      TenantReconciler reconciler, Workers workers, Workers poolWorkers, BackupRuntime backups,
      PurgedBackups purgedBackups, BoundRoutes boundRoutes) {
  }

  private final KubernetesClient client;
  private final OperatorConfig config;
  private final String identity;
  private final Runnable onLostLeadership;
  private final Parts parts;
  private final ScheduledExecutorService templateRefresh = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "template-refresh");
    t.setDaemon(true);
    return t;
  });
  /** Sweeps purged tenants' backups while leading; idle when backups are off. */
  private final ScheduledExecutorService backupSweeps = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "purged-backups");
    t.setDaemon(true);
    return t;
  });
  private final HttpEndpoints http;
  /** Null when backups are off. */
  private final TransferServer transfer;
  private final AtomicBoolean leading = new AtomicBoolean();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final List<Runnable> leadingActions = new CopyOnWriteArrayList<>();
  private CompletableFuture<?> election;

  /**
   * @param parts what {@link #wire} built for {@code client} and {@code config}
   * @param onLostLeadership what to do when the lease is lost while running (the process exits:
   *     a former leader must not keep writing)
   */
  public Operator(KubernetesClient client, OperatorConfig config, String identity, Runnable onLostLeadership, Parts parts)
      throws IOException {
    this.client = client;
    this.config = config;
    this.identity = identity;
    this.onLostLeadership = onLostLeadership;
    this.parts = parts;
    this.http = new HttpEndpoints(new InetSocketAddress(config.httpPort()), new InetSocketAddress(config.probePort()),
        new HttpEndpoints.Limits(config.httpThreads(), config.httpQueue(), config.httpMaxConnections(),
            Duration.ofSeconds(config.httpReadTimeoutSeconds()), Duration.ofSeconds(config.httpWriteTimeoutSeconds())),
        tls(config.allocation()), () -> !closed.get(), this::isReady, parts.registry());
    // Every replica serves transfers: a token is checked with the store's key, not with the leader's memory.
    this.transfer = parts.backups() == null ? null : new TransferServer(new InetSocketAddress(config.backups().transferPort()),
        new TransferHandler(parts.backups().tokens(), parts.backups().store()), config.backups().maxConcurrent() * 2);
    LeaderGauge.register(parts.registry(), this::isLeading);
    if (config.routing().spareGate().mode() == OperatorConfig.SpareGateMode.FORWARD_AUTH) {
      // The edge asks before each request to a spare's route; only the leader's cache knows, a standby's 503 keeps it closed.
      http.serve(EdgeGate.PATH.substring(0, EdgeGate.PATH.length() - 1),
          new LeaderOnly(this::isLeading, new EdgeGateEndpoint(parts.cache()::tenant, config.routing()), 1));
    }
  }

  /** The API listener's TLS from the allocation settings' files; null: plain HTTP. */
  private static Tls tls(OperatorConfig.Allocation allocation) {
    return allocation.tls() ? new Tls(Path.of(allocation.tlsCertFile()), Path.of(allocation.tlsKeyFile()), Tls.POLL) : null;
  }

  /**
   * Builds the controller loop's collaborators on one client and configuration.
   *
   * @param identity this process, as events name their reporter
   * @param store the encrypted secret store (template secrets, tenants' database credentials)
   * @param fleetCleanup deletes a purged tenant's fleet records
   * @param fleet the fleet records that hold hostname claims and spare names across clusters; null:
   *     both are kept unique within this cluster only
   * @param backups the backup store and keys; null: backups are off
   */
  public static Parts wire(KubernetesClient client, OperatorConfig config, String identity, SecretStore store,
      TenantCleanup fleetCleanup, FleetRecords fleet, BackupRuntime backups) {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    RuntimeMetrics.bindTo(registry);
    // Calls to the stores outside the cluster are timed here, where they are composed, not in every caller.
    SecretStore measuredStore = new MeasuredSecretStore(store, registry);
    FleetRecords measuredFleet = fleet == null ? null : new MeasuredFleetRecords(fleet, registry);
    RateLimitingQueue<String> queue = new RateLimitingQueue<>("tenants", rateLimiter(config.rateLimits()), registry);
    RateLimitingQueue<String> poolQueue = new RateLimitingQueue<>("sparepools", rateLimiter(config.rateLimits()), registry);
    RoutingMode routingMode = routingMode(client, config.routing());
    InformerCache cache = new InformerCache(client, config.namespacePrefix(), config.templateNamespace(), config.edgeNamespace(),
        config.resyncPeriod(),
        queue::add, queue::addFirst, poolQueue::add, switch (routingMode) {
          // The edge's gate in front of spares' routes goes and comes with them (routing.spareGate forwardAuth).
          case GATEWAY -> config.routing().spareGate().mode() == OperatorConfig.SpareGateMode.FORWARD_AUTH
              ? List.of(HTTPRoute.class, TraefikMiddleware.class) : List.of(HTTPRoute.class);
          case INGRESS -> List.of(Ingress.class);
          case AUTO, NONE -> List.of();
        });
    TenantRouting routing = new TenantRouting(fleet != null ? new FleetHostnameClaims(measuredFleet, config.fleet().clusterName())
        : new ClusterHostnameClaims(cache, config.routing()), routingMode);
    Clock clock = Clock.systemUTC();
    RolloutGate gate = new RolloutGate(config.maxConcurrentRollouts(), Duration.ofSeconds(config.rolloutDeadlineSeconds()),
        queue::add, registry, Ticker.system());
    TemplateDistribution templates = new TemplateDistribution(new TemplateSync(measuredStore, client, config.templateNamespace(),
        config.secretStore().maxTemplateDeletionShare()), cache,
        () -> cache.tenantNames().forEach(queue::add));
    TenantSecrets secrets = new TenantSecrets(measuredStore, cache);
    PurgedBackups purgedBackups = backups == null ? null
        : new PurgedBackups(backups, config.backups().purgeDelayDuration(), clock);
    TenantCleanup cleanup = cleanup(secrets, purgedBackups, fleetCleanup, routing);
    Applier applier = new Applier(client, registry);
    Converger converger = new Converger(applier);
    // The allocation API's binds hand their tenants' routes to these, one thread per signup served at once:
    // a customer's route never waits behind another's.
    RoutesInFlight routesInFlight = new RoutesInFlight(cache, queue::add, BOUND_ROUTE_UNSEEN);
    BoundRoutes boundRoutes = new BoundRoutes(config, routing, cache, converger, routesInFlight, config.httpThreads(), registry);
    Provisioning provisioning = new Provisioning(cache, converger, gate, secrets, templates, routing, routesInFlight, clock);
    ConvergedTenants converged = new ConvergedTenants();
    KubeEventRecorder events = new KubeEventRecorder(client, identity, clock);
    BackupOutcomes backupOutcomes = new BackupOutcomes(registry);
    TenantBackups tenantBackups = backups == null ? null : new TenantBackups(client, cache, backups,
        new BackupSlots(config.backups().maxConcurrent(), queue::add), events, backupOutcomes,
        config.backups().keepReplacedForDuration(), clock);
    TenantReconciler reconciler = new TenantReconciler(cache, config,
        new MeasuredTenantWriter(new KubeTenantWriter(client), registry, clock),
        events, provisioning, new PurgedState(cache, applier, cleanup, clock),
        templates, converged, tenantBackups, clock);
    SparePoolReconciler pools = new SparePoolReconciler(cache, new KubeSpareWriter(client),
        fleet == null ? SpareNames.CLUSTER_ONLY : SpareNames.fleet(measuredFleet, config.fleet().clusterName()), clock,
        config.allocation().holdDuringSignupBursts(), poolEdge(config, routingMode, routing, cache, queue));
    Workers workers = new Workers("tenants", queue, reconciler::sync, reconciler::failed, registry);
    Workers poolWorkers = new Workers("sparepools", poolQueue, pools::sync, (pool, e) -> {
      if (!Conflicts.isConflict(e)) {
        LOG.warn("spare pool sync failed {} {}", kv("pool", pool), kv("error", e.getMessage()));
      }
    }, registry);
    new FleetGauges(cache, cache::sparePools, cache::hasSynced, config.plans().keySet(), config.namespacePrefix(),
        backups != null, clock)
        .registerWith(registry);
    return new Parts(registry, cache, queue, poolQueue, templates, converged, reconciler, workers, poolWorkers, backups,
        purgedBackups, boundRoutes);
  }

  /** The edge as the SparePool controller sees it: the spares' routes ahead, written by tenant syncs, and the Gateway's verdicts. */
  private static SparePoolReconciler.Edge poolEdge(OperatorConfig config, RoutingMode routingMode, TenantRouting routing,
      InformerCache cache, RateLimitingQueue<String> queue) {
    return routingMode == RoutingMode.NONE || !config.routing().enabled() ? SparePoolReconciler.Edge.NONE
        : new SparePoolReconciler.Edge(config.routing().routesAhead(), queue::addAfter, tenant -> routing.edgeTook(tenant, cache, config));
  }

  /**
   * What a purge deletes outside the cluster, in order: the tenant's secrets, the mark on its backups
   * (when backups are on: they go after the delay), its fleet records, its hostname claims. Each
   * failure names the store that failed, for the tenant's condition.
   */
  private static TenantCleanup cleanup(TenantSecrets secrets, PurgedBackups purgedBackups, TenantCleanup fleetCleanup,
      TenantRouting routing) {
    return (tenant, tenantUid) -> {
      secrets.purge(tenant); // Its failures name the store (the bucket, the directory).
      if (purgedBackups != null) {
        purgedBackups.mark(tenant, tenantUid); // So do the backup store's.
      }
      try {
        fleetCleanup.purge(tenant, tenantUid);
      } catch (Exception e) {
        // Datastore's own message ("I/O error") names neither the store nor what failed; the tenant's condition must.
        throw new IllegalStateException("fleet records (Datastore): " + e.getMessage(), e);
      }
      routing.release(tenant);
    };
  }

  /**
   * How tenants are routed here: none without a baseDomain; auto becomes gateway when the cluster
   * serves the Gateway API's HTTPRoute, else ingress. Logged, as it decides what the operator watches.
   */
  static RoutingMode routingMode(KubernetesClient client, OperatorConfig.Routing routing) {
    RoutingMode mode = !routing.enabled() ? RoutingMode.NONE
        : routing.mode() != RoutingMode.AUTO ? routing.mode()
        : client.supports(HTTPRoute.class) ? RoutingMode.GATEWAY : RoutingMode.INGRESS;
    LOG.info("routing {} {} {} {}", kv("configured", routing.mode()), kv("mode", mode), kv("baseDomain", routing.baseDomain()),
        kv("spareGate", routing.spareGate().mode()));
    if (mode == RoutingMode.INGRESS && routing.spareGate().mode() == OperatorConfig.SpareGateMode.FORWARD_AUTH) {
      throw new IllegalStateException("routing.spareGate.mode: forwardAuth needs the Gateway API, and this cluster does not serve"
          + " HTTPRoutes (routing.mode auto resolved to ingress)");
    }
    return mode;
  }

  /** Per-key exponential backoff combined (max-of) with a token bucket, as client-go's default controller rate limiter. */
  private static MaxOfRateLimiter<String> rateLimiter(OperatorConfig.RateLimits limits) {
    return new MaxOfRateLimiter<>(
        new ItemExponentialFailureRateLimiter<>(Duration.ofMillis(limits.baseDelayMillis()), Duration.ofSeconds(limits.maxDelaySeconds())),
        new BucketRateLimiter<>(limits.qps(), limits.burst(), Ticker.system()));
  }

  public void start() {
    http.start();
    if (transfer != null) {
      transfer.start();
    }
    LOG.info("operator starting {} {} {} {}", kv("identity", identity), kv("httpPort", http.port()), kv("probePort", http.probePort()),
        kv("leaderElection", config.leaderElection().enabled()));
    config.warnings().forEach(w -> LOG.warn("configuration {}", kv("warning", w)));
    if (!config.leaderElection().enabled()) {
      lead();
      return;
    }
    ensureNamespace(config.operatorNamespace());
    OperatorConfig.LeaderElection le = config.leaderElection();
    LeaderElector elector = client.leaderElector().withConfig(new LeaderElectionConfigBuilder()
        .withName(le.leaseName())
        .withLock(new LeaseLock(config.operatorNamespace(), le.leaseName(), identity))
        .withLeaseDuration(Duration.ofSeconds(le.leaseDurationSeconds()))
        .withRenewDeadline(Duration.ofSeconds(le.renewDeadlineSeconds()))
        .withRetryPeriod(Duration.ofSeconds(le.retryPeriodSeconds()))
        .withReleaseOnCancel(false) // released by releaseLease(), see there
        .withLeaderCallbacks(new LeaderCallbacks(
            // Started on its own thread: waiting for the caches must not hold up lease renewal.
            () -> new Thread(this::lead, "lead").start(),
            this::lostLeadership,
            leader -> LOG.info("leader is {}", kv("leader", leader))))
        .build()).build();
    election = elector.start();
  }

  private void lead() {
    try {
      LOG.info("leading: starting informers {}", kv("identity", identity));
      parts.cache().start(Duration.ofMinutes(2));
      templateRefresh.scheduleWithFixedDelay(parts.templates()::refresh, 0, config.secretStore().templateSyncSeconds(), TimeUnit.SECONDS);
      parts.workers().start(config.workers(), config.boundWorkers());
      parts.poolWorkers().start(1);
      if (parts.purgedBackups() != null) {
        backupSweeps.scheduleWithFixedDelay(this::sweepPurgedBackups, 0, PurgedBackups.EVERY.toMinutes(), TimeUnit.MINUTES);
      }
      leading.set(true);
      LOG.info("caches synced, workers started {} {} {}", kv("workers", config.workers()), kv("boundWorkers", config.boundWorkers()),
          kv("tenants", parts.cache().tenantNames().size()));
      leadingActions.forEach(Runnable::run);
    } catch (Exception e) {
      LOG.error("could not start the informers {}", kv("error", e.toString()));
      lostLeadership();
    }
  }

  /** One sweep; whatever it throws is logged, so that the next one still runs. */
  private void sweepPurgedBackups() {
    try {
      parts.purgedBackups().sweep();
    } catch (RuntimeException e) {
      LOG.error("sweeping purged tenants' backups failed {}", kv("error", e.toString()));
    }
  }

  private void lostLeadership() {
    if (!closed.get()) {
      LOG.error("lost leadership {}", kv("identity", identity));
      leading.set(false);
      onLostLeadership.run();
    }
  }

  private void ensureNamespace(String name) {
    if (client.namespaces().withName(name).get() == null) {
      client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build())
          .fieldManager(Applier.FIELD_MANAGER).serverSideApply();
    }
  }

  /**
   * Clears the lease's holder so that a standby takes over at once instead of waiting out the
   * lease. (fabric8's own release patches the holder with null, which a merge patch ignores.)
   * Guarded by resourceVersion: a lease some other instance holds by now is left alone.
   */
  private void releaseLease() {
    var lease = client.leases().inNamespace(config.operatorNamespace()).withName(config.leaderElection().leaseName());
    try {
      Lease current = lease.get();
      if (current != null && identity.equals(current.getSpec().getHolderIdentity())) {
        lease.patch(PatchContext.of(PatchType.JSON_MERGE), "{\"metadata\":{\"resourceVersion\":\""
            + current.getMetadata().getResourceVersion() + "\"},\"spec\":{\"holderIdentity\":null}}");
        LOG.info("released the lease {}", kv("lease", config.leaderElection().leaseName()));
      }
    } catch (RuntimeException e) {
      LOG.warn("could not release the lease {}", kv("error", e.toString()));
    }
  }

  public boolean isLeading() {
    return leading.get();
  }

  public boolean isReady() {
    return leading.get() && parts.cache().hasSynced();
  }

  /**
   * Runs {@code action} on the leading thread once this instance leads (caches synced, workers
   * running), such as labelling its pod as the leader's; call before {@link #start()}.
   */
  public void whenLeading(Runnable action) {
    leadingActions.add(action);
  }

  /** Serves another route on the operator's HTTP port; call before {@link #start()}. */
  public void serve(String path, Handler handler) {
    http.serve(path, handler);
  }

  /**
   * Serves a route only to callers presenting {@code Authorization: Bearer <token>}, such as the
   * allocation API: the others are refused from their headers, before any byte of the body is read.
   * The route limits its own requests ({@link HttpEndpoints#serveSelfLimited}).
   */
  public void serveSelfLimited(String path, Handler handler, String token) {
    http.serveSelfLimited(path, handler, token);
  }

  /** The port of the allocation API (and whatever else {@link #serve} adds). */
  public int httpPort() {
    return http.port();
  }

  /** The port of the backup transfer endpoint; -1 when backups are off. */
  public int transferPort() {
    return transfer == null ? -1 : transfer.port();
  }

  /** The port of /healthz, /readyz and /metrics. */
  public int probePort() {
    return http.probePort();
  }

  /** Where the allocation API hands the tenants it binds in this cluster, for their routes. */
  public BoundRoutes boundRoutes() {
    return parts.boundRoutes();
  }

  /** Where the operator's metrics are, for other services on its port (the allocation API) to add theirs. */
  public PrometheusMeterRegistry registry() {
    return parts.registry();
  }

  /** Graceful and bounded: {@link #close(Shutdown)} within {@link Shutdown#BUDGET}. */
  @Override
  public void close() {
    close(new Shutdown(Shutdown.BUDGET));
  }

  /**
   * Stops taking work, lets syncs in progress finish, stops informers, releases the lease, stops the
   * HTTP listeners: each step within its limit and what is left of {@code shutdown}'s budget, so an
   * API server that does not answer delays the exit by seconds, never by its client's retries.
   */
  public void close(Shutdown shutdown) {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    LOG.info("operator stopping: draining the queue {}", kv("queued", parts.queue().len()));
    leading.set(false);
    templateRefresh.shutdownNow();
    backupSweeps.shutdownNow();
    parts.boundRoutes().close(); // A route not written yet is the next leader's sync's.
    shutdown.step("drain", Duration.ofSeconds(3), this::drain);
    shutdown.step("informers", Duration.ofSeconds(1), parts.cache()::close);
    if (election != null) {
      // A step too: fabric8's LeaderElector stops under the lock its renewal holds, and a renewal
      // in flight to an API server that does not answer holds it through the client's retries.
      shutdown.step("election", Duration.ofSeconds(1), () -> election.cancel(true));
      shutdown.step("lease", Duration.ofSeconds(2), this::releaseLease);
    }
    shutdown.step("http", HttpEndpoints.STOP_GRACE.plusMillis(500), http::close);
    if (transfer != null) {
      shutdown.step("transfer", Duration.ofMillis(500), transfer::close);
    }
    LOG.info("operator stopped");
  }

  /** Lets the workers finish the syncs in progress; what is still queued is left for the next leader. */
  private void drain() {
    try {
      parts.queue().shutDownWithDrain();
      parts.poolQueue().shutDownWithDrain();
      parts.workers().join();
      parts.poolWorkers().join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
