package io.tenantry.controller.lifecycle;

import static net.logstash.logback.argument.StructuredArguments.kv;

import io.fabric8.kubernetes.api.model.Condition;
import io.tenantry.api.Timestamps;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.api.v1alpha1.TenantStatus;
import io.tenantry.controller.apply.WriteFailure;
import io.tenantry.controller.queue.SyncResult;
import io.tenantry.controller.resources.TenantContext;
import io.tenantry.controller.status.Conditions;
import io.tenantry.controller.status.Reason;
import io.tenantry.controller.status.StatusBuilder;
import java.time.Clock;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a sync reports the writes the API server refused while it wrote everything else: the tenant
 * is Degraded with Ready=False, reason {@link Reason#WriteFailed}, a message naming each object
 * and the server's message, and the sync is retried with backoff. A tenant Degraded already for
 * another reason (a rollout past its deadline, a failed migration) keeps that reason, which later
 * syncs read back; the refused writes are added to its message.
 */
final class WriteFailures {

  private static final Logger LOG = LoggerFactory.getLogger(WriteFailures.class);
  /** A condition message stays readable in {@code kubectl describe}; the log has every failure. */
  private static final int MAX_MESSAGE = 1024;

  private WriteFailures() {
  }

  static Outcome reported(TenantContext ctx, Outcome outcome, List<WriteFailure> failures, Clock clock) {
    if (failures.isEmpty()) {
      return outcome;
    }
    LOG.warn("writes refused {} {}", kv("tenant", ctx.name()), kv("failures", failures.stream().map(WriteFailure::toString).toList()));
    String refused = "could not write " + failures.stream().map(WriteFailure::toString).collect(Collectors.joining("; "));
    TenantStatus status = outcome.status();
    Reason reason = Reason.WriteFailed;
    Condition ready = Conditions.find(status.getConditions(), Conditions.READY).orElse(null);
    if (status.getPhase() == TenantPhase.Degraded && ready != null && isReason(ready.getReason())) {
      reason = Reason.valueOf(ready.getReason());
      refused = ready.getMessage() + "; " + refused;
    }
    String message = refused.length() > MAX_MESSAGE ? refused.substring(0, MAX_MESSAGE) + "..." : refused;
    return new Outcome(StatusBuilder.failed(status, ctx.tenant().getMetadata().getGeneration(), reason, message,
        Timestamps.now(clock)), SyncResult.withBackoff());
  }

  private static boolean isReason(String name) {
    return Arrays.stream(Reason.values()).anyMatch(r -> r.name().equals(name));
  }
}
