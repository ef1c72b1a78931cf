package io.tenantry.controller.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.datastore.DatastoreException;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.tenantry.spares.allocation.AllocationOutcome;
import io.tenantry.spares.allocation.AllocationOutcome.Allocated;
import io.tenantry.spares.allocation.AllocationOutcome.NoSpare;
import io.tenantry.spares.allocation.AllocationOutcome.SubdomainTaken;
import io.tenantry.spares.allocation.AllocationOutcome.UnknownPool;
import io.tenantry.spares.allocation.AllocationRequest;
import io.tenantry.spares.allocation.Allocations;
import io.tenantry.spares.fleet.Allocation;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** Signups answered by the allocation side → tenantry_allocations_total by pool and outcome, pools named only when they exist. */
class MeasuredAllocationsTest {

  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final Deque<Object> answers = new ArrayDeque<>();
  private final MeasuredAllocations allocations = new MeasuredAllocations(new Allocations() {
    @Override
    public AllocationOutcome allocate(AllocationRequest request) {
      Object next = answers.removeFirst();
      if (next instanceof RuntimeException e) {
        throw e;
      }
      return (AllocationOutcome) next;
    }

    @Override
    public Optional<Allocated> lookup(String requestId) {
      return Optional.empty();
    }

    @Override
    public CompletableFuture<Boolean> whenServing(Allocation allocation, Duration wait) {
      return CompletableFuture.completedFuture(false);
    }
  }, registry);

  private static AllocationRequest signup(String id, String pool) {
    return new AllocationRequest(id, "Initech", "ops@initech.example", pool, null);
  }

  private static Allocated allocated(boolean replayed) {
    return new Allocated(new Allocation("r", "Initech", "ops@initech.example", "default-x7k2p", "uid-1", "local",
        "tenant-default-x7k2p", Instant.parse("2026-03-01T10:00:00Z"), null), null, replayed);
  }

  private double count(String pool, String outcome) {
    return new Scrape(registry.scrape()).value("tenantry_allocations_total", "outcome", outcome, "pool", pool);
  }

  @Test
  void signupsAreCountedByPoolAndOutcome() {
    answers.add(allocated(false));
    answers.add(allocated(false));
    answers.add(new NoSpare("default", Duration.ofSeconds(10), "no Ready spare in pool default"));
    answers.add(allocated(true));
    for (String id : new String[] {"a", "b", "c", "a"}) {
      allocations.allocate(signup(id, "default"));
    }

    assertThat(count("default", "allocated")).isEqualTo(2);
    assertThat(count("default", "no_spare")).isEqualTo(1);
    assertThat(count("", "replayed")).isEqualTo(1);
  }

  @Test
  void poolsNoClusterHasAndOutagesAddNoPoolSeries() {
    answers.add(new UnknownPool("typo-pool"));
    answers.add(new SubdomainTaken("initech", "initech.tenants.example.com"));
    answers.add(new DatastoreException(14, "unavailable", "UNAVAILABLE"));

    allocations.allocate(signup("a", "typo-pool"));
    allocations.allocate(signup("b", "other-typo"));
    assertThatThrownBy(() -> allocations.allocate(signup("c", "third-typo"))).isInstanceOf(DatastoreException.class);

    assertThat(count("", "unknown_pool")).isEqualTo(1);
    assertThat(count("", "subdomain_taken")).isEqualTo(1);
    assertThat(count("", "error")).isEqualTo(1);
    assertThat(new Scrape(registry.scrape()).samples("tenantry_allocations_total"))
        .noneMatch(s -> s.labels().get("pool").contains("typo"));
  }
}
