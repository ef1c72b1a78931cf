package io.tenantry.controller.events;

import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.controller.status.Reason;

/** Records Kubernetes Events on Tenants, for transitions and failures. Best effort: never throws. */
public interface EventRecorder {

  void record(Tenant tenant, EventType type, Reason reason, String message);
}
