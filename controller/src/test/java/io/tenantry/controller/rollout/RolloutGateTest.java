package io.tenantry.controller.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class RolloutGateTest {

  private final AtomicLong now = new AtomicLong();
  private final List<String> woken = new ArrayList<>();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final RolloutGate gate = new RolloutGate(2, Duration.ofSeconds(60), woken::add, registry, now::get);

  @Test
  void atMostSlotsTenantsHoldASlot() {
    assertThat(gate.acquire("a")).isTrue();
    assertThat(gate.acquire("b")).isTrue();
    assertThat(gate.acquire("c")).isFalse();
    assertThat(gate.acquire("a")).as("a holder keeps its slot").isTrue();
    assertThat(gate.inFlight()).isEqualTo(2);
    assertThat(gate.waitingCount()).isEqualTo(1);
  }

  @Test
  void aFreedSlotGoesToTheFirstWaiterAndIsKeptForIt() {
    gate.acquire("a");
    gate.acquire("b");
    gate.acquire("c");
    gate.acquire("d");
    gate.release("a", true);
    assertThat(woken).containsExactly("c");
    assertThat(gate.acquire("e")).as("the freed slot is reserved for c").isFalse();
    assertThat(gate.acquire("c")).isTrue();
    gate.release("b", true);
    assertThat(woken).containsExactly("c", "d");
  }

  @Test
  void aWokenTenantThatNoLongerNeedsTheSlotPassesItOn() {
    gate.acquire("a");
    gate.acquire("b");
    gate.acquire("c");
    gate.acquire("d");
    gate.release("a", true);
    gate.release("c", true);
    assertThat(woken).containsExactly("c", "d");
  }

  @Test
  void theDeadlineCountsFromTheSlotAndATimeoutFreesIt() {
    gate.acquire("a");
    now.addAndGet(Duration.ofSeconds(45).toNanos());
    assertThat(gate.remaining("a")).isEqualTo(Duration.ofSeconds(15));
    now.addAndGet(Duration.ofSeconds(20).toNanos());
    assertThat(gate.remaining("a")).isNegative();
    gate.timedOut("a");
    assertThat(gate.remaining("a")).isNull();
    assertThat(gate.inFlight()).isZero();
    assertThat(registry.get("tenantry.rollout.timeouts").counter().count()).isEqualTo(1);
  }

  @Test
  void completedRolloutsAreTimed() {
    gate.acquire("a");
    now.addAndGet(Duration.ofSeconds(3).toNanos());
    gate.release("a", true);
    assertThat(registry.get("tenantry.rollout.duration").timer().totalTime(java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(3.0);
    gate.release("never-held", true);
    assertThat(registry.get("tenantry.rollout.duration").timer().count()).isEqualTo(1);
  }
}
