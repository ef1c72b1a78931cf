package io.tenantry.spares.allocation;

import io.tenantry.spares.fleet.Allocation;
import java.time.Duration;

/** What an allocation request came to. */
public sealed interface AllocationOutcome {

  /**
   * The outcome's metric label: allocated, replayed, no_spare, unknown_pool, subdomain_taken,
   * subdomain_refused; error when there is none (the request threw).
   */
  static String label(AllocationOutcome outcome) {
    if (outcome instanceof Allocated a) {
      return a.replayed() ? "replayed" : "allocated";
    }
    if (outcome instanceof NoSpare) {
      return "no_spare";
    }
    if (outcome instanceof UnknownPool) {
      return "unknown_pool";
    }
    if (outcome instanceof SubdomainTaken) {
      return "subdomain_taken";
    }
    return outcome instanceof SubdomainRefused ? "subdomain_refused" : "error";
  }

  /**
   * The request's tenant: bound just now, or (a retry) earlier.
   *
   * @param url where the tenant is reached; null while routing is off
   * @param replayed whether the request id had been served before
   */
  record Allocated(Allocation allocation, String url, boolean replayed) implements AllocationOutcome {
  }

  /** No Ready spare anywhere in the fleet for the pool; the pools are told to grow. */
  record NoSpare(String pool, Duration retryAfter, String message) implements AllocationOutcome {
  }

  /** No registered cluster has a SparePool of that name. */
  record UnknownPool(String pool) implements AllocationOutcome {
  }

  /**
   * Another tenant holds the hostname of the subdomain the request named; nothing was bound. The
   * caller asks again with another subdomain (and another request id, or the same one).
   */
  record SubdomainTaken(String subdomain, String hostname) implements AllocationOutcome {
  }

  /**
   * The request names a subdomain this operator cannot give: routing is off, the subdomain is
   * reserved, or the hostname would not be a valid name. Nothing was bound; the request must change.
   */
  record SubdomainRefused(String subdomain, String message) implements AllocationOutcome {
  }
}
