package io.tenantry.deploy.rollout;

import static io.tenantry.deploy.rollout.Fixtures.pool;
import static io.tenantry.deploy.rollout.Fixtures.request;
import static io.tenantry.deploy.rollout.Fixtures.spare;
import static io.tenantry.deploy.rollout.Fixtures.tenant;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantState;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class WavePlannerTest {

  private static List<Tenant> tenants(String prefix, int count) {
    List<Tenant> tenants = new ArrayList<>();
    // Created in reverse order: the planner sorts by name.
    for (int i = count; i >= 1; i--) {
      tenants.add(tenant(String.format("%s-%02d", prefix, i), TenantState.Active, "web", "worker"));
    }
    return tenants;
  }

  private static List<String> names(Wave wave) {
    return wave.tenants().stream().map(TenantProgress::tenant).toList();
  }

  @Test
  void fortyTenantsOverTwoClustersMakeFourWavesOfTenClusterByCluster() {
    WavePlanner.Plan plan = WavePlanner.plan(request(Selection.all(), 10), List.of(
        new ClusterInventory("eu", tenants("eu", 20), List.of(pool("default", "web"), pool("other", "api"))),
        new ClusterInventory("us", tenants("us", 20), List.of(pool("default", "web")))));

    assertThat(plan.waves()).extracting(Wave::index).containsExactly(1, 2, 3, 4);
    assertThat(plan.waves()).extracting(Wave::cluster).containsExactly("eu", "eu", "us", "us");
    assertThat(names(plan.waves().get(0))).containsExactly("eu-01", "eu-02", "eu-03", "eu-04", "eu-05", "eu-06",
        "eu-07", "eu-08", "eu-09", "eu-10");
    assertThat(names(plan.waves().get(3))).startsWith("us-11").endsWith("us-20");
    assertThat(plan.waves()).allSatisfy(w -> assertThat(w.tenants()).allMatch(t -> t.step() == TenantProgress.Step.PENDING));
    // --all: the pools that run the app follow; the one without it does not.
    assertThat(plan.pools()).containsExactly(new PoolProgress("eu", "default", false), new PoolProgress("us", "default", false));
  }

  @Test
  void aWaveNeverSpansTwoClustersAndClustersComeInTheRequestedOrder() {
    WavePlanner.Plan plan = WavePlanner.plan(request(Selection.all(), 7, "us", "eu"), List.of(
        new ClusterInventory("us", tenants("us", 8), List.of()),
        new ClusterInventory("eu", tenants("eu", 3), List.of())));

    assertThat(plan.waves()).extracting(Wave::cluster).containsExactly("us", "us", "eu");
    assertThat(plan.waves()).extracting(w -> w.tenants().size()).containsExactly(7, 1, 3);
    assertThat(plan.clusters()).containsExactly("us", "eu");
  }

  @Test
  void sparesFrozenTenantsAndTenantsWithoutTheAppAreLeftOut() {
    List<Tenant> tenants = List.of(tenant("a", TenantState.Active, "web"), tenant("b", TenantState.New, "web"),
        tenant("c", TenantState.Frozen, "web"), tenant("d", TenantState.Active, "api"), spare("e", "default"));
    WavePlanner.Plan plan = WavePlanner.plan(request(Selection.all(), 10),
        List.of(new ClusterInventory("eu", tenants, List.of())));

    assertThat(plan.waves()).hasSize(1);
    assertThat(names(plan.waves().get(0))).containsExactly("a", "b");
    assertThat(plan.skipped()).containsExactly("eu/c: Frozen", "eu/d: no app web");
  }

  @Test
  void aSubsetLeavesThePoolsOnTheFleetsVersion() {
    WavePlanner.Plan plan = WavePlanner.plan(request(Selection.names(List.of("eu-02", "eu-01")), 10),
        List.of(new ClusterInventory("eu", tenants("eu", 5), List.of(pool("default", "web")))));

    assertThat(names(plan.waves().get(0))).containsExactly("eu-01", "eu-02");
    assertThat(plan.pools()).isEmpty();
  }

  @Test
  void namedTenantsMustExistRunAndHaveTheApp() {
    List<ClusterInventory> fleet = List.of(new ClusterInventory("eu", List.of(tenant("a", TenantState.Active, "web"),
        tenant("f", TenantState.Frozen, "web"), tenant("x", TenantState.Active, "api"), spare("s", "default")),
        List.of()), new ClusterInventory("us", List.of(), List.of()));

    assertThatThrownBy(() -> WavePlanner.plan(request(Selection.names(List.of("a", "nope")), 10), fleet))
        .isInstanceOf(RolloutInputException.class).hasMessage("--tenants: no tenant named nope in clusters eu, us");
    assertThatThrownBy(() -> WavePlanner.plan(request(Selection.names(List.of("f")), 10), fleet))
        .hasMessage("--tenants: f is Frozen; only New and Active tenants are rolled out");
    assertThatThrownBy(() -> WavePlanner.plan(request(Selection.names(List.of("x")), 10), fleet))
        .hasMessage("--app: tenant x has no app named web");
    assertThatThrownBy(() -> WavePlanner.plan(request(Selection.names(List.of("s")), 10), fleet))
        .hasMessage("--tenants: s is an unallocated spare of pool default; spares follow their pool's template");
  }

  @Test
  void anEmptySelectionOrAnUnknownAppIsRefusedNamingTheFlag() {
    assertThatThrownBy(() -> WavePlanner.plan(request(Selection.selector("tier=gold"), 10),
        List.of(new ClusterInventory("eu", List.of(), List.of()))))
        .hasMessage("--selector: tier=gold matches no tenant in clusters eu");
    assertThatThrownBy(() -> WavePlanner.plan(request(Selection.all(), 10),
        List.of(new ClusterInventory("eu", List.of(tenant("a", TenantState.Active, "api")), List.of(pool("p", "api"))))))
        .hasMessage("--app: no selected tenant or spare pool in clusters eu runs an app named web");
  }

  @Test
  void aTenantInTwoClustersIsRefused() {
    assertThatThrownBy(() -> WavePlanner.plan(request(Selection.all(), 10), List.of(
        new ClusterInventory("eu", List.of(tenant("a", TenantState.Active, "web")), List.of()),
        new ClusterInventory("us", List.of(tenant("a", TenantState.Active, "web")), List.of()))))
        .hasMessageStartingWith("--clusters: tenant a exists in both eu and us");
  }
}
