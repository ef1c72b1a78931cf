package io.tenantry.controller.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.utils.Serialization;
import io.tenantry.api.Spares;
import io.tenantry.api.WellKnown;
import io.tenantry.api.v1alpha1.AppSpec;
import io.tenantry.api.v1alpha1.SparePool;
import io.tenantry.api.v1alpha1.SparePoolSpec;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.api.v1alpha1.TenantStatus;
import io.tenantry.api.v1alpha1.TenantTemplate;
import io.tenantry.controller.fakes.FakeCluster;
import io.tenantry.controller.fakes.Writes;
import io.tenantry.controller.queue.SyncResult;
import io.tenantry.spares.fleet.InMemoryFleetRecords;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The spare pool's decisions: fill the buffer at most maxProvisioning at a time, refill, surge, follow the template, retire. */
class SparePoolReconcilerTest {

  private static final Instant NOW = Instant.parse("2026-03-01T10:00:00Z");

  private final FakeCluster cluster = new FakeCluster();
  private final Writes writes = new Writes(cluster);
  /** The spares the reconciler queued for their route ahead, in order, and after how long. */
  private final List<String> routedAhead = new ArrayList<>();
  private final List<Duration> routedAfter = new ArrayList<>();
  /** The bound tenants whose route, as it is now, the edge has not taken yet. */
  private final Set<String> edgeBehind = new HashSet<>();
  /** The clock of {@link #reconciler}: still unless a test moves it. */
  private final MovingClock now = new MovingClock(NOW);
  private final SparePoolReconciler reconciler = new SparePoolReconciler(cluster, writes, SpareNames.CLUSTER_ONLY,
      now, true, new SparePoolReconciler.Edge(2, (name, after) -> {
        routedAhead.add(name);
        routedAfter.add(after);
      }, tenant -> !edgeBehind.contains(tenant.getMetadata().getName())));

  private void pool(int buffer, int maxProvisioning, String version) {
    TenantTemplate template = new TenantTemplate();
    template.getApps().add(new AppSpec("web", "registry.example.com/acme/web", version, 1, 8080));
    SparePool pool = new SparePool();
    pool.getMetadata().setName("default");
    pool.setSpec(new SparePoolSpec(buffer, maxProvisioning, template));
    cluster.putPool(pool);
  }

  private List<Tenant> spares() {
    return cluster.spares("default");
  }

  private long created(List<String> log) {
    return log.stream().filter(w -> w.startsWith("create Tenant default-")).count();
  }

  /** Every spare of the pool reports Ready for its current spec, as the tenant controller would once it converged. */
  private void allReady() {
    for (Tenant spare : spares()) {
      TenantStatus status = new TenantStatus();
      status.setPhase(TenantPhase.Ready);
      status.setObservedGeneration(spare.getMetadata().getGeneration());
      spare.setStatus(status);
      cluster.putTenant(spare);
    }
  }

  private void shortageAt(Instant when) {
    SparePool pool = Serialization.clone(cluster.pool("default"));
    pool.getMetadata().getAnnotations().put(WellKnown.SHORTAGE_AT, when.toString());
    cluster.putPool(pool);
  }

  @Test
  void anEmptyPoolBuildsAtMostMaxProvisioningSparesAtOnceUntilTheBufferIsFull() {
    pool(5, 2, "1.0.0");
    assertThat(reconciler.sync("default")).isEqualTo(SyncResult.done());
    List<String> first = writes.take();
    assertThat(created(first)).isEqualTo(2);
    assertThat(first).last().isEqualTo("status SparePool default ready=0 provisioning=2 allocated=0");
    assertThat(spares()).allSatisfy(s -> {
      assertThat(s.getSpec().getState()).isEqualTo(TenantState.New);
      assertThat(s.getSpec().getApps().get(0).getVersion()).isEqualTo("1.0.0");
      assertThat(s.getMetadata().getFinalizers()).as("created with it: its first sync need not add it")
          .containsExactly(WellKnown.CLEANUP_FINALIZER);
    });

    reconciler.sync("default");
    assertThat(created(writes.take())).as("two still provisioning: no room to build more").isZero();

    allReady();
    reconciler.sync("default");
    assertThat(created(writes.take())).isEqualTo(2);
    allReady();
    reconciler.sync("default");
    assertThat(created(writes.take())).as("the fifth").isEqualTo(1);
    allReady();
    reconciler.sync("default");
    List<String> full = writes.take();
    assertThat(full).containsExactly("status SparePool default ready=5 provisioning=0 allocated=0");
    assertThat(cluster.pool("default").getStatus().getConditions().get(0).getReason()).isEqualTo("BufferFull");
  }

