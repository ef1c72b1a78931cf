package io.tenantry.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import java.util.Objects;

/** A template secret an app consumes: as files (refreshed in place) or as environment variables. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class AppSecretRef {

  @Required
  @Size(max = 253)
  @Pattern(Patterns.DNS_SUBDOMAIN)
  @JsonPropertyDescription("Name of a template secret (a Secret of the operator's template namespace, copied into every tenant namespace).")
  private String name;

  @Default("false")
  @JsonPropertyDescription("false (default): the secret's keys are files under /etc/tenantry/secrets/<name>/, refreshed in place by the kubelet when the template changes, with no restart. true: its keys become environment variables (envFrom); a change then rolls the app, bounded like any rollout.")
  private Boolean envFrom = false;

  public AppSecretRef() {
  }

  public AppSecretRef(String name, boolean envFrom) {
    this.name = name;
    this.envFrom = envFrom;
  }

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }

  public Boolean getEnvFrom() {
    return envFrom;
  }

  public void setEnvFrom(Boolean envFrom) {
    this.envFrom = envFrom;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof AppSecretRef s && Objects.equals(name, s.name) && Objects.equals(envFrom, s.envFrom);
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, envFrom);
  }
}
