package io.tenantry.controller.lifecycle;

import io.tenantry.api.SignupPause;
import io.tenantry.controller.queue.Ticker;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Holds back the first sync of tenants the allocation API binds in a burst, by {@link SignupPause}.
 * That sync writes the tenant's identity ConfigMap, its status and an event. The customer has the
 * answer already, and the apps see the identity ConfigMap only at the kubelet's next volume sync
 * (up to a minute or so) anyway. A lone signup is synced at once.
 */
final class SignupBursts {

  private final Ticker ticker;
  /** When the latest bound tenant was first seen. */
  private final AtomicLong lastBind = new AtomicLong(Long.MIN_VALUE);
  /** Tenants held back, with when each was first seen bound. */
  private final Map<String, Long> held = new ConcurrentHashMap<>();

  SignupBursts(Ticker ticker) {
    this.ticker = ticker;
  }

  /** How long the sync of a just-bound tenant waits; zero: sync now. */
  Duration hold(String tenant) {
    long now = ticker.nanoTime();
    Long since = held.get(tenant);
    if (since == null) {
      long previous = lastBind.getAndAccumulate(now, Math::max);
      if (previous == Long.MIN_VALUE || !SignupPause.inBurst(Duration.ofNanos(now - previous))) {
        return Duration.ZERO; // No signup came just before it: not in a burst.
      }
      since = now;
      held.put(tenant, since);
    }
    Duration wait = SignupPause.holdLeft(Duration.ofNanos(now - lastBind.get()), Duration.ofNanos(now - since));
    if (wait.isZero()) {
      held.remove(tenant);
    }
    return wait;
  }

  /** Forgets a tenant that is gone. */
  void forget(String tenant) {
    held.remove(tenant);
  }
}
