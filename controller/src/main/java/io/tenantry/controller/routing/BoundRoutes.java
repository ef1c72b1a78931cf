package io.tenantry.controller.routing;

import static net.logstash.logback.argument.StructuredArguments.kv;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.controller.apply.ChangePlan;
import io.tenantry.controller.apply.Converger;
import io.tenantry.controller.apply.ObjectKey;
import io.tenantry.controller.apply.WriteFailure;
import io.tenantry.controller.cache.ClusterView;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.config.Plan;
import io.tenantry.controller.resources.IdentityModel;
import io.tenantry.controller.resources.TenantContext;
import io.tenantry.spares.allocation.BindListener;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens a just-bound tenant's way in from the allocation itself, ahead of the tenant's first sync:
 * the customer's URL serves once the edge has it, and the sync waits for the bind's watch event, a
 * worker and the tenant's other writes. A spare's route is in place already, gated
 * ({@link SpareGate}): bound without a subdomain, opening its exposed Services is all there is to
 * write; with one, its route is rewritten for the new hostname too. The tenant's identity goes
 * with them, so that the first page names its customer; with spares gated at the edge, a
 * subdomain's route is written alongside the bind ({@link #binding}). What is written is what the
 * sync writes ({@link TenantRouting}: the hostnames the tenant holds, claimed first; the Services
 * open), applied the same way; the sync finds it in place. Given the Tenant as the bind stored it,
 * on the signup's path, so the writes happen on threads of their own. What is not written here (an
 * API server error, a lost hostname) is left to the sync, which reports it. While the writes are in
 * flight the tenant's sync leaves those objects alone ({@link RoutesInFlight}), so that they are
 * applied once. A subdomain's hostname was claimed by the allocation API before the bind, and is not
 * claimed again here.
 */
