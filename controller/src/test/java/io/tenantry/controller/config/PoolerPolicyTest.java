package io.tenantry.controller.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PoolerPolicyTest {

  @Test
  void aPlansPoolersShareFortyServerConnectionsUnlessThePlanSaysOtherwise() {
    assertThat(OperatorConfig.defaults().plans().get("standard").pooler().maxServerConnections()).isEqualTo(40);
    OperatorConfig config = OperatorConfig.parse("""
        plans:
          standard: {pooler: {maxServerConnections: 60}}
          small: {}
        """);
    assertThat(config.plans().get("standard").pooler().maxServerConnections()).isEqualTo(60);
    assertThat(config.plans().get("small").pooler()).isEqualTo(PoolerPolicy.DEFAULT);
  }

  @Test
  void aBudgetOfNoConnectionIsRefusedNamingThePlan() {
    assertThatThrownBy(() -> OperatorConfig.parse("""
        plans:
          standard: {pooler: {maxServerConnections: 0}}
        """))
        .hasMessage("invalid operator configuration: plans.standard.pooler.maxServerConnections: must be at least 1");
  }
}
