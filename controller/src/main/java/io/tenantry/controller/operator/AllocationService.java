package io.tenantry.controller.operator;

import static net.logstash.logback.argument.StructuredArguments.kv;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.spares.allocation.AllocationApi;
import io.tenantry.spares.allocation.Allocator;
import io.tenantry.spares.allocation.ClusterDirectory;
import io.tenantry.spares.fleet.FleetRecords;
import io.tenantry.spares.fleet.KubeContexts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
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

  private final ClusterDirectory directory;
  private final Allocator allocator;
  private final AllocationApi api;
  private final ScheduledExecutorService refresh = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "allocation-refresh");
    t.setDaemon(true);
    return t;
  });

  private AllocationService(OperatorConfig config, KubernetesClient client, FleetRecords records, MeterRegistry registry,
      Clock clock) {
    OperatorConfig.Allocation settings = config.allocation();
    KubeContexts contexts = KubeContexts.load(config.fleet().kubeconfigs().stream().map(Path::of).toList());
    this.directory = new ClusterDirectory(records,
        ClusterDirectory.localCluster(config.fleet().clusterName(), config.fleet().clusterContextOrName(), clock), client, contexts);
    this.allocator = new Allocator(records, directory, clock, Duration.ofSeconds(settings.retryAfterSeconds()), registry);
    this.api = new AllocationApi(allocator, readToken(Path.of(settings.tokenFile())), settings.maxRequestBytes(), settings.defaultPool());
  }

  /** Reaches the clusters, finishes interrupted bindings, then serves on the operator's port. */
  public static AllocationService start(Operator operator, OperatorConfig config, KubernetesClient client, FleetRecords records,
      Clock clock) {
    AllocationService service = new AllocationService(config, client, records, operator.registry(), clock);
    service.refresh();
    int period = config.allocation().clusterRefreshSeconds();
    service.refresh.scheduleWithFixedDelay(service::refresh, period, period, TimeUnit.SECONDS);
    operator.serve(AllocationApi.PATH, service.api);
    LOG.info("allocation API serving {} {}", kv("path", AllocationApi.PATH), kv("clusters", service.directory.clusters().size()));
    return service;
  }

  private void refresh() {
    try {
      directory.refresh();
      allocator.recordUnrecorded();
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

  public Allocator allocator() {
    return allocator;
  }

  @Override
  public void close() {
    refresh.shutdownNow();
    allocator.close();
    directory.close();
  }
}
