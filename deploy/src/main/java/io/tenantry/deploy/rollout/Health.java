package io.tenantry.deploy.rollout;

import io.fabric8.kubernetes.api.model.Condition;
import io.tenantry.api.v1alpha1.AppSpec;
import io.tenantry.api.v1alpha1.AppStatus;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.api.v1alpha1.TenantStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Whether a tenant of a wave has rolled out the new version: the health gate between waves.
 *
 * <ul>
 *   <li><b>Succeeded</b>: its status describes the generation that carries the new version (or a
 *       later one) and reports the app at that version and ready ({@code status.apps[]}: the
 *       operator writes the version only once the Deployment is fully rolled out).</li>
 *   <li><b>Failed</b>: the operator marked it Degraded for that generation (its rollout passed
 *       the operator's {@code rolloutDeadlineSeconds}, or its sync failed); or it did not succeed
 *       within the rollout's per-tenant timeout from when the version was written; or the tenant
 *       was deleted; or someone else changed the app's version in its spec meanwhile.</li>
 *   <li>Otherwise still rolling out.</li>
 * </ul>
 */
public final class Health {

  /** Null detail unless failed. */
  public record Verdict(TenantProgress.Step step, String detail) {
    static final Verdict ROLLING = new Verdict(TenantProgress.Step.APPLIED, null);
    static final Verdict SUCCEEDED = new Verdict(TenantProgress.Step.SUCCEEDED, null);

    static Verdict failed(String detail) {
      return new Verdict(TenantProgress.Step.FAILED, detail);
    }
  }

  private Health() {
  }

  public static Verdict of(Tenant tenant, String app, String version, long generation, Instant appliedAt, Instant now,
      Duration timeout) {
    if (tenant == null) {
      return Verdict.failed("the tenant was deleted");
    }
    Optional<AppSpec> spec = WavePlanner.app(tenant.getSpec(), app);
    if (spec.isEmpty()) {
      return Verdict.failed("app " + app + " was removed from the tenant's spec");
    }
    if (!version.equals(spec.get().getVersion())) {
      return Verdict.failed("someone else set " + app + " to " + spec.get().getVersion() + " meanwhile");
    }
    TenantStatus status = tenant.getStatus();
    boolean current = status != null && status.getObservedGeneration() != null
        && status.getObservedGeneration() >= generation;
    if (current) {
      Optional<AppStatus> observed = status.getApps().stream().filter(a -> app.equals(a.getName())).findFirst();
      if (observed.isPresent() && version.equals(observed.get().getVersion()) && Boolean.TRUE.equals(observed.get().getReady())) {
        return Verdict.SUCCEEDED;
      }
      if (status.getPhase() == TenantPhase.Degraded) {
        return Verdict.failed("Degraded: " + readyMessage(status));
      }
    }
    if (!now.isBefore(appliedAt.plus(timeout))) {
      return Verdict.failed("not Ready on " + version + " within " + timeout.toSeconds() + "s (phase "
          + (status == null ? "none" : status.getPhase()) + (status == null ? "" : ": " + readyMessage(status)) + ")");
    }
    return Verdict.ROLLING;
  }

  private static String readyMessage(TenantStatus status) {
    return status.getConditions().stream().filter(c -> "Ready".equals(c.getType())).map(Condition::getMessage)
        .filter(m -> m != null).findFirst().orElse("no Ready condition");
  }
}
