package io.tenantry.controller.rollout;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.tenantry.controller.queue.Ticker;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The bound on rollouts in flight (so that a fleet-wide change cannot flood the API server): a tenant must hold
 * one of {@code slots} slots to write workload changes, and keeps it until its workloads are
 * observed rolled out, or until its deadline passes. A tenant that finds no free slot is
 * remembered in arrival order and woken (re-queued) when one frees, so no worker ever waits for
 * a rollout. Converged tenants never ask for a slot.
 */
public final class RolloutGate {

  private final int slots;
  private final Duration deadline;
  private final Consumer<String> wake;
  private final Ticker ticker;
  /** Slot holders, with the time they got the slot. */
  private final Map<String, Long> holders = new HashMap<>();
  /** Woken tenants a free slot is kept for until they sync. */
  private final Set<String> reserved = new LinkedHashSet<>();
  /** Tenants waiting for a slot, in arrival order. */
  private final Set<String> waiting = new LinkedHashSet<>();
  private final Timer duration;
  private final Counter waits;
  private final Counter timeouts;

  public RolloutGate(int slots, Duration deadline, Consumer<String> wake, MeterRegistry registry, Ticker ticker) {
    this.slots = slots;
    this.deadline = deadline;
    this.wake = wake;
    this.ticker = ticker;
    Gauge.builder("tenantry.rollouts.in.flight", this, RolloutGate::inFlight).description("Tenants holding a rollout slot")
        .register(registry);
    Gauge.builder("tenantry.rollouts.waiting", this, RolloutGate::waitingCount).description("Tenants waiting for a rollout slot")
        .register(registry);
    this.duration = Timer.builder("tenantry.rollout.duration").description("From getting a slot to rolled out")
        .register(registry);
    this.waits = Counter.builder("tenantry.rollout.slot.waits").description("Times a tenant found no free rollout slot")
        .register(registry);
    this.timeouts = Counter.builder("tenantry.rollout.timeouts").description("Rollouts that passed their deadline")
        .register(registry);
  }

  /** Whether {@code tenant} holds a slot now, taking a free one if it can; if not, it is woken when one frees. */
  public synchronized boolean acquire(String tenant) {
    if (holders.containsKey(tenant)) {
      return true;
    }
    boolean mayTake = reserved.remove(tenant) || holders.size() + reserved.size() < slots && waiting.isEmpty();
    if (mayTake) {
      waiting.remove(tenant);
      holders.put(tenant, ticker.nanoTime());
      return true;
    }
    if (waiting.add(tenant)) {
      waits.increment();
    }
    return false;
  }

  /** Frees the tenant's slot (or reservation, or place in line); {@code rolledOut} records the rollout's duration. */
  public synchronized void release(String tenant, boolean rolledOut) {
    Long since = holders.remove(tenant);
    boolean freed = since != null || reserved.remove(tenant);
    waiting.remove(tenant);
    if (since != null && rolledOut) {
      duration.record(ticker.nanoTime() - since, TimeUnit.NANOSECONDS);
    }
    if (freed) {
      wakeNext();
    }
  }

  /** Frees the slot of a tenant whose rollout passed its deadline. */
  public synchronized void timedOut(String tenant) {
    timeouts.increment();
    release(tenant, false);
  }

  public synchronized boolean holds(String tenant) {
    return holders.containsKey(tenant);
  }

  /** Time left before the holder's deadline (zero or negative: passed); null when it holds no slot. */
  public synchronized Duration remaining(String tenant) {
    Long since = holders.get(tenant);
    return since == null ? null : deadline.minusNanos(ticker.nanoTime() - since);
  }

  public synchronized int inFlight() {
    return holders.size();
  }

  public synchronized int waitingCount() {
    return waiting.size();
  }

  private void wakeNext() {
    while (holders.size() + reserved.size() < slots && !waiting.isEmpty()) {
      String next = waiting.iterator().next();
      waiting.remove(next);
      reserved.add(next);
      wake.accept(next);
    }
  }
}
