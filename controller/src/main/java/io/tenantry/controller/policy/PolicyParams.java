package io.tenantry.controller.policy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.tenantry.api.WellKnown;
import io.tenantry.controller.config.OperatorConfig;
import java.util.Map;

/**
 * The parameters object the chart's admission policies read ({@code paramRef}): the ConfigMap
 * {@value #NAME} in the template namespace, built from the operator's configuration. The policies
 * cannot read the operator's configuration file, so the operator writes what they need here.
 */
public final class PolicyParams {

  /** The ConfigMap's name; the chart's bindings name it too. */
  public static final String NAME = "tenantry-policy-params";
  /** routing.reservedSubdomains, comma-separated: a DNS label has no comma, so a policy finds one by ",label,". */
  public static final String RESERVED_SUBDOMAINS = "reservedSubdomains";

  private PolicyParams() {
  }

  /** The ConfigMap as {@code config} wants it, labelled as the operator's (so its informer cache holds it). */
  public static ConfigMap desired(OperatorConfig config) {
    return new ConfigMapBuilder()
        .withNewMetadata()
          .withName(NAME)
          .withNamespace(config.templateNamespace())
          .addToLabels(WellKnown.MANAGED_BY, WellKnown.MANAGER)
        .endMetadata()
        .addToData(RESERVED_SUBDOMAINS, String.join(",", config.routing().reservedSubdomains()))
        .build();
  }

  /**
   * Whether {@code have} (null: missing) holds {@code want}'s data and labels. Keys and labels it has
   * besides are left alone: server-side apply would not remove what another manager wrote either.
   */
  public static boolean upToDate(ConfigMap have, ConfigMap want) {
    return have != null && contains(have.getData(), want.getData())
        && contains(have.getMetadata().getLabels(), want.getMetadata().getLabels());
  }

  private static boolean contains(Map<String, String> have, Map<String, String> want) {
    return have != null && have.entrySet().containsAll(want.entrySet());
  }
}
