package io.tenantry.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.Objects;

/** Requests and limits of an app's containers; unset values come from the plan's LimitRange. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class AppResources {

  @JsonPropertyDescription("Resources the scheduler reserves for each container.")
  private ComputeResources requests;

  @JsonPropertyDescription("Upper bound on each container's resources.")
  private ComputeResources limits;

  public AppResources() {
  }

  public AppResources(ComputeResources requests, ComputeResources limits) {
    this.requests = requests;
    this.limits = limits;
  }

  public ComputeResources getRequests() {
    return requests;
  }

  public void setRequests(ComputeResources requests) {
    this.requests = requests;
  }

  public ComputeResources getLimits() {
    return limits;
  }

  public void setLimits(ComputeResources limits) {
    this.limits = limits;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof AppResources r && Objects.equals(requests, r.requests) && Objects.equals(limits, r.limits);
  }

  @Override
  public int hashCode() {
    return Objects.hash(requests, limits);
  }
}
