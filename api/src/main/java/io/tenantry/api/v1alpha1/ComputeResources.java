package io.tenantry.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import java.util.Objects;

/** CPU and memory amounts, as Kubernetes quantities. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ComputeResources {

  @Size(max = 32)
  @Pattern(Patterns.QUANTITY)
  @JsonPropertyDescription("CPU, for example 250m or 2.")
  private String cpu;

  @Size(max = 32)
  @Pattern(Patterns.QUANTITY)
  @JsonPropertyDescription("Memory, for example 256Mi.")
  private String memory;

  public ComputeResources() {
  }

  public ComputeResources(String cpu, String memory) {
    this.cpu = cpu;
    this.memory = memory;
  }

  public String getCpu() {
    return cpu;
  }

  public void setCpu(String cpu) {
    this.cpu = cpu;
  }

  public String getMemory() {
    return memory;
  }

  public void setMemory(String memory) {
    this.memory = memory;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ComputeResources r && Objects.equals(cpu, r.cpu) && Objects.equals(memory, r.memory);
  }

  @Override
  public int hashCode() {
    return Objects.hash(cpu, memory);
  }
}
