package io.tenantry.controller.migration;

import static org.assertj.core.api.Assertions.assertThat;

import io.tenantry.controller.migration.MigrationDecision.JobState;
import io.tenantry.controller.migration.MigrationDecision.State;
import io.tenantry.controller.migration.MigrationDecision.Step;
import org.junit.jupiter.api.Test;

class MigrationDecisionTest {

  @Test
  void anAppWithoutMigrationOrAlreadyAtItsVersionDeploysTheSpec() {
    assertThat(MigrationDecision.decide("2", false, "1", JobState.ABSENT, true, true)).isEqualTo(new Step(State.NOT_NEEDED, "2", false));
    assertThat(MigrationDecision.decide("2", true, "2", JobState.SUCCEEDED, true, true)).isEqualTo(new Step(State.NOT_NEEDED, "2", false));
  }

  @Test
  void aNewVersionWaitsForItsMigrationAndKeepsTheDeployedOne() {
    assertThat(MigrationDecision.decide("2", true, "1", JobState.ABSENT, true, true)).isEqualTo(new Step(State.RUNNING, "1", true));
    assertThat(MigrationDecision.decide("2", true, "1", JobState.RUNNING, true, true)).isEqualTo(new Step(State.RUNNING, "1", true));
    assertThat(MigrationDecision.decide("2", true, "1", JobState.SUCCEEDED, true, true)).isEqualTo(new Step(State.SUCCEEDED, "2", true));
  }

  @Test
  void aNewTenantsAppIsNotCreatedBeforeItsMigrationSucceeded() {
    assertThat(MigrationDecision.decide("1", true, null, JobState.ABSENT, false, true))
        .isEqualTo(new Step(State.WAITING_FOR_DATABASES, null, false));
    assertThat(MigrationDecision.decide("1", true, null, JobState.ABSENT, true, true)).isEqualTo(new Step(State.RUNNING, null, true));
  }

  @Test
  void aFailedMigrationKeepsThePreviousVersionAndItsJob() {
    assertThat(MigrationDecision.decide("2", true, "1", JobState.FAILED, true, true)).isEqualTo(new Step(State.FAILED, "1", true));
  }

  @Test
  void aFrozenTenantMigratesWhenItRunsAgain() {
    assertThat(MigrationDecision.decide("2", true, "1", JobState.ABSENT, true, false)).isEqualTo(new Step(State.DEFERRED, "1", false));
  }
}
