package io.tenantry.controller.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class OperatorConfigTest {

  @Test
  void everyFieldHasADefault() {
    OperatorConfig config = OperatorConfig.parse("{}");
    assertThat(config.namespacePrefix).isEqualTo("tenant-");
    assertThat(config.plans).containsKey("standard");
    assertThat(config.maxConcurrentRollouts).isEqualTo(10);
  }

  @Test
  void aFileOverridesWhatItNames() {
    OperatorConfig config = OperatorConfig.parse("""
        workers: 8
        leaderElection:
          leaseDurationSeconds: 30
        plans:
          gold:
            quota: {pods: "100"}
        """);
    assertThat(config.workers).isEqualTo(8);
    assertThat(config.leaderElection.leaseDurationSeconds).isEqualTo(30);
    assertThat(config.leaderElection.renewDeadlineSeconds).isEqualTo(10);
    assertThat(config.plans).containsOnlyKeys("gold");
  }

  @Test
  void anUnknownFieldIsRefusedByName() {
    assertThatThrownBy(() -> OperatorConfig.parse("leaderElection:\n  leaseDuration: 30\n"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("invalid operator configuration: leaderElection.leaseDuration: Unrecognized field \"leaseDuration\"");
  }

  @Test
  void aValueOfTheWrongTypeIsRefusedByName() {
    assertThatThrownBy(() -> OperatorConfig.parse("workers: many\n"))
        .hasMessageStartingWith("invalid operator configuration: workers: ");
  }

  @Test
  void outOfRangeValuesAreAllNamed() {
    assertThatThrownBy(() -> OperatorConfig.parse("""
        workers: 0
        namespacePrefix: Tenant_
        plans:
          standard:
            quota: {requests.cpu: lots}
        """))
        .hasMessage("invalid operator configuration: namespacePrefix: must be lowercase letters, digits and '-', starting"
            + " with a letter, at most 15 characters; workers: must be at least 1; plans.standard.quota.requests.cpu: 'lots'"
            + " is not a quantity");
  }

  @Test
  void theAllocationApiNeedsItsRecordsAndToken() {
    assertThatThrownBy(() -> OperatorConfig.parse("""
        allocation:
          enabled: true
          maxRequestBytes: 10
        fleet:
          clusterName: East_1
        """))
        .hasMessage("invalid operator configuration: fleet.clusterName: must be a DNS label (lowercase letters, digits and '-',"
            + " at most 63 characters); fleet.datastoreProjectId: required when allocation.enabled (allocations are recorded"
            + " in Datastore); allocation.tokenFile: required when allocation.enabled; allocation.maxRequestBytes: must be"
            + " between 256 and 1048576");

    OperatorConfig config = OperatorConfig.parse("""
        allocation: {enabled: true, tokenFile: /run/secrets/token}
        fleet: {datastoreProjectId: my-project, clusterName: east-1, kubeconfigs: [/etc/fleet/west.yaml]}
        """);
    assertThat(config.allocation.defaultPool).isEqualTo("default");
    assertThat(config.fleet.clusterContextOrName()).isEqualTo("east-1");
    assertThat(config.fleet.kubeconfigs).containsExactly("/etc/fleet/west.yaml");
  }
}