  @Test
  void aSpareNameAnotherClusterReservedIsDrawnAgainBeforeAnyTenantIsCreated() {
    InMemoryFleetRecords records = new InMemoryFleetRecords();
    List<String> offered = new ArrayList<>();
    SpareNames west = SpareNames.fleet(records, "west");
    // The east cluster reserves the first name west draws, just before west asks for it.
    SpareNames clashing = name -> {
      offered.add(name);
      if (offered.size() == 1) {
        records.reserveName(name, "east");
      }
      return west.reserve(name);
    };
    pool(1, 1, "1.0.0");
    new SparePoolReconciler(cluster, writes, clashing, Clock.fixed(NOW, ZoneOffset.UTC), true, SparePoolReconciler.Edge.NONE).sync("default");

    assertThat(offered).hasSize(2).allSatisfy(name -> assertThat(name).matches("default-[a-z0-9]{5}"));
    assertThat(spares()).extracting(t -> t.getMetadata().getName()).containsExactly(offered.get(1));
    assertThat(records.placement(offered.get(0))).contains("east");
    assertThat(records.placement(offered.get(1))).as("reserved before its Tenant was created").contains("west");
  }

  @Test
  void whenNoNameCanBeReservedNothingIsCreatedAndTheSyncFails() {
    List<String> offered = new ArrayList<>();
    SparePoolReconciler refusing = new SparePoolReconciler(cluster, writes, name -> !offered.add(name),
        Clock.fixed(NOW, ZoneOffset.UTC), true, SparePoolReconciler.Edge.NONE);
    pool(1, 1, "1.0.0");

    assertThatThrownBy(() -> refusing.sync("default")).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("no free spare name for pool default");
    assertThat(offered).hasSize(5);
    assertThat(spares()).isEmpty();
  }

  @Test
  void whileTheFleetRecordsAreUnavailableNoSpareIsCreatedAndTheFailureNamesThem() {
    InMemoryFleetRecords records = new InMemoryFleetRecords();
    records.setAvailable(false);
    SparePoolReconciler unreserved = new SparePoolReconciler(cluster, writes, SpareNames.fleet(records, "east"),
        Clock.fixed(NOW, ZoneOffset.UTC), true, SparePoolReconciler.Edge.NONE);
    pool(1, 1, "1.0.0");

    assertThatThrownBy(() -> unreserved.sync("default")).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("fleet records (Datastore)");
    assertThat(spares()).isEmpty();
  }

  @Test
  void sparesItCreatedCountBeforeTheCacheShowsThemSoALaggingCacheBuildsNoMore() {
    pool(5, 2, "1.0.0");
    reconciler.sync("default");
    List<Tenant> built = spares();
    assertThat(created(writes.take())).isEqualTo(2);
    built.forEach(spare -> cluster.removeTenant(spare.getMetadata().getName())); // The informer has not seen them yet.

    reconciler.sync("default");
    assertThat(created(writes.take())).as("still building two, though the cache shows none").isZero();

    built.forEach(cluster::putTenant); // Now it has.
    reconciler.sync("default");
    assertThat(created(writes.take())).isZero();
    allReady();
    reconciler.sync("default");
    assertThat(created(writes.take())).isEqualTo(2);
  }

  @Test
  void anAllocatedSpareIsReplacedAndNeverTouched() {
    pool(2, 2, "1.0.0");
    reconciler.sync("default");
    allReady();
    Tenant bound = Serialization.clone(spares().get(0));
    bound.getSpec().setState(TenantState.Active);
    bound.getSpec().setOrganization("Initech");
    cluster.putTenant(bound);
    writes.take();

    reconciler.sync("default");
    List<String> log = writes.take();
    assertThat(created(log)).isEqualTo(1);
    assertThat(log).noneMatch(w -> w.contains(bound.getMetadata().getName()));
    assertThat(cluster.pool("default").getStatus().getAllocated()).isEqualTo(1);
  }

