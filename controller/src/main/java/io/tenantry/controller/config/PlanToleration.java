package io.tenantry.controller.config;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A toleration a plan gives its tenants' pods, e.g. for nodes tainted for one class of customers.
 * The operator sets it on every pod it makes; the admission policy admits no other in a tenant
 * namespace (but the two every pod gets, node not-ready and unreachable). Immutable.
 */
public record PlanToleration(
    @JsonPropertyDescription("The taint key tolerated; empty with operator Exists: every taint (rarely what a plan wants).")
    String key,
    @JsonPropertyDescription("Equal (the taint's value must be value) or Exists (any value). Default: Equal.")
    String operator,
    @JsonPropertyDescription("The taint value tolerated, with operator Equal.")
    String value,
    @JsonPropertyDescription("The taint effect tolerated: NoSchedule, PreferNoSchedule or NoExecute; empty: every effect.")
    String effect) {

  private static final Pattern QUALIFIED_NAME =
      Pattern.compile("^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$");
  private static final Pattern LABEL_VALUE = Pattern.compile("^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$");
  private static final Set<String> EFFECTS = Set.of("", "NoSchedule", "PreferNoSchedule", "NoExecute");

  public PlanToleration {
    key = key == null ? "" : key;
    operator = operator == null || operator.isEmpty() ? "Equal" : operator;
    value = value == null ? "" : value;
    effect = effect == null ? "" : effect;
  }

  /** As the admission policy compares tolerations: {@code key|operator|value|effect}. */
  public String policyForm() {
    return key + "|" + operator + "|" + value + "|" + effect;
  }

  void validate(String path, List<String> errors) {
    if (!key.isEmpty() && !QUALIFIED_NAME.matcher(key).matches()) {
      errors.add(path + ".key: '" + key + "' is not a taint key (a qualified name such as dedicated or example.com/tier)");
    }
    if (!operator.equals("Equal") && !operator.equals("Exists")) {
      errors.add(path + ".operator: must be Equal or Exists, got '" + operator + "'");
    }
    if (operator.equals("Exists") && !value.isEmpty()) {
      errors.add(path + ".value: must be empty with operator Exists");
    }
    if (operator.equals("Equal") && key.isEmpty()) {
      errors.add(path + ".key: required with operator Equal");
    }
    if (!LABEL_VALUE.matcher(value).matches() || value.length() > 63) {
      errors.add(path + ".value: '" + value + "' is not a taint value (a label value)");
    }
    if (!EFFECTS.contains(effect)) {
      errors.add(path + ".effect: must be NoSchedule, PreferNoSchedule, NoExecute or empty, got '" + effect + "'");
    }
  }
}
