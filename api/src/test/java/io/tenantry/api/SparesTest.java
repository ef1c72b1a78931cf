package io.tenantry.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.api.v1alpha1.TenantSpec;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.api.v1alpha1.TenantStatus;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SparesTest {

  @Test
  void aTenantIsJustBoundFromTheAllocationApisBindUntilItsFirstSyncReportsIt() {
    Tenant tenant = new Tenant();
    tenant.setSpec(new TenantSpec());
    tenant.getSpec().setState(TenantState.Active);
    tenant.setStatus(new TenantStatus());
    tenant.getStatus().setObservedState(TenantState.New);
    assertThat(Spares.justBound(tenant)).as("bound by hand").isFalse();

    tenant.getMetadata().setAnnotations(new HashMap<>(Map.of(WellKnown.ALLOCATION_REQUEST, "signup-1")));
    assertThat(Spares.justBound(tenant)).isTrue();

    tenant.getStatus().setObservedState(TenantState.Active);
    assertThat(Spares.justBound(tenant)).as("reported Active already").isFalse();
  }

  @Test
  void aBoundTenantServesOnceReadyAtItsGenerationInTheStateAskedAndRoutedWhenRoutingIsOn() {
    Tenant tenant = boundOnItsSparesReady();
    assertThat(Spares.serving(tenant, Spares.Exposure.NOT_ROUTED)).as("still the spare's Ready").isFalse();

    tenant.getStatus().setObservedState(TenantState.Active);
    assertThat(Spares.serving(tenant, Spares.Exposure.NOT_ROUTED)).as("Ready of an older generation").isFalse();

    tenant.getStatus().setObservedGeneration(3L);
    assertThat(Spares.serving(tenant, Spares.Exposure.NOT_ROUTED)).isTrue();
    assertThat(Spares.serving(tenant, Spares.Exposure.ROUTED)).as("no Routed condition yet").isFalse();

    tenant.getStatus().getConditions().add(new ConditionBuilder().withType("Routed").withStatus("False").build());
    assertThat(Spares.serving(tenant, Spares.Exposure.ROUTED)).isFalse();
    tenant.getStatus().getConditions().get(0).setStatus("True");
    assertThat(Spares.serving(tenant, Spares.Exposure.ROUTED)).isTrue();

    tenant.getStatus().setPhase(TenantPhase.Progressing);
    assertThat(Spares.serving(tenant, Spares.Exposure.ROUTED)).isFalse();
  }

  @Test
  void gatedAtTheEdgeAJustBoundTenantServesOnItsSparesReadyAndTheEdgeTellsTheRest() {
    Tenant tenant = boundOnItsSparesReady();
    tenant.getMetadata().setAnnotations(new HashMap<>(Map.of(WellKnown.ALLOCATION_REQUEST, "signup-1")));
    assertThat(Spares.serving(tenant, Spares.Exposure.EDGE_GATED)).as("the spare's Ready, its route in place").isTrue();
    assertThat(Spares.serving(tenant, Spares.Exposure.ROUTED)).as("its Services not known opened yet").isFalse();

    tenant.getStatus().setPhase(TenantPhase.Progressing);
    assertThat(Spares.serving(tenant, Spares.Exposure.EDGE_GATED)).as("its spare was not Ready").isFalse();

    tenant.getStatus().setPhase(TenantPhase.Ready);
    tenant.getStatus().setObservedState(TenantState.Active);
    assertThat(Spares.serving(tenant, Spares.Exposure.EDGE_GATED)).as("reported, at an older generation").isFalse();
    tenant.getStatus().setObservedGeneration(3L);
    assertThat(Spares.serving(tenant, Spares.Exposure.EDGE_GATED)).as("no Routed condition needed: the edge tells").isTrue();

    tenant.getSpec().setState(TenantState.Frozen);
    tenant.getMetadata().setGeneration(4L);
    assertThat(Spares.serving(tenant, Spares.Exposure.EDGE_GATED)).isFalse();
  }

  @Test
  void onlyAnAllocationNotYetMarkedRecordedIsUnrecorded() {
    Tenant tenant = new Tenant();
    assertThat(Spares.unrecorded(tenant)).as("not allocated").isFalse();
    tenant.getMetadata().setAnnotations(new HashMap<>(Map.of(WellKnown.ALLOCATION_REQUEST, "signup-1")));
    assertThat(Spares.unrecorded(tenant)).isTrue();
    tenant.getMetadata().getAnnotations().put(WellKnown.ALLOCATION_RECORDED, "true");
    assertThat(Spares.unrecorded(tenant)).isFalse();
  }

  @Test
  void nextInLineAreTheLongestStandingReadySparesByNameOnATie() {
    Tenant oldest = readySpare("pool-b", "2026-11-28T10:00:00Z");
    Tenant tiedByName = readySpare("pool-a", "2026-11-28T10:00:01Z");
    Tenant tied = readySpare("pool-c", "2026-11-28T10:00:01Z");
    Tenant newest = readySpare("pool-d", "2026-11-28T10:00:02Z");
    Tenant building = readySpare("pool-e", "2026-11-28T09:00:00Z");
    building.getStatus().setPhase(TenantPhase.Provisioning);
    Tenant bound = readySpare("pool-f", "2026-11-28T09:00:00Z");
    bound.getSpec().setOrganization("Acme");
    List<Tenant> pool = List.of(newest, tied, bound, building, tiedByName, oldest);

    assertThat(Spares.nextInLine(pool, 3)).containsExactlyInAnyOrder("pool-b", "pool-a", "pool-c");
    assertThat(Spares.nextInLine(pool, 2)).containsExactlyInAnyOrder("pool-b", "pool-a");
    assertThat(Spares.nextInLine(pool, 10)).as("only Ready spares").hasSize(4);
    assertThat(Spares.nextInLine(pool, 0)).isEmpty();
    for (int count : new int[] {3, Integer.MAX_VALUE}) { // A line, and every Ready spare (the default).
      for (Tenant spare : pool) {
        assertThat(Spares.isNextInLine(spare, pool, count)).as("%s in %d", spare.getMetadata().getName(), count)
            .isEqualTo(Spares.nextInLine(pool, count).contains(spare.getMetadata().getName()));
      }
    }
    assertThat(Spares.isNextInLine(tied, List.of(newest, oldest), 2)).as("with the pool's others only").isTrue();
    assertThat(Spares.isNextInLine(newest, List.of(newest, oldest, tied), 2)).isFalse();
  }

  private static Tenant readySpare(String name, String created) {
    Tenant spare = new Tenant();
    spare.getMetadata().setName(name);
    spare.getMetadata().setCreationTimestamp(created);
    spare.getMetadata().setGeneration(1L);
    spare.getMetadata().setLabels(new HashMap<>(Map.of(WellKnown.SPARE_POOL, "pool")));
    spare.setSpec(new TenantSpec());
    spare.getSpec().setState(TenantState.New);
    spare.setStatus(new TenantStatus());
    spare.getStatus().setPhase(TenantPhase.Ready);
    spare.getStatus().setObservedGeneration(1L);
    return spare;
  }

  /** Bound (Active, generation 3), its status still the spare's: New, Ready at generation 2. */
  private static Tenant boundOnItsSparesReady() {
    Tenant tenant = new Tenant();
    tenant.getMetadata().setGeneration(3L);
    tenant.setSpec(new TenantSpec());
    tenant.getSpec().setState(TenantState.Active);
    tenant.setStatus(new TenantStatus());
    tenant.getStatus().setObservedState(TenantState.New);
    tenant.getStatus().setPhase(TenantPhase.Ready);
    tenant.getStatus().setObservedGeneration(2L);
    return tenant;
  }
}
