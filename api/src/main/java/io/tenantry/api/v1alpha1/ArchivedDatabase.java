package io.tenantry.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.Objects;

/** One database of an archive: the backup that holds its data, and when that backup's drill passed. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ArchivedDatabase {

  @JsonPropertyDescription("Name of the database (spec.databases[].name).")
  private String name;

  @JsonPropertyDescription("Its archive backup (a backup id); empty until that backup starts.")
  private String backup;

  @JsonPropertyDescription("When the drill of that backup passed (RFC 3339); empty until then.")
  private String drilled;

  public ArchivedDatabase() {
  }

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }

  public String getBackup() {
    return backup;
  }

  public void setBackup(String backup) {
    this.backup = backup;
  }

  public String getDrilled() {
    return drilled;
  }

  public void setDrilled(String drilled) {
    this.drilled = drilled;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ArchivedDatabase x && Objects.equals(name, x.name)
        && Objects.equals(backup, x.backup)
        && Objects.equals(drilled, x.drilled);
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, backup, drilled);
  }
}
