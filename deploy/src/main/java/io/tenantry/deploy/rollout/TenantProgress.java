package io.tenantry.deploy.rollout;

import java.time.Instant;

/**
 * One tenant of a wave.
 *
 * @param fromVersion the app's version in the tenant's spec when the wave applied the new one
 * @param generation the tenant's metadata.generation carrying the new version: its status must
 *     describe at least this generation before it counts as rolled out; 0 until applied
 * @param appliedAt when the new version was written (or found already written); null until then
 * @param detail why it failed, or null
 */
public record TenantProgress(String tenant, Step step, String fromVersion, long generation, Instant appliedAt,
    String detail) {

  /** PENDING: not written yet. APPLIED: written, waiting for the tenant to report it Ready. */
  public enum Step {
    PENDING, APPLIED, SUCCEEDED, FAILED;

    public boolean done() {
      return this == SUCCEEDED || this == FAILED;
    }
  }

  public static TenantProgress pending(String tenant) {
    return new TenantProgress(tenant, Step.PENDING, null, 0, null, null);
  }

  public TenantProgress applied(String from, long appliedGeneration, Instant at) {
    return new TenantProgress(tenant, Step.APPLIED, from, appliedGeneration, at, null);
  }

  public TenantProgress succeeded() {
    return new TenantProgress(tenant, Step.SUCCEEDED, fromVersion, generation, appliedAt, null);
  }

  public TenantProgress failed(String why) {
    return new TenantProgress(tenant, Step.FAILED, fromVersion, generation, appliedAt, why);
  }

  /** How a failed tenant is shown everywhere (progress, summary, status): {@code failed eu/acme (was 1.0.0): why}. */
  public String failedLine(String cluster) {
    return "failed " + cluster + "/" + tenant + (fromVersion == null ? "" : " (was " + fromVersion + ")") + ": " + detail;
  }
}
