package io.tenantry.controller.secrets;

import static net.logstash.logback.argument.StructuredArguments.kv;

import io.tenantry.controller.cache.ClusterView;
import io.tenantry.secretstore.sync.TemplateSync;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the template namespace filled from the store, comparing with the informer cache (no API
 * call when nothing changed). A changed template Secret reaches every tenant through the cache's
 * fan-out; a failure is remembered, so that every tenant's SecretsSynced condition says why,
 * until a sync succeeds again.
 */
public final class TemplateDistribution implements TemplateState {

  private static final Logger LOG = LoggerFactory.getLogger(TemplateDistribution.class);

  private final TemplateSync sync;
  private final ClusterView cache;
  private final Runnable onStateChange;
  private final AtomicLong stateVersion = new AtomicLong();
  private volatile String error;

  /**
   * @param onStateChange called when the failure state changes (re-queues every tenant)
   */
  public TemplateDistribution(TemplateSync sync, ClusterView cache, Runnable onStateChange) {
    this.sync = sync;
    this.cache = cache;
    this.onStateChange = onStateChange;
  }

  /** One refresh; never throws (a failure is kept as the state every tenant reports). */
  public void refresh() {
    String failure;
    try {
      TemplateSync.Result result = sync.sync(cache.templateSecrets());
      if (result.changed()) {
        LOG.info("template namespace refreshed {} {} {}", kv("created", result.created()), kv("updated", result.updated()),
            kv("deleted", result.deleted()));
      }
      failure = null;
    } catch (RuntimeException e) {
      failure = "refreshing the template secrets failed: " + e.getMessage();
      LOG.warn("template refresh failed {}", kv("error", e.getMessage()));
    }
    if (!Objects.equals(failure, error)) {
      error = failure;
      stateVersion.incrementAndGet();
      onStateChange.run();
    }
  }

  @Override
  public String error() {
    return error;
  }

  @Override
  public long stateVersion() {
    return stateVersion.get();
  }
}
