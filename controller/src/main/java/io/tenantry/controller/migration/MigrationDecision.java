package io.tenantry.controller.migration;

/**
 * Pure: what an app's sync does about its version. An app with a migration changes version (or
 * first starts) only once the migration Job for the new version has succeeded; until then its
 * Deployment stays at the version it has, or is not created.
 */
public final class MigrationDecision {

  /** What the cache shows of the Job for the spec's version. */
  public enum JobState { ABSENT, RUNNING, SUCCEEDED, FAILED }

  /** Where the app stands. */
  public enum State {
    /** No migration to run: the app is at the spec's version, or has no migration. */
    NOT_NEEDED,
    /** The bound databases are not ready yet; the Job is created once they are. */
    WAITING_FOR_DATABASES,
    /** Workloads are stopped (Frozen): the migration runs when the tenant runs again. */
    DEFERRED,
    /** The Job is to be created, or is running. */
    RUNNING,
    /** The Job succeeded: the Deployment moves to the spec's version. */
    SUCCEEDED,
    /** The Job failed: the previous version keeps serving. */
    FAILED
  }

  /**
   * @param deployVersion the version the Deployment is built at, or null to leave it as it is (there is none yet)
   * @param jobWanted whether the migration Job is desired (created when missing, kept while it matters)
   */
  public record Step(State state, String deployVersion, boolean jobWanted) {
  }

  private MigrationDecision() {
  }

  /**
   * @param specVersion the version the spec asks for
   * @param hasMigration whether the app has a migration
   * @param deployedVersion the version of the app's Deployment, or null when it has none
   * @param job the state of the Job migrating to {@code specVersion}
   * @param databasesReady whether the databases the app is bound to are rolled out
   * @param running whether the tenant's workloads run (false when Frozen or Archived)
   */
  public static Step decide(String specVersion, boolean hasMigration, String deployedVersion, JobState job,
      boolean databasesReady, boolean running) {
    if (!hasMigration || specVersion.equals(deployedVersion)) {
      return new Step(State.NOT_NEEDED, specVersion, false);
    }
    return switch (job) {
      case SUCCEEDED -> new Step(State.SUCCEEDED, specVersion, true);
      case FAILED -> new Step(State.FAILED, deployedVersion, true);
      case RUNNING -> new Step(State.RUNNING, deployedVersion, true);
      case ABSENT -> !running ? new Step(State.DEFERRED, deployedVersion, false)
          : !databasesReady ? new Step(State.WAITING_FOR_DATABASES, deployedVersion, false)
          : new Step(State.RUNNING, deployedVersion, true);
    };
  }
}
