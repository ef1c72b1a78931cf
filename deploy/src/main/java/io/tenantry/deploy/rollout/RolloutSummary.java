package io.tenantry.deploy.rollout;

import java.time.Instant;

/** A rollout without its waves: what {@code tenantctl rollout list} shows. */
public record RolloutSummary(String id, String app, String version, String selection, RolloutState state,
    long tenants, long succeeded, long failed, Instant createdAt, Instant updatedAt, String message) {
}
