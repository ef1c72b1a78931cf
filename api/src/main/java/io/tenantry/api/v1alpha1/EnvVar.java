package io.tenantry.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import java.util.Objects;

/** A plain environment variable for an app's containers. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class EnvVar {

  @Required
  @Size(max = 128)
  @Pattern(Patterns.ENV_NAME)
  @JsonPropertyDescription("Variable name (a C identifier).")
  private String name;

  @Size(max = 4096)
  @JsonPropertyDescription("Variable value. Do not put secrets here: they belong in the secret store.")
  private String value;

  public EnvVar() {
  }

  public EnvVar(String name, String value) {
    this.name = name;
    this.value = value;
  }

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }

  public String getValue() {
    return value;
  }

  public void setValue(String value) {
    this.value = value;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof EnvVar e && Objects.equals(name, e.name) && Objects.equals(value, e.value);
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, value);
  }
}
