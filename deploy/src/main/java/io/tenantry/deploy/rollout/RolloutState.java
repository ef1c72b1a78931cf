package io.tenantry.deploy.rollout;

/** Where a rollout stands. Only a RUNNING or PAUSED rollout can be resumed; the others are final. */
public enum RolloutState {
  /** Being run, or was being run by a tenantctl that stopped without saying so (killed). */
  RUNNING,
  /** Paused by {@code tenantctl rollout pause}: the running tenantctl stopped at its next poll. */
  PAUSED,
  /** Stopped by {@code tenantctl rollout abort}; the tenants not yet reached keep their version. */
  ABORTED,
  /**
   * Stopped after a wave that passed --max-failures or --max-failure-ratio ({@link FailureLimits});
   * the tenants not yet reached keep their version.
   */
  HALTED,
  /** Every wave finished and the spare pools followed; tenants that failed within the limits are counted failed. */
  SUCCEEDED;

  public boolean finished() {
    return this == ABORTED || this == HALTED || this == SUCCEEDED;
  }
}
