package io.tenantry.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.tenantry.api.v1alpha1.Tenant;
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
}