  @Test
  void whileSignupsArriveReplacementsAndTheStatusWaitForAPauseOfASecond() {
    pool(4, 4, "1.0.0");
    reconciler.sync("default");
    allReady();
    allocate(0, NOW.minusMillis(400));
    writes.take();

    SyncResult held = reconciler.sync("default");
    assertThat(writes.take()).as("a signup 0.4 s ago: the replacement and the status wait").isEmpty();
    assertThat(held.requeueAfter()).as("until a second has passed without one").isEqualTo(Duration.ofMillis(600));

    allocate(1, NOW.minusMillis(200));
    allocate(2, NOW.minusMillis(100));
    assertThat(reconciler.sync("default").requeueAfter()).isEqualTo(Duration.ofMillis(900));
    assertThat(writes.take()).as("three of four gone, still arriving").isEmpty();
  }

  @Test
  void aSignupHoldsTheRefillAfterItsFirstSyncAndItsRecordThoughThePoolSawNeitherBefore() {
    pool(4, 4, "1.0.0");
    reconciler.sync("default");
    allReady();
    String first = allocate(0, NOW.minusMillis(400));
    Tenant synced = Serialization.clone(cluster.tenant(first));
    synced.getStatus().setObservedState(TenantState.Active);
    cluster.putTenant(synced);
    writes.take();

    assertThat(reconciler.sync("default").requeueAfter()).isEqualTo(Duration.ofMillis(600));
    assertThat(writes.take()).as("bound 0.4 s ago, its first sync over, its record not marked: the refill waits").isEmpty();

    Tenant recorded = Serialization.clone(cluster.tenant(first));
    recorded.getMetadata().getAnnotations().put(WellKnown.ALLOCATION_RECORDED, NOW.toString());
    cluster.putTenant(recorded);
    assertThat(reconciler.sync("default").requeueAfter()).isEqualTo(Duration.ofMillis(600));
    assertThat(writes.take()).as("its record marked too: the pool remembers the bind").isEmpty();

    now.advance(Duration.ofMillis(600));
    assertThat(reconciler.sync("default")).isEqualTo(SyncResult.done());
    assertThat(created(writes.take())).as("a second without a signup").isEqualTo(1);
  }

  @Test
  void aBurstThatGoesOnPastHalfTheBufferHoldsTheRefillTenSecondsAtMost() {
    MovingClock clock = new MovingClock(NOW);
    SparePoolReconciler reconciler = new SparePoolReconciler(cluster, writes, SpareNames.CLUSTER_ONLY, clock, true, SparePoolReconciler.Edge.NONE);
    pool(30, 30, "1.0.0");
    reconciler.sync("default");
    allReady();
    writes.take();
    for (int i = 0; i < 20; i++) {
      allocate(i, clock.instant());
      SyncResult result = reconciler.sync("default");
      assertThat(writes.take()).as("%d signups in %d ms", i + 1, i * 500).isEmpty();
      assertThat(result.requeueAfter()).isEqualTo(Duration.ofMillis(Math.min(1000, 10_000 - i * 500)));
      clock.advance(Duration.ofMillis(500));
    }
    allocate(20, clock.instant());
    reconciler.sync("default");
    assertThat(created(writes.take())).as("10 s into the burst: replacements for all 21").isEqualTo(21);
  }

  @Test
  void aStreamTheBufferAbsorbsHoldsTheRefillUntilHalfOfItIsGoneAndShowsTheCountsEveryTenSeconds() {
    MovingClock clock = new MovingClock(NOW);
    SparePoolReconciler reconciler = new SparePoolReconciler(cluster, writes, SpareNames.CLUSTER_ONLY, clock, true, SparePoolReconciler.Edge.NONE);
    pool(60, 60, "1.0.0");
    reconciler.sync("default");
    allReady();
    writes.take();
    for (int i = 0; i < 30; i++) {
      allocate(i, clock.instant());
      SyncResult result = reconciler.sync("default");
      List<String> log = writes.take();
      if (i == 20) {
        assertThat(log).as("10 s into the stream").containsExactly("status SparePool default ready=39 provisioning=0 allocated=21");
      } else {
        assertThat(log).as("%d signups in %d ms, %d spares Ready", i + 1, i * 500, 59 - i).isEmpty();
      }
      assertThat(result.requeueAfter()).isEqualTo(Duration.ofSeconds(1));
      clock.advance(Duration.ofMillis(500));
    }
    allocate(30, clock.instant());
    reconciler.sync("default");
    assertThat(created(writes.take())).as("29 of 60 Ready, 15 s into the stream: replacements for all 31").isEqualTo(31);
  }

