package io.tenantry.controller.backup;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BackupSlotsTest {

  private final List<String> woken = new ArrayList<>();
  private final BackupSlots slots = new BackupSlots(2, woken::add);

  @Test
  void atMostSlotsDatabasesHoldASlotAndTheOthersWaitInLine() {
    assertThat(slots.acquire(key("a"))).isTrue();
    assertThat(slots.acquire(key("b"))).isTrue();
    assertThat(slots.acquire(key("c"))).isFalse();
    assertThat(slots.acquire(key("a"))).as("a holder keeps its slot").isTrue();
    assertThat(slots.running()).isEqualTo(2);
    assertThat(slots.queued()).isEqualTo(1);
  }

  @Test
  void twoSlotsFreedBeforeTheFirstWokenTenantSyncsWakeTwoTenants() {
    fill("a", "b");
    queue("c", "d", "e");

    slots.release(key("a"));
    slots.release(key("b"));

    assertThat(woken).containsExactly("c", "d");
    assertThat(slots.acquire(key("d"))).as("d's slot was kept for it").isTrue();
    assertThat(slots.acquire(key("e"))).as("c's slot is kept for c").isFalse();
    assertThat(slots.acquire(key("c"))).isTrue();
    assertThat(slots.running()).isEqualTo(2);
  }

  @Test
  void aWokenDatabaseThatNoLongerNeedsItsSlotPassesItOn() {
    fill("a", "b");
    queue("c", "d");

    slots.release(key("a"));
    slots.release(key("c")); // c's tenant synced and found nothing due

    assertThat(woken).containsExactly("c", "d");
    assertThat(slots.acquire(key("d"))).isTrue();
  }

  @Test
  void aTenantGoneFreesItsSlotsAndWhatWasKeptForIt() {
    fill("a", "b");
    queue("c", "d");
    slots.release(key("a"));

    slots.forget("c");
    slots.forget("b");

    assertThat(woken).containsExactly("c", "d");
    assertThat(slots.acquire(key("d"))).isTrue();
    assertThat(slots.acquire(key("e"))).as("a slot is free and no one waits").isTrue();
    assertThat(slots.acquire(key("f"))).isFalse();
  }

  @Test
  void aJobFoundRunningTakesItsSlotBackBeyondTheBound() {
    fill("a", "b");
    slots.hold(key("c"));

    assertThat(slots.running()).isEqualTo(3);
    slots.release(key("a"));
    assertThat(slots.acquire(key("d"))).as("still at the bound").isFalse();
    assertThat(woken).isEmpty();
  }

  private void fill(String... tenants) {
    for (String tenant : tenants) {
      assertThat(slots.acquire(key(tenant))).isTrue();
    }
  }

  private void queue(String... tenants) {
    for (String tenant : tenants) {
      assertThat(slots.acquire(key(tenant))).isFalse();
    }
  }

  private static BackupSlots.Key key(String tenant) {
    return new BackupSlots.Key(tenant, "main");
  }
}
