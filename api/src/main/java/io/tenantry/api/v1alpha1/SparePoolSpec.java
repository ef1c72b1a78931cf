package io.tenantry.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;
import java.util.Objects;

/** How many Ready spares to keep, how fast to build them, and what they look like. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class SparePoolSpec {

  @Required
  @Min(0)
  @Max(10000)
  @JsonPropertyDescription("Number of Ready, unallocated spares to keep (0 to 10000): enough for the longest signup stream"
      + " expected at its peak rate, less what the pool rebuilds meanwhile.")
  private Integer buffer;

  @Default("5")
  @Min(1)
  @Max(100)
  @JsonPropertyDescription("Most spares built at once (1 to 100); bounds the load a refill puts on the cluster.")
  private Integer maxProvisioning = 5;

  @Required
  @JsonPropertyDescription("What each spare runs; spares not yet allocated follow changes to it.")
  private TenantTemplate template;

  public SparePoolSpec() {
  }

  public SparePoolSpec(int buffer, int maxProvisioning, TenantTemplate template) {
    this.buffer = buffer;
    this.maxProvisioning = maxProvisioning;
    this.template = template;
  }

  public Integer getBuffer() {
    return buffer;
  }

  public void setBuffer(Integer buffer) {
    this.buffer = buffer;
  }

  public Integer getMaxProvisioning() {
    return maxProvisioning;
  }

  public void setMaxProvisioning(Integer maxProvisioning) {
    this.maxProvisioning = maxProvisioning;
  }

  public TenantTemplate getTemplate() {
    return template;
  }

  public void setTemplate(TenantTemplate template) {
    this.template = template;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SparePoolSpec s && Objects.equals(buffer, s.buffer)
        && Objects.equals(maxProvisioning, s.maxProvisioning) && Objects.equals(template, s.template);
  }

  @Override
  public int hashCode() {
    return Objects.hash(buffer, maxProvisioning, template);
  }
}
