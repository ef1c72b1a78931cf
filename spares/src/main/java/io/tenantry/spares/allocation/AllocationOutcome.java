package io.tenantry.spares.allocation;

import io.tenantry.spares.fleet.Allocation;
import java.time.Duration;

/** What an allocation request came to. */
public sealed interface AllocationOutcome {

  /**
   * The request's tenant: bound just now, or (a retry) earlier.
   *
   * @param replayed whether the request id had been served before
   */
  record Allocated(Allocation allocation, boolean replayed) implements AllocationOutcome {
  }

  /** No Ready spare anywhere in the fleet for the pool; the pools are told to grow. */
  record NoSpare(String pool, Duration retryAfter, String message) implements AllocationOutcome {
  }

  /** No registered cluster has a SparePool of that name. */
  record UnknownPool(String pool) implements AllocationOutcome {
  }
}
