package io.tenantry.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.api.v1alpha1.TenantSpec;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.api.v1alpha1.TenantStatus;
import java.util.HashMap;
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
    Tenant tenant = new Tenant();
    tenant.getMetadata().setGeneration(3L);
    tenant.setSpec(new TenantSpec());
    tenant.getSpec().setState(TenantState.Active);
    tenant.setStatus(new TenantStatus());
    tenant.getStatus().setObservedState(TenantState.New);
    tenant.getStatus().setPhase(TenantPhase.Ready);
    tenant.getStatus().setObservedGeneration(2L);
    assertThat(Spares.serving(tenant, false)).as("still the spare's Ready").isFalse();

    tenant.getStatus().setObservedState(TenantState.Active);
    assertThat(Spares.serving(tenant, false)).as("Ready of an older generation").isFalse();

    tenant.getStatus().setObservedGeneration(3L);
    assertThat(Spares.serving(tenant, false)).isTrue();
    assertThat(Spares.serving(tenant, true)).as("no Routed condition yet").isFalse();

    tenant.getStatus().getConditions().add(new ConditionBuilder().withType("Routed").withStatus("False").build());
    assertThat(Spares.serving(tenant, true)).isFalse();
    tenant.getStatus().getConditions().get(0).setStatus("True");
    assertThat(Spares.serving(tenant, true)).isTrue();

    tenant.getStatus().setPhase(TenantPhase.Progressing);
    assertThat(Spares.serving(tenant, true)).isFalse();
  }
}