  @Test
  void aStreamPastHalfTheBufferHoldsTheRefillWhileTheReadySparesLastThirtySecondsAtItsPace() {
    MovingClock clock = new MovingClock(NOW);
    SparePoolReconciler reconciler = new SparePoolReconciler(cluster, writes, SpareNames.CLUSTER_ONLY, clock, true, SparePoolReconciler.Edge.NONE);
    pool(200, 200, "1.0.0");
    reconciler.sync("default");
    allReady();
    writes.take();
    // Two signups a second: 60 Ready spares are the 30 s of cover, reached at the 140th, 69.5 s in.
    // Every other customer's first sync runs before the pool's: those count toward the pace too.
    for (int i = 0; i < 139; i++) {
      String customer = allocate(i, clock.instant());
      if (i % 2 == 1) {
        Tenant synced = Serialization.clone(cluster.tenant(customer));
        synced.getStatus().setObservedState(TenantState.Active);
        cluster.putTenant(synced);
      }
      reconciler.sync("default");
      List<String> log = writes.take();
      assertThat(created(log)).as("%d signups in %d ms, %d spares Ready", i + 1, i * 500, 199 - i).isZero();
      if (i > 0 && i % 20 == 0) {
        assertThat(log).as("%d s into the stream", i / 2)
            .containsExactly("status SparePool default ready=" + (199 - i) + " provisioning=0 allocated=" + (i + 1));
      } else {
        assertThat(log).isEmpty();
      }
      clock.advance(Duration.ofMillis(500));
    }
    allocate(139, clock.instant());
    reconciler.sync("default");
    assertThat(created(writes.take())).as("60 Ready, 30 s at two a second: replacements for all 140").isEqualTo(140);
  }

  /** A clock the test moves. */
  private static final class MovingClock extends Clock {
    private Instant now;

    MovingClock(Instant now) {
      this.now = now;
    }

    void advance(Duration duration) {
      now = now.plus(duration);
    }

    @Override
    public Instant instant() {
      return now;
    }

