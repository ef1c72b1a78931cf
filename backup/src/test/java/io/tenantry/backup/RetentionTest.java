package io.tenantry.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tenantry.backup.Retention.Backup;
import io.tenantry.backup.Retention.Decision;
import io.tenantry.backup.Retention.Policy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class RetentionTest {

  private static final Instant NOW = Instant.parse("2026-11-26T12:00:00Z");
  private static final Duration WEEK = Duration.ofDays(7);
  private static final Duration GRACE = Duration.ofHours(6);

  /** An id of database {@code app} started at {@code time} (an ISO instant). */
  private static BackupId id(String time) {
    return new BackupId("app", Instant.parse(time), "c0ffee");
  }

  /** The 02:00 UTC backup of {@code day} (yyyy-mm-dd). */
  private static BackupId at2(String day) {
    return id(day + "T02:00:00Z");
  }

  private static Backup scheduled(BackupId id) {
    return Backup.committed(id, "scheduled");
  }

  private static Policy policy(int keepDaily, int keepWeekly) {
    return new Policy(keepDaily, keepWeekly, WEEK, GRACE);
  }

  private static List<BackupId> ids(List<Backup> backups) {
    return backups.stream().map(Backup::id).toList();
  }

  @Test
  void sixtyDailyBackupsWithSevenDailyAndFourWeeklyKeepNine() {
    Instant now = Instant.parse("2026-11-26T02:00:00Z");
    List<Backup> backups = new ArrayList<>();
    for (int day = 0; day < 60; day++) {
      backups.add(scheduled(new BackupId("app", now.minus(Duration.ofDays(day)), "c0ffee")));
    }

    Decision decision = Retention.decide(backups, policy(7, 4), now, false);

    // 2026-11-26 is a Thursday in ISO week 2026-W48. Daily: the 7 days 11-20 (Fri) .. 11-26 (Thu).
    // Weekly: W48 -> 11-26 and W47 (11-16 .. 11-22) -> Sunday 11-22, both already daily;
    // W46 (11-09 .. 11-15) -> Sunday 11-15; W45 (11-02 .. 11-08) -> Sunday 11-08.
    List<BackupId> expected = Stream.of("2026-11-08", "2026-11-15", "2026-11-20", "2026-11-21", "2026-11-22",
        "2026-11-23", "2026-11-24", "2026-11-25", "2026-11-26").map(RetentionTest::at2).toList();
    assertThat(decision.keep()).containsExactlyElementsOf(expected);
    assertThat(decision.delete()).hasSize(51)
        .contains(at2("2026-09-28"), at2("2026-11-01"), at2("2026-11-07"), at2("2026-11-14"), at2("2026-11-19"))
        .doesNotContainAnyElementsOf(expected);
    List<BackupId> all = new ArrayList<>(decision.keep());
    all.addAll(decision.delete());
    assertThat(all).containsExactlyInAnyOrderElementsOf(ids(backups));
  }

  @Test
  void theNewestCommittedBackupIsKeptWhenThePolicyKeepsNothing() {
    List<Backup> backups = List.of(scheduled(at2("2026-11-24")), scheduled(at2("2026-11-26")),
        scheduled(at2("2026-11-25")));

    Decision decision = Retention.decide(backups, new Policy(0, 0, Duration.ZERO, Duration.ZERO), NOW, false);

    assertThat(decision.keep()).containsExactly(at2("2026-11-26"));
    assertThat(decision.delete()).containsExactly(at2("2026-11-24"), at2("2026-11-25"));
  }

  @Test
  void onlyTheNewestOfADayIsKeptForIt() {
    List<Backup> backups = List.of(
        scheduled(id("2026-11-26T02:00:00Z")),
        Backup.committed(id("2026-11-26T09:30:00Z"), "on-demand"),
        scheduled(id("2026-11-26T00:00:00Z")),
        scheduled(id("2026-11-25T02:00:00Z")),
        Backup.committed(id("2026-11-25T23:59:59Z"), "on-demand"),
        scheduled(id("2026-11-24T02:00:00Z")));

    Decision decision = Retention.decide(backups, policy(2, 0), NOW, false);

    assertThat(decision.keep()).containsExactly(id("2026-11-25T23:59:59Z"), id("2026-11-26T09:30:00Z"));
    assertThat(decision.delete()).containsExactly(id("2026-11-24T02:00:00Z"), id("2026-11-25T02:00:00Z"),
        id("2026-11-26T00:00:00Z"), id("2026-11-26T02:00:00Z"));
  }

  @Test
  void sameSecondBackupsOfADayKeepTheOneWithTheGreaterId() {
    BackupId first = new BackupId("app", Instant.parse("2026-11-26T02:00:00Z"), "000001");
    BackupId second = new BackupId("app", Instant.parse("2026-11-26T02:00:00Z"), "000002");

    Decision decision = Retention.decide(List.of(scheduled(first), scheduled(second)), policy(1, 1), NOW, false);

    assertThat(decision.keep()).containsExactly(second);
    assertThat(decision.delete()).containsExactly(first);
  }

  @Test
  void daysAndWeeksWithoutABackupDoNotUseUpTheCounts() {
    List<Backup> backups = Stream.of("2026-09-01", "2026-10-01", "2026-11-01", "2026-11-10", "2026-11-20")
        .map(day -> scheduled(at2(day))).toList();

    assertThat(Retention.decide(backups, policy(2, 0), NOW, false).keep())
        .containsExactly(at2("2026-11-10"), at2("2026-11-20"));
    assertThat(Retention.decide(backups, policy(0, 3), NOW, false).keep())
        .containsExactly(at2("2026-11-01"), at2("2026-11-10"), at2("2026-11-20"));
  }

  @Test
  void weeksAreIsoWeeksOfTheWeekBasedYear() {
    // 2026-12-27 is the Sunday ending 2026-W52; 2026-12-31 (Thu) and 2027-01-02 (Sat) are both in 2026-W53.
    List<Backup> backups = Stream.of("2026-12-27", "2026-12-31", "2027-01-02").map(day -> scheduled(at2(day))).toList();

    Decision decision = Retention.decide(backups, policy(0, 2), Instant.parse("2027-01-02T12:00:00Z"), false);

    assertThat(decision.keep()).containsExactly(at2("2026-12-27"), at2("2027-01-02"));
    assertThat(decision.delete()).containsExactly(at2("2026-12-31"));
  }

  @Test
  void daysAreUtcDays() {
    // 23:30Z and 00:30Z the next day are one evening in America, two days in UTC.
    List<Backup> backups = List.of(scheduled(id("2026-11-24T23:30:00Z")), scheduled(id("2026-11-25T00:30:00Z")),
        scheduled(id("2026-11-24T02:00:00Z")));

    assertThat(Retention.decide(backups, policy(2, 0), NOW, false).keep())
        .containsExactly(id("2026-11-24T23:30:00Z"), id("2026-11-25T00:30:00Z"));
  }

  @Test
  void uncommittedBackupsAreKeptForTheGraceAndDeletedAfter() {
    List<Backup> backups = List.of(
        scheduled(at2("2026-11-26")),
        Backup.uncommitted(id("2026-11-26T11:00:00Z")),
        Backup.uncommitted(id("2026-11-26T06:00:00Z")),
        Backup.uncommitted(id("2026-11-26T05:59:59Z")),
        Backup.uncommitted(id("2026-11-20T02:00:00Z")));

    Decision decision = Retention.decide(backups, policy(7, 4), NOW, false);

    assertThat(decision.keep()).as("within 6 hours of now, the boundary included")
        .containsExactly(id("2026-11-26T02:00:00Z"), id("2026-11-26T06:00:00Z"), id("2026-11-26T11:00:00Z"));
    assertThat(decision.delete()).containsExactly(id("2026-11-20T02:00:00Z"), id("2026-11-26T05:59:59Z"));
  }

  @Test
  void anUncommittedBackupInTheFutureIsKept() {
    Decision decision = Retention.decide(List.of(Backup.uncommitted(id("2026-11-26T12:05:00Z"))), policy(0, 0),
        NOW, false);

    assertThat(decision.keep()).containsExactly(id("2026-11-26T12:05:00Z"));
  }

  @Test
  void anUncommittedNewestDoesNotDisplaceTheNewestCommitted() {
    List<Backup> backups = List.of(scheduled(at2("2026-11-25")), Backup.uncommitted(id("2026-11-26T11:00:00Z")));

    Decision decision = Retention.decide(backups, policy(0, 0), NOW, false);

    assertThat(decision.keep()).containsExactly(at2("2026-11-25"), id("2026-11-26T11:00:00Z"));
    assertThat(decision.delete()).isEmpty();
  }

  @Test
  void uncommittedBackupsDoNotCountTowardDaysOrWeeks() {
    List<Backup> backups = List.of(
        Backup.uncommitted(id("2026-11-26T11:00:00Z")),
        scheduled(at2("2026-11-25")),
        Backup.uncommitted(at2("2026-11-24")),
        scheduled(at2("2026-11-23")),
        scheduled(at2("2026-11-16")),
        scheduled(at2("2026-11-09")));

    Decision decision = Retention.decide(backups, policy(2, 2), NOW, false);

    // Days: 11-25 and 11-23. Weeks: W48 (11-23 .. 11-29) -> 11-25, W47 -> 11-16.
    assertThat(decision.keep()).containsExactly(at2("2026-11-16"), at2("2026-11-23"), at2("2026-11-25"),
        id("2026-11-26T11:00:00Z"));
    assertThat(decision.delete()).containsExactly(at2("2026-11-09"), at2("2026-11-24"));
  }

  @Test
  void archiveBackupsAreKeptWhileTheTenantIsArchivedAndPrunedNormallyAfter() {
    List<Backup> backups = List.of(
        Backup.committed(at2("2026-08-01"), "archive"),
        Backup.committed(at2("2026-09-01"), "archive"),
        scheduled(at2("2026-11-20")),
        scheduled(at2("2026-11-26")));

    Decision archived = Retention.decide(backups, policy(1, 0), NOW, true);
    Decision active = Retention.decide(backups, policy(1, 0), NOW, false);

    assertThat(archived.keep()).containsExactly(at2("2026-08-01"), at2("2026-09-01"), at2("2026-11-26"));
    assertThat(archived.delete()).containsExactly(at2("2026-11-20"));
    assertThat(active.keep()).containsExactly(at2("2026-11-26"));
    assertThat(active.delete()).containsExactly(at2("2026-08-01"), at2("2026-09-01"), at2("2026-11-20"));
  }

  @Test
  void anArchiveBackupCountsTowardDaysLikeAnyCommittedBackup() {
    List<Backup> backups = List.of(Backup.committed(at2("2026-11-25"), "archive"), scheduled(at2("2026-11-26")));

    assertThat(Retention.decide(backups, policy(2, 0), NOW, false).keep())
        .containsExactly(at2("2026-11-25"), at2("2026-11-26"));
  }

  @Test
  void preRestoreBackupsAreKeptUntilTheirPeriodEnds() {
    List<Backup> backups = List.of(
        Backup.committed(id("2026-11-19T11:59:59Z"), "pre-restore"),
        Backup.committed(id("2026-11-19T12:00:00Z"), "pre-restore"),
        Backup.committed(id("2026-11-19T12:00:01Z"), "pre-restore"),
        Backup.committed(id("2026-11-22T08:00:00Z"), "pre-restore"),
        scheduled(at2("2026-11-26")));

    Decision decision = Retention.decide(backups, policy(0, 0), NOW, false);

    assertThat(decision.keep()).as("a week after it started, the end excluded")
        .containsExactly(id("2026-11-19T12:00:01Z"), id("2026-11-22T08:00:00Z"), at2("2026-11-26"));
    assertThat(decision.delete()).containsExactly(id("2026-11-19T11:59:59Z"), id("2026-11-19T12:00:00Z"));
  }

  @Test
  void anExpiredPreRestoreBackupThatIsADaysNewestStays() {
    List<Backup> backups = List.of(
        scheduled(at2("2026-11-10")),
        Backup.committed(id("2026-11-10T15:00:00Z"), "pre-restore"),
        scheduled(at2("2026-11-26")));

    Decision decision = Retention.decide(backups, policy(2, 0), NOW, false);

    assertThat(decision.keep()).containsExactly(id("2026-11-10T15:00:00Z"), at2("2026-11-26"));
    assertThat(decision.delete()).containsExactly(at2("2026-11-10"));
  }

  @Test
  void anEmptyListingDecidesNothing() {
    Decision decision = Retention.decide(List.of(), policy(7, 4), NOW, true);

    assertThat(decision.keep()).isEmpty();
    assertThat(decision.delete()).isEmpty();
  }

  @Test
  void aPolicyRefusesNegativesNamingTheField() {
    assertThatThrownBy(() -> new Policy(-1, 4, WEEK, GRACE)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("keepDaily must be 0 or more, got -1");
    assertThatThrownBy(() -> new Policy(7, -2, WEEK, GRACE)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("keepWeekly must be 0 or more, got -2");
    assertThatThrownBy(() -> new Policy(7, 4, Duration.ofDays(-1), GRACE)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("keepPreRestore must not be negative, got PT-24H");
    assertThatThrownBy(() -> new Policy(7, 4, WEEK, Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("uncommittedGrace must not be negative, got PT-1S");
    assertThatThrownBy(() -> new Policy(7, 4, null, GRACE)).isInstanceOf(NullPointerException.class)
        .hasMessage("keepPreRestore");
    assertThat(new Policy(0, 0, Duration.ZERO, Duration.ZERO).keepDaily()).isZero();
  }

  @Test
  void aBackupHasAKindExactlyWhenCommitted() {
    assertThatThrownBy(() -> new Backup(at2("2026-11-26"), true, null)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("committed=true kind=null");
    assertThatThrownBy(() -> new Backup(at2("2026-11-26"), false, "scheduled"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("committed=false kind=scheduled");
  }

  @Test
  void aListingOfSeveralDatabasesOrWithAnIdTwiceIsRefused() {
    Backup other = scheduled(new BackupId("other", Instant.parse("2026-11-26T02:00:00Z"), "c0ffee"));
    assertThatThrownBy(() -> Retention.decide(List.of(scheduled(at2("2026-11-25")), other), policy(7, 4), NOW, false))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("databases app and other");
    assertThatThrownBy(() -> Retention.decide(List.of(scheduled(at2("2026-11-25")),
        Backup.uncommitted(at2("2026-11-25"))), policy(7, 4), NOW, false))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("listed twice");
  }
}
