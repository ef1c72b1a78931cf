package io.tenantry.controller.status;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import java.util.List;
import java.util.Optional;

/** Standard condition types and the rule that a condition's transition time changes only with its status. */
public final class Conditions {

  public static final String READY = "Ready";
  public static final String NAMESPACE_READY = "NamespaceReady";
  public static final String SECRETS_SYNCED = "SecretsSynced";
  public static final String DATABASES_READY = "DatabasesReady";
  public static final String APPS_READY = "AppsReady";
  public static final String ROUTED = "Routed";
  public static final String BACKED_UP = "BackedUp";
  public static final String RESTORE_VERIFIED = "RestoreVerified";
  public static final String RESTORED = "Restored";
  public static final String MAJOR_UPGRADED = "MajorUpgraded";
  public static final String DATA_ARCHIVED = "DataArchived";
  public static final String AUTOSCALED = "Autoscaled";

  private Conditions() {
  }

  /** A condition of {@code type}, keeping the previous transition time when its status has not changed. */
  public static Condition condition(List<Condition> previous, String type, boolean status, Reason reason,
      String message, Long generation, String now) {
    return condition(previous, type, status ? "True" : "False", reason, message, generation, now);
  }

  /** A condition whose status may also be {@code Unknown}. */
  public static Condition condition(List<Condition> previous, String type, String value, Reason reason,
      String message, Long generation, String now) {
    String since = find(previous, type)
        .filter(c -> value.equals(c.getStatus()))
        .map(Condition::getLastTransitionTime)
        .orElse(now);
    return new ConditionBuilder().withType(type).withStatus(value).withReason(reason.name()).withMessage(message)
        .withObservedGeneration(generation).withLastTransitionTime(since).build();
  }

  public static Optional<Condition> find(List<Condition> conditions, String type) {
    return conditions == null ? Optional.empty()
        : conditions.stream().filter(c -> type.equals(c.getType())).findFirst();
  }
}
