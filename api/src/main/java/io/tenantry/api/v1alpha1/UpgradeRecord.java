package io.tenantry.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.Objects;

/** A major upgrade of a database (spec.databases[].majorUpgrade) through a backup and a restore, as the status reports it. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class UpgradeRecord {

  @JsonPropertyDescription("The version the database ran before, whose data the old volume holds.")
  private String from;

  @JsonPropertyDescription("The old volume's claim template name; its claim <fromVolume>-db-<database>-0 is kept for backups.keepReplacedFor after a successful upgrade, and for good after a failed one.")
  private String fromVolume;

  @JsonPropertyDescription("The version it upgrades to (spec.databases[].version when it started).")
  private String to;

  @JsonPropertyDescription("The fresh volume's claim template name, at the new version.")
  private String volume;

  @JsonPropertyDescription("The backup taken with the apps stopped that carries the data across; empty until it starts.")
  private String backup;

  @JsonPropertyDescription("When it started (RFC 3339).")
  private String started;

  @JsonPropertyDescription("When the data was restored at the new version, or the upgrade failed (RFC 3339).")
  private String finished;

  @JsonPropertyDescription("Why it failed (a MajorUpgraded reason), empty when it succeeded.")
  private String reason;

  @JsonPropertyDescription("What failed, in words.")
  private String error;

  @JsonPropertyDescription("When the old volume's claim was deleted (backups.keepReplacedFor after the upgrade succeeded).")
  private String released;

  public UpgradeRecord() {
  }

  public UpgradeRecord(String from, String fromVolume, String to, String volume, String backup, String started, String finished, String reason, String error) {
    this.from = from;
    this.fromVolume = fromVolume;
    this.to = to;
    this.volume = volume;
    this.backup = backup;
    this.started = started;
    this.finished = finished;
    this.reason = reason;
    this.error = error;
  }

  public String getFrom() {
    return from;
  }

  public void setFrom(String from) {
    this.from = from;
  }

  public String getFromVolume() {
    return fromVolume;
  }

  public void setFromVolume(String fromVolume) {
    this.fromVolume = fromVolume;
  }

  public String getTo() {
    return to;
  }

  public void setTo(String to) {
    this.to = to;
  }

  public String getVolume() {
    return volume;
  }

  public void setVolume(String volume) {
    this.volume = volume;
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

  public String getReason() {
    return reason;
  }

  public void setReason(String reason) {
    this.reason = reason;
  }

  public String getReleased() {
    return released;
  }

  public void setReleased(String released) {
    this.released = released;
  }

  public String getError() {
    return error;
  }

  public void setError(String error) {
    this.error = error;
  }

  /** Whether it has not ended yet. */
  public boolean running() {
    return finished == null;
  }

  /** Whether the data was restored at the new version. */
  public boolean succeeded() {
    return finished != null && reason == null;
  }

  /** This record, ended at {@code time}: failed with {@code reason} and {@code error}, or succeeded when reason is null. */
  public UpgradeRecord ended(String time, String reason, String error) {
    return new UpgradeRecord(from, fromVolume, to, volume, backup, started, time, reason, error);
  }

  /** This record with its old volume released at {@code time}. */
  public UpgradeRecord withReleased(String time) {
    UpgradeRecord copy = new UpgradeRecord(from, fromVolume, to, volume, backup, started, finished, reason, error);
    copy.released = time;
    return copy;
  }

  /** This record with the backup that carries the data. */
  public UpgradeRecord withBackup(String backup) {
    return new UpgradeRecord(from, fromVolume, to, volume, backup, started, finished, reason, error);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof UpgradeRecord u && Objects.equals(from, u.from)
        && Objects.equals(fromVolume, u.fromVolume)
        && Objects.equals(to, u.to)
        && Objects.equals(volume, u.volume)
        && Objects.equals(backup, u.backup)
        && Objects.equals(started, u.started)
        && Objects.equals(finished, u.finished)
        && Objects.equals(reason, u.reason)
        && Objects.equals(error, u.error)
        && Objects.equals(released, u.released);
  }

  @Override
  public int hashCode() {
    return Objects.hash(from, fromVolume, to, volume, backup, started, finished, reason, error, released);
  }
}
