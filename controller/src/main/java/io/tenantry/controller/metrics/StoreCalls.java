package io.tenantry.controller.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Calls to one store outside the cluster, timed into the one family every store shares,
 * {@code tenantry_store_request_duration_seconds{store,operation,outcome}} (a histogram): one
 * family, so that one alert and one panel cover the secret store, Cloud KMS and Datastore alike.
 * {@code operation} is the interface method (or the KMS RPC), {@code outcome} an {@link Outcome}.
 */
public final class StoreCalls {

  /** The store label of the secret store's calls (the local directory, or Cloud Storage). */
  public static final String SECRETS = "secrets";
  /** The store label of Cloud KMS's calls (the GCS secret store's envelope keys). */
  public static final String KMS = "kms";
  /** The store label of the fleet records' calls (Cloud Datastore). */
  public static final String DATASTORE = "datastore";

  /** What a call came to; the label is the lowercase name. */
  public enum Outcome {
    SUCCESS,
    /** The store (or its service) could not be reached or failed to answer: what the store-unavailable alert counts. */
    UNAVAILABLE,
    /** The store answered but its key cannot be used (missing, disabled, no permission): also counted as unavailable. */
    KEY_UNAVAILABLE,
    /** What was read does not decrypt or parse. */
    CORRUPT,
    /** A conditional write lost to another writer: part of normal operation. */
    CONFLICT,
    /** The input was refused before any call. */
    INVALID,
    /** Anything else thrown: a bug rather than the store. */
    ERROR;

    public String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** From a local file read (a millisecond) to a call that waits out its retries (ten seconds). */
  private static final Duration[] BUCKETS = {
    Duration.ofMillis(1), Duration.ofNanos(2_500_000), Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(25),
    Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1),
    Duration.ofMillis(2500), Duration.ofSeconds(5), Duration.ofSeconds(10),
  };

  private final MeterRegistry registry;
  private final String store;

  public StoreCalls(MeterRegistry registry, String store) {
    this.registry = registry;
    this.store = store;
  }

  /** Runs {@code call}, timing it under {@code operation}; what it throws is sorted by {@code failure} and rethrown. */
  public <T> T time(String operation, Supplier<T> call, Function<RuntimeException, Outcome> failure) {
    long started = System.nanoTime();
    try {
      T result = call.get();
      record(operation, Outcome.SUCCESS, System.nanoTime() - started);
      return result;
    } catch (RuntimeException e) {
      record(operation, failure.apply(e), System.nanoTime() - started);
      throw e;
    }
  }

  /** Records one call that took {@code nanos}. */
  public void record(String operation, Outcome outcome, long nanos) {
    Timer.builder("tenantry.store.request.duration")
        .description("Calls to the stores outside the cluster (secret store, Cloud KMS, Datastore), by operation and outcome")
        .tags("store", store, "operation", operation, "outcome", outcome.label())
        .serviceLevelObjectives(BUCKETS)
        .register(registry)
        .record(nanos, TimeUnit.NANOSECONDS);
  }
}
