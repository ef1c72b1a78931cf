package io.tenantry.deploy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.tenantry.deploy.rollout.FailureLimits;
import io.tenantry.deploy.rollout.Rollout;
import io.tenantry.deploy.rollout.RolloutState;
import io.tenantry.deploy.rollout.TenantProgress;
import io.tenantry.deploy.rollout.Wave;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** How deploy reads its failure flags, and how a finished rollout becomes an exit status and a summary. */
class DeployCommandTest {

  private static final String DEPLOY = "deploy --app web --version 2.0.0 --all ";

  @ParameterizedTest
  @CsvSource(delimiter = '|', nullValues = "-", value = {
      "                                           | 1 | -",
      "--max-failures 3                           | 3 | -",
      "--max-failure-ratio 0.2                    | - | 0.2",
      "--max-failure-ratio=.5                     | - | 0.5",
      "--max-failure-ratio 1                      | - | 1.0",
      "--max-failures 4 --max-failure-ratio 0.25  | 4 | 0.25",
  })
  void theFailureFlagsBecomeTheRolloutsLimits(String flags, Integer maxFailures, Double ratio) {
    DeployCommand command = DeployCommand.parse(Args.parse((DEPLOY + (flags == null ? "" : flags)).trim().split("\\s+")));

    assertThat(command.request().failureLimits()).isEqualTo(new FailureLimits(maxFailures, ratio));
  }

  @Test
  void aRolloutThatWentThroughWithFailedTenantsDoesNotExitZeroAndListsThem() {
    TenantProgress ok = TenantProgress.pending("acme").applied("1.0.0", 2, null).succeeded();
    TenantProgress stuck = TenantProgress.pending("globex").applied("1.0.0", 2, null)
        .failed("Degraded: not rolled out within 20s");
    Rollout withFailure = rollout(RolloutState.SUCCEEDED, ok, stuck);

    assertThat(DeployCommand.exitStatus(withFailure)).isEqualTo(5);
    assertThat(DeployCommand.exitStatus(rollout(RolloutState.SUCCEEDED, ok))).isZero();
    assertThat(DeployCommand.exitStatus(rollout(RolloutState.HALTED, ok, stuck))).isEqualTo(3);
    assertThat(DeployCommand.exitStatus(rollout(RolloutState.ABORTED, ok))).isEqualTo(4);
    assertThat(ProgressView.failedTenants(withFailure))
        .containsExactly("failed eu/globex (was 1.0.0): Degraded: not rolled out within 20s");
    assertThat(ProgressView.render(withFailure, 8).get(1))
        .endsWith("1/2 on 2.0.0, 1 failed (--max-failure-ratio 0.5)");
  }

  private static Rollout rollout(RolloutState state, TenantProgress... tenants) {
    DeployCommand command = DeployCommand.parse(Args.parse((DEPLOY + "--max-failure-ratio 0.5").split(" ")));
    Instant t0 = Instant.parse("2026-03-01T10:00:00Z");
    return new Rollout("web-1", command.request(), state, List.of("eu"), List.of(new Wave(1, "eu", List.of(tenants))),
        List.of(), t0, t0, null, null, null);
  }
}
