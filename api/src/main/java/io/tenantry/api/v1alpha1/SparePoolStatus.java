package io.tenantry.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** What the operator observes of a spare pool. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class SparePoolStatus {

  @JsonPropertyDescription("Spares that are Ready and not yet allocated.")
  private Integer ready;

  @JsonPropertyDescription("Spares being built.")
  private Integer provisioning;

  @JsonPropertyDescription("Tenants allocated from this pool so far.")
  private Integer allocated;

  @JsonPropertyDescription("The metadata.generation this status describes.")
  private Long observedGeneration;

  @JsonPropertyDescription("Standard conditions, such as Ready (the buffer is full).")
  private List<Condition> conditions = new ArrayList<>();

  public Integer getReady() {
    return ready;
  }

  public void setReady(Integer ready) {
    this.ready = ready;
  }

  public Integer getProvisioning() {
    return provisioning;
  }

  public void setProvisioning(Integer provisioning) {
    this.provisioning = provisioning;
  }

  public Integer getAllocated() {
    return allocated;
  }

  public void setAllocated(Integer allocated) {
    this.allocated = allocated;
  }

  public Long getObservedGeneration() {
    return observedGeneration;
  }

  public void setObservedGeneration(Long observedGeneration) {
    this.observedGeneration = observedGeneration;
  }

  public List<Condition> getConditions() {
    return conditions;
  }

  public void setConditions(List<Condition> conditions) {
    this.conditions = conditions;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SparePoolStatus s && Objects.equals(ready, s.ready)
        && Objects.equals(provisioning, s.provisioning) && Objects.equals(allocated, s.allocated)
        && Objects.equals(observedGeneration, s.observedGeneration) && Objects.equals(conditions, s.conditions);
  }

  @Override
  public int hashCode() {
    return Objects.hash(ready, provisioning, allocated, observedGeneration, conditions);
  }
}
