package io.tenantry.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The command that migrates an app's data to its version. It runs as a Job with the app's image at
 * the new version, with the app's bindings, secrets, identity and config, before the app's
 * Deployment first starts and before its version changes.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class MigrationSpec {

  @Required
  @Size(min = 1, max = 16)
  @ValidationRule(value = "self.all(c, size(c) > 0 && size(c) <= 1024)",
      message = "spec.apps[].migrate.command: entries must be non-empty and at most 1024 characters")
  @JsonPropertyDescription("Command of the migration container (its entrypoint), for example [\"/app/migrate\"]; at least one non-empty entry.")
  private List<String> command = new ArrayList<>();

  @Size(max = 32)
  @ValidationRule(value = "self.all(a, size(a) <= 1024)",
      message = "spec.apps[].migrate.args: entries must be at most 1024 characters")
  @JsonPropertyDescription("Arguments of the migration command.")
  private List<String> args = new ArrayList<>();

  @Default("600")
  @Min(10)
  @Max(3600)
  @JsonPropertyDescription("Time the migration may take, in seconds (10 to 3600); past it the migration has failed and the previous version keeps serving.")
  private Integer timeoutSeconds = 600;

  public MigrationSpec() {
  }

  public MigrationSpec(List<String> command, List<String> args) {
    this.command = command;
    this.args = args;
  }

  public List<String> getCommand() {
    return command;
  }

  public void setCommand(List<String> command) {
    this.command = command;
  }

  public List<String> getArgs() {
    return args;
  }

  public void setArgs(List<String> args) {
    this.args = args;
  }

  public Integer getTimeoutSeconds() {
    return timeoutSeconds;
  }

  public void setTimeoutSeconds(Integer timeoutSeconds) {
    this.timeoutSeconds = timeoutSeconds;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof MigrationSpec m && Objects.equals(command, m.command) && Objects.equals(args, m.args)
        && Objects.equals(timeoutSeconds, m.timeoutSeconds);
  }

  @Override
  public int hashCode() {
    return Objects.hash(command, args, timeoutSeconds);
  }
}
