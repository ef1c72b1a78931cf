package io.tenantry.deploy.rollout;

/**
 * A command that contradicts the rollout's stored state: resuming a finished rollout, or one that
 * another live {@code tenantctl} is running, or starting a rollout of an app that has an unfinished
 * one. Nothing is written when this is thrown.
 */
public class RolloutConflictException extends RuntimeException {

  public RolloutConflictException(String message) {
    super(message);
  }
}
