package io.tenantry.controller.apply;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Makes a tenant's owned objects match the desired ones: writes what differs, deletes what is
 * owned but no longer desired. Secrets and the namespace are never deleted here (they hold
 * customer data; only purging a tenant removes them).
 */
public final class Converger {

  private final Applier applier;

  public Converger(Applier applier) {
    this.applier = applier;
  }

  /** Returns the number of writes and deletes it made. */
  public int converge(List<HasMetadata> desired, List<HasMetadata> owned) {
    Map<ObjectKey, HasMetadata> existing = new HashMap<>();
    owned.forEach(o -> existing.put(ObjectKey.of(o), o));
    int changes = 0;
    for (HasMetadata want : desired) {
      HasMetadata have = existing.remove(ObjectKey.of(want));
      keepImmutableFields(want, have);
      if (applier.apply(want, have)) {
        changes++;
      }
    }
    for (HasMetadata leftover : existing.values()) {
      if (leftover instanceof Secret || leftover instanceof Namespace || leftover.getMetadata().getDeletionTimestamp() != null) {
        continue;
      }
      applier.delete(leftover);
      changes++;
    }
    return changes;
  }

  /**
   * A StatefulSet's volume claim templates cannot change once created (the API server refuses
   * it); the existing ones are kept, so a changed storage size applies to new databases only.
   */
  static void keepImmutableFields(HasMetadata desired, HasMetadata cached) {
    if (desired instanceof StatefulSet want && cached instanceof StatefulSet have) {
      want.getSpec().setVolumeClaimTemplates(have.getSpec().getVolumeClaimTemplates().stream()
          .map(t -> new io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder(t).withStatus(null).build())
          .toList());
    }
  }
}
