package io.tenantry.controller.routing;

import static net.logstash.logback.argument.StructuredArguments.kv;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.controller.apply.ChangePlan;
import io.tenantry.controller.apply.Converger;
import io.tenantry.controller.apply.WriteFailure;
import io.tenantry.controller.cache.ClusterView;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.config.Plan;
import io.tenantry.controller.resources.IdentityModel;
import io.tenantry.controller.resources.TenantContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens a just-bound tenant's way in from the allocation itself, ahead of the tenant's first sync:
 * the customer's URL serves once the edge has it, and the sync waits for the bind's watch event, a
 * worker and the tenant's other writes. A spare's route is in place already, gated
 * ({@link SpareGate}): bound without a subdomain, opening its exposed Services is all there is to
 * write; with one, its route is rewritten for the new hostname too. The tenant's identity goes
 * with them, so that the first page names its customer. What is written is what the
 * sync writes ({@link TenantRouting}: the hostnames the tenant holds, claimed first; the Services
 * open), applied the same way; the sync finds it in place. Given the Tenant as the bind stored it,
 * on the signup's path, so the writes happen on threads of their own. What is not written here (an
 * API server error, a lost hostname) is left to the sync, which reports it. While the writes are in
 * flight the tenant's sync leaves those objects alone ({@link RoutesInFlight}), so that they are
 * applied once. A subdomain's hostname was claimed by the allocation API before the bind, and is not
 * claimed again here.
 */
public final class BoundRoutes implements Consumer<Tenant>, AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(BoundRoutes.class);
  private static final List<String> OUTCOMES = List.of("written", "inPlace", "notRouted", "stale", "failed");

  private final OperatorConfig config;
  private final TenantRouting routing;
  private final ClusterView cache;
  private final Converger converger;
  private final RoutesInFlight inFlight;
  private final ExecutorService writers;
  private final MeterRegistry registry;

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

  @Override
  public void accept(Tenant bound) {
    String name = bound.getMetadata().getName();
    if (bound.getSpec().getSubdomain() != null && config.routing().enabled()) {
      routing.boundWithSubdomain(bound, config.routing());
    }
    inFlight.started(bound);
    try {
      writers.execute(() -> write(bound));
    } catch (RejectedExecutionException e) {
      inFlight.notWritten(name); // Closing: the tenant's sync writes the route.
    }
  }

  /** Writes the bound tenant's route, now; what it could not write is left to the tenant's sync. */
  void write(Tenant bound) {
    String outcome = outcome(bound);
    if (!"written".equals(outcome)) {
      inFlight.notWritten(bound.getMetadata().getName());
    }
    counter(outcome).increment();
  }

  /** What became of one bound tenant's route, as {@code tenantry_bound_routes_total} counts it. */
  private String outcome(Tenant bound) {
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
      List<HasMetadata> cached = wayIn.stream().map(this::cached).filter(Objects::nonNull).toList();
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
