package io.tenantry.controller.config;

import io.fabric8.kubernetes.api.model.Quantity;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a plan gives a tenant: the namespace's ResourceQuota ({@code quota}, any quota resource
 * name to a quantity) and the LimitRange defaults for containers that set no resources.
 */
public class Plan {

  /** ResourceQuota hard limits, e.g. {@code requests.cpu: "2"}. */
  public Map<String, String> quota = new LinkedHashMap<>();
  /** LimitRange default requests of a container. */
  public Map<String, String> defaultRequest = new LinkedHashMap<>();
  /** LimitRange default limits of a container. */
  public Map<String, String> defaultLimit = new LinkedHashMap<>();
  /** StorageClass of database volumes; empty for the cluster's default. */
  public String storageClassName;

  public static Plan standard() {
    Plan plan = new Plan();
    plan.quota.put("requests.cpu", "4");
    plan.quota.put("requests.memory", "8Gi");
    plan.quota.put("limits.cpu", "8");
    plan.quota.put("limits.memory", "16Gi");
    plan.quota.put("requests.storage", "100Gi");
    plan.quota.put("persistentvolumeclaims", "10");
    plan.quota.put("pods", "50");
    plan.defaultRequest.put("cpu", "100m");
    plan.defaultRequest.put("memory", "128Mi");
    plan.defaultLimit.put("cpu", "1");
    plan.defaultLimit.put("memory", "512Mi");
    return plan;
  }

  void validate(String path, List<String> errors) {
    checkQuantities(path + ".quota", quota, errors);
    checkQuantities(path + ".defaultRequest", defaultRequest, errors);
    checkQuantities(path + ".defaultLimit", defaultLimit, errors);
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