public final class BoundRoutes implements BindListener, AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(BoundRoutes.class);
  private static final List<String> OUTCOMES = List.of("written", "inPlace", "notRouted", "stale", "failed");

  private final OperatorConfig config;
  private final TenantRouting routing;
  private final ClusterView cache;
  private final Converger converger;
  private final RoutesInFlight inFlight;
  private final ExecutorService writers;
  private final MeterRegistry registry;
  /** Routes being written ahead of their binds ({@link #binding}), by tenant: what each wrote. */
  private final Map<String, CompletableFuture<List<HasMetadata>>> ahead = new ConcurrentHashMap<>();

  /** @param threads how many routes are written at once (at least one) */
  public BoundRoutes(OperatorConfig config, TenantRouting routing, ClusterView cache, Converger converger,
      RoutesInFlight inFlight, int threads, MeterRegistry registry) {
    this.config = config;
    this.routing = routing;
    this.cache = cache;
    this.converger = converger;
    this.inFlight = inFlight;
    this.registry = registry;
    OUTCOMES.forEach(this::counter); // Every outcome present from the start, at 0.
    AtomicInteger count = new AtomicInteger();
    this.writers = Executors.newFixedThreadPool(Math.max(1, threads), r -> {
      Thread t = new Thread(r, "bound-route-" + count.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
  }

  /**
   * Ahead of a bind naming a subdomain, with spares gated at the edge: the route is rewritten for
   * the new hostname alongside the bind rather than after it, since loading a new hostname is the
   * edge's slowest step. Safe before the bind is stored: only the HTTPRoute is written, behind the
   * spare's gate as it asks, and the gate lets through only a bound tenant's own hostnames
   * ({@link EdgeGateEndpoint}); a spare that ends up not bound, or bound by another process to another
   * customer, serves no one at this name. Its identity, which would name the customer, waits for
   * the bind. A bind that fails leaves the spare's route to its sync, queued at once.
   */
  @Override
  public Runnable binding(Tenant spare, Tenant binding) {
    OperatorConfig.Routing settings = config.routing();
    if (binding.getSpec().getSubdomain() == null || !settings.enabled()
        || settings.spareGate().mode() != OperatorConfig.SpareGateMode.FORWARD_AUTH) {
      return () -> { };
    }
    String name = binding.getMetadata().getName();
    // As the bind will store it: a spec change is a new generation (its sync holds off the route until the cache
    // shows that one), the status unchanged (where its namespace is).
    Tenant expected = new Tenant();
    expected.setMetadata(new ObjectMetaBuilder(binding.getMetadata()).withGeneration(generation(spare) + 1).build());
    expected.setSpec(binding.getSpec());
    expected.setStatus(spare.getStatus());
    routing.boundWithSubdomain(expected, settings);
    inFlight.started(expected);
    CompletableFuture<List<HasMetadata>> written = new CompletableFuture<>();
    ahead.put(name, written);
    try {
      writers.execute(() -> {
        List<HasMetadata> objects = writeAhead(expected);
        aheadCounter(objects.isEmpty() ? "notWritten" : "written").increment();
        written.complete(objects);
      });
    } catch (RejectedExecutionException e) {
      written.complete(List.of());
    }
    return () -> {
      ahead.remove(name, written);
      written.whenComplete((objects, e) -> {
        inFlight.notBound(name);
        aheadCounter("undone").increment();
      });
    };
  }

  /** The bind is stored: the rest of the way in is written now, after what was written ahead of it. */
  @Override
  public void bound(Tenant bound) {
    String name = bound.getMetadata().getName();
    CompletableFuture<List<HasMetadata>> written = ahead.remove(name);
    if (written == null) {
      if (bound.getSpec().getSubdomain() != null && config.routing().enabled()) {
        routing.boundWithSubdomain(bound, config.routing());
      }
      inFlight.started(bound);
      written = CompletableFuture.completedFuture(List.of());
    }
    written.thenAccept(writtenAhead -> {
      try {
        writers.execute(() -> write(bound, writtenAhead));
      } catch (RejectedExecutionException e) {
        inFlight.notWritten(name); // Closing: the tenant's sync writes the route.
      }
    });
  }

  /**
   * The HTTPRoute of the Tenant a bind is writing, now, if the spare's gate in place asks the
   * operator; returns what it wrote (nothing: the route is written after the bind).
   */
  private List<HasMetadata> writeAhead(Tenant binding) {
    try {
      Plan plan = config.plans().get(binding.getSpec().getPlan());
      TenantContext ctx = plan == null ? null : new TenantContext(binding, config, plan);
      TraefikMiddleware gate = ctx == null ? null : cache.get(TraefikMiddleware.class, ctx.namespace(), EdgeGate.NAME);
      if (gate == null || gate.getSpec() == null || gate.getSpec().forwardAuth() == null) {
        return List.of(); // No asking gate to keep the new hostname behind until the bind is stored.
      }
      TenantRouting.Routes routes = routing.of(ctx, cache);
      List<HasMetadata> route = routes.objects().stream().filter(RouteModel::isRoute).toList();
      if (route.isEmpty()) {
        return List.of(); // No app exposed, or its hostname held elsewhere: the sync reports it.
      }
      List<WriteFailure> failures = converger.execute(Converger.plan(route, route.stream().map(this::cached)
          .filter(Objects::nonNull).toList()), o -> false);
      return failures.isEmpty() ? route : List.of();
    } catch (RuntimeException e) {
      LOG.info("subdomain's route not written ahead of its bind; written after it {} {}", kv("tenant", binding.getMetadata().getName()),
          kv("error", e.toString()));
      return List.of();
    }
  }

  /** Writes the bound tenant's route, now, but what was written {@code ahead} of the bind; what it could not write is left to the tenant's sync. */
  void write(Tenant bound, List<HasMetadata> ahead) {
    String outcome = outcome(bound, ahead);
    if (!"written".equals(outcome)) {
      inFlight.notWritten(bound.getMetadata().getName());
    }
    counter(outcome).increment();
  }

  /** What became of one bound tenant's route, as {@code tenantry_bound_routes_total} counts it. */
  private String outcome(Tenant bound, List<HasMetadata> ahead) {
    if (!current(bound)) {
      return "stale"; // The sync has the tenant's newer spec, or it is gone.
    }
    Plan plan = config.plans().get(bound.getSpec().getPlan());
    if (plan == null) {
      return "notRouted"; // The sync reports the unknown plan.
    }
    try {
      TenantContext ctx = new TenantContext(bound, config, plan);
      TenantRouting.Routes routes = routing.of(ctx, cache);
      if (routes.objects().isEmpty() || routes.gated()) {
        return "notRouted"; // No app exposed, its hostnames held by others (the sync says which), or not bound.
      }
      List<HasMetadata> wayIn = new ArrayList<>(routes.objects());
      wayIn.addAll(SpareGate.opened(ctx));
      wayIn.add(IdentityModel.configMap(ctx));
      Map<ObjectKey, HasMetadata> writtenAhead = ahead.stream().collect(Collectors.toMap(ObjectKey::of, o -> o));
      List<HasMetadata> cached = wayIn.stream().map(o -> writtenAhead.getOrDefault(ObjectKey.of(o), cached(o)))
          .filter(Objects::nonNull).toList();
      ChangePlan changes = Converger.plan(wayIn, cached);
      if (changes.isEmpty()) {
        return "inPlace"; // The tenant's sync was first.
      }
      List<WriteFailure> failures = converger.execute(changes, o -> false);
      if (!failures.isEmpty()) {
        LOG.info("bound tenant's route refused; its sync reports it {} {}", kv("tenant", bound.getMetadata().getName()),
            kv("failures", failures));
        return "failed";
      }
      inFlight.written(bound.getMetadata().getName(), wayIn);
      return "written";
    } catch (RuntimeException e) {
      LOG.info("bound tenant's route not written ahead; its sync writes it {} {}", kv("tenant", bound.getMetadata().getName()),
          kv("error", e.toString()));
      return "failed";
    }
  }

  private Counter aheadCounter(String outcome) {
    return Counter.builder("tenantry.bound.routes.ahead").description("Subdomains' routes written ahead of their binds")
        .tag("outcome", outcome).register(registry);
  }

  private Counter counter(String outcome) {
    return Counter.builder("tenantry.bound.routes").description("Routes of tenants the allocation API bound, written from the bind")
        .tag("outcome", outcome).register(registry);
  }

  /**
   * Whether the bind's Tenant is still the tenant's latest spec: a tenant deleted meanwhile, or
   * changed again (frozen right away), is its sync's alone, and must not get the bind's route back.
   */
  private boolean current(Tenant bound) {
    Tenant cached = cache.tenant(bound.getMetadata().getName());
    return cached != null && bound.getMetadata().getUid().equals(cached.getMetadata().getUid())
        && generation(cached) <= generation(bound);
  }

  private static long generation(Tenant tenant) {
    Long generation = tenant.getMetadata().getGeneration();
    return generation == null ? 0 : generation;
  }

  private HasMetadata cached(HasMetadata route) {
    return cache.get(route.getClass(), route.getMetadata().getNamespace(), route.getMetadata().getName());
  }

  @Override
  public void close() {
    writers.shutdownNow();
  }
}
