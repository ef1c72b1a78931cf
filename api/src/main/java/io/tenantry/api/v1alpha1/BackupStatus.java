package io.tenantry.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.Objects;

/** A database's backups, as far as the operator has proven them. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class BackupStatus {

  @JsonPropertyDescription("The newest proven backup: its object checked in the store and its manifest committed.")
  private BackupRecord last;

  @JsonPropertyDescription("The newest attempt, proven or not; its reason and error say why it failed.")
  private BackupRecord lastAttempt;

  public BackupStatus() {
  }

  public BackupStatus(BackupRecord last, BackupRecord lastAttempt) {
    this.last = last;
    this.lastAttempt = lastAttempt;
  }

  public BackupRecord getLast() {
    return last;
  }

  public void setLast(BackupRecord last) {
    this.last = last;
  }

  public BackupRecord getLastAttempt() {
    return lastAttempt;
  }

  public void setLastAttempt(BackupRecord lastAttempt) {
    this.lastAttempt = lastAttempt;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof BackupStatus b && Objects.equals(last, b.last) && Objects.equals(lastAttempt, b.lastAttempt);
  }

  @Override
  public int hashCode() {
    return Objects.hash(last, lastAttempt);
  }
}
