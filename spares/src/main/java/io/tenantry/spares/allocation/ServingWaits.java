package io.tenantry.spares.allocation;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.tenantry.spares.fleet.Allocation;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Waits for allocated tenants to serve at their URLs, holding no caller's thread: each wait is a
 * check rescheduled on a few threads of its own until the tenant serves or the wait ends. A check
 * reads the cluster's cache (a few map lookups) every {@link #STATUS_POLL}; once the tenant's status
 * says it serves, and routing is on, it asks the edge through the {@link ServingProbe}: at once, then
 * after pauses growing from {@link #EDGE_PROBE_FIRST_PAUSE} to {@link #EDGE_PROBE_MAX_PAUSE}, since a
 * probe is a request through the edge (and, for a gated route, the edge's request back to the
 * operator) while a new hostname can take the edge seconds to load. Probes are counted in
 * {@code tenantry_allocation_edge_probes_total}.
 */
final class ServingWaits implements AutoCloseable {

  static final Duration STATUS_POLL = Duration.ofMillis(20);
  static final Duration EDGE_PROBE_FIRST_PAUSE = Duration.ofMillis(50);
  static final Duration EDGE_PROBE_MAX_PAUSE = Duration.ofMillis(500);
  /** Threads running checks: a probe may block one for up to {@link ServingProbe#TIMEOUT} while the others go on. */
  private static final int THREADS = 4;

  private final SpareSources directory;
  private final TenantUrls urls;
  private final ServingProbe probe;
  private final Counter probes;
  private final ScheduledExecutorService checks;
  /** Waits not ended yet: ended as not serving when this closes. */
  private final Set<Wait> pending = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  ServingWaits(SpareSources directory, TenantUrls urls, ServingProbe probe, MeterRegistry registry) {
    this.directory = directory;
    this.urls = urls;
    this.probe = probe;
    this.probes = Counter.builder("tenantry.allocation.edge.probes")
        .description("Requests through the edge asking whether an allocated tenant's hostname serves yet")
        .register(registry);
    AtomicInteger n = new AtomicInteger();
    this.checks = Executors.newScheduledThreadPool(THREADS, r -> {
      Thread t = new Thread(r, "serving-wait-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
  }

  /**
   * Whether {@code allocation}'s tenant serves, within {@code wait}: the first check runs on the
   * caller's thread (a zero wait is answered by it alone), the rest on this class's threads.
   */
  CompletableFuture<Boolean> whenServing(Allocation allocation, Duration wait) {
    Wait w = new Wait(allocation, System.nanoTime() + wait.toNanos());
    w.run();
    return w.result;
  }

  @Override
  public void close() {
    closed = true;
    checks.shutdownNow();
    pending.forEach(w -> w.end(false));
  }

  /** One wait: its deadline, when it may probe the edge next, and the pause after that probe. */
  private final class Wait implements Runnable {

    private final Allocation allocation;
    private final long deadline;
    private final CompletableFuture<Boolean> result = new CompletableFuture<>();
    private long nextProbe = System.nanoTime();
    private long pause = EDGE_PROBE_FIRST_PAUSE.toNanos();

    Wait(Allocation allocation, long deadline) {
      this.allocation = allocation;
      this.deadline = deadline;
    }

    /** One check; rescheduled while the tenant does not serve and time is left. Runs on one thread at a time. */
    @Override
    public void run() {
      if (serves()) {
        end(true);
        return;
      }
      long left = deadline - System.nanoTime();
      if (left <= 0 || closed) {
        end(false);
        return;
      }
      pending.add(this);
      try {
        checks.schedule(this, Math.min(left, STATUS_POLL.toNanos()), TimeUnit.NANOSECONDS);
      } catch (RejectedExecutionException e) { // closed meanwhile
        end(false);
      }
    }

    private boolean serves() {
      Optional<? extends SpareSource> cluster = directory.cluster(allocation.cluster());
      if (cluster.isEmpty() || !cluster.get().serving(allocation.tenant(), urls.exposure())) {
        return false;
      }
      if (!urls.enabled() || probe == ServingProbe.NONE) {
        return true;
      }
      if (System.nanoTime() - nextProbe < 0) {
        return false;
      }
      probes.increment();
      if (probe.serves(urls.hostname(allocation.label()))) {
        return true;
      }
      nextProbe = System.nanoTime() + pause;
      pause = Math.min(pause * 2, EDGE_PROBE_MAX_PAUSE.toNanos());
      return false;
    }

    void end(boolean serving) {
      pending.remove(this);
      result.complete(serving);
    }
  }
}
