package io.tenantry.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.Objects;

/** One backup of a database, or one attempt at one, as the status reports it. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class BackupRecord {

  @JsonPropertyDescription("The backup's id, <database>-<yyyymmdd>-<hhmmss>-<6 hex>, in UTC (what restoreFrom names).")
  private String id;

  @JsonPropertyDescription("When it started (RFC 3339).")
  private String started;

  @JsonPropertyDescription("When it was proven (its manifest committed) or failed (RFC 3339).")
  private String finished;

  @JsonPropertyDescription("Bytes of the encrypted backup in the store.")
  private Long bytes;

  @JsonPropertyDescription("Why it failed (a BackedUp reason), empty when it succeeded.")
  private String reason;

  @JsonPropertyDescription("What failed, in words: the first error line of the tool, or what the store holds.")
  private String error;

  public BackupRecord() {
  }

  public BackupRecord(String id, String started, String finished, Long bytes, String reason, String error) {
    this.id = id;
    this.started = started;
    this.finished = finished;
    this.bytes = bytes;
    this.reason = reason;
    this.error = error;
  }

  public String getId() {
    return id;
  }

  public void setId(String id) {
    this.id = id;
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

  public Long getBytes() {
    return bytes;
  }

  public void setBytes(Long bytes) {
    this.bytes = bytes;
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

  @Override
  public boolean equals(Object o) {
    return o instanceof BackupRecord b && Objects.equals(id, b.id) && Objects.equals(started, b.started)
        && Objects.equals(finished, b.finished) && Objects.equals(bytes, b.bytes) && Objects.equals(reason, b.reason)
        && Objects.equals(error, b.error);
  }

  @Override
  public int hashCode() {
    return Objects.hash(id, started, finished, bytes, reason, error);
  }

  @Override
  public String toString() {
    return "BackupRecord{id=" + id + ", started=" + started + ", finished=" + finished + ", reason=" + reason + "}";
  }
}
