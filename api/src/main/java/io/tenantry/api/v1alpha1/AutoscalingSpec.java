package io.tenantry.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.Objects;

/** An app scaled by a HorizontalPodAutoscaler on its CPU use, within bounds the plan may lower. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "self.minReplicas <= self.maxReplicas",
    message = "spec.apps[].autoscaling: minReplicas must not be above maxReplicas")
public class AutoscalingSpec {

  @Default("1")
  @Min(1)
  @Max(100)
  @JsonPropertyDescription("Fewest pods while the tenant is Active (1 to 100). A PodDisruptionBudget is added above 1.")
  private Integer minReplicas = 1;

  @Required
  @Min(1)
  @Max(100)
  @JsonPropertyDescription("Most pods (1 to 100); the plan's maxReplicasPerApp lowers it (condition Autoscaled says so).")
  private Integer maxReplicas;

  @Default("80")
  @Min(1)
  @Max(100)
  @JsonPropertyDescription("Average CPU use the HorizontalPodAutoscaler keeps the pods at, in percent of their CPU request (1 to 100).")
  private Integer targetCPUUtilizationPercentage = 80;

  public AutoscalingSpec() {
  }

  public AutoscalingSpec(int minReplicas, int maxReplicas, int targetCPUUtilizationPercentage) {
    this.minReplicas = minReplicas;
    this.maxReplicas = maxReplicas;
    this.targetCPUUtilizationPercentage = targetCPUUtilizationPercentage;
  }

  public Integer getMinReplicas() {
    return minReplicas;
  }

  public void setMinReplicas(Integer minReplicas) {
    this.minReplicas = minReplicas;
  }

  public Integer getMaxReplicas() {
    return maxReplicas;
  }

  public void setMaxReplicas(Integer maxReplicas) {
    this.maxReplicas = maxReplicas;
  }

  public Integer getTargetCPUUtilizationPercentage() {
    return targetCPUUtilizationPercentage;
  }

  public void setTargetCPUUtilizationPercentage(Integer targetCPUUtilizationPercentage) {
    this.targetCPUUtilizationPercentage = targetCPUUtilizationPercentage;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof AutoscalingSpec a && Objects.equals(minReplicas, a.minReplicas) && Objects.equals(maxReplicas, a.maxReplicas)
        && Objects.equals(targetCPUUtilizationPercentage, a.targetCPUUtilizationPercentage);
  }

  @Override
  public int hashCode() {
    return Objects.hash(minReplicas, maxReplicas, targetCPUUtilizationPercentage);
  }
}
