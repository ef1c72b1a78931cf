package io.tenantry.controller.backup;

import static org.assertj.core.api.Assertions.assertThat;

import io.tenantry.controller.config.BackupPolicy;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class BackupScheduleTest {

  private static final BackupPolicy DAILY = BackupPolicy.DEFAULT; // 24h, window 01:00 + 4h
  private static final String UID = "0c4b7e3a-1111-2222-3333-444455556666";

  @Test
  void aTenantsSlotIsInsideTheWindowAndTheSameEveryDay() {
    Instant slot = BackupSchedule.lastSlot(DAILY, UID, Instant.parse("2026-11-26T12:00:00Z"));

    assertThat(slot).isBetween(Instant.parse("2026-11-26T01:00:00Z"), Instant.parse("2026-11-26T05:00:00Z"));
    assertThat(BackupSchedule.lastSlot(DAILY, UID, Instant.parse("2026-11-27T12:00:00Z")))
        .isEqualTo(slot.plus(Duration.ofDays(1)));
  }

  @Test
  void beforeTheWindowTheLastSlotIsYesterdays() {
    Instant slot = BackupSchedule.lastSlot(DAILY, UID, Instant.parse("2026-11-26T00:30:00Z"));

    assertThat(slot).isBetween(Instant.parse("2026-11-25T01:00:00Z"), Instant.parse("2026-11-25T05:00:00Z"));
  }

  @Test
  void aFleetIsSpreadOverTheWholeWindow() {
    long[] perHour = new long[4];
    IntStream.range(0, 2000).forEach(i -> perHour[(int) BackupSchedule.offset(DAILY, UUID.randomUUID().toString()).toHours()]++);

    assertThat(java.util.Arrays.stream(perHour).boxed().toList()).allSatisfy(count -> assertThat(count).isBetween(400L, 600L));
  }

  @Test
  void dueAtOnceWithoutABackupOrAfterAMissedSlotThenAtTheNextSlot() {
    Instant now = Instant.parse("2026-11-26T12:00:00Z");
    Instant slot = BackupSchedule.lastSlot(DAILY, UID, now);

    assertThat(BackupSchedule.untilDue(DAILY, UID, null, now)).isZero();
    assertThat(BackupSchedule.untilDue(DAILY, UID, slot.minusSeconds(1), now)).isZero();
    assertThat(BackupSchedule.untilDue(DAILY, UID, slot.plusSeconds(5), now))
        .isEqualTo(Duration.between(now, slot.plus(Duration.ofDays(1))));
  }

  @Test
  void shorterIntervalsRepeatWithinTheDay() {
    BackupPolicy sixHourly = new BackupPolicy("6h", "00:00", "1h", 7, 4, 0, "1h");
    Instant now = Instant.parse("2026-11-26T13:00:00Z");
    Instant slot = BackupSchedule.lastSlot(sixHourly, UID, now);

    assertThat(slot).isBetween(Instant.parse("2026-11-26T07:00:00Z"), now);
    assertThat(Duration.between(slot, now)).isLessThan(Duration.ofHours(6));
    assertThat(sixHourly.rpo()).isEqualTo(Duration.ofHours(7));
  }
}
