package io.tenantry.controller.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.tenantry.spares.allocation.AllocationOutcome;
import io.tenantry.spares.allocation.AllocationOutcome.Allocated;
import io.tenantry.spares.allocation.AllocationOutcome.NoSpare;
import io.tenantry.spares.allocation.AllocationRequest;
import io.tenantry.spares.allocation.Allocations;
import io.tenantry.spares.fleet.Allocation;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The allocation side as the signup API calls it, counting {@code tenantry_allocations_total{pool,outcome}}:
 * signups per SparePool and what they came to ({@link AllocationOutcome#label}, the values of the allocator's own
 * {@code tenantry_allocation_duration_seconds}). The pool is named only where the outcome proves it
 * exists, a spare bound from it or none Ready in it; the other outcomes (a replay, a pool or
 * subdomain refused, an outage) are counted with an empty pool, so that no caller's typo adds a series.
 */
public final class MeasuredAllocations implements Allocations {

  private final Allocations allocations;
  private final MeterRegistry registry;

  public MeasuredAllocations(Allocations allocations, MeterRegistry registry) {
    this.allocations = allocations;
    this.registry = registry;
  }

  @Override
  public AllocationOutcome allocate(AllocationRequest request) {
    AllocationOutcome outcome;
    try {
      outcome = allocations.allocate(request);
    } catch (RuntimeException e) {
      count("", "error"); // An outage (Datastore, a cluster), of no pool in particular: the caller is told to retry.
      throw e;
    }
    count(pool(request, outcome), AllocationOutcome.label(outcome));
    return outcome;
  }

  @Override
  public Optional<Allocated> lookup(String requestId) {
    return allocations.lookup(requestId);
  }

  @Override
  public CompletableFuture<Boolean> whenServing(Allocation allocation, Duration wait) {
    return allocations.whenServing(allocation, wait);
  }

  /** The pool label: the pool a spare was bound from or found empty; empty for the rest. */
  static String pool(AllocationRequest request, AllocationOutcome outcome) {
    if (outcome instanceof NoSpare noSpare) {
      return noSpare.pool();
    }
    return outcome instanceof Allocated a && !a.replayed() ? request.pool() : "";
  }

  private void count(String pool, String outcome) {
    Counter.builder("tenantry.allocations")
        .description("Signup requests by SparePool and outcome (error: an outage, answered 503 to retry)")
        .tags("pool", pool, "outcome", outcome).register(registry).increment();
  }
}
