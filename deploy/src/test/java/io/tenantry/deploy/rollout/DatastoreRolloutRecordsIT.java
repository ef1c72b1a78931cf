package io.tenantry.deploy.rollout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.datastore.Datastore;
import com.google.cloud.datastore.Entity;
import com.google.cloud.datastore.Key;
import io.tenantry.spares.DatastoreEmulator;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The rollout records against the Cloud Datastore emulator: who may run a rollout, and pause/abort seen by its runner. */
class DatastoreRolloutRecordsIT {

  private static final Instant T0 = Instant.parse("2026-03-01T10:00:00.123456Z");
  private static final AtomicInteger NAMESPACES = new AtomicInteger();
  private static DatastoreEmulator emulator;
  private static Datastore datastore;
  private RolloutRecords records;
  private String namespace;

  @BeforeAll
  static void startEmulator() throws Exception {
    emulator = DatastoreEmulator.start();
    datastore = emulator.datastore();
  }

  @AfterAll
  static void stopEmulator() {
    emulator.close();
  }

  @BeforeEach
  void freshNamespace() {
    namespace = "rollouts-it-" + NAMESPACES.incrementAndGet();
    records = new DatastoreRolloutRecords(datastore, namespace);
  }

  private Rollout stored(String id) {
    RolloutRequest request = new RolloutRequest("web", "2.0.0", Selection.names(List.of("a", "b", "c")), List.of("eu"),
        2, FailureLimits.fromFlags(null, null), Duration.ofMinutes(10));
    Rollout rollout = new Rollout(id, request, RolloutState.RUNNING, List.of("eu"),
        List.of(new Wave(1, "eu", List.of(TenantProgress.pending("a"), TenantProgress.pending("b"))),
            new Wave(2, "eu", List.of(TenantProgress.pending("c")))),
        List.of(), T0, T0, null, null, null);
    records.create(rollout);
    return rollout;
  }

  @Test
  void aRolloutIsStoredWithItsWavesAndProgress() {
    Rollout rollout = stored("web-1");
    assertThat(records.get("web-1")).contains(rollout);
    assertThatThrownBy(() -> stored("web-1")).isInstanceOf(RolloutConflictException.class);

    Runner runner = Runner.current();
    Rollout claimed = records.claim("web-1", runner, T0.plusSeconds(1));
    Wave wave = claimed.waves().get(0).with(TenantProgress.pending("a").applied("1.0.0", 2, T0.plusSeconds(2)).succeeded());
    Rollout progressed = claimed.withWave(wave);
    assertThat(records.saveWave(progressed, wave, runner, T0.plusSeconds(3))).isEqualTo(RolloutState.RUNNING);

    Rollout read = records.get("web-1").orElseThrow();
    assertThat(read.waves().get(0)).isEqualTo(wave);
    assertThat(read.runner()).isEqualTo(runner.id());
    assertThat(records.list()).singleElement().satisfies(s -> {
      assertThat(s.succeeded()).isEqualTo(1);
      assertThat(s.tenants()).isEqualTo(3);
    });
    assertThat(records.unfinished("web")).hasSize(1);
    assertThat(records.unfinished("api")).isEmpty();
  }

  @Test
  void theFailureLimitsAreKeptAndARecordFromBeforeTheRatioStillLoads() {
    for (FailureLimits limits : List.of(FailureLimits.fromFlags(null, 0.2), FailureLimits.fromFlags(3, 0.25))) {
      String id = "web-ratio-" + limits.maxFailures();
      RolloutRequest request = new RolloutRequest("web", "2.0.0", Selection.all(), List.of("eu"), 10, limits,
          Duration.ofMinutes(10));
      Rollout rollout = new Rollout(id, request, RolloutState.RUNNING, List.of("eu"),
          List.of(new Wave(1, "eu", List.of(TenantProgress.pending("a")))), List.of(), T0, T0, null, null, null);
      records.create(rollout);
      assertThat(records.get(id).orElseThrow().request().failureLimits()).isEqualTo(limits);
    }

    // Written as tenantctl did before --max-failure-ratio: maxFailures always, no maxFailureRatio.
    stored("web-old");
    Key key = datastore.newKeyFactory().setNamespace(namespace).setKind(DatastoreRolloutRecords.ROLLOUT).newKey("web-old");
    Entity header = datastore.get(key);
    assertThat(header.contains("maxFailureRatio")).isFalse();
    datastore.put(Entity.newBuilder(header).set("maxFailures", 2L).build());
    assertThat(records.get("web-old").orElseThrow().request().failureLimits()).isEqualTo(new FailureLimits(2, null));
  }

  @Test
  void aPauseOrAbortFromAnotherTenantctlIsWhatTheRunnersNextWriteReturnsAndIsNeverOverwritten() {
    Rollout rollout = stored("web-2");
    Runner runner = Runner.current();
    records.claim("web-2", runner, T0);
    records.stop("web-2", RolloutState.PAUSED, T0.plusSeconds(1));
    assertThat(records.heartbeat("web-2", runner, T0.plusSeconds(2))).isEqualTo(RolloutState.PAUSED);
    // The runner ends: its SUCCEEDED does not replace the pause.
    assertThat(records.release("web-2", runner, RolloutState.SUCCEEDED, "done", T0.plusSeconds(3)).state())
        .isEqualTo(RolloutState.PAUSED);
    assertThatThrownBy(() -> records.stop("web-2", RolloutState.PAUSED, T0)).isInstanceOf(RolloutConflictException.class)
        .hasMessageContaining("is PAUSED; only a RUNNING rollout can be paused");
    assertThat(records.stop("web-2", RolloutState.ABORTED, T0.plusSeconds(4)).state()).isEqualTo(RolloutState.ABORTED);
    assertThatThrownBy(() -> records.claim("web-2", runner, T0.plusSeconds(5)))
        .hasMessage("rollout web-2 is ABORTED and cannot be resumed");
    assertThat(rollout.id()).isEqualTo("web-2");
  }

  @Test
  void aLiveRunnerKeepsItsRolloutAGoneOneIsTakenOver() throws Exception {
    stored("web-3");
    Runner first = Runner.current();
    records.claim("web-3", first, T0);
    Runner second = Runner.current();
    // Same host, same (live) process: only a stale heartbeat frees it.
    assertThatThrownBy(() -> records.claim("web-3", second, T0.plusSeconds(5)))
        .isInstanceOf(RolloutConflictException.class).hasMessageContaining("is being run by tenantctl " + first.id());
    assertThatThrownBy(() -> records.saveWave(records.get("web-3").orElseThrow(), records.get("web-3").orElseThrow()
        .waves().get(0), second, T0)).hasMessageContaining("was taken over by " + first.id());
    assertThat(records.claim("web-3", second, T0.plus(Runner.STALE_AFTER).plusSeconds(1)).runner()).isEqualTo(second.id());

    // A runner whose process is gone (killed) is taken over at once on its host.
    Process gone = new ProcessBuilder("true").start();
    gone.waitFor(10, TimeUnit.SECONDS);
    Runner killed = new Runner(second.host(), gone.pid(), "dead0000");
    stored("web-4");
    records.claim("web-4", killed, T0);
    assertThat(records.claim("web-4", first, T0.plusSeconds(1)).runner()).isEqualTo(first.id());
  }
}
