package io.tenantry.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.Objects;

/** What the operator observes of one database. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class DatabaseStatus {

  @JsonPropertyDescription("Name of the database (spec.databases[].name).")
  private String name;

  @JsonPropertyDescription("Whether the database's StatefulSet has all its replicas updated and ready.")
  private Boolean ready;

  @JsonPropertyDescription("The database's backups; absent for a database that keeps no data (ephemeral) or was never backed up.")
  private BackupStatus backup;

  public DatabaseStatus() {
  }

  public DatabaseStatus(String name, boolean ready) {
    this.name = name;
    this.ready = ready;
  }

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }

  public Boolean getReady() {
    return ready;
  }

  public void setReady(Boolean ready) {
    this.ready = ready;
  }

  public BackupStatus getBackup() {
    return backup;
  }

  public void setBackup(BackupStatus backup) {
    this.backup = backup;
  }

  /** This status with {@code backup}. */
  public DatabaseStatus withBackup(BackupStatus backup) {
    DatabaseStatus copy = new DatabaseStatus();
    copy.name = name;
    copy.ready = ready;
    copy.backup = backup;
    return copy;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof DatabaseStatus d && Objects.equals(name, d.name) && Objects.equals(ready, d.ready)
        && Objects.equals(backup, d.backup);
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, ready, backup);
  }
}
