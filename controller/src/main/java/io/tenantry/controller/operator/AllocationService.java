package io.tenantry.controller.operator;

import static net.logstash.logback.argument.StructuredArguments.kv;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.metrics.MeasuredAllocations;
import io.tenantry.controller.metrics.MeasuredFleetRecords;
import io.tenantry.spares.allocation.AllocationApi;
import io.tenantry.spares.allocation.Allocator;
import io.tenantry.spares.allocation.BindListener;
import io.tenantry.spares.allocation.ClusterDirectory;
import io.tenantry.spares.allocation.ServingProbe;
import io.tenantry.spares.allocation.TenantUrls;
import io.tenantry.spares.fleet.FleetRecords;
import io.tenantry.spares.fleet.KubeContexts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The allocation API as the operator runs it: the fleet's clusters this process reaches, the
 * allocator, and a background task that re-reads the registered clusters and records allocations
 * the fleet records lack (a killed process's last ones; the first run happens before the API is served).
 */
public final class AllocationService implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(AllocationService.class);

  /**
   * What {@link #wire} builds: the clusters this process reaches, the allocator over them, its HTTP
   * API, and the bearer token the API's callers present (never logged).
   */
  public record Parts(ClusterDirectory directory, Allocator allocator, AllocationApi api, String token) {

    @Override
    public String toString() {
      return "Parts[directory=" + directory + ", allocator=" + allocator + ", api=" + api + ", token=<redacted>]";
    }
  }

  private final Parts parts;
  private final ScheduledExecutorService refresh = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "allocation-refresh");
    t.setDaemon(true);
    return t;
  });

  private AllocationService(Parts parts) {
    this.parts = parts;
  }

  /**
   * Builds the allocation side's collaborators from the configuration's allocation, fleet and routing settings.
   *
   * @param onLocalBind told of each spare bound in this cluster (the operator's {@link Operator#boundRoutes()})
   */
  public static Parts wire(OperatorConfig config, KubernetesClient client, FleetRecords unmeasuredRecords, MeterRegistry registry,
      Clock clock, BindListener onLocalBind) {
    OperatorConfig.Allocation settings = config.allocation();
    // Datastore calls timed and signups counted by pool here, where they are composed (io.tenantry.controller.metrics).
    FleetRecords records = new MeasuredFleetRecords(unmeasuredRecords, registry);
    KubeContexts contexts = KubeContexts.load(config.fleet().kubeconfigs().stream().map(Path::of).toList());
    ClusterDirectory directory = new ClusterDirectory(records,
        ClusterDirectory.localCluster(config.fleet().clusterName(), config.fleet().clusterContextOrName(), clock), client, contexts,
        onLocalBind);
    Allocator allocator = new Allocator(records, directory, urls(config.routing()), clock,
        Duration.ofSeconds(settings.retryAfterSeconds()), settings.holdDuringSignupBursts(),
        ServingProbe.at(settings.servingProbeAddress()), registry);
    String token = readToken(Path.of(settings.tokenFile()));
    // The listener's limits, its own (it is served outside the listener's QoS); a wait holds a connection, no thread.
    AllocationApi api = new AllocationApi(new MeasuredAllocations(allocator, registry), token, settings.maxRequestBytes(),
        settings.defaultPool(), new AllocationApi.Limits(config.httpThreads(), config.httpQueue(), config.httpMaxConnections()),
        registry);
    return new Parts(directory, allocator, api, token);
  }

  /** Wires the allocation side and starts it on {@code operator}'s port: see {@link #start(Operator, Parts, int)}. */
  public static AllocationService start(Operator operator, OperatorConfig config, KubernetesClient client, FleetRecords records,
      Clock clock) {
    return start(operator, wire(config, client, records, operator.registry(), clock, operator.boundRoutes()),
        config.allocation().clusterRefreshSeconds());
  }

  /**
   * Reaches the clusters, finishes interrupted bindings, then serves on the operator's port while it
   * leads ({@link LeaderOnly}), refreshing every {@code period} seconds.
   */
  public static AllocationService start(Operator operator, Parts parts, int period) {
    AllocationService service = new AllocationService(parts);
    service.refresh();
    service.refresh.scheduleWithFixedDelay(service::refresh, period, period, TimeUnit.SECONDS);
    // The token is checked from the headers before LeaderOnly or the API run, and before the body is read.
    operator.serveSelfLimited(AllocationApi.PATH, new LeaderOnly(operator::isLeading, parts.api(), 1), parts.token());
    LOG.info("allocation API serving {} {}", kv("path", AllocationApi.PATH), kv("clusters", parts.directory().clusters().size()));
    return service;
  }

  /** Where allocated tenants are reached, as the operator routes them (nowhere while routing is off), and what no signup may take. */
  static TenantUrls urls(OperatorConfig.Routing routing) {
    return new TenantUrls(routing.scheme(), routing.enabled() ? routing.baseDomain() : "",
        Set.copyOf(routing.reservedSubdomains()), routing.spareGate().mode() == OperatorConfig.SpareGateMode.FORWARD_AUTH);
  }

  private void refresh() {
    try {
      parts.directory().refresh();
      parts.allocator().recordUnrecorded();
    } catch (RuntimeException e) {
      // Datastore or a cluster unreachable: allocations answer 503 meanwhile; try again next period.
      LOG.warn("allocation refresh failed {}", kv("error", e.getMessage()));
    }
  }

  private static String readToken(Path file) {
    try {
      String token = Files.readString(file).strip();
      if (token.isEmpty()) {
        throw new IllegalArgumentException("allocation.tokenFile: " + file + " is empty");
      }
      return token;
    } catch (IOException e) {
      throw new UncheckedIOException("allocation.tokenFile: cannot read " + file, e);
    }
  }

  @Override
  public void close() {
    refresh.shutdownNow();
    parts.allocator().close();
    parts.directory().close();
  }
}
