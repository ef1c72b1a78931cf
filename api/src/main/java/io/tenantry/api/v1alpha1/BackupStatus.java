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

  @JsonPropertyDescription("The newest restore drill: id names the backup restored into a scratch server; reason and error"
      + " say why it failed (a RestoreVerified reason), started empty while it waits for a slot.")
  private BackupRecord lastDrill;

  @JsonPropertyDescription("Backups proven since the last drill started; the plan's drillEvery of them start the next.")
  private Integer provenSinceDrill;

  @JsonPropertyDescription("The newest restore from spec.databases[].restoreFrom.")
  private RestoreRecord restore;

  @JsonPropertyDescription("The newest major upgrade (spec.databases[].majorUpgrade): the version and volume it left, those it"
      + " went to, the backup it carried the data in.")
  private UpgradeRecord upgrade;

  public BackupStatus() {
  }

  public BackupStatus(BackupRecord last, BackupRecord lastAttempt) {
    this(last, lastAttempt, null, null);
  }

  public BackupStatus(BackupRecord last, BackupRecord lastAttempt, BackupRecord lastDrill, Integer provenSinceDrill) {
    this.last = last;
    this.lastAttempt = lastAttempt;
    this.lastDrill = lastDrill;
    this.provenSinceDrill = provenSinceDrill;
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

  public BackupRecord getLastDrill() {
    return lastDrill;
  }

  public void setLastDrill(BackupRecord lastDrill) {
    this.lastDrill = lastDrill;
  }

  public RestoreRecord getRestore() {
    return restore;
  }

  public void setRestore(RestoreRecord restore) {
    this.restore = restore;
  }

  public UpgradeRecord getUpgrade() {
    return upgrade;
  }

  public void setUpgrade(UpgradeRecord upgrade) {
    this.upgrade = upgrade;
  }

  /** This status with {@code restore} as its newest restore. */
  public BackupStatus withRestore(RestoreRecord restore) {
    BackupStatus copy = new BackupStatus(last, lastAttempt, lastDrill, provenSinceDrill);
    copy.restore = restore;
    copy.upgrade = upgrade;
    return copy;
  }

  /** This status with {@code upgrade} as its newest major upgrade. */
  public BackupStatus withUpgrade(UpgradeRecord upgrade) {
    BackupStatus copy = withRestore(restore);
    copy.upgrade = upgrade;
    return copy;
  }

  public Integer getProvenSinceDrill() {
    return provenSinceDrill;
  }

  public void setProvenSinceDrill(Integer provenSinceDrill) {
    this.provenSinceDrill = provenSinceDrill;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof BackupStatus b && Objects.equals(last, b.last) && Objects.equals(lastAttempt, b.lastAttempt)
        && Objects.equals(lastDrill, b.lastDrill) && Objects.equals(provenSinceDrill, b.provenSinceDrill)
        && Objects.equals(restore, b.restore) && Objects.equals(upgrade, b.upgrade);
  }

  @Override
  public int hashCode() {
    return Objects.hash(last, lastAttempt, lastDrill, provenSinceDrill, restore, upgrade);
  }
}
