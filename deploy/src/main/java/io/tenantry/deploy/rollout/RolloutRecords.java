package io.tenantry.deploy.rollout;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Where rollouts are kept, so that one outlives the tenantctl that runs it. A rollout is changed
 * by two kinds of writers: its one runner (progress, heartbeat, the final state) and any other
 * tenantctl (pause, abort). Each write changes only its own fields, atomically, so neither loses
 * the other's: a runner learns of a pause or abort from the state each of its writes returns.
 */
public interface RolloutRecords {

  /** Stores a new rollout; refused with {@link RolloutConflictException} when the id exists. */
  void create(Rollout rollout);

  Optional<Rollout> get(String id);

  /** Every rollout, newest first, without their waves (counts are in the summary). */
  List<RolloutSummary> list();

  /** The unfinished (RUNNING or PAUSED) rollouts of an app. */
  List<RolloutSummary> unfinished(String app);

  /**
   * Makes {@code runner} the rollout's runner and its state RUNNING. Refused with
   * {@link RolloutConflictException} when it is finished, or held by another runner that is alive
   * (see {@link Runner#mayTakeOver}). Returns the rollout as stored.
   */
  Rollout claim(String id, Runner runner, Instant now);

  /**
   * Stores one wave's progress (with the rollout's counts and the runner's heartbeat) and returns
   * the rollout's state, which another tenantctl may have set to PAUSED or ABORTED. Refused with
   * {@link RolloutConflictException} when {@code runner} no longer holds the rollout.
   */
  RolloutState saveWave(Rollout rollout, Wave wave, Runner runner, Instant now);

  /** As {@link #saveWave}, for a pool that followed. */
  RolloutState savePool(Rollout rollout, PoolProgress pool, Runner runner, Instant now);

  /** The runner is still at it; returns the state as {@link #saveWave} does. */
  RolloutState heartbeat(String id, Runner runner, Instant now);

  /**
   * The runner stops: {@code state} (HALTED or SUCCEEDED, with {@code message}) is stored unless the
   * rollout is no longer RUNNING (a pause or abort stays); null keeps the state. The runner is
   * cleared either way. Returns the rollout as stored.
   */
  Rollout release(String id, Runner runner, RolloutState state, String message, Instant now);

  /**
   * Pause (RUNNING → PAUSED) or abort (RUNNING or PAUSED → ABORTED), from any tenantctl; the runner
   * sees it at its next write. Refused with {@link RolloutConflictException} otherwise.
   */
  Rollout stop(String id, RolloutState target, Instant now);
}
