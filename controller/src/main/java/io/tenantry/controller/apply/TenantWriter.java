package io.tenantry.controller.apply;

import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantStatus;
import java.util.List;

/**
 * Writes the Tenant object itself: its status and its finalizers. Every write is guarded by the
 * cached copy's resourceVersion: if the Tenant changed meanwhile it fails with a conflict (409) and
 * the tenant is synced again on fresh data, so nothing is overwritten blindly (another
 * controller's finalizer, a spec edit).
 */
public interface TenantWriter {

  void writeStatus(Tenant cached, TenantStatus status);

  void writeFinalizers(Tenant cached, List<String> finalizers);
}