    @Override
    public ZoneOffset getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      throw new UnsupportedOperationException();
    }
  }

  @Test
  void replacementsOfSignupsThatPausedAreBuiltAtOnce() {
    pool(2, 2, "1.0.0");
    reconciler.sync("default");
    allReady();
    allocate(0, NOW.minusSeconds(5));
    writes.take();

    assertThat(reconciler.sync("default")).isEqualTo(SyncResult.done());
    assertThat(created(writes.take())).isEqualTo(1);
  }

  /** Binds the longest-standing spare to customer i as the allocation API does, stamped with when; its name. */
  private String allocate(int i, Instant when) {
    Tenant bound = Serialization.clone(spares().stream().filter(s -> s.getSpec().getState() == TenantState.New)
        .sorted(Spares.LONGEST_STANDING).toList().get(0));
    bound.getSpec().setState(TenantState.Active);
    bound.getSpec().setOrganization("Customer " + i);
    bound.getMetadata().setAnnotations(new HashMap<>(Map.of(WellKnown.ALLOCATION_REQUEST, "signup-" + i,
        WellKnown.ALLOCATED_AT, when.toString())));
    bound.getStatus().setObservedState(TenantState.New); // Its first sync since the bind has not run.
    cluster.putTenant(bound);
    return bound.getMetadata().getName();
  }

  @Test
  void whileTheBufferCoversABurstsReplacementsWaitUntilTheEdgeTookItsCustomersRoutes() {
    pool(4, 4, "1.0.0");
    reconciler.sync("default");
    allReady();
    String customer = allocate(0, NOW.minusSeconds(2)); // The signups paused.
    edgeBehind.add(customer);
    writes.take();

    SyncResult waiting = reconciler.sync("default");
    assertThat(writes.take()).as("the edge has not taken the customer's route: no replacement, no status").isEmpty();
    assertThat(waiting.requeueAfter()).as("a verdict is no event of the pool's: it looks again").isEqualTo(SparePoolReconciler.EDGE_POLL);

    edgeBehind.clear();
    assertThat(reconciler.sync("default")).isEqualTo(SyncResult.done());
    assertThat(created(writes.take())).isEqualTo(1);
  }

  @Test
  void theEdgeIsWaitedForTenSecondsAfterABindAtMostAndNotOnceTheBufferRunsLow() {
    pool(4, 4, "1.0.0");
    reconciler.sync("default");
    allReady();
    edgeBehind.add(allocate(0, NOW.minusSeconds(10)));
    writes.take();
    reconciler.sync("default");
    assertThat(created(writes.take())).as("bound 10 s ago").isEqualTo(1);

    allReady();
    for (int i = 1; i <= 3; i++) {
      edgeBehind.add(allocate(i, NOW.minusSeconds(2)));
    }
    writes.take();
    reconciler.sync("default");
    assertThat(created(writes.take())).as("1 of the buffer of 4 left Ready: the refill does not wait").isEqualTo(3);
  }

  @Test
  void theSparesNextInLineAreQueuedForTheirRouteOnceAndBindsQueueTheOnesThatJoinTheLineOnceSignupsPause() {
    pool(4, 4, "1.0.0");
    reconciler.sync("default");
    assertThat(routedAhead).as("none Ready yet").isEmpty();
    allReady();
    reconciler.sync("default");
    List<String> byAge = spares().stream().sorted(Spares.LONGEST_STANDING).map(s -> s.getMetadata().getName()).toList();
    assertThat(routedAhead).as("the two longest standing").containsExactly(byAge.get(0), byAge.get(1));
    assertThat(routedAfter).as("one after another").containsExactly(Duration.ZERO, SparePoolReconciler.ROUTE_SPACING);

    routedAhead.clear();
    reconciler.sync("default");
    assertThat(routedAhead).as("the line has not moved").isEmpty();

    allocate(0, NOW);
    reconciler.sync("default");
    assertThat(routedAhead).as("while signups arrive, the line waits as the refill does").isEmpty();

    now.advance(Duration.ofSeconds(1)); // The signups paused.
    reconciler.sync("default");
    assertThat(routedAhead).as("the bind took %s", byAge.get(0)).containsExactly(byAge.get(2));
    assertThat(routedAfter.get(2)).as("those before it written long ago").isEqualTo(Duration.ZERO);
  }

  @Test
  void aShortageGrowsThePoolByMaxProvisioningForTenMinutesThenTheExtraIsRetired() {
    pool(2, 3, "1.0.0");
    reconciler.sync("default");
    allReady();
    shortageAt(NOW.minusSeconds(60));
    writes.take();

    SyncResult surging = reconciler.sync("default");
    assertThat(created(writes.take())).as("buffer 2 + maxProvisioning 3").isEqualTo(3);
    assertThat(surging.requeueAfter()).as("back when the surge ends").isEqualTo(Duration.ofMinutes(9));

    allReady();
    shortageAt(NOW.minus(Duration.ofMinutes(11)));
    reconciler.sync("default");
    List<String> retired = writes.take();
    assertThat(retired).filteredOn(w -> w.startsWith("update Tenant")).hasSize(3).allMatch(w -> w.endsWith("Purged"));
    assertThat(spares()).filteredOn(s -> s.getSpec().getState() == TenantState.New).hasSize(2);
  }

  @Test
  void unallocatedSparesFollowANewTemplateAndARetiredSpareIsDeletedOncePurged() {
    pool(2, 2, "1.0.0");
    reconciler.sync("default");
    allReady();
    pool(1, 2, "2.0.0");
    writes.take();

    reconciler.sync("default");
    List<String> log = writes.take();
    assertThat(log).filteredOn(w -> w.startsWith("update Tenant")).hasSize(2);
    assertThat(spares()).filteredOn(s -> s.getSpec().getState() == TenantState.New)
        .allMatch(s -> s.getSpec().getApps().get(0).getVersion().equals("2.0.0"));
    Tenant retired = spares().stream().filter(s -> s.getSpec().getState() == TenantState.Purged).findFirst().orElseThrow();

    TenantStatus purged = new TenantStatus();
    purged.setPhase(TenantPhase.Purged);
    retired.setStatus(purged);
    cluster.putTenant(retired);
    reconciler.sync("default");
    assertThat(writes.take()).contains("delete Tenant " + retired.getMetadata().getName());
  }

  @Test
  void aDeletedPoolStopsAndLeavesItsSparesAlone() {
    assertThat(reconciler.sync("gone")).isEqualTo(SyncResult.done());
    assertThat(writes.take()).isEmpty();
  }
}
