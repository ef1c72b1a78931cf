package io.tenantry.controller.cache;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ExceptionHandler;

/**
 * Whether an informer lists and watches again after a failed list or watch (with the reflector's
 * backoff). fabric8's default stops an informer whose first list fails, for any reason: a pooled
 * connection the API server had just closed was enough to make the leader give up its informers'
 * start, and with it the lead. Here a failure is retried, started or not, unless the informer has
 * not started and retrying cannot help: a request the API server refused (403: a missing
 * permission, 404: a kind not installed) or an answer the client cannot decode (a mismatch with its
 * classes), so that the start fails at once naming the reason instead of waiting out its timeout.
 * A started informer retries everything: stopped, it would leave its part of the cache stale
 * without a word, while a permission, a kind or an object fixed later heals it.
 *
 * <p>How long an informer waits between attempts is the client's: see {@link #clientConfig}.
 */
public final class InformerRetries implements ExceptionHandler {

  /**
   * The first wait between an informer's attempts. fabric8 doubles it five times at most (and a watch
   * reconnects on the same schedule): from its default of 1 s, an outage of 20 s left informers
   * waiting up to 32 s more after the API server returned, and the tenants' Ready with them (24 s
   * after their workloads reported ready, in ApiServerFaultsIT). From 250 ms the wait is at most 8 s.
   */
  static final int RECONNECT_INTERVAL_MILLIS = 250;

  /** The operator's client settings on top of {@code config} (a copy; {@code config} is left as it is). */
  public static Config clientConfig(Config config) {
    return new ConfigBuilder(config).withWatchReconnectInterval(RECONNECT_INTERVAL_MILLIS).build();
  }

  @Override
  public boolean retryAfterException(boolean isStarted, Throwable t) {
    return isStarted || !(refused(t) || ExceptionHandler.isDeserializationException(t));
  }

  /** An answer from the API server that the same request will get again: a 4xx other than 408 and 429. */
  static boolean refused(Throwable t) {
    for (Throwable cause = t; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
      if (cause instanceof KubernetesClientException e) {
        int code = e.getCode();
        return code >= 400 && code < 500 && code != 408 && code != 429;
      }
    }
    return false;
  }
}
