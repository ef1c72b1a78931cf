package io.tenantry.controller.pooling;

import static org.assertj.core.api.Assertions.assertThat;

import io.tenantry.api.v1alpha1.PoolerMode;
import io.tenantry.api.v1alpha1.PoolerSpec;
import org.junit.jupiter.api.Test;

class PoolerBudgetTest {

  private static final String PATH = "spec.databases[0].pooler";

  @Test
  void eachPodMayOpenItsShareOfThePlansConnectionsRoundedDown() {
    assertThat(PoolerBudget.check(PATH, pooler(10, 2), 31, 100)).isEqualTo(new PoolerBudget.Fits(15));
    assertThat(PoolerBudget.check(PATH, pooler(10, 1), 30, 100)).isEqualTo(new PoolerBudget.Fits(30));
  }

  @Test
  void aPoolLargerThanAPodsShareIsRefusedNamingThePoolSize() {
    PoolerBudget.Outcome outcome = PoolerBudget.check(PATH, pooler(11, 3), 30, 100);
    assertThat(outcome).isInstanceOfSatisfying(PoolerBudget.Refused.class, refused -> {
      assertThat(refused.field()).isEqualTo("spec.databases[0].pooler.defaultPoolSize");
      assertThat(refused.message()).contains("pool of 11", "the 10 server connections each of 3 pooler pods",
          "pooler.maxServerConnections 30");
    });
  }

  @Test
  void morePodsThanServerConnectionsIsRefusedNamingTheReplicas() {
    PoolerBudget.Outcome outcome = PoolerBudget.check(PATH, pooler(1, 4), 3, 100);
    assertThat(outcome).isInstanceOfSatisfying(PoolerBudget.Refused.class,
        refused -> assertThat(refused.field()).isEqualTo("spec.databases[0].pooler.replicas"));
  }

  @Test
  void poolsAboveTheServersMaxConnectionsLessTheReserveAreRefused() {
    assertThat(PoolerBudget.check(PATH, pooler(45, 2), 200, 100)).isEqualTo(new PoolerBudget.Fits(100));
    PoolerBudget.Outcome outcome = PoolerBudget.check(PATH, pooler(46, 2), 200, 100);
    assertThat(outcome).isInstanceOfSatisfying(PoolerBudget.Refused.class, refused -> {
      assertThat(refused.field()).isEqualTo("spec.databases[0].pooler.defaultPoolSize");
      assertThat(refused.message()).contains("would open 92 server connections", "max_connections 100",
          "minus " + PoolerBudget.RESERVED);
    });
  }

  private static PoolerSpec pooler(int defaultPoolSize, int replicas) {
    return new PoolerSpec(PoolerMode.TRANSACTION, defaultPoolSize, 100, replicas);
  }
}
