package io.tenantry.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import java.util.Objects;

/** One per-tenant configuration file of an app (Kolide's "varz"). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ConfigFile {

  @Required
  @Size(max = 128)
  @Pattern(Patterns.FILE_NAME)
  @JsonPropertyDescription("File name under /etc/tenantry/config/ (letters, digits, '.', '-', '_'; not starting with '.'; at most 128 characters).")
  private String name;

  @Required
  @Size(max = 32768)
  @JsonPropertyDescription("Contents of the file (at most 32768 characters). A change rolls the app, bounded like any rollout.")
  private String content;

  public ConfigFile() {
  }

  public ConfigFile(String name, String content) {
    this.name = name;
    this.content = content;
  }

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }

  public String getContent() {
    return content;
  }

  public void setContent(String content) {
    this.content = content;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ConfigFile f && Objects.equals(name, f.name) && Objects.equals(content, f.content);
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, content);
  }
}
