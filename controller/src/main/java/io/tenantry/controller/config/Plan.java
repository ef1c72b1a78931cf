package io.tenantry.controller.config;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a plan gives a tenant: the namespace's ResourceQuota ({@code quota}, any quota resource
 * name to a quantity), the LimitRange defaults for containers that set no resources, and where
 * its pods may connect beyond their namespace and DNS ({@code egress}). Immutable.
 */
public record Plan(
    @JsonPropertyDescription("ResourceQuota hard limits, e.g. requests.cpu: 2.")
    Map<String, String> quota,
    @JsonPropertyDescription("LimitRange default requests of a container.")
    Map<String, String> defaultRequest,
    @JsonPropertyDescription("LimitRange default limits of a container.")
    Map<String, String> defaultLimit,
    @JsonPropertyDescription("StorageClass of database volumes; empty for the cluster's default.")
    String storageClassName,
    @JsonPropertyDescription("Destinations the tenant's pods may reach besides their own namespace and the cluster DNS; none: nothing else.")
    List<EgressRule> egress) {

  public Plan {
    quota = frozen(quota);
    defaultRequest = frozen(defaultRequest);
    defaultLimit = frozen(defaultLimit);
    egress = egress == null ? List.of() : List.copyOf(egress);
  }

  private static Map<String, String> frozen(Map<String, String> values) {
    return values == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(values));
  }

  void validate(String path, List<String> errors) {
    checkQuantities(path + ".quota", quota, errors);
    checkQuantities(path + ".defaultRequest", defaultRequest, errors);
    checkQuantities(path + ".defaultLimit", defaultLimit, errors);
    for (int i = 0; i < egress.size(); i++) {
      egress.get(i).validate(path + ".egress[" + i + "]", errors);
    }
  }

  private static void checkQuantities(String path, Map<String, String> values, List<String> errors) {
    values.forEach((key, value) -> {
      try {
        Quantity.getAmountInBytes(new Quantity(value));
      } catch (IllegalArgumentException | ArithmeticException e) {
        errors.add(path + "." + key + ": '" + value + "' is not a quantity");
      }
    });
  }
}
