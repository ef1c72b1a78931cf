package io.tenantry.controller.apply;

import io.fabric8.kubernetes.api.model.HasMetadata;

/** Writes a tenant's owned objects. {@link Applier} is the one against the API server. */
public interface ObjectWriter {

  /** Makes {@code desired}'s fields the operator's, creating the object when {@code create}. */
  void write(HasMetadata desired, boolean create);

  /** Deletes an owned object that is no longer desired (dependents go in the background). */
  void delete(HasMetadata cached);
}
