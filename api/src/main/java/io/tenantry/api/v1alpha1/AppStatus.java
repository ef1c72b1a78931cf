package io.tenantry.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.Objects;

/** What the operator observes of one app. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class AppStatus {

  @JsonPropertyDescription("Name of the app (spec.apps[].name).")
  private String name;

  @JsonPropertyDescription("Version that is fully rolled out and available; the previous one while a rollout is in progress.")
  private String version;

  @JsonPropertyDescription("Whether the app's Deployment has all its replicas updated and available.")
  private Boolean ready;

  @JsonPropertyDescription("Available replicas of the app's Deployment.")
  private Integer availableReplicas;

  public AppStatus() {
  }

  public AppStatus(String name, String version, boolean ready, int availableReplicas) {
    this.name = name;
    this.version = version;
    this.ready = ready;
    this.availableReplicas = availableReplicas;
  }

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }

  public String getVersion() {
    return version;
  }

  public void setVersion(String version) {
    this.version = version;
  }

  public Boolean getReady() {
    return ready;
  }

  public void setReady(Boolean ready) {
    this.ready = ready;
  }

  public Integer getAvailableReplicas() {
    return availableReplicas;
  }

  public void setAvailableReplicas(Integer availableReplicas) {
    this.availableReplicas = availableReplicas;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof AppStatus a && Objects.equals(name, a.name) && Objects.equals(version, a.version)
        && Objects.equals(ready, a.ready) && Objects.equals(availableReplicas, a.availableReplicas);
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, version, ready, availableReplicas);
  }
}
