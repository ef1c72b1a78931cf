package io.tenantry.spares.allocation;

import io.tenantry.spares.fleet.Allocation;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * What the signup API asks of the allocation side: serve one request. {@link Allocator} is the
 * implementation; the API depends on this alone so that its HTTP handling stands apart from the
 * clusters and the fleet records.
 *
 * <p>Guarantees of every implementation:
 * <ul>
 *   <li>The same request id gets the same tenant, as {@link AllocationOutcome.Allocated} with
 *       {@code replayed} set on every answer after the first ({@link Allocator} names the one
 *       window, two processes within the cache lag, where the fleet records keep the first).</li>
 *   <li>No tenant is handed to two request ids.</li>
 *   <li>A request naming a subdomain gets a tenant only once the subdomain's hostname is claimed
 *       for it in the fleet records; a hostname another tenant holds is answered
 *       {@link AllocationOutcome.SubdomainTaken} and nothing is bound.</li>
 *   <li>An outage is thrown, not answered: {@code DatastoreException} when the fleet records cannot
 *       be reached, {@code KubernetesClientException} when a cluster cannot, so the caller can be
 *       told to retry with the same id.</li>
 * </ul>
 */
public interface Allocations {

  /** Serves the request: its tenant, or why there is none (no Ready spare, no such pool, the subdomain). */
  AllocationOutcome allocate(AllocationRequest request);

  /** What a request id received, from this process or any other, as a replay; empty when it received nothing. */
  Optional<AllocationOutcome.Allocated> lookup(String requestId);

  /**
   * Whether the allocated tenant serves at its URL, known within {@code wait}: the signup service
   * sends its customer there once it does. Completes at once when the tenant serves already or the
   * wait is zero, and never holds the caller's thread longer than one look.
   */
  CompletableFuture<Boolean> whenServing(Allocation allocation, Duration wait);
}
