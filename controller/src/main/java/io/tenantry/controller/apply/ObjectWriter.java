package io.tenantry.controller.apply;

import io.fabric8.kubernetes.api.model.HasMetadata;

/** Writes a tenant's owned objects. {@link Applier} is the one against the API server. */
public interface ObjectWriter {

  /** Makes {@code desired}'s fields the operator's, creating the object when {@code create}. */
  void write(HasMetadata desired, boolean create);

  /**
   * Applies {@code fields} (a partial object) under the hand-over field manager, so that they keep
   * an owner and their value once the operator's own apply leaves them out.
   */
  void handOver(HasMetadata fields);

  /** Deletes an owned object that is no longer desired (dependents go in the background). */
  void delete(HasMetadata cached);
}
