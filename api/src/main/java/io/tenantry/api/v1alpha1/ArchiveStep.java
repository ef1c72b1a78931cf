package io.tenantry.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.Objects;

/** One step of an archive or of its restore, as the status records it. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ArchiveStep {

  @JsonPropertyDescription("AppsStopped, BackedUp, Drilled, ManifestWritten, VolumesReleased, or Restored (the reactivation).")
  private String name;

  @JsonPropertyDescription("The tenant's metadata.generation when the step was done.")
  private Long generation;

  @JsonPropertyDescription("When it was done (RFC 3339).")
  private String at;

  public ArchiveStep() {
  }

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }

  public Long getGeneration() {
    return generation;
  }

  public void setGeneration(Long generation) {
    this.generation = generation;
  }

  public String getAt() {
    return at;
  }

  public void setAt(String at) {
    this.at = at;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ArchiveStep x && Objects.equals(name, x.name)
        && Objects.equals(generation, x.generation)
        && Objects.equals(at, x.at);
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, generation, at);
  }
}
