package io.tenantry.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.Objects;

/** The restore of a database from one value of spec.databases[].restoreFrom, as the status reports it. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class RestoreRecord {

  @JsonPropertyDescription("The spec.databases[].restoreFrom this restore answers: it runs once per value.")
  private String requested;

  @JsonPropertyDescription("The backup it resolved to (latest resolved once, when it started); <tenant>/<id> for another tenant's.")
  private String backup;

  @JsonPropertyDescription("When it started (RFC 3339).")
  private String started;

  @JsonPropertyDescription("When the data was swapped in, or the restore failed (RFC 3339).")
  private String finished;

  @JsonPropertyDescription("The database that holds the data it replaced, kept for backups.keepReplacedFor.")
  private String replaced;

  @JsonPropertyDescription("Why it failed (a Restored reason), empty when it succeeded.")
  private String reason;

  @JsonPropertyDescription("What failed, in words.")
  private String error;

  public RestoreRecord() {
  }

  public RestoreRecord(String requested, String backup, String started, String finished, String replaced, String reason,
      String error) {
    this.requested = requested;
    this.backup = backup;
    this.started = started;
    this.finished = finished;
    this.replaced = replaced;
    this.reason = reason;
    this.error = error;
  }

  public String getRequested() {
    return requested;
  }

  public void setRequested(String requested) {
    this.requested = requested;
  }

  public String getBackup() {
    return backup;
  }

  public void setBackup(String backup) {
    this.backup = backup;
  }

  public String getStarted() {
    return started;
  }

  public void setStarted(String started) {
    this.started = started;
  }

  public String getFinished() {
    return finished;
  }

  public void setFinished(String finished) {
    this.finished = finished;
  }

  public String getReplaced() {
    return replaced;
  }

  public void setReplaced(String replaced) {
    this.replaced = replaced;
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

  /** Whether this restore answers {@code restoreFrom} and swapped its data in. */
  public boolean restored(String restoreFrom) {
    return Objects.equals(requested, restoreFrom) && finished != null && reason == null;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RestoreRecord r && Objects.equals(requested, r.requested) && Objects.equals(backup, r.backup)
        && Objects.equals(started, r.started) && Objects.equals(finished, r.finished) && Objects.equals(replaced, r.replaced)
        && Objects.equals(reason, r.reason) && Objects.equals(error, r.error);
  }

  @Override
  public int hashCode() {
    return Objects.hash(requested, backup, started, finished, replaced, reason, error);
  }
}
