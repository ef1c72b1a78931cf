package io.tenantry.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** The tenant's archive: each step of Archiving, the archive manifest, and the reactivation that restored it. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ArchiveStatus {

  @JsonPropertyDescription("When Archiving began (RFC 3339).")
  private String started;

  @JsonPropertyDescription("The tenant's metadata.generation that asked for Archived.")
  private Long generation;

  @JsonPropertyDescription("The steps done, in order.")
  private List<ArchiveStep> steps = new ArrayList<>();

  @JsonPropertyDescription("The databases exported into the archive.")
  private List<ArchivedDatabase> databases = new ArrayList<>();

  @JsonPropertyDescription("Databases whose volumes are kept: their engine is not exported in this version.")
  private List<String> kept = new ArrayList<>();

  @JsonPropertyDescription("The archive manifest in the backup store, once written and read back.")
  private String manifest;

  @JsonPropertyDescription("When the StatefulSets and volume claims were deleted (RFC 3339).")
  private String released;

  @JsonPropertyDescription("When a reactivation restored every database from this archive (RFC 3339); the archive is then superseded by the next one.")
  private String restored;

  @JsonPropertyDescription("What holds the archive or its restore now (a DataArchived reason); empty when nothing does.")
  private String reason;

  @JsonPropertyDescription("What holds it, in words.")
  private String error;

  public ArchiveStatus() {
  }

  public String getStarted() {
    return started;
  }

  public void setStarted(String started) {
    this.started = started;
  }

  public Long getGeneration() {
    return generation;
  }

  public void setGeneration(Long generation) {
    this.generation = generation;
  }

  public List<ArchiveStep> getSteps() {
    return steps;
  }

  public void setSteps(List<ArchiveStep> steps) {
    this.steps = steps;
  }

  public List<ArchivedDatabase> getDatabases() {
    return databases;
  }

  public void setDatabases(List<ArchivedDatabase> databases) {
    this.databases = databases;
  }

  public List<String> getKept() {
    return kept;
  }

  public void setKept(List<String> kept) {
    this.kept = kept;
  }

  public String getManifest() {
    return manifest;
  }

  public void setManifest(String manifest) {
    this.manifest = manifest;
  }

  public String getReleased() {
    return released;
  }

  public void setReleased(String released) {
    this.released = released;
  }

  public String getRestored() {
    return restored;
  }

  public void setRestored(String restored) {
    this.restored = restored;
  }

  public String getReason() {
    return reason;
  }

  public void setReason(String reason) {
    this.reason = reason;
  }

  public String getError() {
    return error;
  }

  public void setError(String error) {
    this.error = error;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ArchiveStatus x && Objects.equals(started, x.started)
        && Objects.equals(generation, x.generation)
        && Objects.equals(steps, x.steps)
        && Objects.equals(databases, x.databases)
        && Objects.equals(kept, x.kept)
        && Objects.equals(manifest, x.manifest)
        && Objects.equals(released, x.released)
        && Objects.equals(restored, x.restored)
        && Objects.equals(reason, x.reason)
        && Objects.equals(error, x.error);
  }

  @Override
  public int hashCode() {
    return Objects.hash(started, generation, steps, databases, kept, manifest, released, restored, reason, error);
  }
}
