package io.tenantry.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.Objects;

/** When the tenant last entered each lifecycle state (RFC 3339 times). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class StateTimestamps {

  @JsonPropertyDescription("When the tenant was first provisioned as New.")
  private String newAt;
  @JsonPropertyDescription("When the tenant last became Active.")
  private String activeAt;
  @JsonPropertyDescription("When the tenant last became Frozen.")
  private String frozenAt;
  @JsonPropertyDescription("When the tenant last became Archived.")
  private String archivedAt;
  @JsonPropertyDescription("When the tenant was purged.")
  private String purgedAt;

  public String getNewAt() {
    return newAt;
  }

  public void setNewAt(String newAt) {
    this.newAt = newAt;
  }

  public String getActiveAt() {
    return activeAt;
  }

  public void setActiveAt(String activeAt) {
    this.activeAt = activeAt;
  }

  public String getFrozenAt() {
    return frozenAt;
  }

  public void setFrozenAt(String frozenAt) {
    this.frozenAt = frozenAt;
  }

  public String getArchivedAt() {
    return archivedAt;
  }

  public void setArchivedAt(String archivedAt) {
    this.archivedAt = archivedAt;
  }

  public String getPurgedAt() {
    return purgedAt;
  }

  public void setPurgedAt(String purgedAt) {
    this.purgedAt = purgedAt;
  }

  /** A copy with the time {@code state} was entered set to {@code time}. */
  public StateTimestamps entered(TenantState state, String time) {
    StateTimestamps t = new StateTimestamps();
    t.newAt = newAt;
    t.activeAt = activeAt;
    t.frozenAt = frozenAt;
    t.archivedAt = archivedAt;
    t.purgedAt = purgedAt;
    switch (state) {
      case New -> t.newAt = time;
      case Active -> t.activeAt = time;
      case Frozen -> t.frozenAt = time;
      case Archived -> t.archivedAt = time;
      case Purged -> t.purgedAt = time;
    }
    return t;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof StateTimestamps t && Objects.equals(newAt, t.newAt) && Objects.equals(activeAt, t.activeAt)
        && Objects.equals(frozenAt, t.frozenAt) && Objects.equals(archivedAt, t.archivedAt)
        && Objects.equals(purgedAt, t.purgedAt);
  }

  @Override
  public int hashCode() {
    return Objects.hash(newAt, activeAt, frozenAt, archivedAt, purgedAt);
  }
}
