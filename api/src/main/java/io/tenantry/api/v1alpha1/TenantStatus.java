package io.tenantry.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** What the operator observes of a tenant; written only by the operator, through the status subresource. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class TenantStatus {

  @JsonPropertyDescription("Observed phase: Provisioning, Ready, Progressing, Degraded, Frozen, Archived, Purging or Purged.")
  private TenantPhase phase;

  @JsonPropertyDescription("The metadata.generation this status describes.")
  private Long observedGeneration;

  @JsonPropertyDescription("The lifecycle state (spec.state) the operator last acted on.")
  private TenantState observedState;

  @JsonPropertyDescription("The namespace holding the tenant's workloads.")
  private String namespace;

  @JsonPropertyDescription("Deployed app versions in short form (name=version,...), as kubectl get shows them.")
  private String versions;

  @JsonPropertyDescription("Each app's pods in short form, as kubectl get -o wide shows them: name=replicas, and for an autoscaled"
      + " app its HorizontalPodAutoscaler's bounds, name=current (min-max).")
  private String replicas;

  @JsonPropertyDescription("Standard conditions: Ready, NamespaceReady, SecretsSynced, DatabasesReady, AppsReady, ...")
  private List<Condition> conditions = new ArrayList<>();

  @JsonPropertyDescription("Per-app deployed version and readiness.")
  private List<AppStatus> apps = new ArrayList<>();

  @JsonPropertyDescription("Per-database readiness.")
  private List<DatabaseStatus> databases = new ArrayList<>();

  @JsonPropertyDescription("Where customers reach the tenant: https://<hostname>/ for each hostname routed to it (absent while it is not routed).")
  private List<String> urls;

  @JsonPropertyDescription("Version of the secrets the tenant runs with.")
  private String secretsVersion;

  @JsonPropertyDescription("When the tenant entered each lifecycle state.")
  private StateTimestamps stateTimestamps;

  @JsonPropertyDescription("The tenant's archive, from Archiving until a later archive supersedes it (absent: never archived).")
  private ArchiveStatus archive;

  public ArchiveStatus getArchive() {
    return archive;
  }

  public void setArchive(ArchiveStatus archive) {
    this.archive = archive;
  }

  public TenantPhase getPhase() {
    return phase;
  }

  public void setPhase(TenantPhase phase) {
    this.phase = phase;
  }

  public Long getObservedGeneration() {
    return observedGeneration;
  }

  public void setObservedGeneration(Long observedGeneration) {
    this.observedGeneration = observedGeneration;
  }

  public TenantState getObservedState() {
    return observedState;
  }

  public void setObservedState(TenantState observedState) {
    this.observedState = observedState;
  }

  public String getNamespace() {
    return namespace;
  }

  public void setNamespace(String namespace) {
    this.namespace = namespace;
  }

  public String getVersions() {
    return versions;
  }

  public void setVersions(String versions) {
    this.versions = versions;
  }

  public String getReplicas() {
    return replicas;
  }

  public void setReplicas(String replicas) {
    this.replicas = replicas;
  }

  public List<Condition> getConditions() {
    return conditions;
  }

  public void setConditions(List<Condition> conditions) {
    this.conditions = conditions;
  }

  public List<AppStatus> getApps() {
    return apps;
  }

  public void setApps(List<AppStatus> apps) {
    this.apps = apps;
  }

  public List<DatabaseStatus> getDatabases() {
    return databases;
  }

  public void setDatabases(List<DatabaseStatus> databases) {
    this.databases = databases;
  }

  public List<String> getUrls() {
    return urls;
  }

  public void setUrls(List<String> urls) {
    this.urls = urls;
  }

  public String getSecretsVersion() {
    return secretsVersion;
  }

  public void setSecretsVersion(String secretsVersion) {
    this.secretsVersion = secretsVersion;
  }

  public StateTimestamps getStateTimestamps() {
    return stateTimestamps;
  }

  public void setStateTimestamps(StateTimestamps stateTimestamps) {
    this.stateTimestamps = stateTimestamps;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TenantStatus s && phase == s.phase && Objects.equals(observedGeneration, s.observedGeneration)
        && observedState == s.observedState
        && Objects.equals(namespace, s.namespace) && Objects.equals(versions, s.versions) && Objects.equals(replicas, s.replicas)
        && Objects.equals(conditions, s.conditions) && Objects.equals(apps, s.apps)
        && Objects.equals(databases, s.databases) && Objects.equals(secretsVersion, s.secretsVersion)
        && Objects.equals(stateTimestamps, s.stateTimestamps) && Objects.equals(urls, s.urls)
        && Objects.equals(archive, s.archive);
  }

  @Override
  public int hashCode() {
    return Objects.hash(phase, observedGeneration, observedState, namespace, versions, replicas, conditions, apps, databases,
        secretsVersion, stateTimestamps, urls, archive);
  }
}
